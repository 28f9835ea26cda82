//! Masking the raw provider output a capture keeps beside the transcript
//! (`<run-id>.raw`), as it streams: what the transcript would mask, the raw copy masks
//! too, even where the agent wrote a credential in pieces.
//!
//! The rules, and why these, are on [`RawMasker`]. This room owns the raw output's
//! masking and nothing else: the patterns are the [`Redactor`]'s, the file is the
//! capture's.

use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::sync::Arc;

use super::redact::Redactor;
use crate::model::MAX_LINE_BYTES;

/// A masking hook for a line of raw provider output kept beside the transcript
/// (`<run-id>.raw`): called with each line, its LF taken off, to rewrite in place.
pub type LineMask = Arc<dyn Fn(&mut Vec<u8>) + Send + Sync>;

/// What a line too long to hold keeps back between chunks: longer than any credential the
/// redactor finds across a chunk boundary (a PEM block of a 4096-bit RSA key is 3.3 KB).
pub(crate) const CARRY: usize = 64 << 10;

/// How the raw output kept beside a transcript is masked: a mask of your own, a line at a
/// time ([`RecorderOptions::mask_raw`](super::RecorderOptions::mask_raw)), or the credential
/// redactor, stream-aware ([`RecorderOptions::redact_credentials`](super::RecorderOptions::redact_credentials);
/// see [`RawMasker`]).
#[derive(Clone)]
pub struct RawMask(Kind);

#[derive(Clone)]
enum Kind {
    Lines(LineMask),
    Redactor(Arc<Redactor>),
}

impl RawMask {
    /// A mask applied to every line, its LF taken off.
    pub fn lines(mask: LineMask) -> RawMask {
        RawMask(Kind::Lines(mask))
    }

    /// The redactor's masking, across the pieces of a streamed message and through JSON
    /// escapes.
    pub fn redactor(redactor: Arc<Redactor>) -> RawMask {
        RawMask(Kind::Redactor(redactor))
    }

    /// A masker for one output stream.
    pub fn masker(&self) -> RawMasker {
        RawMasker {
            kind: self.0.clone(),
            partial: Vec::new(),
            long: None,
            held: VecDeque::new(),
            held_bytes: 0,
            first_seq: 0,
            streams: HashMap::new(),
            released: 0,
        }
    }
}

impl std::fmt::Debug for RawMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Kind::Lines(_) => "RawMask::Lines",
            Kind::Redactor(_) => "RawMask::Redactor",
        })
    }
}

/// Masks one stream of raw output fed in chunks: [`push`](RawMasker::push) and
/// [`finish`](RawMasker::finish) append to `out` what may be written now.
///
/// The transcript sees a message whole, however the agent streamed it: Claude's
/// `content_block_delta` lines, OpenAI's chunks, Gemini's `delta: true` messages are joined
/// into one block before the redactor looks. The raw copy sees the pieces, one per line, so
/// masking it line by line left a key streamed across deltas in it, a piece per line. And a
/// JSON encoder may escape what it writes (`\/`, `\u0041`), which a pattern over the raw bytes
/// never matches. So this masker, with the credential redactor:
///
/// * **holds back a delta stream until it ends**, then masks it joined. A *delta* is a JSON
///   string under a key named like `delta` (`event.delta.text`, `choices[0].delta.content`,
///   a Responses event's `delta`, Copilot's `deltaContent`) or in an object with
///   `"delta": true` (Gemini); consecutive lines with a delta at the same key path are one
///   stream, and a JSON line without it ends the stream (lines that are not JSON, SSE's
///   `event:` lines, do not). When a stream ends its pieces are joined, the redactor runs
///   over the joined text (and over it with its JSON escapes decoded, for tool arguments
///   streamed as JSON text), and a credential found across pieces is replaced in the first
///   piece and removed from the others: the raw copy then reads, joined, as the transcript
///   reads. Lines are written in order, each as soon as no stream it is part of is open, so
///   the raw copy lags by at most the message being streamed, which the transcript does not
///   have yet either.
/// * **masks every JSON string decoded**, and writes a string it changed encoded again, so
///   no escape hides a credential; then the line's bytes as they are (text that is not
///   JSON).
/// * **streams a line too long to hold** (over [`MAX_LINE_BYTES`], 16 MiB, or a line the
///   agent never ends): it is masked and written as it comes, all but its last
///   64 KiB, which wait for the rest (a credential found across that boundary is
///   held back whole). Memory is bounded by the line limit, whatever the output.
///
/// The choice, against the other two the issue names: holding back the whole raw copy until
/// the run ends loses it all on a crash, and encrypting it at rest needs a key that lives
/// somewhere the files' reader can find. Holding back only the open stream keeps the copy
/// readable, line for line with the output (line numbers still match; byte offsets inside a
/// masked line do not), and loses, on a crash of axt, only the message the transcript lost
/// too. Its limits: a stream is held up to the line limit, after which what is held is
/// masked and written as it stands (a credential straddling that point is masked in each
/// part only as far as the parts show it); a custom mask ([`LineMask`]) is still applied a
/// line at a time.
pub struct RawMasker {
    kind: Kind,
    /// The start of a line whose LF has not come, while it is short enough to hold.
    partial: Vec<u8>,
    /// A line too long to hold, being streamed: what is kept back of it.
    long: Option<Vec<u8>>,
    /// Complete lines not written yet, oldest first, with `first_seq` the first's number.
    held: VecDeque<Held>,
    held_bytes: usize,
    first_seq: u64,
    /// Open delta streams by key path.
    streams: HashMap<u64, Stream>,
    /// How many bytes of the output the masked bytes let out so far stand for.
    released: u64,
}

