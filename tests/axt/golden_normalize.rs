//! The golden corpus: every fixture under `corpus/normalize/<provider>/{ok,err}/` is normalized, checked
//! against invariants, and compared with its snapshot in `golden/normalize/<provider>/{ok,err}/`.
//!
//! Invariants come before snapshots (ruff's fixture harness does the same), so a snapshot can
//! never bless broken output:
//! * `ok/` fixtures give no error diagnostic, `err/` fixtures at least one;
//! * the output is identical however the input is chunked (whole, byte by byte, ...);
//! * every diagnostic points inside the input;
//! * every tool_result answers a tool_use seen before it or is reported as an orphan, and
//!   every tool_use is answered or reported as dangling;
//! * every event made from the run passes the strict writer and decodes back cleanly, and
//!   the run metadata reads back from its JSON ([`RunMeta::of`]) as it was;
//! * every fixture is described in its provider's `README.md`.
//!
//! A fixture that breaks an invariant or differs from its snapshot is reported with all the
//! others at the end. `make golden` rewrites the snapshots; review them with
//! `git diff golden/`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use axt::ContentBlock;
use axt::model::{Block, RunMeta, StepKind, StepPayload, decode_event, warnings};
use axt::normalize::{Diagnostic, DiagnosticKind, Normalized, Options, Output, Provider, Severity};
use axt::transcribe::{EventOptions, JsonlSink, Transcriber};

use crate::support::{
    Failures, Fixture, Outcome, PROVIDER_INPUTS, Readme, fixtures, normalize_corpus,
    normalize_golden, now, snapshot_settings,
};

/// The corpus harness's record limit (`corpus/normalize/*/README.md`): small, so a fixture of modest
/// size can exceed it.
const MAX_RECORD_BYTES: usize = 64 * 1024;

const CHUNKINGS: [usize; 6] = [1, 2, 3, 7, 64, 4096];

fn options() -> Options {
    Options {
        max_record_bytes: MAX_RECORD_BYTES,
    }
}

/// Normalizes `input` pushed in pieces of `chunk` bytes.
fn normalize_chunked(provider: Provider, input: &[u8], chunk: usize) -> Normalized {
    let mut normalizer = provider.normalizer(options());
    let mut out = Output::default();
    for piece in input.chunks(chunk) {
        normalizer.push(piece, &mut out);
    }
    normalizer.finish(&mut out);
    Normalized {
        items: out.items,
        meta: normalizer.meta().clone(),
        diagnostics: out.diagnostics,
    }
}

fn check_invariants(name: &str, outcome: Outcome, input: &[u8], normalized: &Normalized) {
    let errors = normalized
        .diagnostics
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .count();
    match outcome {
        Outcome::Ok => assert_eq!(
            errors, 0,
            "{name}: an ok fixture must give no error diagnostic: {:#?}",
            normalized.diagnostics
        ),
        Outcome::Err => assert!(
            errors > 0,
            "{name}: an err fixture must give at least one error diagnostic"
        ),
    }

    let lines = input.iter().filter(|b| **b == b'\n').count() as u64 + 1;
    for diagnostic in &normalized.diagnostics {
        assert!(
            diagnostic.offset <= input.len() as u64,
            "{name}: {diagnostic} points past the input"
        );
        assert!(
            (1..=lines).contains(&diagnostic.line),
            "{name}: {diagnostic} names no input line"
        );
    }

    let reported = |kind: DiagnosticKind, id: &str| {
        normalized
            .diagnostics
            .iter()
            .any(|d| d.kind == kind && d.message.contains(id))
    };
    let mut calls = BTreeSet::new();
    let mut answered = BTreeSet::new();
    for item in &normalized.items {
        match &item.block.block {
            Block::ToolUse { tool_id, .. } => {
                calls.insert(tool_id.clone());
            }
            Block::ToolResult { tool_id, .. } => {
                assert!(
                    calls.contains(tool_id) || reported(DiagnosticKind::OrphanToolResult, tool_id),
                    "{name}: tool_result {tool_id} answers no earlier tool_use and is not reported"
                );
                answered.insert(tool_id.clone());
            }
            _ => {}
        }
    }
    for id in calls.difference(&answered) {
        assert!(
            reported(DiagnosticKind::DanglingToolUse, id),
            "{name}: tool_use {id} has no result and is not reported as dangling"
        );
    }

    let mut completed = StepPayload::new("run", StepKind::Agent);
    completed.result = serde_json::to_value(&normalized.meta).expect("run metadata serializes");
    assert_eq!(
        RunMeta::of(&completed).as_ref(),
        Some(&normalized.meta),
        "{name}: the run metadata does not read back as it was written"
    );
}

