//! The tolerant, resumable transcript reader.
//!
//! [`Reader`] pulls lines from any [`Read`] and yields, in file order, every event that
//! decodes and a [`Problem`] for everything wrong: a line that is not an event, a value outside
//! the vocabulary, a `seq` that does not follow, an event of another run, a second run's
//! `run.started` after the first run completed (two transcripts appended to one file), a
//! torn final line.
//! It never stops at a bad line; the only thing that ends it early is an I/O error, itself
//! reported as a problem.
//!
//! Lines are split by the rules every reader of JSON Lines in axt shares
//! ([`crate::model::lines`]): LF found in the raw bytes (never in decoded text, so a raw
//! U+2028 in a string cannot split a line); one CR before the LF dropped, so CRLF files read
//! cleanly; a UTF-8 byte order mark at the very start dropped; blank lines skipped. A line
//! longer than the limit ([`Reader::max_line_bytes`], 16 MiB by default) is skipped up to its
//! LF and reported, so memory is bounded by the limit plus the read buffer, not by the file.
//!
//! The reader is resumable: [`Reader::position`] says where the next unread line starts
//! (byte offset, line number) and what the checks know so far (last `seq`, the run), and
//! [`Reader::at`] continues from there over an input positioned at that offset. A final
//! line that does not decode and has no LF yet is reported as torn but *not* consumed, so a
//! `tail -f` style consumer that resumes once the writer has finished it reads it whole.
//!
//! The reader owns no policy: it does not decide which problems matter (that is the
//! caller's, `axt check` counts them all) and does not follow links between files
//! ([`tree`](super::tree) does).

use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use crate::model::lines::{self, LineSplitter, Piece};
use crate::model::{
    DecodeCategory, DecodeWarning, EventType, ExchangeEvent, check_encodable, decode_event,
    warnings,
};

/// Default line length limit: the transcript's line limit,
/// [`MAX_LINE_BYTES`](crate::model::MAX_LINE_BYTES) (16 MiB), which every writer of the crate
/// keeps to (an event over it is cut to fit), and the normalizers' default record limit
/// (`normalize::DEFAULT_MAX_RECORD_BYTES`; a test holds the two equal).
pub const DEFAULT_MAX_LINE_BYTES: usize = lines::DEFAULT_MAX_LINE_BYTES;
const BUFFER_BYTES: usize = 256 << 10;
/// The read buffer of [`Reader::open_head`]: most transcripts' first line fits, and a file
/// looked at for its first event is read that far, not 256 KiB of it (a directory's index
/// opens every file of it).
const HEAD_BUFFER_BYTES: usize = 16 << 10;

/// What is wrong with a line (or between lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ProblemKind {
    /// The line is not UTF-8.
    InvalidUtf8,
    /// The line is not JSON, is cut short (with its LF), or nests too deep.
    InvalidJson,
    /// The line is JSON but not an event: a required envelope field is missing or mistyped.
    NotAnEvent,
    /// The last line has no LF and does not decode: a write cut short. Not consumed, see
    /// [`Reader::position`].
    TornFinalLine,
    /// The last line decodes but has no LF (every line must end with one).
    NoFinalNewline,
    /// The line is longer than the limit and was skipped.
    LineTooLong,
    /// The event's type is outside the vocabulary (the event is still yielded).
    UnknownEventType,
    /// A block's type is outside the vocabulary.
    UnknownBlockType,
    /// A block could not be read as its declared type.
    MalformedBlock,
    /// A fidelity outside the vocabulary, or none.
    UnknownFidelity,
    /// A message role outside the vocabulary.
    UnknownRole,
    /// The payload named a known shape but did not fit it.
    MalformedPayload,
    /// The event decodes but the strict writer would refuse it (a payload of the wrong shape
    /// for its type, a misplaced `child_run_id`, a bad timestamp, ...).
    NotCanonical,
    /// `seq` skips numbers: lines are missing.
    SeqGap,
    /// `seq` repeats the previous line's.
    SeqRepeat,
    /// `seq` goes back, or is below the first (0 on the first line).
    SeqRegression,
    /// The event's `run_id` or `parent_run_id` differs from the file's first event.
    RunIdMismatch,
    /// A `run.started` after the run's `run.completed`: a second run's lifecycle appended
    /// to the file (the same run transcribed twice into one file, say).
    SecondRun,
    /// Reading failed; nothing after this is read.
    Io,
    /// The file (or stdin) holds not a single event, and nothing else is wrong with it:
    /// there is no run. Not yielded by the reader (a file being written may not have its
    /// first line yet): a consumer that read a whole file asks [`no_event`].
    NoEvent,
}