impl std::fmt::Debug for RawMasker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawMasker")
            .field("partial", &self.partial.len())
            .field("held", &self.held.len())
            .field("held_bytes", &self.held_bytes)
            .finish_non_exhaustive()
    }
}

/// A complete line waiting to be written.
struct Held {
    bytes: Vec<u8>,
    /// The bytes of the output it stands for, its LF included.
    input_len: u64,
    literals: Vec<Literal>,
    /// Decoded strings the streams replaced pieces of, by literal index.
    replaced: HashMap<usize, Vec<(Range<usize>, String)>>,
    /// Pieces of it in streams still open.
    pending: usize,
}

/// A delta stream: its pieces, where each is, and their text joined.
struct Stream {
    pieces: Vec<Piece>,
    text: String,
}

struct Piece {
    seq: u64,
    literal: usize,
    /// Where it is in the stream's joined text.
    range: Range<usize>,
}

impl RawMasker {
    /// How many bytes of the output what was let out so far stands for (the masked bytes
    /// differ in length): what a writer that accounts for the output's byte ranges needs.
    pub fn released(&self) -> u64 {
        self.released
    }

    /// Masks the next bytes of the output; appends to `out` whatever can be written.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<u8>) {
        while !bytes.is_empty() {
            let lf = memchr::memchr(b'\n', bytes);
            let (piece, ends) = match lf {
                Some(at) => (&bytes[..at], true),
                None => (bytes, false),
            };
            bytes = match lf {
                Some(at) => &bytes[at + 1..],
                None => &[],
            };
            if self.long.is_none() && self.partial.len() + piece.len() > MAX_LINE_BYTES {
                // Too long to hold: what is held goes out first (the lines before it, in
                // order), then the line streams.
                self.release_all(out);
                self.long = Some(std::mem::take(&mut self.partial));
            }
            match &mut self.long {
                Some(kept) => {
                    kept.extend_from_slice(piece);
                    if ends {
                        let mut rest = std::mem::take(kept);
                        self.long = None;
                        self.released += rest.len() as u64 + 1;
                        self.mask_bytes(&mut rest);
                        out.extend_from_slice(&rest);
                        out.push(b'\n');
                    } else {
                        let written = stream_long(&self.kind, kept, out);
                        kept.drain(..written);
                        self.released += written as u64;
                    }
                }
                None => {
                    self.partial.extend_from_slice(piece);
                    if ends {
                        let line = std::mem::take(&mut self.partial);
                        self.line(line, out);
                    }
                }
            }
        }
    }

    /// The output ended: masks and appends everything still held (a last line without
    /// LF included, without one).
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        self.release_all(out);
        if let Some(mut kept) = self.long.take() {
            self.released += kept.len() as u64;
            self.mask_bytes(&mut kept);
            out.extend_from_slice(&kept);
        }
        if !self.partial.is_empty() {
            let mut line = std::mem::take(&mut self.partial);
            self.released += line.len() as u64;
            match &self.kind {
                Kind::Lines(mask) => mask(&mut line),
                Kind::Redactor(redactor) => {
                    let literals = scan(&line);
                    line = render(redactor, &line, &literals, &HashMap::new());
                }
            }
            out.extend_from_slice(&line);
        }
    }

    fn mask_bytes(&self, bytes: &mut Vec<u8>) {
        match &self.kind {
            Kind::Lines(mask) => mask(bytes),
            Kind::Redactor(redactor) => {
                if let std::borrow::Cow::Owned(masked) = redactor.redact_bytes(bytes) {
                    *bytes = masked;
                }
            }
        }
    }

    /// A complete line (without its LF).
    fn line(&mut self, mut line: Vec<u8>, out: &mut Vec<u8>) {
        let input_len = line.len() as u64 + 1;
        let redactor = match &self.kind {
            Kind::Lines(mask) => {
                self.released += input_len;
                mask(&mut line);
                out.extend_from_slice(&line);
                out.push(b'\n');
                return;
            }
            Kind::Redactor(redactor) => Arc::clone(redactor),
        };
        let literals = scan(&line);
        let json = literals.iter().any(|l| l.decoded.is_some()) || looks_like_json(&line);
        let seq = self.first_seq + self.held.len() as u64;
        if json {
            // Streams with no delta in this line have ended.
            let here: Vec<u64> = literals
                .iter()
                .filter(|l| l.delta && l.decoded.is_some())
                .map(|l| l.path)
                .collect();
            let ended: Vec<u64> = self
                .streams
                .keys()
                .filter(|path| !here.contains(path))
                .copied()
                .collect();
            for path in ended {
                self.close(path, &redactor);
            }
        }
        let mut pending = 0;
        for (index, literal) in literals.iter().enumerate() {
            let (true, Some(text)) = (literal.delta, &literal.decoded) else {
                continue;
            };
            let stream = self.streams.entry(literal.path).or_insert_with(|| Stream {
                pieces: Vec::new(),
                text: String::new(),
            });
            let start = stream.text.len();
            stream.text.push_str(text);
            stream.pieces.push(Piece {
                seq,
                literal: index,
                range: start..stream.text.len(),
            });
            pending += 1;
        }
        self.held_bytes += line.len();
        self.held.push_back(Held {
            bytes: line,
            input_len,
            literals,
            replaced: HashMap::new(),
            pending,
        });
        if self.held_bytes > MAX_LINE_BYTES {
            // Held as long as a line may be: what is held is masked as it stands.
            self.release_all(out);
        } else {
            self.release(&redactor, out);
        }
    }

    /// Ends the stream at `path`: masks what its pieces show joined, and lets go of them.
    fn close(&mut self, path: u64, redactor: &Redactor) {
        let Some(stream) = self.streams.remove(&path) else {
            return;
        };
        for (span, marker) in secret_spans(redactor, &stream.text) {
            let touched: Vec<&Piece> = stream
                .pieces
                .iter()
                .filter(|p| p.range.start < span.end && span.start < p.range.end)
                .collect();
            // One piece alone: its line's own masking finds it.
            if touched.len() < 2 {
                continue;
            }
            for (n, piece) in touched.iter().enumerate() {
                let local = span.start.max(piece.range.start) - piece.range.start
                    ..span.end.min(piece.range.end) - piece.range.start;
                let with = if n == 0 {
                    marker.clone()
                } else {
                    String::new()
                };
                if let Some(held) = self.held_mut(piece.seq) {
                    held.replaced
                        .entry(piece.literal)
                        .or_default()
                        .push((local, with));
                }
            }
        }
        for piece in &stream.pieces {
            if let Some(held) = self.held_mut(piece.seq) {
                held.pending -= 1;
            }
        }
    }

    fn held_mut(&mut self, seq: u64) -> Option<&mut Held> {
        let at = usize::try_from(seq.checked_sub(self.first_seq)?).ok()?;
        self.held.get_mut(at)
    }

    /// Writes the lines at the front that no open stream holds.
    fn release(&mut self, redactor: &Redactor, out: &mut Vec<u8>) {
        while self.held.front().is_some_and(|held| held.pending == 0) {
            let held = self.held.pop_front().expect("front checked");
            self.first_seq += 1;
            self.held_bytes -= held.bytes.len();
            self.released += held.input_len;
            out.extend_from_slice(&render(
                redactor,
                &held.bytes,
                &held.literals,
                &held.replaced,
            ));
            out.push(b'\n');
        }
    }

    /// Ends every stream and writes every held line.
    fn release_all(&mut self, out: &mut Vec<u8>) {
        let Kind::Redactor(redactor) = &self.kind else {
            return;
        };
        let redactor = Arc::clone(redactor);
        let open: Vec<u64> = self.streams.keys().copied().collect();
        for path in open {
            self.close(path, &redactor);
        }
        self.release(&redactor, out);
    }
}