/// Runs the fixture through the whole pipeline to canonical JSONL and reads it back.
fn check_events(name: &str, provider: Provider, input: &[u8]) -> usize {
    let events = EventOptions {
        run_id: None,
        clock: Box::new(now),
    };
    let mut transcriber = Transcriber::new(provider, options(), events);
    let mut sink = JsonlSink::new(Vec::new(), |_| Ok(()));
    transcriber
        .push(input, &mut sink)
        .expect("the strict writer accepts every event");
    transcriber
        .finish(&mut sink)
        .expect("the strict writer accepts every event");
    let written = sink.into_inner();
    let mut count = 0;
    for (index, line) in written
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        let event = decode_event(line).unwrap_or_else(|e| panic!("{name}: event {index}: {e}"));
        assert_eq!(
            event.seq,
            index as u64 + 1,
            "{name}: seq runs from 1 without gaps"
        );
        assert!(
            warnings(&event).is_empty(),
            "{name}: event {index} has warnings"
        );
        count += 1;
    }
    count
}

/// The snapshot: blocks, metadata, the input report and diagnostics as readable sections.
/// A block's source time is shown where it changes.
fn render(fixture: &str, normalized: &Normalized, events: usize) -> String {
    let mut text = String::new();
    writeln!(text, "# {fixture}\n\n## Blocks").unwrap();
    if normalized.items.is_empty() {
        writeln!(text, "(none)").unwrap();
    }
    let mut time = None;
    for item in &normalized.items {
        let lines = if item.source.end_line == item.source.line {
            format!("L{}", item.source.line)
        } else {
            format!("L{}-{}", item.source.line, item.source.end_line)
        };
        let role = item.role.as_str();
        let agent = item
            .agent
            .as_deref()
            .map(|a| format!(" agent={a}"))
            .unwrap_or_default();
        let message = item
            .message_id
            .as_deref()
            .map(|m| format!(" msg={m}"))
            .unwrap_or_default();
        let at = match &item.time {
            Some(now) if time != Some(now) => format!(" @{now}"),
            _ => String::new(),
        };
        time = item.time.as_ref();
        writeln!(text, "{lines} {role}{message}{agent}{at}").unwrap();
        writeln!(text, "  {}", block_json(&item.block)).unwrap();
    }
    let mut meta = serde_json::to_value(&normalized.meta).unwrap();
    let passthrough = meta.as_object_mut().unwrap().remove("passthrough");
    meta.as_object_mut().unwrap().remove("report");
    writeln!(
        text,
        "\n## Metadata\n{}",
        serde_json::to_string_pretty(&meta).unwrap()
    )
    .unwrap();
    if let Some(serde_json::Value::Array(kept)) = passthrough {
        writeln!(text, "passthrough:").unwrap();
        for record in kept {
            writeln!(
                text,
                "  L{} {}",
                record["line"],
                record["kind"].as_str().unwrap_or("")
            )
            .unwrap();
        }
    }
    write!(text, "\n## Input report\n{}", normalized.meta.report).unwrap();
    writeln!(text, "\n## Diagnostics").unwrap();
    if normalized.diagnostics.is_empty() {
        writeln!(text, "(none)").unwrap();
    }
    for diagnostic in &normalized.diagnostics {
        writeln!(text, "{diagnostic}").unwrap();
    }
    writeln!(text, "\n## Transcript\n{events} events").unwrap();
    text
}

fn block_json(block: &ContentBlock) -> String {
    serde_json::to_string(block).unwrap_or_else(|error| format!("<not writable: {error}>"))
}

/// One provider's corpus: invariants, per-fixture snapshots, and the summary snapshot.
fn golden(provider: Provider) {
    let name = provider.as_str();
    let corpus = normalize_corpus(name);
    let golden = normalize_golden(name);
    let readme = Readme::of(&corpus);
    let mut summary = Summary::default();
    let mut failures = Failures::default();
    for fixture in fixtures(&corpus, &PROVIDER_INPUTS) {
        failures.check(fixture.id(), || {
            check(provider, &readme, &fixture, &golden, &mut summary);
        });
    }
    failures.check("summary", || {
        snapshot_settings(&golden, None)
            .bind(|| insta::assert_snapshot!("summary", summary.render(name)));
    });
    failures.finish();
}

