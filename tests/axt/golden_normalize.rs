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
//! * every event made from the run passes the strict writer and decodes back cleanly;
//! * every fixture is described in its provider's `README.md`.
//!
//! `make golden` rewrites the snapshots; review them with `git diff golden/`. A snapshot with
//! no fixture fails [`no_snapshot_without_a_fixture`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use axt::model::{Block, decode_event, warnings};
use axt::normalize::events::{EventOptions, JsonlSink, Transcriber};
use axt::normalize::{Diagnostic, DiagnosticKind, Normalized, Options, Output, Provider, Severity};
use axt::{ContentBlock, Timestamp};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The corpus harness's record limit (`corpus/normalize/*/README.md`): small, so a fixture of modest
/// size can exceed it.
const MAX_RECORD_BYTES: usize = 64 * 1024;

const CHUNKINGS: [usize; 6] = [1, 2, 3, 7, 64, 4096];

fn options() -> Options {
    Options {
        max_record_bytes: MAX_RECORD_BYTES,
    }
}

fn fixtures(provider: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> =
        walkdir::WalkDir::new(Path::new(ROOT).join("corpus/normalize").join(provider))
            .into_iter()
            .map(|entry| entry.expect("corpus is readable").into_path())
            .filter(|path| {
                path.extension()
                    .is_some_and(|e| e == "jsonl" || e == "json" || e == "sse")
            })
            .collect();
    found.sort();
    found
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

fn check_invariants(name: &str, outcome: &str, input: &[u8], normalized: &Normalized) {
    let errors = normalized
        .diagnostics
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .count();
    match outcome {
        "ok" => assert_eq!(
            errors, 0,
            "{name}: an ok fixture must give no error diagnostic: {:#?}",
            normalized.diagnostics
        ),
        "err" => assert!(
            errors > 0,
            "{name}: an err fixture must give at least one error diagnostic"
        ),
        other => panic!("{name}: fixtures live in ok/ or err/, not {other}/"),
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
}

/// Runs the fixture through the whole pipeline to canonical JSONL and reads it back.
fn check_events(name: &str, provider: Provider, input: &[u8]) -> usize {
    let events = EventOptions {
        run_id: None,
        clock: Box::new(|| Timestamp::parse("2026-06-08T08:14:42.123Z").unwrap()),
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
    let readme = std::fs::read_to_string(
        Path::new(ROOT)
            .join("corpus/normalize")
            .join(name)
            .join("README.md"),
    )
    .unwrap_or_else(|_| panic!("corpus/normalize/{name}/README.md describes every fixture"));
    let mut summary = Summary::default();
    let mut failures = Vec::new();
    for path in fixtures(name) {
        let relative = path
            .strip_prefix(Path::new(ROOT).join("corpus/normalize").join(name))
            .unwrap();
        let outcome = relative.iter().next().unwrap().to_str().unwrap().to_owned();
        let fixture = relative.to_str().unwrap().to_owned();
        let file_name = path.file_name().unwrap().to_str().unwrap();
        assert!(
            readme.contains(file_name),
            "corpus/normalize/{name}/README.md must describe {fixture}"
        );

        let input = std::fs::read(&path).unwrap();
        let whole = normalize_chunked(provider, &input, input.len().max(1));
        for chunk in CHUNKINGS {
            let chunked = normalize_chunked(provider, &input, chunk);
            assert_eq!(
                chunked, whole,
                "{fixture}: chunks of {chunk} bytes change the output"
            );
        }
        check_invariants(&fixture, &outcome, &input, &whole);
        let events = check_events(&fixture, provider, &input);
        summary.add(&fixture, &whole);

        let rendered = render(&format!("corpus/{name}/{fixture}"), &whole, events);
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(
            Path::new(ROOT)
                .join("golden/normalize")
                .join(name)
                .join(&outcome),
        );
        settings.set_prepend_module_to_snapshot(false);
        settings.set_input_file(&path);
        settings.set_omit_expression(true);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!(stem, rendered));
        }));
        if result.is_err() {
            failures.push(fixture);
        }
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(ROOT).join("golden/normalize").join(name));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!("summary", summary.render(name)));
    assert!(failures.is_empty(), "snapshots differ for: {failures:#?}");
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

#[test]
fn claude() {
    golden(Provider::Claude);
}

#[test]
fn codex() {
    golden(Provider::Codex);
}

#[test]
fn gemini() {
    golden(Provider::Gemini);
}

#[test]
fn copilot() {
    golden(Provider::Copilot);
}

#[test]
fn openai() {
    golden(Provider::OpenAi);
}

/// `make golden` can leave snapshots of deleted or renamed fixtures behind; they must go.
#[test]
fn no_snapshot_without_a_fixture() {
    let golden = Path::new(ROOT).join("golden");
    for entry in walkdir::WalkDir::new(&golden) {
        let path = entry.unwrap().into_path();
        if path.extension().is_none_or(|e| e != "snap") {
            continue;
        }
        let relative = path.strip_prefix(&golden).unwrap();
        let parts: Vec<_> = relative.iter().map(|p| p.to_str().unwrap()).collect();
        let stem = path.file_stem().unwrap().to_str().unwrap();
        // A fixture in a subdirectory (ok/nested/a.jsonl) is nested__a.snap; a Claude Code
        // session known only by its agents' logs is its directory (ok/layout/<id>/).
        let fixture = |corpus: &str, outcome: &str| {
            let base = Path::new(ROOT).join("corpus").join(corpus).join(outcome);
            let path = stem.replace("__", "/");
            base.join(&path).is_dir()
                || ["jsonl", "json", "sse"]
                    .iter()
                    .any(|ext| base.join(format!("{path}.{ext}")).exists())
        };
        let has_fixture = match parts.as_slice() {
            [_stage, _corpus, "summary.snap"] => true,
            [stage, corpus, outcome, _] => fixture(&format!("{stage}/{corpus}"), outcome),
            // An export snapshot: golden/export/agentlog/<corpus>/<outcome>/<fixture>.snap.
            ["export", "agentlog", "claude-code", outcome, _] => {
                fixture("import/claude-code", outcome)
            }
            ["export", "agentlog", provider, outcome, _] => {
                fixture(&format!("normalize/{provider}"), outcome)
            }
            _ => false,
        };
        assert!(
            has_fixture,
            "golden/{} has no fixture in corpus/; delete it",
            relative.display()
        );
    }
}