impl ProblemKind {
    /// Every kind, in report order.
    pub const ALL: [ProblemKind; 20] = [
        ProblemKind::InvalidUtf8,
        ProblemKind::InvalidJson,
        ProblemKind::NotAnEvent,
        ProblemKind::TornFinalLine,
        ProblemKind::NoFinalNewline,
        ProblemKind::LineTooLong,
        ProblemKind::UnknownEventType,
        ProblemKind::UnknownBlockType,
        ProblemKind::MalformedBlock,
        ProblemKind::UnknownFidelity,
        ProblemKind::UnknownRole,
        ProblemKind::MalformedPayload,
        ProblemKind::NotCanonical,
        ProblemKind::SeqGap,
        ProblemKind::SeqRepeat,
        ProblemKind::SeqRegression,
        ProblemKind::RunIdMismatch,
        ProblemKind::SecondRun,
        ProblemKind::Io,
        ProblemKind::NoEvent,
    ];

    /// Short kebab-case name, stable for machine-readable reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::InvalidUtf8 => "invalid-utf8",
            ProblemKind::InvalidJson => "invalid-json",
            ProblemKind::NotAnEvent => "not-an-event",
            ProblemKind::TornFinalLine => "torn-final-line",
            ProblemKind::NoFinalNewline => "no-final-newline",
            ProblemKind::LineTooLong => "line-too-long",
            ProblemKind::UnknownEventType => "unknown-event-type",
            ProblemKind::UnknownBlockType => "unknown-block-type",
            ProblemKind::MalformedBlock => "malformed-block",
            ProblemKind::UnknownFidelity => "unknown-fidelity",
            ProblemKind::UnknownRole => "unknown-role",
            ProblemKind::MalformedPayload => "malformed-payload",
            ProblemKind::NotCanonical => "not-canonical",
            ProblemKind::SeqGap => "seq-gap",
            ProblemKind::SeqRepeat => "seq-repeat",
            ProblemKind::SeqRegression => "seq-regression",
            ProblemKind::RunIdMismatch => "run-id-mismatch",
            ProblemKind::SecondRun => "second-run",
            ProblemKind::Io => "io-error",
            ProblemKind::NoEvent => "no-event",
        }
    }

    fn of_warning(warning: &DecodeWarning) -> ProblemKind {
        match warning {
            DecodeWarning::UnknownEventType(_) => ProblemKind::UnknownEventType,
            DecodeWarning::UnknownBlockType { .. } => ProblemKind::UnknownBlockType,
            DecodeWarning::MalformedBlock { .. } => ProblemKind::MalformedBlock,
            DecodeWarning::UnknownFidelity { .. } => ProblemKind::UnknownFidelity,
            DecodeWarning::UnknownRole(_) => ProblemKind::UnknownRole,
            DecodeWarning::MalformedPayload { .. } => ProblemKind::MalformedPayload,
        }
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing wrong with the input, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line number.
    pub line: u64,
    /// Byte offset of the line's first byte in the input.
    pub offset: u64,
    /// What kind of problem.
    pub kind: ProblemKind,
    /// What exactly, for a person.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: byte {}: {}: {}",
            self.line, self.offset, self.kind, self.message
        )
    }
}

/// The problem of a file read whole, up to `end`, that held not a single event (and
/// nothing else wrong): placed at its end, where an event never came. `axt check` and `axt
/// stats` report it alike.
pub fn no_event(end: &Position) -> Problem {
    let message = if end.offset == 0 {
        "the file is empty: no event"
    } else {
        "the file holds only blank lines: no event"
    };
    Problem {
        line: end.line.saturating_sub(1).max(1),
        offset: end.offset,
        kind: ProblemKind::NoEvent,
        message: message.to_owned(),
    }
}

