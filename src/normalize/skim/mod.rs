//! A plan's quick read of a record's few fields: the record validated whole as serde_json
//! reads it, its strings skipped 64 bytes a block, escapes and all, the fields a plan
//! asks for handed on borrowed. A store's plan reads every record of a session this way
//! before transcription reads them again: most of a record is a long string (a command's
//! output, a message's content) that serde_json skips at several instructions a byte.
//!
//! A skim gives up (`None`) at anything it does not read exactly as serde_json would: an
//! escaped key or field string, a nesting deeper than [`MAX_DEPTH`], a control character in
//! a string, and everything serde_json refuses. The caller then reads the record with
//! serde_json, so a skim decides nothing serde_json would decide otherwise: what it accepts
//! serde_json accepts, with the same fields (a key is matched as written, unescaped; a
//! field's string is UTF-8 checked as serde_json's borrowed `str`).
//!
//! [`string_end`], the skim's reading of a string, is also the Copilot adapter's, which
//! reads the streaming deltas it ignores by their envelope alone.
//!
//! This room owns that reading; it knows no store's fields.

#[cfg(test)]
pub(crate) mod held_pieces;
mod text;

pub(crate) use text::{plain_end, small_count, text_at, token, unescape, unescaped};

/// Nesting below which a skim gives up (serde_json skips any depth).
pub(crate) const MAX_DEPTH: u32 = 64;

/// A record's bytes being read.
#[derive(Clone)]
pub(crate) struct Skim<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Read as simd-json reads (an adapter's skim, beside its parse), not as serde_json.
    simd: bool,
    /// The bytes as the text they were checked to be (a skim for simd-json's), else empty.
    text: &'a str,
}

