//! Event times: the provider's own where it stamps its records, a clock the caller chooses
//! where it does not, so that normalizing the same input twice gives the same bytes.

use std::path::PathBuf;

use axt::Timestamp;
use axt::model::decode_event;
use axt::normalize::{Options, Provider, normalize_lossy};
use axt::transcribe::{EventOptions, JsonlSink, Transcriber};

use super::cli::{axt, text};

use crate::support::{self, PROVIDER_INPUTS, ROOT, root};

/// The corpus harness's record limit, so that every fixture reads as its golden says.
const MAX_RECORD_BYTES: usize = 64 * 1024;

/// Every normalizer fixture with its provider (the Claude Code session logs are Claude's).
fn fixtures() -> Vec<(Provider, PathBuf)> {
    let corpora = Provider::ALL
        .map(|provider| (format!("normalize/{provider}"), provider))
        .into_iter()
        .chain([("import/claude-code".to_owned(), Provider::Claude)]);
    let mut found = Vec::new();
    for (corpus, provider) in corpora {
        for fixture in support::fixtures(&root().join("corpus").join(corpus), &PROVIDER_INPUTS) {
            found.push((provider, fixture.path));
        }
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

fn options() -> Options {
    Options {
        max_record_bytes: MAX_RECORD_BYTES,
    }
}

/// The fixture's transcript, made by the library with `clock`.
fn transcript(provider: Provider, input: &[u8], clock: Option<Timestamp>) -> Vec<u8> {
    let events = EventOptions {
        run_id: Some("X".into()),
        clock: match clock {
            Some(time) => Box::new(move || time.clone()),
            None => Box::new(Timestamp::now),
        },
    };
    let mut transcriber = Transcriber::new(provider, options(), events);
    let mut sink = JsonlSink::new(Vec::new(), |_| Ok(()));
    transcriber.push(input, &mut sink).unwrap();
    transcriber.finish(&mut sink).unwrap();
    sink.into_inner()
}

fn timestamps(transcript: &[u8]) -> Vec<i128> {
    transcript
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| decode_event(line).unwrap().timestamp.unix_nanos().unwrap())
        .collect()
}

/// Where the provider stamps its records, `axt normalize --run-id X` twice gives the same
/// bytes, and every event is dated within the run's source times, never backwards.
#[test]
fn normalizing_dated_input_twice_gives_the_same_bytes() {
    let mut dated = 0;
    for (provider, path) in fixtures() {
        let input = std::fs::read(&path).unwrap();
        let normalized = normalize_lossy(provider, &input, options());
        let Some(times) = normalized.meta.source_times else {
            continue;
        };
        dated += 1;
        let name = path.strip_prefix(ROOT).unwrap().to_str().unwrap();
        let run = || {
            let output = axt(
                &[
                    "normalize",
                    "--run-id",
                    "X",
                    "--provider",
                    provider.as_str(),
                    "--max-record-bytes",
                    "65536",
                    name,
                ],
                b"",
            );
            output.stdout
        };
        let (first, second) = (run(), run());
        assert!(!first.is_empty(), "{name}: a transcript");
        assert_eq!(text(&first), text(&second), "{name}: the same bytes twice");

        let (start, end) = (
            times.first.unix_nanos().unwrap(),
            times.last.unix_nanos().unwrap(),
        );
        let stamps = timestamps(&first);
        assert!(
            stamps.iter().all(|t| (start..=end).contains(t)),
            "{name}: every event dated by the source, within {} .. {}",
            times.first,
            times.last
        );
        assert!(
            stamps.windows(2).all(|pair| pair[0] <= pair[1]),
            "{name}: times never go backwards"
        );
        assert_eq!(
            stamps.last(),
            Some(&end),
            "{name}: the run ends at its last stamp"
        );
    }
    // Gemini and Copilot stamp every record, OpenAI its responses, Claude Code its session
    // logs: most of the corpus.
    assert!(dated >= 50, "only {dated} dated fixtures");
}

/// Where nothing is stamped (Claude stream-json, Codex, an OpenAI body without `created`),
/// the clock dates every event: a fixed one makes the output reproducible.
#[test]
fn a_fixed_clock_dates_what_the_source_does_not() {
    let fixed = Timestamp::parse("2026-01-02T03:04:05Z").unwrap();
    let mut undated = 0;
    for (provider, path) in fixtures() {
        let input = std::fs::read(&path).unwrap();
        let first = transcript(provider, &input, Some(fixed.clone()));
        let second = transcript(provider, &input, Some(fixed.clone()));
        let name = path.display();
        assert_eq!(first, second, "{name}: the same bytes twice");
        if normalize_lossy(provider, &input, options())
            .meta
            .source_times
            .is_none()
        {
            undated += 1;
            let fixed = fixed.unix_nanos().unwrap();
            assert!(
                timestamps(&first).iter().all(|t| *t == fixed),
                "{name}: every event at the fixed time"
            );
        }
    }
    assert!(undated >= 40, "only {undated} undated fixtures");

    // The command line: --clock fixed:TIME.
    let fixture = "corpus/normalize/codex/ok/shared-scenario-shell-command.jsonl";
    let run = || {
        axt(
            &[
                "normalize",
                "--clock",
                "fixed:2026-01-02T03:04:05Z",
                fixture,
            ],
            b"",
        )
    };
    let (first, second) = (run(), run());
    assert_eq!(first.status.code(), Some(0));
    assert_eq!(first.stdout, second.stdout);
    assert!(text(&first.stdout).contains(r#""timestamp":"2026-01-02T03:04:05Z""#));
    assert!(!text(&first.stdout).contains(r#""timestamp":"2026-01-02T03:04:05.000000Z""#));

    let wrong = axt(&["normalize", "--clock", "yesterday", fixture], b"");
    assert_eq!(wrong.status.code(), Some(2));
    insta::assert_snapshot!(text(&wrong.stderr), @r#"
    error: invalid value 'yesterday' for '--clock <now|fixed:TIME>': "yesterday" is neither `now` nor `fixed:<RFC 3339 time>`

    For more information, try '--help'.
    "#);
}

/// Items made before a stamping provider's first stamp wait for it: an OpenAI request is
/// dated by the response that answers it, not by the clock.
#[test]
fn records_before_the_first_stamp_take_it() {
    let input = std::fs::read(format!(
        "{ROOT}/corpus/normalize/openai/ok/conversation-two-exchanges-history-repeated.jsonl"
    ))
    .unwrap();
    let normalized = normalize_lossy(Provider::OpenAi, &input, options());
    let times: Vec<_> = normalized
        .items
        .iter()
        .map(|item| (item.source.line, item.time.as_ref().map(|t| t.to_string())))
        .collect();
    let (first, second) = (
        Some("2026-01-01T00:10:00.000000Z".to_owned()),
        Some("2026-01-01T00:10:05.000000Z".to_owned()),
    );
    assert_eq!(
        times,
        [
            (1, first.clone()),
            (2, first.clone()),
            (3, first.clone()),
            (4, second)
        ]
    );
}

/// With the source's times, `axt tree` shows the provider's durations: the agent step of
/// the Gemini scenario runs from the prompt echo (11:00:00.101) to the result (04.170).
#[test]
fn tree_durations_are_the_providers() {
    let dir = std::env::temp_dir().join(format!("axt-times-{}", std::process::id()));
    let fixture = "corpus/normalize/gemini/ok/shared-scenario-shell-command.jsonl";
    let out = dir.to_str().unwrap();
    let written = axt(&["normalize", "--out", out, fixture], b"");
    assert_eq!(written.status.code(), Some(0));
    let run = dir.join("2b9e6f1c-7a54-4d83-9c2e-5f0a1b8d3e76.jsonl");
    let tree = axt(&["tree", "--json", run.to_str().unwrap()], b"");
    std::fs::remove_dir_all(&dir).unwrap();
    let tree: serde_json::Value = serde_json::from_slice(&tree.stdout).unwrap();
    let agent = &tree["root"]["children"][0];
    assert_eq!(agent["path"], "agent");
    assert_eq!(agent["duration_ms"], 4069);
}