/// What the reader yields, in file order. A line's problems come before its event.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadItem {
    /// An event that decoded, with where its line is. Yielded even when it has problems
    /// (an unknown type, a `seq` gap, ...): they are reported just before it.
    Event {
        /// 1-based line number.
        line: u64,
        /// Byte offset of the line.
        offset: u64,
        /// The event.
        event: Box<ExchangeEvent>,
    },
    /// Something wrong.
    Problem(Problem),
}

/// Where a reader is, to continue later with [`Reader::at`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Position {
    /// Byte offset of the next line to read.
    pub offset: u64,
    /// Its 1-based line number.
    pub line: u64,
    /// The `seq` of the last event read, if any: the next is expected to be one more.
    pub last_seq: Option<u64>,
    /// The `run_id` and `parent_run_id` of the file's first event, once read.
    pub run: Option<(String, Option<String>)>,
    /// The line of the last `run.completed` read, if any: a `run.started` after it starts
    /// a second run.
    pub completed: Option<u64>,
}

impl Position {
    /// The start of a file.
    pub fn start() -> Position {
        Position {
            offset: 0,
            line: 1,
            last_seq: None,
            run: None,
            completed: None,
        }
    }
}

/// The tolerant, resumable reader. See the module documentation.
pub struct Reader<R> {
    input: BufReader<R>,
    max_line_bytes: usize,
    position: Position,
    lines: LineSplitter,
    queue: VecDeque<ReadItem>,
    done: bool,
    /// With [`Reader::keep_line_bytes`]: the bytes of the line the queued items come from.
    line_bytes: Option<Vec<u8>>,
}

impl Reader<File> {
    /// A reader over the file at `path`, from its start.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Reader<File>> {
        Ok(Reader::new(File::open(path)?))
    }

    /// [`Reader::open`] for a reader of a file's first events only: a small read buffer
    /// (longer lines are still read whole, a buffer at a time), so that looking at the
    /// start of many files reads their starts, not their first 256 KiB.
    pub fn open_head(path: impl AsRef<Path>) -> io::Result<Reader<File>> {
        let file = File::open(path)?;
        Ok(Reader::buffered(file, Position::start(), HEAD_BUFFER_BYTES))
    }
}

impl<R: Read> Reader<R> {
    /// A reader from the start of a transcript.
    pub fn new(input: R) -> Reader<R> {
        Reader::at(input, Position::start())
    }

    /// A reader that continues at `position`; `input` must be positioned at
    /// `position.offset` (seek the file there first).
    pub fn at(input: R, position: Position) -> Reader<R> {
        Reader::buffered(input, position, BUFFER_BYTES)
    }

    fn buffered(input: R, position: Position, buffer_bytes: usize) -> Reader<R> {
        Reader {
            input: BufReader::with_capacity(buffer_bytes, input),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            position,
            lines: LineSplitter::new(DEFAULT_MAX_LINE_BYTES),
            queue: VecDeque::new(),
            done: false,
            line_bytes: None,
        }
    }

    /// Sets the line length limit: longer lines are skipped and reported.
    pub fn max_line_bytes(mut self, limit: usize) -> Self {
        self.max_line_bytes = limit;
        self.lines = LineSplitter::new(limit);
        self
    }

    /// Keeps a copy of each line's bytes, for [`Reader::line_bytes`] (one copy per line).
    pub fn keep_line_bytes(mut self) -> Self {
        self.line_bytes = Some(Vec::new());
        self
    }

    /// With [`Reader::keep_line_bytes`], the bytes of the line the last yielded item came
    /// from, without its LF (the reader reads one line ahead of nothing: every item of a line
    /// is yielded before the next line is read).
    pub fn line_bytes(&self) -> Option<&[u8]> {
        self.line_bytes.as_deref()
    }

