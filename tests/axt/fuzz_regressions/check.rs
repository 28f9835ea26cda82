//! The fuzz targets' checks, written once: `fuzz/fuzz_targets/*.rs` include this file with
//! `#[path]`, and `tests/axt/fuzz_regressions.rs` replays the saved crashes and the corpus
//! through it on stable Rust (jiff's `shim.rs` idea). It uses only axt's public API and std,
//! so it compiles in both places.

use axt::model::{Timestamp, decode_event, encode_event};
use axt::normalize::{Diagnostic, DiagnosticKind, Options, Output, Provider, RunMeta};
use axt::transcribe::{EventOptions, JsonlSink, Transcriber};

/// The record limit the chunked target runs with: small, so fuzzed inputs reach it.
pub(crate) const MAX_RECORD_BYTES: usize = 4096;

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

/// The `<provider>_chunked` targets: leading bytes choose the chunking, the rest is the
/// input of `provider`.
pub(crate) fn chunked(provider: Provider, data: &[u8]) {
    if data.len() < CHUNKING_BYTES {
        return;
    }
    let seed = u16::from_le_bytes([data[0], data[1]]);
    let input = &data[CHUNKING_BYTES..];
    check_chunked(provider, input, &chunk_sizes(seed, input.len()));
}

/// Everything a chunked feed must satisfy: no panic; diagnostics point into the input; the
/// blocks, diagnostics and metadata equal those of the whole feed; and the strict writer
/// accepts every event the transcriber makes, which decode back.
pub(crate) fn check_chunked(provider: Provider, input: &[u8], chunks: &[usize]) {
    assert_eq!(
        chunks.iter().sum::<usize>(),
        input.len(),
        "chunks cover the input"
    );
    let (whole, whole_meta) = normalize(provider, input, &[input.len()]);
    let (chunked, chunked_meta) = normalize(provider, input, chunks);
    assert_eq!(whole.items, chunked.items, "items, chunks {chunks:?}");
    assert_eq!(
        whole.diagnostics, chunked.diagnostics,
        "diagnostics, chunks {chunks:?}"
    );
    assert_eq!(whole_meta, chunked_meta, "metadata, chunks {chunks:?}");
    let lines = input.iter().filter(|b| **b == b'\n').count() as u64;
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
    let transcript = transcribe(provider, input, chunks);
    assert_eq!(
        transcribe(provider, input, &[input.len()]),
        transcript,
        "transcript, chunks {chunks:?}"
    );
    for line in transcript.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        if let Err(error) = decode_event(line) {
            panic!(
                "the writer wrote a line its reader refuses ({error}): {}",
                String::from_utf8_lossy(line)
            );
        }
    }
}

fn normalize(provider: Provider, input: &[u8], chunks: &[usize]) -> (Output, RunMeta) {
    let options = Options {
        max_record_bytes: MAX_RECORD_BYTES,
    };
    let mut normalizer = provider.normalizer(options);
    let mut out = Output::default();
    let mut rest = input;
    for &size in chunks {
        let (chunk, tail) = rest.split_at(size);
        normalizer.push(chunk, &mut out);
        rest = tail;
    }
    normalizer.finish(&mut out);
    (out, normalizer.meta().clone())
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

/// The canonical JSONL of `input` fed in `chunks`, with a fixed run id and clock.
fn transcribe(provider: Provider, input: &[u8], chunks: &[usize]) -> Vec<u8> {
    let events = EventOptions {
        run_id: Some("fuzz".to_owned()),
        clock: Box::new(|| Timestamp::from_unix_nanos(1_780_000_000_000_000_000)),
    };
    let options = Options {
        max_record_bytes: MAX_RECORD_BYTES,
    };
    let mut transcriber = Transcriber::new(provider, options, events);
    let mut sink = JsonlSink::new(Vec::new(), |_| Ok(()));
    let mut rest = input;
    let written = chunks
        .iter()
        .try_for_each(|&size| {
            let (chunk, tail) = rest.split_at(size);
            rest = tail;
            transcriber.push(chunk, &mut sink)
        })
        .and_then(|()| transcriber.finish(&mut sink));
    if let Err(error) = written {
        panic!("the transcriber made an event the strict writer refuses: {error}");
    }
    sink.into_inner()
}

/// The `decode_event` target: whatever decodes and encodes again decodes to the same value.
pub(crate) fn decode_round_trip(data: &[u8]) {
    let Ok(event) = decode_event(data) else {
        return;
    };
    let mut encoded = Vec::new();
    if encode_event(&event, &mut encoded).is_err() {
        return;
    }
    match decode_event(&encoded) {
        Ok(again) => assert_eq!(again, event, "{}", String::from_utf8_lossy(&encoded)),
        Err(error) => panic!(
            "encode_event wrote what decode_event refuses ({error}): {}",
            String::from_utf8_lossy(&encoded)
        ),
    }
}
