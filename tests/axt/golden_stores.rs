//! The store corpora: `corpus/import/<store>/{ok,err}/<fixture>/` for every store but Claude
//! Code (whose corpus `golden_import` reads), each fixture a session laid out as the agent
//! keeps it, found by the store's own discovery, imported, checked against invariants,
//! written and read back as a tree, and compared with its snapshot in
//! `golden/import/<store>/<outcome>/<fixture>.snap`; each store's summary beside them.
//!
//! Invariants first: `ok/` sessions give no error diagnostic and no warning note, `err/`
//! sessions at least one of either (or are refused whole); every event passes the strict
//! writer and decodes back; every record of every file is in a run or counted as kept out;
//! the written tree has no problem for `ok/` sessions; importing again changes nothing and
//! the files written equal the conversion in memory; every fixture is in the README.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use axt::import::write::Mode;
use axt::import::{Found, RunChange, Session, Store};
use axt::model::{decode_event, encode_event};
use axt::normalize::Severity;
use axt::read::tree::build;

use crate::golden_import::{imported_meta, outline};
use crate::support::{Failures, Outcome, Readme, TempDir, root, snapshot_settings};

/// The stores whose corpus this harness reads.
fn stores() -> Vec<Store> {
    Store::ALL
        .into_iter()
        .filter(|store| *store != Store::ClaudeCode)
        .collect()
}

fn corpus(store: Store) -> PathBuf {
    root().join("corpus/import").join(store.as_str())
}

fn golden(store: Store) -> PathBuf {
    root().join("golden/import").join(store.as_str())
}

/// The fixtures of a store's outcome: the directories in it, sorted.
pub(crate) fn fixtures(store: Store, outcome: Outcome) -> Vec<PathBuf> {
    let dir = corpus(store).join(outcome.as_str());
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    fixtures.sort();
    fixtures
}

/// The one session a fixture holds.
pub(crate) fn session_of(store: Store, fixture: &Path) -> Found {
    let mut found = store.discover(fixture).unwrap();
    assert_eq!(
        found.len(),
        1,
        "{}: one session a fixture",
        fixture.display()
    );
    found.remove(0)
}

#[test]
fn store_sessions() {
    let mut failures = Failures::default();
    for store in stores() {
        let readme = Readme::of(&corpus(store));
        let mut summary = Summary::default();
        for outcome in Outcome::ALL {
            for fixture in fixtures(store, outcome) {
                let name = fixture.file_name().unwrap().to_str().unwrap().to_owned();
                failures.check(&format!("{store}/{outcome}/{name}"), || {
                    readme.assert_describes(&format!("`{outcome}/{name}`"), &name);
                    check(store, outcome, &fixture, &name, &mut summary);
                });
            }
        }
        failures.check(&format!("{store}/summary"), || {
            snapshot_settings(&golden(store), None)
                .bind(|| insta::assert_snapshot!("summary", summary.render(store)));
        });
    }
    failures.finish();
}