    /// Where the next unread line starts, and the state of the checks. After an
    /// [`ReadItem::Event`] it is just past that event's line; after the reader is exhausted,
    /// just past the last complete line (a torn final line is not consumed).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Reads until at least one item is queued or the input ends.
    fn fill(&mut self) {
        while self.queue.is_empty() && !self.done {
            let buffer = match self.input.fill_buf() {
                Ok(buffer) => buffer,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    self.done = true;
                    let (line, offset) = (self.position.line, self.position.offset);
                    self.queue.push_back(ReadItem::Problem(Problem {
                        line,
                        offset,
                        kind: ProblemKind::Io,
                        message: format!("reading stopped: {error}"),
                    }));
                    return;
                }
            };
            if buffer.is_empty() {
                self.done = true;
                self.finish();
                return;
            }
            let (used, piece) = self.lines.feed(buffer);
            let Some(piece) = piece else {
                self.input.consume(used);
                continue;
            };
            let size = match piece {
                Piece::TooLong(size) => {
                    too_long(
                        &self.position,
                        &mut self.queue,
                        self.max_line_bytes,
                        size,
                        true,
                    );
                    size
                }
                Piece::Line(line) => {
                    keep(&mut self.line_bytes, line);
                    check_line(&mut self.position, &mut self.queue, line, true);
                    line.len() as u64
                }
            };
            self.input.consume(used);
            self.position.offset += size + 1;
            self.position.line += 1;
        }
    }

    /// The end of the input: a last line without LF.
    fn finish(&mut self) {
        match self.lines.finish() {
            Some(Piece::TooLong(size)) => {
                too_long(
                    &self.position,
                    &mut self.queue,
                    self.max_line_bytes,
                    size,
                    false,
                );
            }
            Some(Piece::Line(line)) => {
                keep(&mut self.line_bytes, line);
                if check_line(&mut self.position, &mut self.queue, line, false) {
                    // It decoded: consumed. A writer that appends its LF later starts a blank
                    // line, which is skipped, and the next line gets the next number.
                    self.position.offset += line.len() as u64;
                }
            }
            None => {}
        }
    }
}

fn too_long(
    position: &Position,
    queue: &mut VecDeque<ReadItem>,
    limit: usize,
    size: u64,
    terminated: bool,
) {
    let end = if terminated { "" } else { " (no final LF)" };
    queue.push_back(ReadItem::Problem(Problem {
        line: position.line,
        offset: position.offset,
        kind: ProblemKind::LineTooLong,
        message: format!("line of {size} bytes exceeds the limit of {limit} bytes; skipped{end}"),
    }));
}

impl<R: Read> Iterator for Reader<R> {
    type Item = ReadItem;

    fn next(&mut self) -> Option<ReadItem> {
        self.fill();
        self.queue.pop_front()
    }
}

fn keep(kept: &mut Option<Vec<u8>>, line: &[u8]) {
    if let Some(kept) = kept {
        kept.clear();
        kept.extend_from_slice(line);
    }
}

