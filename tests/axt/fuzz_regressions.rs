//! The fuzz targets' checks on stable Rust: every saved crash in `fuzz/regressions/<target>/`
//! and every corpus fixture, fed in several chunkings. A crash the fuzzer finds is minimized
//! (`cargo +nightly fuzz tmin`), saved there with its fix, and replayed here for good.

mod check;

use std::fs;
use std::path::PathBuf;

use axt::normalize::Provider;

use crate::support::PROVIDER_INPUTS;

fn files(dir: &str, suffix: &str) -> Vec<PathBuf> {
    let root = crate::support::root().join(dir);
    let mut found = Vec::new();
    let mut pending = vec![root];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a readable directory").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn replay(target: &str, run: impl Fn(&[u8]) + std::panic::RefUnwindSafe) {
    for path in files(&format!("fuzz/regressions/{target}"), "") {
        let data = fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| run(&data));
        assert!(outcome.is_ok(), "{} fails again", path.display());
    }
}

#[test]
fn chunked_regressions() {
    for provider in Provider::ALL {
        replay(&format!("{provider}_chunked"), |data| {
            check::chunked(provider, data)
        });
    }
}

#[test]
fn decode_event_regressions() {
    replay("decode_event", check::decode_round_trip);
}

#[test]
fn read_transcript_regressions() {
    replay("read_transcript", check::read_transcript);
}

#[test]
fn sse_framer_regressions() {
    replay("sse_framer", check::sse_framer);
}

#[test]
fn eventstream_framer_regressions() {
    replay("eventstream_framer", check::eventstream_framer);
}

#[test]
fn import_claude_code_regressions() {
    replay("import_claude_code", check::import_claude_code);
}

#[test]
fn inflated_regressions() {
    replay("inflated", check::inflated);
}

/// The `inflated` target's checks on stable, over every provider's corpus inflated to the
/// limits: each fixture's first number nested 128 and 200 levels deep (`[[...1...]]`), in
/// both chunkings; and one fixture per provider with its first string value grown past the
/// line limit (a record of over 16 MiB, read under a record limit above the line limit).
#[test]
fn every_corpus_inflated_to_the_limits() {
    let depth = |levels: u8| [[0xF6, levels / 4 - 1], [0xF7, levels / 4 - 1]];
    for provider in Provider::ALL {
        let fixtures: Vec<PathBuf> = files(&format!("corpus/normalize/{provider}/ok"), "")
            .into_iter()
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e == "jsonl" || e == "json" || e == "sse")
            })
            .collect();
        let mut grown = false;
        for path in &fixtures {
            let input = fs::read(path).unwrap();
            // The first value that is a number: `:` then a digit.
            if let Some(at) = input
                .windows(2)
                .position(|w| w[0] == b':' && w[1].is_ascii_digit())
            {
                for levels in [128u8, 200] {
                    let [open, close] = depth(levels);
                    let end = input[at + 1..]
                        .iter()
                        .position(|b| !b.is_ascii_digit() && *b != b'.')
                        .map_or(input.len(), |n| at + 1 + n);
                    let mut tokens = input[..=at].to_vec();
                    tokens.extend_from_slice(&open);
                    tokens.extend_from_slice(&input[at + 1..end]);
                    tokens.extend_from_slice(&close);
                    tokens.extend_from_slice(&input[end..]);
                    let inflated = check::inflate(&tokens);
                    for chunked in [false, true] {
                        let outcome = std::panic::catch_unwind(|| {
                            check::check_inflated(provider, &inflated, chunked)
                        });
                        assert!(outcome.is_ok(), "{} {levels} deep", path.display());
                    }
                }
            }
            // The first string value: `":"` then a character to repeat.
            if !grown
                && let Some(at) = input
                    .windows(4)
                    .position(|w| w[..3] == *b"\":\"" && w[3].is_ascii_alphanumeric())
            {
                grown = true;
                let mut tokens = input[..at + 4].to_vec();
                tokens.extend_from_slice(&[0xF5, 0xFF, 0xF5, 0x00]);
                tokens.extend_from_slice(&input[at + 4..]);
                let inflated = check::inflate(&tokens);
                assert!(inflated.len() > axt::model::MAX_LINE_BYTES);
                let outcome =
                    std::panic::catch_unwind(|| check::check_inflated(provider, &inflated, false));
                assert!(outcome.is_ok(), "{} grown", path.display());
            }
        }
        assert!(grown, "a {provider} fixture with a string value");
    }
}

