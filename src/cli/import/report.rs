//! What `axt import` prints of each session (its notes, its entries' errors, why it could
//! not be imported) and the summary line, with the exit status they make.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::import::incremental::{Outcome as SessionOutcome, Status};
use crate::import::{ImportError, Note, NoteKind, RunChange};
use crate::normalize::Severity;

use super::super::console::{self, Problem, plural};
use super::super::{Outcome, display_name};

/// The counts over every session imported, and how bad it was.
#[derive(Default)]
pub(super) struct Summary {
    /// Files left out by name as no session (`~/.claude/history.jsonl`).
    pub(super) skipped: usize,
    sessions: usize,
    created: usize,
    grown: usize,
    unchanged: usize,
    runs: usize,
    events: usize,
    failed: usize,
    errors: usize,
    unwritable: bool,
    notes: BTreeMap<&'static str, usize>,
    kept_out: BTreeMap<&'static str, u64>,
}

impl Summary {
    /// Prints what a session showed, and counts it.
    pub(super) fn add(&mut self, outcome: &SessionOutcome) {
        let session = match &outcome.status {
            // Being written: left for a later look, as a session not still is before it is
            // read.
            Status::Moving => return,
            Status::Unchanged => {
                self.sessions += 1;
                self.unchanged += 1;
                return;
            }
            Status::Imported(session) => session,
            Status::Failed(error) => {
                self.sessions += 1;
                self.failed(error);
                return;
            }
        };
        self.sessions += 1;
        self.runs += session.runs.len();
        let mut created = true;
        let mut changed = false;
        for run in &session.runs {
            match run.change {
                RunChange::Created | RunChange::Replaced => {
                    self.events += run.events;
                    changed = true;
                }
                RunChange::Unchanged => created = false,
                RunChange::Updated { kept, .. } => {
                    self.events += run.events - kept;
                    created = false;
                    changed = true;
                }
            }
        }
        match (created, changed) {
            (true, _) => self.created += 1,
            (false, true) => self.grown += 1,
            (false, false) => self.unchanged += 1,
        }
        for note in &session.notes {
            *self.notes.entry(note.kind.as_str()).or_default() += 1;
        }
        // Entries kept out of a thread are not a problem, but the user must hear of them:
        // the transcript's events do not show them.
        print_notes(
            session
                .notes
                .iter()
                .filter(|n| n.is_warning() || n.kind == NoteKind::KeptOut),
        );
        for (reason, n) in &session.kept_out {
            *self.kept_out.entry(reason).or_default() += n;
        }
        for diagnostic in &session.diagnostics {
            if diagnostic.diagnostic.severity() == Severity::Error {
                self.errors += 1;
                let file = display_name(&diagnostic.file);
                // The import reads entries with the default limit; no option sets it.
                let limit = (crate::normalize::DEFAULT_MAX_RECORD_BYTES, None);
                super::super::normalize::print_diagnostic(&file, &diagnostic.diagnostic, limit);
            }
        }
    }

    fn failed(&mut self, error: &ImportError) {
        self.failed += 1;
        match error {
            ImportError::NotASession {
                format: _,
                path,
                line,
                offset,
                reason,
            } => {
                // The input is at fault: say where, in the one format (an empty file at its
                // first line).
                let file = display_name(path);
                console::problem(&Problem::error(
                    &file,
                    (*line).max(1),
                    *offset,
                    "not-a-session-log",
                    reason,
                ));
            }
            error => {
                // Reading a log or writing a run failed: the input or output is at fault,
                // not what the log says.
                self.unwritable |= matches!(
                    error,
                    ImportError::Io { .. } | ImportError::Exists { .. } | ImportError::Record(_)
                );
                console::error(error);
            }
        }
    }

    /// Nothing was imported and nothing went wrong: a look at the stores that found them
    /// as they were (watching says nothing then).
    pub(super) fn nothing_done(&self) -> bool {
        self.created + self.grown == 0 && self.failed == 0
    }

    /// Prints the summary line; how the import went.
    pub(super) fn finish(&self, out: &Path) -> Outcome {
        let notes: Vec<String> = self.notes.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let kept_out: Vec<String> = self
            .kept_out
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        // A first import says how many sessions; a later one what became of them.
        let changes = if self.created == self.sessions - self.failed {
            String::new()
        } else {
            format!(
                " ({} new, {} grown, {} unchanged)",
                self.created, self.grown, self.unchanged
            )
        };
        let skipped = match self.skipped {
            0 => String::new(),
            n => format!("; {} skipped (no session log)", plural(n as u64, "file")),
        };
        console::notice(&format!(
            "{}{changes}, {}, {} written to {}; {} failed, {}{}{}{skipped}",
            plural(self.sessions as u64, "session"),
            plural(self.runs as u64, "run"),
            plural(self.events as u64, "event"),
            out.display(),
            self.failed,
            plural(self.errors as u64, "entry error"),
            if notes.is_empty() {
                String::new()
            } else {
                format!("; notes: {}", notes.join(", "))
            },
            if kept_out.is_empty() {
                String::new()
            } else {
                format!("; entries kept out of the threads: {}", kept_out.join(", "))
            }
        ));
        if self.unwritable {
            Outcome::Failed
        } else if self.failed > 0 || self.errors > 0 {
            Outcome::InputProblems
        } else {
            Outcome::Clean
        }
    }
}

/// Prints notes as warnings in the one format. The import's notes carry a line but not its
/// byte offset, so the offsets are found by reading each file once, up to its last noted
/// line; a note about a whole file (line 0) points at its start.
fn print_notes<'a>(notes: impl Iterator<Item = &'a Note>) {
    let notes: Vec<&Note> = notes.collect();
    let mut wanted: HashMap<&Path, BTreeSet<u64>> = HashMap::new();
    for note in &notes {
        wanted.entry(&note.file).or_default().insert(note.line);
    }
    let offsets: HashMap<&Path, HashMap<u64, u64>> = wanted
        .into_iter()
        .map(|(file, lines)| (file, line_offsets(file, &lines)))
        .collect();
    for note in notes {
        let line = note.line.max(1);
        let offset = offsets
            .get(note.file.as_path())
            .and_then(|o| o.get(&line).copied())
            .unwrap_or(0);
        let file = display_name(&note.file);
        console::problem(&Problem {
            file: &file,
            line,
            offset,
            kind: note.kind.as_str(),
            severity: console::Severity::Warning,
            message: &note.message,
        });
    }
}

/// The byte offset of each of `lines` (1-based; 0 counts as 1) in the file.
fn line_offsets(file: &Path, lines: &BTreeSet<u64>) -> HashMap<u64, u64> {
    let mut found = HashMap::new();
    let Some(&last) = lines.last() else {
        return found;
    };
    let Ok(input) = File::open(file) else {
        return found;
    };
    let mut input = BufReader::with_capacity(256 << 10, input);
    let (mut line, mut offset) = (1u64, 0u64);
    while line <= last {
        if lines.contains(&line) {
            // A line read in several pieces starts where its first piece does.
            found.entry(line).or_insert(offset);
        }
        let Ok(buffer) = input.fill_buf() else { break };
        if buffer.is_empty() {
            break;
        }
        let (length, ended) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (at + 1, true),
            None => (buffer.len(), false),
        };
        input.consume(length);
        offset += length as u64;
        if ended {
            line += 1;
        }
    }
    found
}