/// Decodes and checks one line (without its LF), queueing its problems and its event.
/// Returns whether it decoded.
fn check_line(
    position: &mut Position,
    queue: &mut VecDeque<ReadItem>,
    line: &[u8],
    terminated: bool,
) -> bool {
    let number = position.line;
    let (bytes, offset) = lines::body(line, position.offset);
    if lines::is_blank(bytes) {
        return false;
    }
    let mut problem = |kind: ProblemKind, message: String| {
        queue.push_back(ReadItem::Problem(Problem {
            line: number,
            offset,
            kind,
            message,
        }));
    };
    let event = match decode_event(bytes) {
        Ok(event) => event,
        Err(error) => {
            let kind = match error.category() {
                _ if !terminated => ProblemKind::TornFinalLine,
                DecodeCategory::InvalidUtf8 => ProblemKind::InvalidUtf8,
                DecodeCategory::Data => ProblemKind::NotAnEvent,
                DecodeCategory::Truncated | DecodeCategory::Syntax | DecodeCategory::TooDeep => {
                    ProblemKind::InvalidJson
                }
            };
            let detail = match error.category() {
                DecodeCategory::Truncated if terminated => "truncated: ",
                DecodeCategory::TooDeep => "too deep: ",
                _ => "",
            };
            let message = match error.category() {
                DecodeCategory::InvalidUtf8 => format!("{} of the line", error.message()),
                _ => format!("{detail}{} at column {}", error.message(), error.column()),
            };
            problem(kind, message);
            return false;
        }
    };
    if !terminated {
        problem(
            ProblemKind::NoFinalNewline,
            "the last line has no LF (it decodes)".to_owned(),
        );
    }
    let found = warnings(&event);
    for warning in &found {
        problem(ProblemKind::of_warning(warning), warning.to_string());
    }
    if found.is_empty() {
        // The whole strict writer, not `validate` alone: serializing refuses things too (an
        // empty step `kind`, found by the `read_transcript` fuzz target), and a line it
        // refuses is not canonical, whatever part of the writer says so. `check_encodable`
        // walks the writer itself without writing (`make bench-read` measures the cost).
        if let Err(error) = check_encodable(&event) {
            problem(ProblemKind::NotCanonical, error.to_string());
        }
    }
    let expected = position.last_seq.map_or(1, |last| last.saturating_add(1));
    if event.seq != expected {
        let (kind, message) = match position.last_seq {
            Some(last) if event.seq == last => {
                (ProblemKind::SeqRepeat, format!("seq {} repeats", event.seq))
            }
            Some(last) if event.seq < last => (
                ProblemKind::SeqRegression,
                format!("seq {} after seq {last}", event.seq),
            ),
            // Below the first seq (0 on the first line): no line can be missing before it.
            _ if event.seq < expected => (
                ProblemKind::SeqRegression,
                format!("seq {}, expected {expected}: seq starts at 1", event.seq),
            ),
            _ => (
                ProblemKind::SeqGap,
                format!(
                    "seq {}, expected {expected}: {} missing",
                    event.seq,
                    event.seq - expected
                ),
            ),
        };
        problem(kind, message);
    }
    position.last_seq = Some(event.seq);
    match (&event.event_type, position.completed) {
        (EventType::RunStarted, Some(completed)) => problem(
            ProblemKind::SecondRun,
            format!(
                "run.started after the run.completed of line {completed}: a second run's events are appended to this file"
            ),
        ),
        (EventType::RunCompleted, _) => position.completed = Some(number),
        _ => {}
    }
    match &position.run {
        None => position.run = Some((event.run_id.clone(), event.parent_run_id.clone())),
        Some((run_id, parent)) => {
            if *run_id != event.run_id {
                let message = format!("run_id {:?}, the file's is {run_id:?}", event.run_id);
                problem(ProblemKind::RunIdMismatch, message);
            } else if *parent != event.parent_run_id {
                let message = format!(
                    "parent_run_id {}, the file's is {}",
                    describe(event.parent_run_id.as_deref()),
                    describe(parent.as_deref())
                );
                problem(ProblemKind::RunIdMismatch, message);
            }
        }
    }
    queue.push_back(ReadItem::Event {
        line: number,
        offset,
        event: Box::new(event),
    });
    true
}

