//! The fuzz targets' checks, written once: `fuzz/fuzz_targets/*.rs` include this file with
//! `#[path]`, and `tests/axt/fuzz_regressions.rs` replays the saved crashes and the corpus
//! through it on stable Rust (jiff's `shim.rs` idea). It uses only axt's public API (and the
//! hidden `normalize::sse` seam) and std, so it compiles in both places.
//!
//! Speed matters: a target checks each input once, in one chunking the input's first bytes
//! choose, with as few passes over it as the properties need (the fuzzer finds by volume;
//! `make fuzz-speed` holds each target above 2,000 executions a second). The stable replay
//! runs every fixture in several chunkings instead.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use axt::import::claude_code::{ImportError, SessionFiles, convert, import_session, write};
use axt::model::{ExchangeEvent, Payload, Timestamp, decode_event, encode_event};
use axt::normalize::eventstream::{EventStreamOwned, EventStreamSplitter};
use axt::normalize::sse::{SseOwned, SseSplitter};
use axt::normalize::{
    Diagnostic, DiagnosticKind, Normalized, Options, Provider, RunMeta, normalize_lossy,
};
use axt::read::tree::{Links, check_links};
use axt::read::{Position, ReadItem, Reader};
use axt::transcribe::{EventOptions, EventSink, JsonlSink, Transcriber, to_events};

/// The record limit the targets run with. Half the fuzzer's input limit (`-max_len=4096`,
/// see fuzz/README.md), so an input can hold a record over the limit and records after it;
/// above the 99th percentile of the corpus's record sizes (1.4 KiB), so real records fit.
pub(crate) const MAX_RECORD_BYTES: usize = 2048;

/// How many leading bytes of a fuzz input choose its chunking.
pub(crate) const CHUNKING_BYTES: usize = 2;

/// Chunk sizes for an input of `len` bytes, from a 16-bit seed: the low 3 bits pick the
/// largest chunk (1, 2, 3, 7, 64, 511, 4096 or the whole input), the rest seed a xorshift
/// generator for sizes between 1 and that largest. Deterministic, so a crash replays.
pub(crate) fn chunk_sizes(seed: u16, len: usize) -> Vec<usize> {
    const MAX: [usize; 8] = [1, 2, 3, 7, 64, 511, 4096, usize::MAX];
    let max = MAX[usize::from(seed & 7)];
    let mut state = u32::from(seed) | 0x9E37_0000;
    let mut sizes = Vec::new();
    let mut left = len;
    while left > 0 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let size = match max {
            usize::MAX => left,
            max => (state as usize % max.min(left)) + 1,
        };
        sizes.push(size);
        left -= size;
    }
    sizes
}

/// The chunking the first [`CHUNKING_BYTES`] of a fuzz input choose, and the rest.
fn split_chunking(data: &[u8]) -> Option<(Vec<usize>, &[u8])> {
    let (head, input) = data.split_at_checked(CHUNKING_BYTES)?;
    let seed = u16::from_le_bytes([head[0], head[1]]);
    Some((chunk_sizes(seed, input.len()), input))
}

fn chunks<'a>(input: &'a [u8], sizes: &[usize]) -> impl Iterator<Item = &'a [u8]> {
    assert_eq!(
        sizes.iter().sum::<usize>(),
        input.len(),
        "chunks cover the input"
    );
    let mut rest = input;
    sizes.iter().map(move |&size| {
        let (chunk, tail) = rest.split_at(size);
        rest = tail;
        chunk
    })
}

fn options() -> Options {
    Options {
        max_record_bytes: MAX_RECORD_BYTES,
    }
}

fn event_options() -> EventOptions {
    EventOptions {
        run_id: Some("fuzz".to_owned()),
        clock: Box::new(|| Timestamp::from_unix_nanos(1_780_000_000_000_000_000)),
    }
}

fn lines_in(input: &[u8]) -> u64 {
    input.iter().filter(|b| **b == b'\n').count() as u64
}

// ---------------------------------------------------------------------------------------
// <provider>_chunked

/// The `<provider>_chunked` targets: leading bytes choose the chunking, the rest is the
/// input of `provider`.
pub(crate) fn chunked(provider: Provider, data: &[u8]) {
    if let Some((sizes, input)) = split_chunking(data) {
        check_chunked(provider, input, &sizes);
    }
}