#[test]
fn every_corpus_under_every_kind_of_chunking() {
    for provider in Provider::ALL {
        corpus_under_every_kind_of_chunking(provider);
    }
}

fn corpus_under_every_kind_of_chunking(provider: Provider) {
    let fixtures = files(&format!("corpus/normalize/{provider}"), "");
    let fixtures: Vec<_> = fixtures
        .into_iter()
        .filter(|p| {
            p.extension()
                .is_some_and(|e| PROVIDER_INPUTS.iter().any(|input| e == *input))
        })
        .collect();
    assert!(
        fixtures.len() >= 15,
        "the {provider} corpus is where it should be"
    );
    for path in fixtures {
        let input = fs::read(&path).unwrap();
        // Every maximum chunk size (1 byte to whole), with two generator seeds each.
        for seed in (0..8u16).chain(0x100..0x108) {
            let chunks = check::chunk_sizes(seed, input.len());
            let outcome =
                std::panic::catch_unwind(|| check::check_chunked(provider, &input, &chunks));
            assert!(
                outcome.is_ok(),
                "{} with chunking seed {seed}",
                path.display()
            );
        }
    }
}

#[test]
fn transcript_corpus_round_trips() {
    for path in files("corpus/read/transcript", ".jsonl") {
        for line in fs::read(&path).unwrap().split(|b| *b == b'\n') {
            check::decode_round_trip(line);
        }
    }
}

/// Every transcript fixture read whole and in two parts, cut at every 7th byte and at
/// every line boundary.
#[test]
fn transcript_corpus_reads_resumed_anywhere() {
    for path in files("corpus/read/transcript", ".jsonl") {
        let input = fs::read(&path).unwrap();
        let line_ends = input.iter().enumerate().filter(|(_, b)| **b == b'\n');
        let cuts = (0..=input.len())
            .step_by(7)
            .chain(line_ends.map(|(at, _)| at + 1));
        for cut in cuts {
            let outcome = std::panic::catch_unwind(|| check::check_read(&input, cut));
            assert!(outcome.is_ok(), "{} cut at {cut}", path.display());
        }
    }
}

/// The OpenAI corpus (SSE streams among it) through the SSE framer in every kind of
/// chunking.
#[test]
fn sse_corpus_under_every_kind_of_chunking() {
    let fixtures = files("corpus/normalize/openai", ".sse");
    assert!(fixtures.len() >= 10, "the SSE corpus is where it should be");
    for path in fixtures {
        let input = fs::read(&path).unwrap();
        for seed in (0..8u16).chain(0x100..0x108) {
            let chunks = check::chunk_sizes(seed, input.len());
            let outcome = std::panic::catch_unwind(|| check::check_sse(&input, &chunks));
            assert!(
                outcome.is_ok(),
                "{} with chunking seed {seed}",
                path.display()
            );
        }
    }
}

/// Every binary event stream of the corpus (Bedrock's, and Anthropic's as Bedrock serves
/// it) through the event-stream framer's checks, under every kind of chunking.
#[test]
fn eventstream_corpus_under_every_kind_of_chunking() {
    let fixtures = files("corpus/normalize", ".eventstream");
    assert!(
        fixtures.len() >= 8,
        "the event-stream corpus is where it should be"
    );
    for path in fixtures {
        let input = fs::read(&path).unwrap();
        for seed in (0..8u16).chain(0x100..0x108) {
            let chunks = check::chunk_sizes(seed, input.len());
            let outcome = std::panic::catch_unwind(|| check::check_eventstream(&input, &chunks));
            assert!(
                outcome.is_ok(),
                "{} with chunking seed {seed}",
                path.display()
            );
        }
    }
}

/// Every session log of the import corpus through the import target's checks.
#[test]
fn import_corpus_through_the_fuzz_checks() {
    let logs = files("corpus/import/claude-code", ".jsonl");
    assert!(logs.len() >= 15, "the import corpus is where it should be");
    for path in logs {
        let input = fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| check::import_claude_code(&input));
        assert!(outcome.is_ok(), "{}", path.display());
    }
}

#[test]
fn chunk_sizes_cover_the_input_and_reach_single_bytes() {
    for seed in [0, 1, 5, 7, 0xFFFF] {
        for len in [0, 1, 10, 5000] {
            assert_eq!(check::chunk_sizes(seed, len).iter().sum::<usize>(), len);
        }
    }
    assert!(check::chunk_sizes(0, 10).iter().all(|size| *size == 1));
    assert_eq!(check::chunk_sizes(7, 10), vec![10]);
}