fn describe(id: Option<&str>) -> String {
    id.map_or_else(|| "none".to_owned(), |id| format!("{id:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: u64, run: &str) -> String {
        format!(
            r#"{{"seq":{seq},"run_id":"{run}","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":null}}"#
        )
    }

    /// Items as `L<line>@<offset> <seq>` and `L<line>@<offset> !<kind>`.
    fn read(input: &[u8], limit: usize) -> Vec<String> {
        Reader::new(input)
            .max_line_bytes(limit)
            .map(|item| match item {
                ReadItem::Event {
                    line,
                    offset,
                    event,
                } => format!("L{line}@{offset} {}", event.seq),
                ReadItem::Problem(p) => format!("L{}@{} !{}", p.line, p.offset, p.kind),
            })
            .collect()
    }

    #[test]
    fn reports_every_problem_kind_and_keeps_going() {
        let lines = [
            event(1, "r"),
            "not json".to_owned(),
            "[1]".to_owned(),
            event(3, "r"),
            event(3, "r"),
            event(2, "r"),
            event(3, "other"),
            String::new(),
            "\u{FEFF}".to_owned(),
        ];
        let mut input = lines.join("\n").into_bytes();
        input.extend_from_slice(b"\n\xFF\n");
        input.extend_from_slice(&event(4, "r").as_bytes()[..30]);
        let seen = read(&input, 1 << 20);
        assert_eq!(
            seen,
            [
                "L1@0 1",
                "L2@118 !invalid-json",
                "L3@127 !not-an-event",
                "L4@131 !seq-gap",
                "L4@131 3",
                "L5@249 !seq-repeat",
                "L5@249 3",
                "L6@367 !seq-regression",
                "L6@367 2",
                "L7@485 !run-id-mismatch",
                "L7@485 3",
                "L9@608 !invalid-json",
                "L10@612 !invalid-utf8",
                "L11@614 !torn-final-line",
            ]
        );
    }

    /// Found by the `read_transcript` fuzz target: a step payload with an empty `kind`
    /// passed `validate`, so the reader called the line clean, but the writer refuses it.
    #[test]
    fn a_line_the_writer_refuses_in_serializing_is_not_canonical() {
        let line = r#"{"seq":1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{"name":"x","kind":""}}"#;
        let items: Vec<ReadItem> = Reader::new(format!("{line}\n").as_bytes()).collect();
        let ReadItem::Problem(problem) = &items[0] else {
            panic!("{items:?}")
        };
        assert_eq!(problem.kind, ProblemKind::NotCanonical);
        assert_eq!(
            problem.message,
            "optional field `kind` is present but empty; use None"
        );
        assert!(matches!(items[1], ReadItem::Event { .. }));
    }

    /// Found by the `read_transcript` fuzz target: `seq` 0 on the first line made the gap
    /// arithmetic underflow (a panic with overflow checks, "18446744073709551615 missing"
    /// without).
    #[test]
    fn seq_zero_on_the_first_line_is_a_regression_not_a_huge_gap() {
        let input = format!("{}\n{}\n", event(0, "r"), event(1, "r"));
        assert_eq!(
            read(input.as_bytes(), 1 << 20),
            [
                "L1@0 !not-canonical",
                "L1@0 !seq-regression",
                "L1@0 0",
                "L2@118 1"
            ]
        );
        let problem = Reader::new(input.as_bytes()).nth(1).unwrap();
        let ReadItem::Problem(problem) = problem else {
            panic!("{problem:?}")
        };
        assert_eq!(problem.message, "seq 0, expected 1: seq starts at 1");
    }

    #[test]
    fn crlf_bom_and_an_unterminated_complete_line() {
        let input = format!("\u{FEFF}{}\r\n\r\n{}", event(1, "r"), event(2, "r"));
        assert_eq!(
            read(input.as_bytes(), 1 << 20),
            ["L1@3 1", "L3@124 !no-final-newline", "L3@124 2"]
        );
    }

    #[test]
    fn over_long_lines_are_skipped_with_bounded_memory() {
        let long = "x".repeat(300);
        let input = format!("{long}\n{}\n{long}", event(1, "r"));
        for limit in [200, 299] {
            assert_eq!(
                read(input.as_bytes(), limit),
                ["L1@0 !line-too-long", "L2@301 1", "L3@419 !line-too-long"]
            );
        }
        let exactly = format!("{}\n", event(1, "r"));
        assert_eq!(read(exactly.as_bytes(), exactly.len() - 1), ["L1@0 1"]);
    }

    #[test]
    fn resumes_where_it_stopped_and_rereads_a_torn_tail_once_complete() {
        let first = format!("{}\n{}\n", event(1, "r"), event(2, "r"));
        let third = format!("{}\n", event(3, "r"));
        let mut growing = first.clone().into_bytes();
        growing.extend_from_slice(&third.as_bytes()[..40]);
        let mut reader = Reader::new(&growing[..]);
        let kinds: Vec<_> = reader.by_ref().collect();
        assert_eq!(kinds.len(), 3, "two events and the torn tail");
        let position = reader.position().clone();
        assert_eq!(position.offset, first.len() as u64);
        assert_eq!(position.line, 3);
        assert_eq!(position.last_seq, Some(2));

        let mut complete = growing[..first.len()].to_vec();
        complete.extend_from_slice(third.as_bytes());
        complete.extend_from_slice(event(5, "other").as_bytes());
        complete.push(b'\n');
        let rest = &complete[position.offset as usize..];
        let seen: Vec<String> = Reader::at(rest, position)
            .map(|item| match item {
                ReadItem::Event { line, event, .. } => format!("L{line} {}", event.seq),
                ReadItem::Problem(p) => format!("L{} !{}", p.line, p.kind),
            })
            .collect();
        assert_eq!(seen, ["L3 3", "L4 !seq-gap", "L4 !run-id-mismatch", "L4 5"]);
    }
}