/// Everything a chunked feed must satisfy, in two passes over the input (whole, and
/// streamed in `sizes`): no panic; diagnostics and items point into the input; the streamed
/// transcriber reports the diagnostics and metadata of the whole input and writes, through
/// the strict writer, exactly the events the whole run maps to (streamed equals whole); and
/// the transcript passes `axt check`'s validation clean.
pub(crate) fn check_chunked(provider: Provider, input: &[u8], sizes: &[usize]) {
    check_chunked_with(provider, input, sizes, options());
}

/// [`check_chunked`] with the record limit of `options`.
fn check_chunked_with(provider: Provider, input: &[u8], sizes: &[usize], options: Options) {
    let whole = normalize_lossy(provider, input, options.clone());
    let lines = lines_in(input);
    for diagnostic in &whole.diagnostics {
        check_position(diagnostic, input.len() as u64, lines);
    }
    for item in &whole.items {
        let source = item.source;
        assert!(
            1 <= source.line && source.line <= source.end_line && source.end_line <= lines + 1,
            "item lines {source:?} outside 1..={}",
            lines + 1
        );
        assert!(source.offset <= input.len() as u64, "item {source:?}");
    }
    let streamed = transcribe(provider, input, sizes, options);
    // An event cut to fit a transcript line is said by the transcriber, which writes the
    // events; the normalizer, which makes none, has nothing to say about it.
    let normalized: Vec<&Diagnostic> = streamed
        .diagnostics
        .iter()
        .filter(|d| d.kind != DiagnosticKind::OversizeCut)
        .collect();
    assert_eq!(
        whole.diagnostics.iter().collect::<Vec<_>>(),
        normalized,
        "diagnostics, chunks {sizes:?}"
    );
    assert_eq!(whole.meta, streamed.meta, "metadata, chunks {sizes:?}");
    let expected = write_whole(&whole);
    if expected != streamed.transcript {
        panic!(
            "streamed (chunks {sizes:?}) and whole transcripts differ:\n{}\n---\n{}",
            String::from_utf8_lossy(&streamed.transcript),
            String::from_utf8_lossy(&expected)
        );
    }
    assert_clean_transcript(&streamed.transcript, "the transcriber's");
}

fn check_position(diagnostic: &Diagnostic, len: u64, lines: u64) {
    assert!(
        diagnostic.offset <= len,
        "offset past the input ({len} bytes): {diagnostic:?}"
    );
    // Line 0 is what a missing terminal says when the input had no record at all.
    let lowest = match diagnostic.kind {
        DiagnosticKind::MissingTerminal => 0,
        _ => 1,
    };
    assert!(
        lowest <= diagnostic.line && diagnostic.line <= lines + 1,
        "line outside {lowest}..={}: {diagnostic:?}",
        lines + 1
    );
}

struct Streamed {
    transcript: Vec<u8>,
    diagnostics: Vec<Diagnostic>,
    meta: RunMeta,
}

/// `input` fed to a [`Transcriber`] in `sizes`, written by the strict `JsonlSink`.
fn transcribe(provider: Provider, input: &[u8], sizes: &[usize], options: Options) -> Streamed {
    let mut transcriber = Transcriber::new(provider, options, event_options());
    let mut diagnostics = Vec::new();
    let mut sink = JsonlSink::new(Vec::new(), |diagnostic| {
        diagnostics.push(diagnostic);
        Ok(())
    });
    let written = chunks(input, sizes)
        .try_for_each(|chunk| transcriber.push(chunk, &mut sink))
        .and_then(|()| transcriber.finish(&mut sink));
    if let Err(error) = written {
        panic!("the transcriber made an event the strict writer refuses: {error}");
    }
    let transcript = sink.into_inner();
    Streamed {
        transcript,
        diagnostics,
        meta: transcriber.meta().clone(),
    }
}

/// The events of the whole run, mapped in one go, through the same strict writer.
fn write_whole(whole: &Normalized) -> Vec<u8> {
    let mut sink = JsonlSink::new(Vec::new(), |_| Ok(()));
    for event in to_events(whole, event_options()) {
        if let Err(error) = sink.event(event) {
            panic!("to_events made an event the strict writer refuses: {error}");
        }
    }
    sink.into_inner()
}

