//! The Claude Code session-log corpus: every session under `corpus/import/claude-code/{ok,err}/` is
//! imported, checked against invariants, written through the recorder and read back as a
//! tree, and compared with its snapshot in `golden/import/claude-code/{ok,err}/` (a session in a
//! subdirectory, `ok/nested/<id>.jsonl`, is `nested__<id>.snap`).
//!
//! Invariants first: `ok/` sessions give no error diagnostic and no warning note, `err/`
//! sessions at least one of either; every event passes the strict writer and decodes back;
//! the written tree has no problem for `ok/` sessions; every session is in the README.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use axt::import::claude_code::{
    ImportedRun, Session, SessionFiles, convert, discover, import_session, write,
};
use axt::model::{EventType, Payload, decode_event, encode_event};
use axt::normalize::Severity;
use axt::read::tree::build;

use crate::support::{
    Failures, Outcome, Readme, TempDir, import_corpus, import_golden, snapshot_settings,
};

pub(crate) fn sessions(outcome: Outcome) -> Vec<SessionFiles> {
    discover(&import_corpus().join(outcome.as_str())).expect("the corpus is readable")
}

/// `nested-subagents/<id>.jsonl` -> `nested-subagents__<id>`; a session without a session
/// log is named by its directory: `seed-transcripts-layout/<id>/transcripts/*.jsonl` ->
/// `seed-transcripts-layout__<id>`.
pub(crate) fn stem(files: &SessionFiles, outcome: Outcome) -> String {
    let base = import_corpus().join(outcome.as_str());
    let relative = match &files.main {
        Some(main) => main.strip_prefix(&base).unwrap().with_extension(""),
        None => files.subagents[0]
            .strip_prefix(&base)
            .unwrap()
            .parent()
            .and_then(Path::parent)
            .expect("agent logs are in <session>/transcripts or <session>/subagents")
            .to_owned(),
    };
    relative.to_str().unwrap().replace('/', "__")
}

#[test]
fn claude_code_sessions() {
    let readme = Readme::of(&import_corpus());
    let mut summary = Summary::default();
    let mut failures = Failures::default();
    for outcome in Outcome::ALL {
        for files in sessions(outcome) {
            let name = stem(&files, outcome);
            failures.check(&format!("{outcome}/{name}"), || {
                check(&readme, outcome, &files, &name, &mut summary);
            });
        }
    }
    failures.check("summary", || {
        snapshot_settings(&import_golden(), None)
            .bind(|| insta::assert_snapshot!("summary", summary.render()));
    });
    failures.finish();
}

/// Counts over the corpus, as the other corpora have: a ratchet that shows any change in
/// what the import makes of it at a glance.
#[derive(Default)]
struct Summary {
    sessions: BTreeMap<&'static str, usize>,
    runs: usize,
    events: BTreeMap<String, usize>,
    notes: BTreeMap<&'static str, usize>,
    diagnostics: BTreeMap<(String, &'static str), usize>,
    kept_out: BTreeMap<&'static str, u64>,
    lines: Vec<String>,
}

impl Summary {
    fn refused(&mut self, outcome: Outcome, name: &str) {
        *self.sessions.entry(outcome.as_str()).or_default() += 1;
        self.lines.push(format!("{outcome}/{name}: refused"));
    }

    fn add(&mut self, outcome: Outcome, name: &str, session: &Session) {
        *self.sessions.entry(outcome.as_str()).or_default() += 1;
        self.runs += session.runs.len();
        let mut events = 0;
        for run in &session.runs {
            events += run.events.len();
            for event in &run.events {
                *self
                    .events
                    .entry(event.event_type.as_str().to_owned())
                    .or_default() += 1;
            }
        }
        let mut problems = Vec::new();
        for note in &session.notes {
            *self.notes.entry(note.kind.as_str()).or_default() += 1;
            let severity = if note.is_warning() { "warning" } else { "note" };
            problems.push(format!("{severity} {}", note.kind));
        }
        for d in &session.diagnostics {
            let severity = match d.diagnostic.severity() {
                Severity::Warning => "warning",
                Severity::Error => "error",
            };
            let kind = d.diagnostic.kind.as_str().to_owned();
            problems.push(format!("{severity} {kind}"));
            *self.diagnostics.entry((kind, severity)).or_default() += 1;
        }
        for (reason, count) in &session.kept_out {
            *self.kept_out.entry(reason).or_default() += count;
        }
        self.lines.push(format!(
            "{outcome}/{name}: {} runs, {events} events; {}",
            session.runs.len(),
            if problems.is_empty() {
                "clean".to_owned()
            } else {
                problems.join(", ")
            }
        ));
    }