/// One fixture: described, the same however chunked, invariants, then its snapshot. It is
/// counted in the summary before its snapshot is compared, so that a stale snapshot does not
/// show as a change of coverage too.
fn check(
    provider: Provider,
    readme: &Readme,
    fixture: &Fixture,
    golden: &Path,
    summary: &mut Summary,
) {
    let id = fixture.id();
    readme.assert_describes(fixture.file_name(), id);
    let input = std::fs::read(&fixture.path).unwrap();
    let whole = normalize_chunked(provider, &input, input.len().max(1));
    for chunk in CHUNKINGS {
        let chunked = normalize_chunked(provider, &input, chunk);
        assert_eq!(
            chunked, whole,
            "{id}: chunks of {chunk} bytes change the output"
        );
    }
    check_invariants(id, fixture.outcome, &input, &whole);
    let events = check_events(id, provider, &input);
    summary.add(id, &whole);
    // The title keeps the name the fixture had before the corpus was split by stage, so
    // that moving the corpus left every snapshot byte-identical.
    let rendered = render(&format!("corpus/{provider}/{id}"), &whole, events);
    snapshot_settings(&golden.join(fixture.outcome.as_str()), Some(&fixture.path))
        .bind(|| insta::assert_snapshot!(fixture.name(), rendered));
}

/// Counts over a provider's corpus: a ratchet that shows any change in coverage at a glance.
#[derive(Default)]
struct Summary {
    files: BTreeMap<String, usize>,
    blocks: BTreeMap<String, usize>,
    diagnostics: BTreeMap<(String, &'static str), usize>,
    lines: Vec<String>,
}

impl Summary {
    fn add(&mut self, fixture: &str, normalized: &Normalized) {
        let outcome = fixture.split('/').next().unwrap().to_owned();
        *self.files.entry(outcome).or_default() += 1;
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for block in normalized.blocks() {
            *kinds.entry(block.block.type_name()).or_default() += 1;
            *self
                .blocks
                .entry(block.block.type_name().to_owned())
                .or_default() += 1;
        }
        for diagnostic in &normalized.diagnostics {
            let severity = severity_name(diagnostic);
            *self
                .diagnostics
                .entry((diagnostic.kind.as_str().to_owned(), severity))
                .or_default() += 1;
        }
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let problems: Vec<String> = normalized
            .diagnostics
            .iter()
            .map(|d| format!("{} {}", severity_name(d), d.kind.as_str()))
            .collect();
        self.lines.push(format!(
            "{fixture}: {} blocks ({}); {:?}; {}",
            normalized.items.len(),
            kinds.join(", "),
            normalized.meta.status,
            if problems.is_empty() {
                "clean".to_owned()
            } else {
                problems.join(", ")
            }
        ));
    }

    fn render(&self, provider: &str) -> String {
        let mut text = format!("# {provider} corpus\n\n## Files\n");
        for (outcome, count) in &self.files {
            writeln!(text, "{outcome}: {count}").unwrap();
        }
        writeln!(text, "\n## Blocks by type").unwrap();
        for (kind, count) in &self.blocks {
            writeln!(text, "{kind}: {count}").unwrap();
        }
        writeln!(text, "\n## Diagnostics by kind").unwrap();
        for ((kind, severity), count) in &self.diagnostics {
            writeln!(text, "{severity} {kind}: {count}").unwrap();
        }
        writeln!(text, "\n## Per fixture").unwrap();
        for line in &self.lines {
            writeln!(text, "{line}").unwrap();
        }
        text
    }
}

fn severity_name(diagnostic: &Diagnostic) -> &'static str {
    match diagnostic.severity() {
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

/// Every provider's corpus, each on a thread of its own (the corpora are independent): one
/// test, so that a new provider needs its corpus and snapshots here and no edit.
#[test]
fn every_provider() {
    let failed: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = Provider::ALL
            .map(|provider| (provider, scope.spawn(move || golden(provider))))
            .into();
        runs.into_iter()
            .filter_map(|(provider, run)| run.join().err().map(|_| provider.to_string()))
            .collect()
    });
    assert!(
        failed.is_empty(),
        "the corpora of {} failed (their reports are above)",
        failed.join(", ")
    );
}

#[test]
fn acp() {
    golden(Provider::Acp);
}

#[test]
fn opencode() {
    golden(Provider::OpenCode);
}

#[test]
fn pi() {
    golden(Provider::Pi);
}