// ---------------------------------------------------------------------------------------
// inflated

/// The `inflated` target: the first byte chooses the provider (its index among the providers
/// by name) and the chunking, the rest is
/// that provider's output with *inflation tokens* ([`inflate`]) that make a small input into
/// records up to and past the transcript's line limit and nested past its depth limit. The
/// checks are `<provider>_chunked`'s, with the record limit above the line limit (as
/// `--max-record-bytes` allows), so every event the adapter makes from such a record must
/// still be written as a line `axt check` takes.
pub(crate) fn inflated(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    // By name, as the seeds (fuzz/init-corpus.sh) number the corpus folders.
    let mut providers = Provider::ALL;
    providers.sort_by_key(|provider| provider.as_str());
    let provider = providers[usize::from(pick & 7) % providers.len()];
    let input = inflate(rest);
    check_inflated(provider, &input, pick & 0x80 != 0);
}

/// [`inflated`]'s checks on an input already inflated: whole, or (`chunked`) in 64 KiB
/// chunks.
pub(crate) fn check_inflated(provider: Provider, input: &[u8], chunked: bool) {
    let sizes = if chunked {
        let mut sizes = vec![64 << 10; input.len() / (64 << 10)];
        if !input.len().is_multiple_of(64 << 10) {
            sizes.push(input.len() % (64 << 10));
        }
        sizes
    } else if input.is_empty() {
        Vec::new()
    } else {
        vec![input.len()]
    };
    let options = Options {
        max_record_bytes: 2 * axt::model::MAX_LINE_BYTES,
    };
    check_chunked_with(provider, input, &sizes, options);
}

/// The most bytes [`inflate`] makes: three transcript lines' worth.
const INFLATED_MAX: usize = 3 * axt::model::MAX_LINE_BYTES;