impl<'a> Skim<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Skim {
            bytes,
            at: 0,
            simd: false,
            text: "",
        }
    }

    /// A skim of a record an adapter would otherwise parse with simd-json, which refuses
    /// more than serde_json: it also gives up at a `\u` escape of a surrogate (simd-json
    /// refuses a lone one; a pair is not told apart here) and at a number with an exponent
    /// or more than 18 characters (simd-json refuses those out of its range). The record is
    /// checked as UTF-8 whole, once, by the caller.
    pub(crate) fn simd(text: &'a str) -> Self {
        Skim {
            bytes: text.as_bytes(),
            at: 0,
            simd: true,
            text,
        }
    }

    /// A skim read as serde_json reads (as [`Skim::new`]) of a record checked as UTF-8
    /// whole, once, by the caller: its keys and field strings are cut from the text, not
    /// each checked again (std's check of each short key was 95M of the 3,697M
    /// instructions of a Claude Code import's plan and transcription, 100 sessions of 2 MiB).
    pub(crate) fn checked(text: &'a str) -> Self {
        Skim {
            bytes: text.as_bytes(),
            at: 0,
            simd: false,
            text,
        }
    }

    /// The record's bytes in `range` as text, when they are (from a record checked whole,
    /// cut at ASCII bytes: at a value's first byte and after its last, say).
    pub(crate) fn text_of(&self, range: std::ops::Range<usize>) -> Option<&'a str> {
        if self.text.len() == self.bytes.len() {
            return self.text.get(range);
        }
        simdutf8::basic::from_utf8(self.bytes.get(range)?).ok()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.bytes.get(self.at) == Some(&byte)).then(|| self.at += 1)
    }

    /// The object here: each member's key handed to `each` with the skim at its value,
    /// which `each` reads ([`Skim::str_or_null`], [`Skim::object`], [`Skim::skip`], ...).
    pub(crate) fn object(
        &mut self,
        mut each: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        self.ws();
        self.eat(b'{')?;
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            self.eat(b'"')?;
            let key = self.plain_string()?;
            self.ws();
            self.eat(b':')?;
            each(self, key)?;
            self.ws();
            match self.bytes.get(self.at)? {
                b',' => {
                    self.at += 1;
                    self.ws();
                }
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The array here: `each` reads each element, with the skim at it.
    pub(crate) fn array(&mut self, mut each: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.ws();
        self.eat(b'[')?;
        self.ws();
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            each(self)?;
            self.ws();
            match self.bytes.get(self.at)? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string without escapes (as UTF-8), or `null`.
    pub(crate) fn str_or_null(&mut self) -> Option<Option<&'a str>> {
        self.ws();
        match self.bytes.get(self.at)? {
            b'"' => {
                self.at += 1;
                self.plain_string().map(Some)
            }
            b'n' => self.literal(b"null").map(|()| None),
            _ => None,
        }
    }

    /// The string here, when its JSON is exactly the writer's escaping of it
    /// ([`writers_string_end`]): where its JSON is, quotes included.
    pub(crate) fn writers_string(&mut self) -> Option<std::ops::Range<usize>> {
        self.ws();
        let start = self.at;
        self.eat(b'"')?;
        self.at = writers_string_end(self.bytes, self.at)?;
        Some(start..self.at)
    }

    /// A string unescaped as simd-json reads it (borrowed when it has no escape), or `null`;
    /// `None` where [`unescape`] gives up. Only a skim for simd-json's reads text.
    pub(crate) fn text_or_null(&mut self) -> Option<Option<std::borrow::Cow<'a, str>>> {
        self.ws();
        match self.bytes.get(self.at)? {
            b'"' => {
                let start = self.at + 1;
                let plain = plain_end(self.bytes, start);
                if self.bytes.get(plain) == Some(&b'"') && !self.text.is_empty() {
                    self.at = plain + 1;
                    return Some(Some(std::borrow::Cow::Borrowed(
                        self.text.get(start..plain)?,
                    )));
                }
                let mut text = String::with_capacity(plain - start + 16);
                self.at = unescape(self.text, start, &mut text)?;
                Some(Some(std::borrow::Cow::Owned(text)))
            }
            b'n' => self.literal(b"null").map(|()| None),
            _ => None,
        }
    }

    /// An unsigned integer of at most 18 digits (simd-json's `u64` of a plain number).
    pub(crate) fn small_u64(&mut self) -> Option<u64> {
        self.ws();
        let start = self.at;
        self.number_as_serde_json()?;
        let digits = self.bytes.get(start..self.at)?;
        if digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        digits
            .iter()
            .try_fold(0u64, |n, &d| Some(n * 10 + u64::from(d - b'0')))
    }

    /// Whether the value here is `null` (then read); anything else is left to read.
    pub(crate) fn null(&mut self) -> bool {
        self.ws();
        self.bytes[self.at..].starts_with(b"null") && {
            self.at += 4;
            true
        }
    }

    /// Skips the value here, validated.
    pub(crate) fn skip(&mut self) -> Option<()> {
        self.value(1)
    }

    /// Skips the value here, validated; where its bytes are in the record (from its first
    /// byte through its last, as serde_json's `RawValue` spans it).
    pub(crate) fn raw_range(&mut self) -> Option<std::ops::Range<usize>> {
        self.ws();
        let start = self.at;
        self.value(1)?;
        Some(start..self.at)
    }

    /// Where the skim is in the record.
    pub(crate) fn position(&self) -> usize {
        self.at
    }

    /// The first byte of the value here, not read.
    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.bytes.get(self.at).copied()
    }

    /// `true`, `false` or `null` (as `None`).
    pub(crate) fn bool_or_null(&mut self) -> Option<Option<bool>> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| Some(true)),
            b'f' => self.literal(b"false").map(|()| Some(false)),
            b'n' => self.literal(b"null").map(|()| None),
            _ => None,
        }
    }

    /// Only whitespace is left.
    pub(crate) fn end(mut self) -> Option<()> {
        self.ws();
        (self.at == self.bytes.len()).then_some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.bytes[self.at..]
            .starts_with(word)
            .then(|| self.at += word.len())
    }

    /// The string whose opening quote was read, when it has no escape.
    fn plain_string(&mut self) -> Option<&'a str> {
        let start = self.at;
        let escaped = self.string()?;
        if escaped {
            return None;
        }
        if self.text.len() == self.bytes.len() {
            // The record was checked whole: cut at its quotes, the string is text. (std's
            // check of each short key and id was a quarter of a Claude delta line's skim.)
            return self.text.get(start..self.at - 1);
        }
        std::str::from_utf8(&self.bytes[start..self.at - 1]).ok()
    }

    /// Skips the string whose opening quote was read, through its closing quote; whether
    /// it had an escape ([`string_end`]).
    fn string(&mut self) -> Option<bool> {
        let (end, escaped) = if self.simd {
            string_end_as::<true>(self.bytes, self.at)?
        } else {
            string_end(self.bytes, self.at)?
        };
        self.at = end;
        Some(escaped)
    }

    fn value(&mut self, depth: u32) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.bytes.get(self.at)? {
            b'"' => {
                self.at += 1;
                self.string().map(|_| ())
            }
            b'{' => {
                self.at += 1;
                self.ws();
                if self.eat(b'}').is_some() {
                    return Some(());
                }
                loop {
                    self.eat(b'"')?;
                    self.string()?;
                    self.ws();
                    self.eat(b':')?;
                    self.value(depth + 1)?;
                    self.ws();
                    match self.bytes.get(self.at)? {
                        b',' => {
                            self.at += 1;
                            self.ws();
                        }
                        b'}' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.at += 1;
                self.ws();
                if self.eat(b']').is_some() {
                    return Some(());
                }
                loop {
                    self.value(depth + 1)?;
                    self.ws();
                    match self.bytes.get(self.at)? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'n' => self.literal(b"null"),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'-' => {
                self.at += 1;
                self.number()
            }
            b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// A number's digits (after its sign), as serde_json reads them (as simd-json does: see
    /// [`Skim::simd`]).
    fn number(&mut self) -> Option<()> {
        let from = self.at;
        self.number_as_serde_json()?;
        if self.simd
            && (self.at - from > 18
                || self.bytes[from..self.at]
                    .iter()
                    .any(|&b| b == b'e' || b == b'E'))
        {
            return None;
        }
        Some(())
    }

    fn number_as_serde_json(&mut self) -> Option<()> {
        let digits = |skim: &mut Self| {
            let from = skim.at;
            while let Some(b'0'..=b'9') = skim.bytes.get(skim.at) {
                skim.at += 1;
            }
            skim.at > from
        };
        match self.bytes.get(self.at)? {
            b'0' => {
                self.at += 1;
                if let Some(b'0'..=b'9') = self.bytes.get(self.at) {
                    return None;
                }
            }
            b'1'..=b'9' => {
                digits(self);
            }
            _ => return None,
        }
        if self.eat(b'.').is_some() && !digits(self) {
            return None;
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            if !digits(self) {
                return None;
            }
        }
        Some(())
    }
}

/// Where the string whose opening quote is before `from` ends (past its closing quote), and
/// whether it had an escape; `None` at a control character or an escape JSON has not.
/// A short string (a key, an id) is read a word or two at a time ([`short_end`]); a longer
/// one 64 bytes a block, as [`writers_string_end`] reads (the block's backslashes, quotes
/// and control characters as masks, the bytes odd runs of backslashes escape by carries),
/// each escaped byte before the end looked up ([`JSON_ESCAPED`]). callgrind of `axt import
/// claude-code` over 100 generated sessions of 2 MiB (most bytes tool outputs, a backslash
/// every 12-30 bytes): this function and [`Skim::string`], where it is inlined, 1,447M
/// instructions eight bytes a word with each escape handled in the loop, 760M in blocks.
/// (Eight-byte words handling every escape of a word from the word's flags, without testing
/// the word again after each, measured 13% more instructions than the words: 99M -> 112M of
/// 21 MB.)
pub(crate) fn string_end(bytes: &[u8], from: usize) -> Option<(usize, bool)> {
    string_end_as::<false>(bytes, from)
}

/// [`string_end`]; with `SIMD`, `None` at a `\u` escape of a surrogate too (see [`Skim::simd`]).
#[inline]
fn string_end_as<const SIMD: bool>(bytes: &[u8], from: usize) -> Option<(usize, bool)> {
    if let Some(end) = short_end(bytes, from) {
        return Some((end, false));
    }
    blocks_end(bytes, from, &JSON_ESCAPED, json_unicode::<SIMD>)
}

/// The end of a string (past its closing quote) found in its first sixteen bytes before
/// any escape or control character, two words read as the writer tests them
/// ([`escape_mask`]); `None` when not (read it by blocks). Keys and ids are most of the
/// strings a skim reads, and shorter than a block.
///
/// [`escape_mask`]: crate::model::escape_mask
#[inline(always)]
fn short_end(bytes: &[u8], from: usize) -> Option<usize> {
    let words = bytes.get(from..from + 16)?;
    let (first, second) = words.split_at(8);
    for (at, word) in [(from, first), (from + 8, second)] {
        let found = crate::model::escape_mask(u64::from_le_bytes(word.try_into().ok()?));
        if found != 0 {
            let here = at + found.trailing_zeros() as usize / 8;
            return (*bytes.get(here)? == b'"').then_some(here + 1);
        }
    }
    None
}

/// The escapes JSON has, by the byte after the backslash: 1 two bytes (`\"`, `\/`, `\n`,
/// ...), 2 a `\u` its four digits decide ([`json_unicode`]), 0 none. An escaped backslash
/// is never looked up ([`escaped_bytes`]).
static JSON_ESCAPED: [u8; 256] = escape_table(b"\"/bfnrt");

/// A table of escapes by the byte after the backslash: 1 at each of `short` (two-byte
/// escapes), 2 at `u`, 0 elsewhere ([`JSON_ESCAPED`], [`ESCAPED`]).
const fn escape_table(short: &[u8]) -> [u8; 256] {
    let mut table = [0; 256];
    let mut at = 0;
    while at < short.len() {
        table[short[at] as usize] = 1;
        at += 1;
    }
    table[b'u' as usize] = 2;
    table
}

/// A `\u` escape's four digits as serde_json reads them (hex digits); with `SIMD`, none of
/// a surrogate (simd-json refuses a lone one; a pair is not told apart here).
#[inline(always)]
fn json_unicode<const SIMD: bool>(digits: &[u8]) -> bool {
    digits.iter().all(u8::is_ascii_hexdigit)
        && !(SIMD
            && matches!(digits[0], b'd' | b'D')
            && matches!(digits[1], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'))
}

/// Where the string whose opening quote is before `from` ends (past its closing quote), when
/// its JSON is exactly what the writer writes for it: the bytes a [`ToolOutput`] may hold
/// (its invariant; `ToolOutput::escaped(&bytes[from - 1..end])`). `None` at anything else:
/// a control character, an escape JSON has not, and the valid escapes the writer never
/// writes (`\/`, a `\u` other than lower-case `\u00xx` for a control character without a
/// short form), where the caller gives up to its parse. The bytes must have been checked as
/// UTF-8 (a skim checks its line whole, once). A skim that takes a tool's output this way
/// never unescaped it, and the writer copies it.
///
/// 64 bytes a block ([`blocks_end`]), as simdjson finds a string's end: the block's backslashes, and its
/// quotes and control characters, as two masks ([`block_masks`], SIMD through `wide`); the
/// bytes odd runs of backslashes escape, by carries ([`escaped_bytes`]); the end the first
/// quote or control character not escaped; only the escaped bytes before it looked up
/// ([`ESCAPED`]). The last bytes are a block padded with NULs (control characters: a string
/// cut short gives up). callgrind of this function over the bench's Codex outputs (4.8 MB,
/// a backslash every 12-13 bytes): 9.1M instructions; 16-byte blocks with each quote,
/// backslash and control character taken from the mask one at a time 12.4M; eight-byte
/// words loaded again after each escape 19.9M; exact flags of each byte of a word 26% more
/// than the words. Worse still (the Copilot stream): the escapes and the closing quote found
/// by `memchr2_iter`, control characters by a separate pass, 38.1M -> 68.5M.
///
/// [`ToolOutput`]: crate::model::ToolOutput
pub(crate) fn writers_string_end(bytes: &[u8], from: usize) -> Option<usize> {
    blocks_end(bytes, from, &ESCAPED, writers_unicode).map(|(end, _)| end)
}

/// The 64-byte block loop of [`string_end`] and [`writers_string_end`]: where the string
/// whose opening quote is before `from` ends (past its closing quote), and whether it had an
/// escape; `None` at a control character or an escape `escapes` (by the byte after the
/// backslash: 1 taken, 2 a `\u` whose four digits `unicode` decides, 0 given up) does not
/// take. The block's backslashes, quotes and control characters are two masks
/// ([`block_masks`]), the bytes odd runs of backslashes escape come by carries
/// ([`escaped_bytes`]), the end is the first quote or control character not escaped, and
/// only the escaped bytes before it are looked up. The last bytes are a block padded with
/// NULs (control characters: a string cut short gives up).
#[inline(always)]
fn blocks_end(
    bytes: &[u8],
    from: usize,
    escapes: &[u8; 256],
    unicode: impl Fn(&[u8]) -> bool,
) -> Option<(usize, bool)> {
    let mut at = from;
    // The first byte of the block at `at` is escaped (the block before ended in an odd
    // run of backslashes): 1, else 0.
    let mut carry = 0;
    let mut escaped = false;
    loop {
        let tail;
        let block: &[u8; 64] = match bytes.get(at..at + 64).and_then(|b| b.try_into().ok()) {
            Some(block) => block,
            None => {
                let rest = bytes.get(at..)?;
                let mut padded = [0; 64];
                padded[..rest.len()].copy_from_slice(rest);
                tail = padded;
                &tail
            }
        };
        let (backslashes, stops) = block_masks(block);
        let escaped_here = escaped_bytes(backslashes, &mut carry);
        let end = stops & !escaped_here;
        // The bytes before the end (all of them when the block has none).
        let before = end.wrapping_sub(1) & !end;
        escaped |= backslashes & before != 0;
        let mut looked_up = escaped_here & before;
        while looked_up != 0 {
            let bit = looked_up.trailing_zeros() as usize;
            // An escaped byte of the padding is a NUL: no escape, given up.
            match escapes[usize::from(block[bit & 63])] {
                1 => {}
                2 if unicode(bytes.get(at + bit + 1..at + bit + 5)?) => {}
                _ => return None,
            }
            looked_up &= looked_up - 1;
        }
        if end != 0 {
            let here = at + end.trailing_zeros() as usize;
            // A control character, or the padding, is no closing quote.
            return (*bytes.get(here)? == b'"').then_some((here + 1, escaped));
        }
        at += 64;
    }
}

/// The escapes the writer writes, by the byte after the backslash: 1 two bytes (`\"`,
/// `\n`, ...), 2 a `\u` its digits decide ([`writers_unicode`]), 0 any other (`\/`, what
/// JSON has not). An escaped backslash is never looked up ([`escaped_bytes`]).
static ESCAPED: [u8; 256] = escape_table(b"\"bfnrt");

/// A `\u` escape's digits as the writer writes them: lower-case `00xx` of a control
/// character without a short form.
#[inline(always)]
fn writers_unicode(digits: &[u8]) -> bool {
    match *digits {
        [b'0', b'0', b'0', low] => matches!(low, b'0'..=b'7' | b'b' | b'e' | b'f'),
        [b'0', b'0', b'1', low] => matches!(low, b'0'..=b'9' | b'a'..=b'f'),
        _ => false,
    }
}

/// A block's backslashes, and its quotes and control characters: bit `i` of each mask for
/// byte `i`. A quote or a control character is a byte at most 0x20 once 0x20 and 0x22 are
/// swapped (`xor 2`, which keeps 0x00-0x1f among themselves): one compare fewer than the
/// two apart.
#[inline(always)]
fn block_masks(block: &[u8; 64]) -> (u64, u64) {
    use wide::u8x16;
    let (lanes, _) = block.as_chunks::<16>();
    let mut backslashes = 0;
    let mut stops = 0;
    for (i, lane) in lanes.iter().enumerate() {
        let bytes = u8x16::new(*lane);
        let swapped = bytes ^ u8x16::splat(2);
        // The sixteen bits of each mask, as an unsigned number.
        let backslash = bytes.cmp_eq(u8x16::splat(b'\\')).move_mask() as u32 & 0xffff;
        let stop = swapped.min(u8x16::splat(0x20)).cmp_eq(swapped).move_mask() as u32 & 0xffff;
        backslashes |= u64::from(backslash) << (16 * i);
        stops |= u64::from(stop) << (16 * i);
    }
    (backslashes, stops)
}

/// The bytes of a block escaped by an odd run of backslashes before them, backslashes left
/// out (an escaped backslash is always one the writer writes): simdjson's carries. `carry`
/// is 1 when the block's first byte is escaped by the block before; set for the next.
#[inline(always)]
fn escaped_bytes(backslashes: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    const ODD: u64 = !EVEN;
    // A run's first backslash; one continued from the block before counts its parity.
    let starts = backslashes & !(backslashes << 1);
    let even_at = EVEN ^ *carry;
    let even_starts = starts & even_at;
    let odd_starts = starts & !even_at;
    // Adding a run's start to the run carries past its end.
    let even_carries = backslashes.wrapping_add(even_starts);
    let (odd_carries, out) = backslashes.overflowing_add(odd_starts);
    let odd_carries = odd_carries | *carry;
    *carry = u64::from(out);
    // A run started even and ended odd, or the other way round, has an odd length.
    let even_ends = even_carries & !backslashes;
    let odd_ends = odd_carries & !backslashes;
    (even_ends & ODD) | (odd_ends & EVEN)
}

/// A compact line read token by token as the CLIs write their JSONL: no whitespace between
/// tokens, keys and field strings without escapes. The line skims of the adapters (Codex's
/// command lines, OpenCode's tool parts, Copilot's deltas and tool results; a new dialect's
/// skim is a field list over this reader) read through it,
/// where [`Skim`]'s generality (whitespace, any nesting, serde_json's reading) costs
/// instructions a skim of one known shape does not need. Every method gives up (`None`) at
/// anything it does not read exactly as the parse would; the line is UTF-8 checked whole,
/// once, by the caller, and every piece is cut at an ASCII byte.
pub(crate) struct Compact<'a> {
    line: &'a str,
    at: usize,
}

impl<'a> Compact<'a> {
    /// The reader of `line` (checked as UTF-8 whole), at byte `at`.
    pub(crate) fn new(line: &'a str, at: usize) -> Self {
        Compact { line, at }
    }

    /// Where the reader is in the line.
    pub(crate) fn position(&self) -> usize {
        self.at
    }

    /// The line's bytes.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.line.as_bytes()
    }

    /// The byte here, read.
    pub(crate) fn eat(&mut self, byte: u8) -> Option<()> {
        (self.bytes().get(self.at) == Some(&byte)).then(|| self.at += 1)
    }

    /// Past a `,` (`true`: a member follows) or the object's `}` (`false`).
    pub(crate) fn next(&mut self) -> Option<bool> {
        match self.bytes().get(self.at)? {
            b',' => {
                self.at += 1;
                Some(true)
            }
            b'}' => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// A string without an escape (or a control character).
    pub(crate) fn plain(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.at;
        let end = plain_end(self.bytes(), start);
        (self.bytes().get(end) == Some(&b'"')).then_some(())?;
        self.at = end + 1;
        Some(&self.line[start..end])
    }

    /// A key without an escape, and its colon.
    pub(crate) fn key(&mut self) -> Option<&'a str> {
        let key = self.plain()?;
        self.eat(b':')?;
        Some(key)
    }

    /// A string escaped as the writer escapes ([`writers_string_end`]): its JSON, quotes
    /// included.
    pub(crate) fn writers_string(&mut self) -> Option<std::ops::Range<usize>> {
        let start = self.at;
        self.eat(b'"')?;
        self.at = writers_string_end(self.bytes(), self.at)?;
        Some(start..self.at)
    }

    /// A string unescaped (borrowed when it has no escape): for short strings (a command).
    /// An escaped one is read again by [`unescape`], as simd-json reads it, into a string of
    /// its JSON's length; given up at a `\u` surrogate. (serde_json's reading of it measured
    /// 1,700 instructions a Codex command with an escaped quote, this 380.)
    pub(crate) fn text(&mut self) -> Option<std::borrow::Cow<'a, str>> {
        let (json, escaped) = self.string()?;
        Some(if escaped {
            let mut text = String::with_capacity(json.len() - 2);
            unescape(self.line, json.start + 1, &mut text)?;
            std::borrow::Cow::Owned(text)
        } else {
            std::borrow::Cow::Borrowed(&self.line[json.start + 1..json.end - 1])
        })
    }

    /// A string unescaped as simd-json reads it, into a new string ([`unescaped`]: for a
    /// line's long text).
    pub(crate) fn unescaped(&mut self) -> Option<String> {
        self.eat(b'"')?;
        let (text, end) = unescaped(self.line, self.at)?;
        self.at = end;
        Some(text)
    }

    /// Any string JSON allows ([`string_end`]): its JSON, quotes included, and whether it
    /// has an escape.
    pub(crate) fn string(&mut self) -> Option<(std::ops::Range<usize>, bool)> {
        let start = self.at;
        self.eat(b'"')?;
        let (end, escaped) = string_end(self.bytes(), self.at)?;
        self.at = end;
        Some((start..end, escaped))
    }

    /// A string without an escape, or `null` (`None`).
    pub(crate) fn plain_or_null(&mut self) -> Option<Option<&'a str>> {
        if self.literal(b"null").is_some() {
            return Some(None);
        }
        self.plain().map(Some)
    }

    /// The run of ASCII digits here (perhaps empty), read.
    pub(crate) fn digits(&mut self) -> &'a [u8] {
        let bytes = self.bytes();
        let start = self.at;
        while let Some(b'0'..=b'9') = bytes.get(self.at) {
            self.at += 1;
        }
        &bytes[start..self.at]
    }

    /// A whole number an `i64` holds, or `null` (`None`). `-0` is given up (a parser may
    /// read it as a float).
    pub(crate) fn integer_or_null(&mut self) -> Option<Option<i64>> {
        let bytes = self.bytes();
        let at = self.at;
        if bytes[at..].starts_with(b"null") {
            self.at += 4;
            return Some(None);
        }
        let digits = at + usize::from(bytes.get(at) == Some(&b'-'));
        let mut end = digits;
        while let Some(b'0'..=b'9') = bytes.get(end) {
            end += 1;
        }
        if end == digits || (bytes[digits] == b'0' && (end > digits + 1 || digits > at)) {
            return None;
        }
        let integer = self.line[at..end].parse().ok()?;
        self.at = end;
        Some(Some(integer))
    }

    /// The byte here, not read.
    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes().get(self.at).copied()
    }

    /// The object here: each member's key handed to `each`, with the reader at its value,
    /// which `each` reads.
    pub(crate) fn object(
        &mut self,
        mut each: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        self.member(&mut each)?;
        self.members_after_first(each)
    }

    /// The members after an object's first, through its closing brace.
    pub(crate) fn members_after_first(
        &mut self,
        mut each: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        loop {
            match *self.bytes().get(self.at)? {
                b',' => {
                    self.at += 1;
                    self.member(&mut each)?;
                }
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn member(&mut self, each: &mut impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        let key = self.key()?;
        each(self, key)
    }

    /// An integer an `i64` holds (see [`Compact::number`]).
    pub(crate) fn integer(&mut self) -> Option<i64> {
        match self.number()? {
            Number::Integer(integer) => Some(integer),
            Number::Other => None,
        }
    }

    /// A number of at most 18 digits, or 15 with a fraction, without an exponent, not `-0`:
    /// one the parse reads (simd-json refuses some longer ones serde_json reads), and to the
    /// same value wherever it is read.
    pub(crate) fn number(&mut self) -> Option<Number> {
        let bytes = self.bytes();
        let start = self.at;
        let negative = self.eat(b'-').is_some();
        let digits = |reader: &mut Self| {
            let from = reader.at;
            while let Some(b'0'..=b'9') = bytes.get(reader.at) {
                reader.at += 1;
            }
            reader.at - from
        };
        let whole = self.at;
        match digits(self) {
            // `-0` (and `-0.5`): serde_json and simd-json read `-0` apart.
            1 if bytes[whole] == b'0' && negative => return None,
            1..=18 if bytes[whole] != b'0' || self.at == whole + 1 => {}
            _ => return None,
        }
        let integer = self.line[start..self.at].parse().ok()?;
        let whole_digits = self.at - whole;
        if self.eat(b'.').is_some() {
            if !matches!(digits(self) + whole_digits, 2..=15) {
                return None;
            }
            return match bytes.get(self.at) {
                Some(b'e' | b'E') => None,
                _ => Some(Number::Other),
            };
        }
        match bytes.get(self.at) {
            Some(b'e' | b'E') => None,
            _ => Some(Number::Integer(integer)),
        }
    }

    /// A value as `Value::as_i64` reads it: a whole number, or `None` for any other value
    /// (skipped, validated, as [`Compact::value`]).
    pub(crate) fn whole(&mut self, depth: u32) -> Option<Option<i64>> {
        match self.bytes().get(self.at)? {
            b'-' | b'0'..=b'9' => match self.number()? {
                Number::Integer(whole) => Some(Some(whole)),
                Number::Other => Some(None),
            },
            _ => self.value(depth).map(|_| None),
        }
    }

    /// A value as `Value::as_f64` reads it: a number, or `None` for any other value.
    pub(crate) fn float(&mut self, depth: u32) -> Option<Option<f64>> {
        let start = self.at;
        match self.bytes().get(self.at)? {
            b'-' | b'0'..=b'9' => match self.number()? {
                // As an `i64` or `u64` is turned into an `f64`: exactly, or to the nearest.
                Number::Integer(whole) => Some(Some(whole as f64)),
                // Correctly rounded, as the parsers read it (no more than 15 digits: read
                // exactly wherever it is read).
                Number::Other => Some(Some(self.line[start..self.at].parse().ok()?)),
            },
            _ => self.value(depth).map(|_| None),
        }
    }

    /// Skips the value here, at nesting `depth`, validated: where it is in the line. Its
    /// strings must be the writer's ([`Compact::writers_string`]), its numbers
    /// [`Compact::number`]'s; deeper than [`COMPACT_DEPTH`] is given up.
    pub(crate) fn value(&mut self, depth: u32) -> Option<std::ops::Range<usize>> {
        if depth > COMPACT_DEPTH {
            return None;
        }
        let start = self.at;
        match *self.bytes().get(self.at)? {
            b'"' => {
                self.writers_string()?;
            }
            b'{' => self.object(|reader, _| reader.value(depth + 1).map(drop))?,
            b'[' => {
                self.at += 1;
                if self.eat(b']').is_none() {
                    loop {
                        self.value(depth + 1)?;
                        match *self.bytes().get(self.at)? {
                            b',' => self.at += 1,
                            b']' => {
                                self.at += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
            }
            b't' => self.literal(b"true")?,
            b'f' => self.literal(b"false")?,
            b'n' => self.literal(b"null")?,
            b'-' | b'0'..=b'9' => {
                self.number()?;
            }
            _ => return None,
        }
        Some(start..self.at)
    }

    /// The word here (`true`, `false`, `null`), read.
    pub(crate) fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.bytes()[self.at..]
            .starts_with(word)
            .then(|| self.at += word.len())
    }
}

/// Nesting below which a [`Compact`] reader gives up.
pub(crate) const COMPACT_DEPTH: u32 = 32;

/// A number as [`Compact::number`] reads it.
pub(crate) enum Number {
    Integer(i64),
    Other,
}

/// A field read once: a second of the same name is serde derive's `duplicate field`.
pub(crate) fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a skim reads `text` as one whole JSON value (the tests of a string's end, in
    /// `text.rs`, ask it too).
    pub(super) fn valid(text: &str) -> bool {
        let mut skim = Skim::new(text.as_bytes());
        skim.skip().is_some() && skim.end().is_some()
    }

    /// What a skim accepts, serde_json accepts; what serde_json refuses, a skim refuses.
    #[test]
    fn a_skim_accepts_only_what_serde_json_accepts() {
        let cases = [
            r#"{"a":1}"#,
            r#" { "a" : [1, 2.5, -0, 1e5, 1E-3, 0.1e+2, true, false, null, "x\n\u00e9\"\\"] } "#,
            r#"{"a":{"b":{"c":[]}},"d":{}}"#,
            r#"{"a":1,}"#,
            r#"[1,]"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":1e}"#,
            r#"{"a":-}"#,
            r#"{"a":nul}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":"\u12"}"#,
            r#"{"a":"\u12g4"}"#,
            "{\"a\":\"tab\there\"}",
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            r#"{"a":1} x"#,
            r#"{"a":"unterminated}"#,
            r#"{"a":[1 2]}"#,
            "",
            "   ",
        ];
        for case in cases {
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(case).is_ok();
            assert_eq!(valid(case), serde, "{case}");
        }
        assert!(valid(cases[1]) && valid(cases[2]));
    }

    /// A string is taken as the writer's exactly when serde_json reads it and writes the
    /// same bytes back: every escape, canonical or not, at every place in the sixteen-byte
    /// blocks and the eight-byte words it is read in.
    #[test]
    fn a_string_is_the_writers_exactly_when_serde_json_writes_it_back_the_same() {
        let pieces = [
            "\\\"",
            "\\\\",
            "\\n",
            "\\b",
            "\\f",
            "\\r",
            "\\t",
            "\\/",
            "\\u0001",
            "\\u001f",
            "\\u001F",
            "\\u0008",
            "\\u000a",
            "\\u0009",
            "\\u000c",
            "\\u000d",
            "\\u000b",
            "\\u0020",
            "\\u007f",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\u12",
            "\\x",
            "\t",
            "\u{7f}",
            "\u{e9}",
            "\u{1f600}",
            "ab",
            "/",
            "\\\\\\\\",
            "\\\\\\\"",
            "\\\\\\u0001",
        ];
        // Pads of 0-66 bytes put every piece across the 64-byte blocks' edges, and the
        // string's end in a whole block and in the padded last one; what follows the
        // string (an escape the writer does not write, the line's end) is not read.
        for pad in 0..67 {
            for a in pieces {
                for b in pieces {
                    let body = format!(
                        "{}{a}{}{b}{}",
                        "x".repeat(pad),
                        "y".repeat(pad % 3),
                        "z".repeat(66 - pad)
                    );
                    let json = format!("\"{body}\"");
                    let writers = serde_json::from_str::<String>(&json).is_ok_and(|text| {
                        serde_json::to_string(&text).is_ok_and(|again| again == json)
                    });
                    let from = "{\"k\":\"".len();
                    for after in [",\"n\":\"\\/\"}", ""] {
                        let record = format!("{{\"k\":{json}{after}");
                        let end = writers_string_end(record.as_bytes(), from);
                        assert_eq!(end.is_some(), writers, "{json}");
                        if let Some(end) = end {
                            assert_eq!(&record[from - 1..end], json);
                        }
                        // Cut short anywhere in the string: no end.
                        let cut = &record.as_bytes()[..from + pad + a.len()];
                        assert_eq!(writers_string_end(cut, from), None, "{json}");
                    }
                }
            }
        }
        assert_eq!(writers_string_end(b"\"unterminated", 1), None);
    }

    /// The bytes a block's backslashes escape, and the carry into the next block, as a
    /// reading byte by byte finds them: runs of every length at every place, across the
    /// block's end, with and without a carry in.
    #[test]
    fn escaped_bytes_are_those_an_odd_run_of_backslashes_escapes() {
        let mut masks = vec![0, u64::MAX, 1, 1 << 63, 0x5555_5555_5555_5555, !1];
        for start in 0..64 {
            for len in 1..=(64 - start).min(9) {
                let run = (u64::MAX >> (64 - len)) << start;
                masks.extend([run, run | run << 12 | 1 << 63, run | run << 2]);
            }
        }
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            state ^= state << 13 ^ (state ^ state << 13) >> 7;
            state ^= state << 17;
            masks.extend([state | state >> 1, state & state >> 3]);
        }
        for backslashes in masks {
            for carry_in in [0, 1] {
                let mut escaping = carry_in == 1;
                let mut expected = 0;
                for i in 0..64 {
                    let backslash = backslashes >> i & 1 == 1;
                    if escaping {
                        escaping = false;
                        expected |= u64::from(!backslash) << i;
                    } else {
                        escaping = backslash;
                    }
                }
                let mut carry = carry_in;
                let escaped = escaped_bytes(backslashes, &mut carry);
                assert_eq!(escaped, expected, "{backslashes:064b} {carry_in}");
                assert_eq!(carry, u64::from(escaping), "{backslashes:064b} {carry_in}");
            }
        }
    }

    /// What a skim for simd-json ([`Skim::simd`]) accepts, simd-json accepts: the numbers
    /// and `\u` escapes simd-json refuses where serde_json does not are given up.
    #[test]
    fn a_simd_skim_accepts_only_what_simd_json_accepts() {
        let values = [
            "1",
            "-0",
            "0.5",
            "-12.25",
            "123456789012345678",
            "1234567890123456789",
            "18446744073709551615",
            "123456789012345678901234567890",
            "1e4",
            "1E-3",
            "1e400",
            "1.7976931348623157e309",
            "0.1234567890123456",
            r#""\u001b""#,
            r#""\u00e9""#,
            r#""\ud800""#,
            r#""\udc00x""#,
            r#""\uD83D\uDE00""#,
            r#""\ud83d\ude00""#,
            r#""\uDbFf""#,
            r#""\ue000""#,
            r#""\/""#,
            "[1,{\"a\":null}]",
            "true",
        ];
        let mut accepted = 0;
        for value in values {
            let record = format!("{{\"k\":{value}}}");
            let mut skim = Skim::simd(&record);
            let skimmed = skim.skip().is_some() && skim.end().is_some();
            let mut copy = record.clone().into_bytes();
            let simd = simd_json::to_borrowed_value(&mut copy).is_ok();
            if skimmed {
                accepted += 1;
                assert!(simd, "{record}");
            }
        }
        assert_eq!(accepted, 12);
    }

    #[test]
    fn too_deep_is_given_up() {
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(!valid(&deep));
        let shallow = format!("{}{}", "[".repeat(10), "]".repeat(10));
        assert!(valid(&shallow));
    }
}