/// Writes as much of a long line's kept bytes as is safe: all but the last [`CARRY`]
/// bytes, and never the start of a credential the redactor finds running into them.
/// Returns how many bytes of `kept` were written.
fn stream_long(kind: &Kind, kept: &[u8], out: &mut Vec<u8>) -> usize {
    if kept.len() <= 2 * CARRY {
        return 0;
    }
    let mut cut = kept.len() - CARRY;
    // Never inside a UTF-8 character.
    while cut > 0 && (kept[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    let mut head = kept[..cut].to_vec();
    match kind {
        Kind::Lines(mask) => mask(&mut head),
        Kind::Redactor(redactor) => {
            let text = String::from_utf8_lossy(kept);
            if text.len() == kept.len() {
                // A credential running over the cut waits whole for the next chunk.
                for (span, _) in redactor.spans(&text) {
                    // Only one that began in the carry: a match that runs to the end of the
                    // text (a private key block cut off) must not hold the line forever.
                    if span.start < cut && cut < span.end && cut - span.start <= CARRY {
                        cut = span.start;
                    }
                }
                head.truncate(cut);
            }
            if let std::borrow::Cow::Owned(masked) = redactor.redact_bytes(&head) {
                head = masked;
            }
        }
    }
    out.extend_from_slice(&head);
    cut
}

/// A line as written: each JSON string masked decoded (the streams' replacements first),
/// encoded again where it changed, then the line's bytes masked as they are.
fn render(
    redactor: &Redactor,
    line: &[u8],
    literals: &[Literal],
    replaced: &HashMap<usize, Vec<(Range<usize>, String)>>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len());
    let mut copied = 0;
    for (index, literal) in literals.iter().enumerate() {
        let Some(decoded) = &literal.decoded else {
            continue;
        };
        let mut text = decoded.clone();
        if let Some(replacements) = replaced.get(&index) {
            text = replace(&text, replacements);
        }
        let masked = replace(&text, &secret_spans(redactor, &text));
        if masked == *decoded {
            continue;
        }
        out.extend_from_slice(&line[copied..literal.range.start]);
        let encoded = serde_json::to_string(&masked).expect("a string encodes");
        out.extend_from_slice(encoded.as_bytes());
        copied = literal.range.end;
    }
    out.extend_from_slice(&line[copied..]);
    match redactor.redact_bytes(&out) {
        std::borrow::Cow::Owned(masked) => masked,
        std::borrow::Cow::Borrowed(_) => out,
    }
}

/// `text` with `replacements` (ranges into it, with what replaces each) applied; ranges
/// that overlap an earlier one are skipped.
fn replace<R: AsRef<str>>(text: &str, replacements: &[(Range<usize>, R)]) -> String {
    let mut sorted: Vec<&(Range<usize>, R)> = replacements.iter().collect();
    sorted.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (range, with) in sorted {
        if range.start < copied || range.end > text.len() {
            continue;
        }
        out.push_str(&text[copied..range.start]);
        out.push_str(with.as_ref());
        copied = range.end;
    }
    out.push_str(&text[copied..]);
    out
}

/// The credentials in `text`, and in `text` with its JSON escapes decoded (a tool's
/// arguments are JSON text inside a JSON string: `\/` or `\u0041` there hide a key from a
/// pattern), each as a range of `text` and its marker (`[REDACTED:<kind>]`), in order, not
/// overlapping.
fn secret_spans(redactor: &Redactor, text: &str) -> Vec<(Range<usize>, String)> {
    let mut spans: Vec<(Range<usize>, String)> = redactor
        .spans(text)
        .into_iter()
        .map(|(range, kind)| (range, format!("[REDACTED:{kind}]")))
        .collect();
    if text.contains('\\')
        && let Some((view, origin)) = unescaped(text)
    {
        for (range, kind) in redactor.spans(&view) {
            let range = origin[range.start]..origin[range.end];
            if spans
                .iter()
                .all(|(r, _)| r.end <= range.start || range.end <= r.start)
            {
                spans.push((range, format!("[REDACTED:{kind}]")));
            }
        }
    }
    spans.sort_by_key(|(range, _)| range.start);
    spans
}

/// `text` with its JSON escapes (`\"`, `\\`, `\/`, `\n`, ..., `\uXXXX` and surrogate pairs)
/// decoded, and for every byte of the result (and its end) the offset in `text` where the
/// character it belongs to starts (or where `text` ends): a range of the result maps back
/// to whole escapes. `None` when there is no escape to decode.
fn unescaped(text: &str) -> Option<(String, Vec<usize>)> {
    let bytes = text.as_bytes();
    let mut view = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len() + 1);
    let mut at = 0;
    let mut decoded_any = false;
    while at < bytes.len() {
        let (ch, len) = match bytes[at] {
            b'\\' => match escape(&bytes[at..]) {
                Some(found) => {
                    decoded_any = true;
                    found
                }
                None => ('\\', 1),
            },
            _ => {
                let ch = text[at..].chars().next().expect("a character starts here");
                (ch, ch.len_utf8())
            }
        };
        for _ in 0..ch.len_utf8() {
            origin.push(at);
        }
        view.push(ch);
        at += len;
    }
    origin.push(bytes.len());
    decoded_any.then_some((view, origin))
}