/// Expands tokens no UTF-8 text contains (0xF5 to 0xF7 start no character): `0xF5 n`
/// repeats the byte before it `(n + 1) * 64 KiB` times; `0xF6 n` writes `(n + 1) * 4`
/// opening brackets `[` and `0xF7 n` as many closing ones. Everything else is copied. The
/// result stops at [`INFLATED_MAX`] bytes.
pub(crate) fn inflate(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut bytes = data.iter().copied();
    while let Some(byte) = bytes.next() {
        let count = |n: Option<u8>| usize::from(n.unwrap_or(0)) + 1;
        match byte {
            0xF5 => {
                let repeat = count(bytes.next()) * (64 << 10);
                let last = out.last().copied().unwrap_or(b'x');
                let room = INFLATED_MAX.saturating_sub(out.len());
                out.resize(out.len() + repeat.min(room), last);
            }
            0xF6 => out.extend(std::iter::repeat_n(b'[', count(bytes.next()) * 4)),
            0xF7 => out.extend(std::iter::repeat_n(b']', count(bytes.next()) * 4)),
            other => out.push(other),
        }
        if out.len() >= INFLATED_MAX {
            out.truncate(INFLATED_MAX);
            break;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// What axt writes passes axt check

/// `axt check`'s validation of one transcript, through the library calls
/// `src/cli/check.rs` makes: the reader's problems, and a transcript with no event at all.
/// (The links between files are checked by [`assert_links_clean`] where there are files.)
pub(crate) fn check_problems(transcript: &[u8]) -> (Vec<String>, Links) {
    let mut problems = Vec::new();
    let mut links = Links::default();
    let mut events = 0;
    for item in Reader::new(transcript) {
        match item {
            ReadItem::Event {
                line,
                offset,
                event,
            } => {
                events += 1;
                links.add(line, offset, &event);
            }
            ReadItem::Problem(problem) => problems.push(problem.to_string()),
        }
    }
    if events == 0 && problems.is_empty() {
        problems.push("no-event".to_owned());
    }
    (problems, links)
}

fn assert_clean_transcript(transcript: &[u8], whose: &str) {
    let (problems, _) = check_problems(transcript);
    if !problems.is_empty() {
        panic!(
            "{whose} transcript fails axt check: {problems:#?}\n{}",
            String::from_utf8_lossy(transcript)
        );
    }
}

fn assert_links_clean(path: &Path, links: &Links) {
    let problems = check_links(path, links);
    assert!(
        problems.is_empty(),
        "{}: the links fail axt check: {problems:#?}",
        path.display()
    );
}

// ---------------------------------------------------------------------------------------
// decode_event

/// The `decode_event` target: whatever decodes and encodes again decodes to the same value.
pub(crate) fn decode_round_trip(data: &[u8]) {
    let Ok(event) = decode_event(data) else {
        return;
    };
    re_encodes(&event);
}

fn re_encodes(event: &ExchangeEvent) {
    let mut encoded = Vec::new();
    if encode_event(event, &mut encoded).is_err() {
        return;
    }
    match decode_event(&encoded) {
        Ok(again) => assert_eq!(&again, event, "{}", String::from_utf8_lossy(&encoded)),
        Err(error) => panic!(
            "encode_event wrote what decode_event refuses ({error}): {}",
            String::from_utf8_lossy(&encoded)
        ),
    }
}

// ---------------------------------------------------------------------------------------
// read_transcript

/// The `read_transcript` target: the first two bytes choose where reading stops and
/// resumes, the rest is a transcript file. Every problem lies inside the input, every event
/// the reader yields clean re-encodes to itself (and one with problems, if the writer takes
/// it), and reading in two parts, resuming at [`Reader::position`], yields what reading the
/// whole does.
pub(crate) fn read_transcript(data: &[u8]) {
    let Some((head, input)) = data.split_at_checked(CHUNKING_BYTES) else {
        return;
    };
    let cut = usize::from(u16::from_le_bytes([head[0], head[1]])) % (input.len() + 1);
    check_read(input, cut);
}

type Seen = Vec<ReadItem>;

pub(crate) fn check_read(input: &[u8], cut: usize) {
    // A small line limit, so that over-long lines are reachable.
    let reader = |bytes, at| Reader::at(bytes, at).max_line_bytes(MAX_RECORD_BYTES);
    let whole: Seen = reader(input, Position::start()).collect();
    let len = input.len() as u64;
    let lines = lines_in(input);
    // The line of the last problem: an event of that line has a problem (they come first).
    let mut problem_line = 0;
    for item in &whole {
        let (line, offset) = match item {
            ReadItem::Event {
                line,
                offset,
                event,
            } => {
                if problem_line != *line {
                    // No problem reported: the writer takes it, and it reads back the same.
                    let mut encoded = Vec::new();
                    if let Err(error) = encode_event(event, &mut encoded) {
                        panic!("line {line}: a clean event the writer refuses: {error}");
                    }
                }
                re_encodes(event);
                (*line, *offset)
            }
            ReadItem::Problem(problem) => {
                problem_line = problem.line;
                (problem.line, problem.offset)
            }
        };
        assert!(
            offset <= len,
            "offset {offset} past the input ({len} bytes)"
        );
        assert!(
            1 <= line && line <= lines + 1,
            "line {line} outside 1..={}",
            lines + 1
        );
    }

    let mut first = reader(&input[..cut], Position::start());
    let mut parts: Seen = first.by_ref().collect();
    let position = first.position().clone();
    assert!(
        position.offset <= cut as u64,
        "{position:?} past the cut at {cut}"
    );
    let resumed_at = position.offset as usize;
    // A last line that decodes without its LF is taken as complete (a writer appends whole
    // lines); cut inside a longer line, it is not what reading the whole sees, so the two
    // readings are compared only when the cut left no such line. What the first reading
    // said about its unconsumed tail (torn, too long) is said again when it is re-read.
    if parts.iter().any(|item| {
        matches!(item, ReadItem::Problem(p) if p.kind == axt::read::ProblemKind::NoFinalNewline)
    }) {
        return;
    }
    parts.retain(|item| {
        let offset = match item {
            ReadItem::Event { offset, .. } => *offset,
            ReadItem::Problem(problem) => problem.offset,
        };
        offset < position.offset
    });
    parts.extend(reader(&input[resumed_at..], position));
    assert_eq!(parts, whole, "read in two parts at {cut} and whole");
}

// ---------------------------------------------------------------------------------------
// sse_framer

/// The `sse_framer` target: leading bytes choose the chunking, the rest is an SSE stream.
pub(crate) fn sse_framer(data: &[u8]) {
    if let Some((sizes, input)) = split_chunking(data) {
        check_sse(input, &sizes);
    }
}

/// The SSE framer over `input` fed in `sizes` hands on what it hands on fed whole, and
/// every event's positions and data lie inside the input.
pub(crate) fn check_sse(input: &[u8], sizes: &[usize]) {
    let split = |sizes: &[usize]| -> Vec<SseOwned> {
        let mut splitter = SseSplitter::new(MAX_RECORD_BYTES);
        chunks(input, sizes).for_each(|chunk| splitter.push(chunk));
        splitter.finish()
    };
    let whole = split(&[input.len()]);
    assert_eq!(split(sizes), whole, "chunks {sizes:?}");
    let len = input.len() as u64;
    let lines = lines_in(input) + 1;
    let mut last_line = 0;
    for event in &whole {
        assert!(
            1 <= event.line && event.line <= event.end_line && event.end_line <= lines,
            "lines outside 1..={lines}: {event:?}"
        );
        assert!(
            event.line <= event.data_line && event.data_line <= event.end_line,
            "{event:?}"
        );
        assert!(
            event.offset <= event.data_offset && event.data_offset <= len,
            "offsets past the input ({len} bytes): {event:?}"
        );
        assert!(
            event.data_offset + event.data.len() as u64 <= len,
            "data past the input ({len} bytes): {event:?}"
        );
        assert!(
            event.data.len() <= MAX_RECORD_BYTES,
            "data over the limit: {event:?}"
        );
        assert!(event.line > last_line, "out of order: {event:?}");
        last_line = event.end_line;
        if event.too_large.is_none() && !event.data.contains(&b'\n') {
            // One data line: its value is in the input where the event says.
            let at = event.data_offset as usize;
            assert_eq!(
                &input[at..at + event.data.len()],
                &event.data[..],
                "{event:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// eventstream_framer

/// The `eventstream_framer` target: any bytes as an AWS event stream (Bedrock's binary
/// framing), fed in the chunking the first two bytes choose and whole.
pub(crate) fn eventstream_framer(data: &[u8]) {
    if let Some((sizes, input)) = split_chunking(data) {
        check_eventstream(input, &sizes);
    }
}

/// The event-stream framing over `input` fed in `sizes` hands on what it hands on fed
/// whole; every frame lies inside the input, in order, a record's message ending where its
/// next frame can start, and no record is over the limit.
pub(crate) fn check_eventstream(input: &[u8], sizes: &[usize]) {
    let split = |sizes: &[usize]| -> Vec<EventStreamOwned> {
        let mut splitter = EventStreamSplitter::new(MAX_RECORD_BYTES);
        chunks(input, sizes).for_each(|chunk| splitter.push(chunk));
        splitter.finish()
    };
    let whole = split(&[input.len()]);
    assert_eq!(split(sizes), whole, "chunks {sizes:?}");
    let len = input.len() as u64;
    let lines = lines_in(input) + 1;
    let mut next = 0;
    for frame in &whole {
        assert!(
            1 <= frame.line && frame.line <= lines,
            "line outside 1..={lines}: {frame:?}"
        );
        assert!(
            frame.offset <= len,
            "offset past the input ({len} bytes): {frame:?}"
        );
        assert!(frame.offset >= next, "out of order: {frame:?}");
        if frame.what == "record" {
            let end = frame.end.expect("a record says where its message ends");
            assert!(
                frame.offset < end && end <= len,
                "message past the input: {frame:?}"
            );
            assert!(
                frame.bytes.len() <= MAX_RECORD_BYTES,
                "record over the limit: {frame:?}"
            );
            next = end;
        }
    }
}

// ---------------------------------------------------------------------------------------
// import_claude_code

/// The `import_claude_code` target: any bytes as a Claude Code session log. No panic; a
/// log refused whole is refused for what it is; otherwise every entry is in a thread or
/// counted as kept out (as the import corpus test counts), the runs written through the
/// recorder pass `axt check` clean, links included, and the streaming import writes byte
/// for byte what writing the in-memory conversion writes.
pub(crate) fn import_claude_code(data: &[u8]) {
    Scratch::with(|scratch| check_import(data, scratch));
}

fn check_import(data: &[u8], scratch: &Scratch) {
    let log = scratch
        .root
        .join("0f0e0d0c-0b0a-4909-8807-060504030201.jsonl");
    std::fs::File::create(&log)
        .and_then(|mut file| file.write_all(data))
        .expect("the scratch log is written");
    let files = SessionFiles {
        main: Some(log),
        subagents: Vec::new(),
    };
    let session = match convert(&files) {
        Ok(session) => session,
        Err(ImportError::NotASession { line, offset, .. }) => {
            assert!(offset <= data.len() as u64 && line <= lines_in(data) + 1);
            return;
        }
        Err(error) => panic!("a session log refused for no good reason: {error}"),
    };
    let mut accounted: (Option<u64>, u64) = (None, 0);
    for run in &session.runs {
        let completed = run.events.last().expect("a run has events");
        let Payload::Step(step) = &completed.payload else {
            panic!("a run ends with a step payload: {completed:?}")
        };
        let import = &step.result["import"];
        let Some(entries) = import["entries"].as_u64() else {
            continue; // the simplified format has no graph
        };
        let placed = import["thread"].as_u64().expect("import.thread");
        let kept: u64 = import["kept_out"]
            .as_object()
            .expect("import.kept_out")
            .values()
            .map(|n| n.as_u64().expect("a count"))
            .sum();
        assert_eq!(import["off_chain"].as_u64(), Some(kept), "import.off_chain");
        accounted.0 = Some(entries);
        accounted.1 += placed + kept;
    }
    if let (Some(entries), placed) = accounted {
        assert_eq!(entries, placed, "entries in a thread or kept out");
    }
    let written = write(&session, &scratch.converted, true).expect("the runs are written");
    for path in &written {
        let transcript = std::fs::read(path).expect("a written run reads");
        let (problems, links) = check_problems(&transcript);
        assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
        assert_links_clean(path, &links);
    }
    let imported = import_session(&files, &scratch.streamed, true).expect("streamed import");
    assert_eq!(
        imported.runs.len(),
        written.len(),
        "runs streamed and converted"
    );
    for (run, path) in imported.runs.iter().zip(&written) {
        assert_eq!(
            std::fs::read(&run.path).expect("a streamed run reads"),
            std::fs::read(path).expect("a converted run reads"),
            "{}: streamed and converted differ",
            run.run_id
        );
    }
    assert_eq!(
        imported.notes, session.notes,
        "notes streamed and converted"
    );
    assert_eq!(imported.diagnostics, session.diagnostics);
    for found in &session.diagnostics {
        check_position(&found.diagnostic, data.len() as u64, lines_in(data));
    }
}

/// Directories for the import target, named once per thread (tests run in parallel) in
/// memory where /dev/shm is, and emptied before each input.
struct Scratch {
    root: PathBuf,
    converted: PathBuf,
    streamed: PathBuf,
}

impl Scratch {
    fn with<T>(run: impl FnOnce(&Scratch) -> T) -> T {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static THREADS: AtomicUsize = AtomicUsize::new(0);
        thread_local! {
            static SCRATCH: Scratch = Scratch::new(THREADS.fetch_add(1, Ordering::Relaxed));
        }
        SCRATCH.with(|scratch| {
            scratch.reset();
            let result = run(scratch);
            let _ = std::fs::remove_dir_all(&scratch.root);
            result
        })
    }

    fn new(thread: usize) -> Scratch {
        let shm = Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_owned()
        } else {
            std::env::temp_dir()
        };
        let root = base.join(format!("axt-fuzz-import-{}-{thread}", std::process::id()));
        Scratch {
            converted: root.join("converted"),
            streamed: root.join("streamed"),
            root,
        }
    }

    fn reset(&self) {
        let _ = std::fs::remove_dir_all(&self.root);
        for dir in [&self.converted, &self.streamed] {
            std::fs::create_dir_all(dir).expect("a scratch directory");
        }
    }
}