    fn render(&self) -> String {
        let mut text = String::from("# claude-code corpus\n\n## Sessions\n");
        for (outcome, count) in &self.sessions {
            writeln!(text, "{outcome}: {count}").unwrap();
        }
        writeln!(text, "\n## Runs\n{}", self.runs).unwrap();
        writeln!(text, "\n## Events by type").unwrap();
        for (kind, count) in &self.events {
            writeln!(text, "{kind}: {count}").unwrap();
        }
        writeln!(text, "\n## Notes by kind").unwrap();
        for (kind, count) in &self.notes {
            writeln!(text, "{kind}: {count}").unwrap();
        }
        writeln!(text, "\n## Diagnostics by kind").unwrap();
        for ((kind, severity), count) in &self.diagnostics {
            writeln!(text, "{severity} {kind}: {count}").unwrap();
        }
        writeln!(text, "\n## Entries kept out of the threads").unwrap();
        for (reason, count) in &self.kept_out {
            writeln!(text, "{reason}: {count}").unwrap();
        }
        writeln!(text, "\n## Per session").unwrap();
        for line in &self.lines {
            writeln!(text, "{line}").unwrap();
        }
        text
    }
}

/// One session: described, imported (or refused whole), checked, written and read back as
/// a tree, then its snapshot.
fn check(
    readme: &Readme,
    outcome: Outcome,
    files: &SessionFiles,
    name: &str,
    summary: &mut Summary,
) {
    let entry = name.split("__").next().unwrap();
    readme.assert_describes(&format!("`{outcome}/{entry}"), name);
    let base = import_corpus().join(outcome.as_str());
    // The titles keep the name the corpus had before it was split by stage, so that moving
    // it left every snapshot byte-identical.
    let title = format!("# corpus/claude-code/{outcome}/{}", name.replace("__", "/"));
    let session = match convert(files) {
        Ok(session) => session,
        Err(error) => {
            // Refused whole (no session log at all): an err/ file, nothing written.
            assert_eq!(outcome, Outcome::Err, "{name}: {error}");
            let scratch = TempDir::new(name);
            let streamed = import_session(files, scratch.path(), false).unwrap_err();
            assert_eq!(streamed.to_string(), error.to_string());
            assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
            let error = error
                .to_string()
                .replace(&format!("{}/", base.display()), "");
            summary.refused(outcome, name);
            snapshot(outcome, name, format!("{title}\n\n## Refused\n{error}\n"));
            return;
        }
    };
    check_invariants(name, outcome, &session);
    summary.add(outcome, name, &session);
    let mut text = format!("{title}\n");
    for run in &session.runs {
        writeln!(
            text,
            "\n## Run {}{} ({})",
            run.run_id,
            run.parent_run_id
                .as_deref()
                .map(|p| format!(" <- {p}"))
                .unwrap_or_default(),
            run.source.strip_prefix(&base).unwrap().display()
        )
        .unwrap();
        for (seq, event) in run.events.iter().enumerate() {
            let mut event = event.clone();
            event.seq = seq as u64 + 1;
            let mut line = Vec::new();
            encode_event(&event, &mut line)
                .unwrap_or_else(|e| panic!("{name}: event {seq} refused: {e}"));
            decode_event(&line).unwrap();
            text.push_str(std::str::from_utf8(&line).unwrap());
            text.push('\n');
        }
    }
    text.push_str("\n## Notes\n");
    if session.notes.is_empty() {
        text.push_str("(none)\n");
    }
    for note in &session.notes {
        let file = note.file.strip_prefix(&base).unwrap();
        writeln!(
            text,
            "{}:{}: {}: {}",
            file.display(),
            note.line,
            note.kind,
            note.message
        )
        .unwrap();
    }
    text.push_str("\n## Diagnostics\n");
    if session.diagnostics.is_empty() {
        text.push_str("(none)\n");
    }
    for d in &session.diagnostics {
        let file = d.file.strip_prefix(&base).unwrap();
        writeln!(text, "{}:{}", file.display(), d.diagnostic).unwrap();
    }

    // Written through the recorder, the session reads back as one tree.
    let scratch = TempDir::new(name);
    let written = write(&session, scratch.path(), false).unwrap();
    assert!(
        write(&session, scratch.path(), false).is_err(),
        "{name}: a second import must not continue the first"
    );
    write(&session, scratch.path(), true).unwrap();
    let tree = build(&written[0]);
    if outcome == Outcome::Ok {
        assert!(tree.problems.is_empty(), "{name}: {:#?}", tree.problems);
    }
    text.push_str("\n## Tree\n");
    outline(&tree.root, 0, &mut text);

    snapshot(outcome, name, text);
}

/// `ok/` sessions give no error and no warning note, `err/` sessions one of either; every
/// entry of every log is in a thread or counted as kept out of one.
fn check_invariants(name: &str, outcome: Outcome, session: &Session) {
    let warnings = session.notes.iter().filter(|n| n.is_warning()).count();
    match outcome {
        Outcome::Ok => assert!(
            !session.has_errors() && warnings == 0,
            "{name}: an ok session gives no error and no warning note: {:#?} {:#?}",
            session.diagnostics,
            session.notes
        ),
        Outcome::Err => assert!(
            session.has_errors() || warnings > 0,
            "{name}: an err session gives an error or a warning note"
        ),
    }
    // Every entry of every log is in a thread or counted as kept out of one.
    let mut accounted: BTreeMap<&Path, (u64, u64)> = BTreeMap::new();
    for run in &session.runs {
        let import = import_meta(run);
        let Some(entries) = import["entries"].as_u64() else {
            continue; // the simplified format has no graph
        };
        let placed = import["thread"].as_u64().unwrap();
        let kept: u64 = import["kept_out"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(import["off_chain"].as_u64(), Some(kept), "{name}");
        let file = accounted.entry(&run.source).or_default();
        file.0 = entries;
        file.1 += placed + kept;
    }
    for (file, (entries, placed)) in accounted {
        assert_eq!(
            placed,
            entries,
            "{name}: {} has {entries} entries, {placed} in threads or kept out",
            file.display()
        );
    }
}

/// Compares `text` with `golden/import/claude-code/<outcome>/<name>.snap`.
fn snapshot(outcome: Outcome, name: &str, text: String) {
    snapshot_settings(&import_golden().join(outcome.as_str()), None)
        .bind(|| insta::assert_snapshot!(name.to_owned(), text));
}

/// `import_session` streams each run into the recorder; it writes byte for byte what
/// writing the in-memory conversion writes, and reports the same notes and diagnostics.
#[test]
fn streamed_import_writes_what_convert_writes() {
    for outcome in Outcome::ALL {
        for files in sessions(outcome) {
            let name = stem(&files, outcome);
            let Ok(session) = convert(&files) else {
                continue; // refused whole: claude_code_sessions checks both refuse alike
            };
            let converted = TempDir::new(&format!("{name}-converted"));
            let written = write(&session, converted.path(), false).unwrap();
            let streamed = TempDir::new(&format!("{name}-streamed"));
            import_session(&files, streamed.path(), false).unwrap();
            assert!(
                import_session(&files, streamed.path(), false).is_err(),
                "{name}"
            );
            let imported = import_session(&files, streamed.path(), true).unwrap();
            assert_eq!(imported.runs.len(), written.len(), "{name}");
            for (run, path) in imported.runs.iter().zip(&written) {
                assert_eq!(&run.path.file_name(), &path.file_name(), "{name}");
                let expected = std::fs::read(path).unwrap();
                assert_eq!(
                    std::fs::read(&run.path).unwrap(),
                    expected,
                    "{name}: {}",
                    run.run_id
                );
                assert_eq!(run.events, expected.split(|b| *b == b'\n').count() - 1);
            }
            assert_eq!(imported.notes, session.notes, "{name}");
            assert_eq!(imported.diagnostics, session.diagnostics, "{name}");
        }
    }
}

pub(crate) fn outline(run: &axt::read::tree::Run, depth: usize, text: &mut String) {
    use axt::read::tree::Node;
    let pad = "  ".repeat(depth);
    writeln!(
        text,
        "{pad}run {} {} {} events",
        run.run_id,
        run.status.as_str(),
        run.events
    )
    .unwrap();
    fn nodes(children: &[Node], depth: usize, text: &mut String) {
        let pad = "  ".repeat(depth);
        for node in children {
            match node {
                Node::Run(run) => outline(run, depth, text),
                Node::Step(step) => {
                    writeln!(
                        text,
                        "{pad}step {} [{}] {}",
                        step.path,
                        step.kind,
                        step.status.as_str()
                    )
                    .unwrap();
                    nodes(&step.children, depth + 1, text);
                }
                Node::Message(m) => {
                    writeln!(text, "{pad}{}: {}", m.role, m.blocks.join(", ")).unwrap()
                }
                Node::Tool(t) => writeln!(
                    text,
                    "{pad}tool {} {} {}",
                    t.name,
                    t.call_id,
                    t.outcome.as_str()
                )
                .unwrap(),
            }
        }
    }
    nodes(&run.children, depth + 1, text);
}

/// The `import` metadata of a run's `run.completed`.
pub(crate) fn import_meta(run: &ImportedRun) -> serde_json::Value {
    imported_meta(&run.events)
}

/// The `import` metadata of a run's events' `run.completed`.
pub(crate) fn imported_meta(events: &[axt::model::ExchangeEvent]) -> serde_json::Value {
    let completed = events.last().expect("a run has events");
    assert_eq!(completed.event_type, EventType::RunCompleted);
    let Payload::Step(step) = &completed.payload else {
        panic!("run.completed has a step payload")
    };
    step.result["import"].clone()
}