/// The JSON escape at the start of `bytes` (which starts with `\`): the character and how
/// many bytes it takes.
fn escape(bytes: &[u8]) -> Option<(char, usize)> {
    let simple = match bytes.get(1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let hex = |at: usize| {
                let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
                u32::from_str_radix(digits, 16).ok()
            };
            let high = hex(2)?;
            if (0xD800..0xDC00).contains(&high) && bytes.get(6..8) == Some(b"\\u") {
                let low = hex(8)?;
                let code = 0x10000 + ((high - 0xD800) << 10) + (low.checked_sub(0xDC00)?);
                return char::from_u32(code).map(|ch| (ch, 12));
            }
            return char::from_u32(high).map(|ch| (ch, 6));
        }
        _ => return None,
    };
    Some((simple, 2))
}

/// One JSON string of a line.
struct Literal {
    /// Its bytes in the line, quotes included.
    range: Range<usize>,
    /// Its value; `None` when it does not decode (a bad escape, bytes that are not UTF-8).
    decoded: Option<String>,
    /// The key path it is at (keys and array positions), hashed.
    path: u64,
    /// A delta: under a key named like `delta`, or in an object with `"delta": true`.
    delta: bool,
}

/// Whether a line with no string is JSON all the same (`[]`, `{}`): it ends the streams
/// open, as any JSON line without their keys does.
fn looks_like_json(line: &[u8]) -> bool {
    line.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{' || *b == b'[')
}

/// Where a scan is inside the line's JSON.
enum Frame {
    Object {
        id: usize,
        path: u64,
        /// The current member's key (hashed), and whether it names a delta.
        key: Option<(u64, bool)>,
        expecting_key: bool,
        deltas: usize,
    },
    Array {
        path: u64,
        index: u64,
        deltas: usize,
    },
}

/// The JSON strings of a line, with their key paths: a lenient scan that takes whatever is
/// outside strings as structure (an SSE line's `data: ` prefix is skipped like whitespace),
/// so it never fails; an unterminated string ends it.
fn scan(line: &[u8]) -> Vec<Literal> {
    let mut literals = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut objects = 0usize;
    // Objects with `"delta": true`, and the object each literal is in.
    let mut delta_objects = Vec::new();
    let mut in_object: Vec<Option<usize>> = Vec::new();
    let mut at = 0;
    while at < line.len() {
        match line[at] {
            b'"' => {
                let Some(end) = string_end(line, at) else {
                    break;
                };
                let range = at..end;
                match frames.last_mut() {
                    Some(Frame::Object {
                        key, expecting_key, ..
                    }) if *expecting_key => {
                        let name = &line[at + 1..end - 1];
                        let delta = name.windows(5).any(|w| w.eq_ignore_ascii_case(b"delta"));
                        *key = Some((hash(name), delta));
                        *expecting_key = false;
                    }
                    _ => {
                        let (path, deltas, object) = position(&frames);
                        let decoded = serde_json::from_slice::<String>(&line[range.clone()]).ok();
                        literals.push(Literal {
                            range,
                            decoded,
                            path,
                            delta: deltas > 0,
                        });
                        in_object.push(object);
                    }
                }
                at = end;
                continue;
            }
            b'{' | b'[' => {
                let (path, deltas, _) = position(&frames);
                frames.push(if line[at] == b'{' {
                    objects += 1;
                    Frame::Object {
                        id: objects,
                        path,
                        key: None,
                        expecting_key: true,
                        deltas,
                    }
                } else {
                    Frame::Array {
                        path,
                        index: 0,
                        deltas,
                    }
                });
            }
            b'}' | b']' => {
                frames.pop();
            }
            b',' => match frames.last_mut() {
                Some(Frame::Object { expecting_key, .. }) => *expecting_key = true,
                Some(Frame::Array { index, .. }) => *index += 1,
                None => {}
            },
            b't' if line[at..].starts_with(b"true") => {
                if let Some(Frame::Object {
                    id,
                    key: Some((key, _)),
                    ..
                }) = frames.last()
                    && *key == hash(b"delta")
                {
                    delta_objects.push(*id);
                }
            }
            _ => {}
        }
        at += 1;
    }
    for (literal, object) in literals.iter_mut().zip(in_object) {
        if object.is_some_and(|id| delta_objects.contains(&id)) {
            literal.delta = true;
        }
    }
    literals
}

/// The key path of the value the scan is at, hashed; how many keys on it name a delta; the
/// object it is a member of.
fn position(frames: &[Frame]) -> (u64, usize, Option<usize>) {
    match frames.last() {
        None => (0, 0, None),
        Some(Frame::Object {
            id,
            path,
            key,
            deltas,
            ..
        }) => {
            let (name, delta) = key.unwrap_or((0, false));
            (mix(*path, name), deltas + usize::from(delta), Some(*id))
        }
        Some(Frame::Array {
            path,
            index,
            deltas,
        }) => (mix(*path, index.wrapping_add(1)), *deltas, None),
    }
}

/// The end (after the closing quote) of the string starting at `start`; `None` when the
/// line ends first.
fn string_end(line: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    while at < line.len() {
        match line[at] {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

/// FNV-1a: a key's hash, stable and cheap (paths only need telling apart within a stream).
fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn mix(path: u64, step: u64) -> u64 {
    (path ^ step.rotate_left(17)).wrapping_mul(0x0100_0000_01b3) ^ 0x9e37_79b9_7f4a_7c15
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(chunks: &[&[u8]]) -> String {
        let mut masker = RawMask::redactor(Arc::new(Redactor::credentials().clone())).masker();
        let mut out = Vec::new();
        for chunk in chunks {
            masker.push(chunk, &mut out);
        }
        masker.finish(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_key_streamed_across_deltas_is_masked_in_every_piece() {
        let deltas = [
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"the key is sk-ant-api03-"}}}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"abcdefghijklmnop"}}}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"qrstuvwxyz012345 ok"}}}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_stop","index":0}}"#,
        ];
        let input = deltas.join("\n") + "\n";
        let out = masked(&[input.as_bytes()]);
        assert_eq!(out.lines().count(), 4);
        for piece in ["sk-ant-api03", "abcdefghijklmnop", "qrstuvwxyz012345"] {
            assert!(!out.contains(piece), "{piece} in {out}");
        }
        assert!(
            out.contains(r#""text":"the key is [REDACTED:anthropic_key]""#),
            "{out}"
        );
        assert!(out.contains(r#""text":" ok""#), "{out}");
    }

    /// OpenAI Chat Completions chunks (SSE, with `event:` lines that are not JSON between
    /// them) and Gemini CLI's `delta: true` messages: the same joining, by key path.
    #[test]
    fn other_providers_deltas_are_joined_by_key_path() {
        let sse = [
            "event: chunk",
            r#"data: {"choices":[{"index":0,"delta":{"content":"use ghp_0123456789abcdef"}}]}"#,
            "",
            r#"data: {"choices":[{"index":0,"delta":{"content":"ghijABCDEFGHIJ012345 now"}}]}"#,
            "",
            r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "data: [DONE]",
        ];
        let out = masked(&[(sse.join("\n") + "\n").as_bytes()]);
        assert!(
            !out.contains("0123456789abcdef") && !out.contains("ghijABCDEF"),
            "{out}"
        );
        assert!(
            out.contains(r#""content":"use [REDACTED:github_token]""#),
            "{out}"
        );
        assert!(out.contains(r#""content":" now""#), "{out}");
        assert_eq!(out.lines().count(), sse.len());

        let gemini = [
            r#"{"type":"message","role":"assistant","content":"password=hun","delta":true}"#,
            r#"{"type":"message","role":"assistant","content":"ter2-x9 done","delta":true}"#,
            r#"{"type":"result","status":"success"}"#,
        ];
        let out = masked(&[(gemini.join("\n") + "\n").as_bytes()]);
        assert!(!out.contains("hun") && !out.contains("ter2"), "{out}");
        assert!(
            out.contains(r#""content":"password=[REDACTED:password]""#),
            "{out}"
        );
    }

    /// A line is written as soon as no open stream holds it; the lines of a stream wait
    /// for its end, and no longer.
    #[test]
    fn lines_wait_only_for_their_own_stream() {
        let mut masker = RawMask::redactor(Arc::new(Redactor::credentials().clone())).masker();
        let mut out = Vec::new();
        masker.push(b"{\"type\":\"system\"}\n", &mut out);
        assert_eq!(out, b"{\"type\":\"system\"}\n");
        out.clear();
        masker.push(
            b"{\"delta\":{\"text\":\"a\"}}\n{\"delta\":{\"text\":\"b\"}}\n",
            &mut out,
        );
        assert!(out.is_empty(), "held while the stream is open");
        masker.push(b"{\"type\":\"stop\"}\n", &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"delta\":{\"text\":\"a\"}}\n{\"delta\":{\"text\":\"b\"}}\n{\"type\":\"stop\"}\n"
        );
    }

    /// What the masker let out always stands for a prefix of the output, and at the end
    /// for all of it, whatever the chunks: a writer accounts byte ranges by it.
    #[test]
    fn what_is_let_out_stands_for_the_output_read() {
        let input = b"{\"a\":1}\n{\"delta\":{\"text\":\"x\"}}\n{\"b\":2}\nno lf";
        for chunk in 1..input.len() {
            let mut masker = RawMask::redactor(Arc::new(Redactor::credentials().clone())).masker();
            let mut out = Vec::new();
            let mut fed = 0;
            for piece in input.chunks(chunk) {
                masker.push(piece, &mut out);
                fed += piece.len() as u64;
                assert!(masker.released() <= fed);
            }
            masker.finish(&mut out);
            assert_eq!(masker.released(), input.len() as u64);
            assert_eq!(out, input);
        }
    }

    #[test]
    fn escapes_do_not_hide_a_key() {
        let line = br#"{"text":"aws_secret_access_key=wJalrXUtnFEMI\/K7MDENG\/bPxRfiCYEXAMPLEKEY and \u0041KIAIOSFODNN7EXAMPLE"}"#;
        let out = masked(&[line, b"\n"]);
        assert_eq!(
            out,
            "{\"text\":\"aws_secret_access_key=[REDACTED:aws_secret_access_key] and [REDACTED:aws_access_key_id]\"}\n"
        );
    }

    #[test]
    fn a_line_never_ended_is_streamed_in_bounded_memory() {
        let mut masker = RawMask::redactor(Arc::new(Redactor::credentials().clone())).masker();
        let mut out = Vec::new();
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..20 {
            masker.push(&chunk, &mut out);
            let kept = masker.long.as_ref().map_or(masker.partial.len(), Vec::len);
            assert!(kept <= MAX_LINE_BYTES + (1 << 20), "{kept}");
            out.clear();
        }
        assert!(
            masker
                .long
                .as_ref()
                .is_some_and(|kept| kept.len() <= 2 * CARRY + (1 << 20))
        );
    }
}