/// Counts over a store's corpus: a ratchet that shows any change at a glance.
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
    fn add(&mut self, outcome: Outcome, name: &str, session: Option<&Session>) {
        *self.sessions.entry(outcome.as_str()).or_default() += 1;
        let Some(session) = session else {
            self.lines.push(format!("{outcome}/{name}: refused"));
            return;
        };
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
            problems.push(format!("{severity} {}", d.diagnostic.kind.as_str()));
            *self
                .diagnostics
                .entry((d.diagnostic.kind.as_str().to_owned(), severity))
                .or_default() += 1;
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

    fn render(&self, store: Store) -> String {
        let mut text = format!("# {store} corpus\n\n## Sessions\n");
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
        writeln!(text, "\n## Records kept out of the runs").unwrap();
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

/// One session: imported (or refused whole), checked, written, read back as a tree, and
/// imported again; then its snapshot.
fn check(store: Store, outcome: Outcome, fixture: &Path, name: &str, summary: &mut Summary) {
    let base = fixture.to_owned();
    let found = session_of(store, fixture);
    let title = format!("# corpus/import/{store}/{outcome}/{name}");
    let relative = |path: &Path| path.strip_prefix(&base).unwrap().display().to_string();
    let session = match found.convert() {
        Ok(session) => session,
        Err(error) => {
            assert_eq!(outcome, Outcome::Err, "{name}: {error}");
            let scratch = TempDir::new(name);
            let streamed = found.import(scratch.path(), Mode::Update).unwrap_err();
            assert_eq!(streamed.to_string(), error.to_string());
            assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
            summary.add(outcome, name, None);
            let error = error
                .to_string()
                .replace(&format!("{}/", base.display()), "");
            snapshot(
                store,
                outcome,
                name,
                format!("{title}\n\n## Refused\n{error}\n"),
            );
            return;
        }
    };
    check_invariants(name, outcome, &session);
    summary.add(outcome, name, Some(&session));
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
            relative(&run.source)
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
        let file = relative(&note.file);
        writeln!(
            text,
            "{file}:{}: {}: {}",
            note.line, note.kind, note.message
        )
        .unwrap();
    }
    text.push_str("\n## Diagnostics\n");
    if session.diagnostics.is_empty() {
        text.push_str("(none)\n");
    }
    for d in &session.diagnostics {
        writeln!(text, "{}:{}", relative(&d.file), d.diagnostic).unwrap();
    }

    // Written through the recorder (streaming), the same bytes as the conversion; the
    // session reads back as one tree; importing it again changes nothing.
    let scratch = TempDir::new(name);
    let written = found.import(scratch.path(), Mode::Update).unwrap();
    assert_eq!(written.runs.len(), session.runs.len(), "{name}");
    for (run, converted) in written.runs.iter().zip(&session.runs) {
        assert_eq!(run.change, RunChange::Created, "{name}");
        let mut expected = Vec::new();
        for (seq, event) in converted.events.iter().enumerate() {
            let mut event = event.clone();
            event.seq = seq as u64 + 1;
            event.parent_run_id.clone_from(&converted.parent_run_id);
            encode_event(&event, &mut expected).unwrap();
            expected.push(b'\n');
        }
        assert_eq!(
            std::fs::read(&run.path).unwrap(),
            expected,
            "{name}: {} streamed as converted",
            run.run_id
        );
    }
    let again = found.import(scratch.path(), Mode::Update).unwrap();
    for run in &again.runs {
        assert_eq!(run.change, RunChange::Unchanged, "{name}: {}", run.run_id);
    }
    let tree = build(&written.runs[0].path);
    if outcome == Outcome::Ok {
        assert!(tree.problems.is_empty(), "{name}: {:#?}", tree.problems);
    }
    text.push_str("\n## Tree\n");
    outline(&tree.root, 0, &mut text);
    snapshot(store, outcome, name, text);
}

/// `ok/` sessions give no error and no warning note, `err/` sessions one of either; every
/// record of every file is in a run or counted as kept out of one.
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
    let mut accounted: BTreeMap<&Path, (u64, u64)> = BTreeMap::new();
    for run in &session.runs {
        let import = imported_meta(&run.events);
        let entries = import["entries"].as_u64().expect("entries");
        let placed = import["thread"].as_u64().expect("thread");
        let kept: u64 = import["kept_out"]
            .as_object()
            .map_or(0, |k| k.values().map(|n| n.as_u64().unwrap()).sum());
        let file = accounted.entry(&run.source).or_default();
        file.0 = entries;
        file.1 += placed + kept;
    }
    for (file, (entries, placed)) in accounted {
        assert_eq!(
            placed,
            entries,
            "{name}: {} has {entries} records, {placed} in runs or kept out",
            file.display()
        );
    }
}

/// Compares `text` with `golden/import/<store>/<outcome>/<name>.snap`.
fn snapshot(store: Store, outcome: Outcome, name: &str, text: String) {
    snapshot_settings(&golden(store).join(outcome.as_str()), None)
        .bind(|| insta::assert_snapshot!(name.to_owned(), text));
}
