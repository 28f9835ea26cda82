//! `axt import`: logs agents keep on disk in, canonical transcripts out.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::import::claude_code::{ImportError, ImportOptions, Note, NoteKind, import};
use crate::normalize::Severity;

use super::console::{self, Counting, Problem, Progress, plural};
use super::{Outcome, display_name, with_path};

/// Import an agent's on-disk logs as canonical transcripts.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    format: Format,
}

#[derive(clap::Subcommand)]
enum Format {
    ClaudeCode(ClaudeCode),
}

/// Claude Code session logs (~/.claude/projects) to canonical transcripts.
///
/// PATH is a session file, a project directory or the whole projects directory. Each
/// session becomes DIR/<session-id>.jsonl; each sub-agent a child run,
/// DIR/<session-id>.agent-<id>.jsonl, linked so that `axt tree` shows the whole session.
/// Rewound branches, compactions and every entry type without a canonical form are kept in
/// the run's metadata. Sessions are converted on every core; progress is shown on a
/// terminal. Notes about the graph (a sub-agent that could not be linked, ...) and errors in
/// the entries go to stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE, then one summary line.
///
/// A file that is no session log (empty, or `claude -p` stream-json output, which
/// `axt normalize` reads) is refused with an error naming it. Entries a session kept out of
/// its main thread (rewound branches, side branches) are counted by reason in a note per run
/// and in the summary line.
///
/// Exit status: 0 clean, 1 some entries had errors, a session could not be converted or no
/// .jsonl file was found, 2 usage error, a log that cannot be read or a run that cannot be written (or exists, without
/// --replace).
///
/// Example: axt import claude-code ~/.claude/projects --out transcripts/
#[derive(clap::Args)]
struct ClaudeCode {
    /// A session file, a project directory, or the projects directory.
    path: PathBuf,
    /// Where the transcripts go (created when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Overwrite runs DIR already has (re-importing the same session names the same files).
    #[arg(long)]
    replace: bool,
    /// Worker threads [default: one per core].
    #[arg(long, value_name = "N")]
    jobs: Option<NonZeroUsize>,
    /// Print problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    let Format::ClaudeCode(args) = args.format;
    console::set_json(args.json);
    let options = ImportOptions {
        replace: args.replace,
        jobs: args.jobs.map_or(0, NonZeroUsize::get),
    };
    // The bar starts with the first session done, when the number of sessions is known.
    let bar: OnceLock<Option<Progress>> = OnceLock::new();
    let progress = |done: usize, total: usize| {
        let bar = bar.get_or_init(|| console::progress(total as u64, Counting::Sessions));
        if let Some(bar) = bar {
            bar.set(done as u64);
        }
    };
    let report = import(&args.path, &args.out, &options, &progress)
        .map_err(|error| with_path(&args.path, error))?;
    drop(bar);
    // Files Claude Code keeps beside its logs (`~/.claude/history.jsonl`) are no session:
    // said, and left out, rather than counted as sessions that failed.
    for skipped in &report.skipped {
        console::notice(&format!(
            "{}: skipped: {}",
            display_name(&skipped.file),
            skipped.what
        ));
    }
    let outcomes = report.sessions;
    if outcomes.is_empty() {
        // Importing nothing is not a success: the path is likely the wrong one.
        let skipped = match report.skipped.len() {
            0 => String::new(),
            n => format!(" ({} skipped, above)", plural(n as u64, "file")),
        };
        console::error(&format!(
            "{}: no session log there{skipped}; nothing imported",
            args.path.display()
        ));
        return Ok(Outcome::InputProblems);
    }
    let (mut runs, mut events, mut failed, mut errors) = (0usize, 0usize, 0usize, 0usize);
    let mut unwritable = false;
    let mut notes: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut kept_out: BTreeMap<&str, u64> = BTreeMap::new();
    for outcome in &outcomes {
        match &outcome.result {
            Ok(session) => {
                runs += session.runs.len();
                events += session.runs.iter().map(|r| r.events).sum::<usize>();
                for note in &session.notes {
                    *notes.entry(note.kind.as_str()).or_default() += 1;
                }
                // Entries kept out of a thread are not a problem, but the user must hear of
                // them: the transcript's events do not show them.
                print_notes(
                    session
                        .notes
                        .iter()
                        .filter(|n| n.is_warning() || n.kind == NoteKind::KeptOut),
                );
                for (reason, n) in &session.kept_out {
                    *kept_out.entry(reason).or_default() += n;
                }
                for diagnostic in &session.diagnostics {
                    if diagnostic.diagnostic.severity() == Severity::Error {
                        errors += 1;
                        let file = display_name(&diagnostic.file);
                        // The import reads entries with the default limit; no option sets it.
                        let limit = (crate::normalize::DEFAULT_MAX_RECORD_BYTES, None);
                        super::normalize::print_diagnostic(&file, &diagnostic.diagnostic, limit);
                    }
                }
            }
            Err(ImportError::NotASession {
                path,
                line,
                offset,
                reason,
            }) => {
                // The input is at fault: say where, in the one format (an empty file at its
                // first line).
                failed += 1;
                let file = display_name(path);
                console::problem(&Problem::error(
                    &file,
                    (*line).max(1),
                    *offset,
                    "not-a-session-log",
                    reason,
                ));
            }
            Err(error) => {
                failed += 1;
                // Reading a log or writing a run failed: the input or output is at fault, not
                // what the log says.
                unwritable |= matches!(
                    error,
                    ImportError::Io { .. } | ImportError::Exists { .. } | ImportError::Record(_)
                );
                console::error(error);
            }
        }
    }
    let notes: Vec<String> = notes.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let kept_out: Vec<String> = kept_out.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let skipped = match report.skipped.len() {
        0 => String::new(),
        n => format!("; {} skipped (no session log)", plural(n as u64, "file")),
    };
    console::notice(&format!(
        "{}, {}, {} written to {}; {} failed, {}{}{}{skipped}",
        plural(outcomes.len() as u64, "session"),
        plural(runs as u64, "run"),
        plural(events as u64, "event"),
        args.out.display(),
        failed,
        plural(errors as u64, "entry error"),
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
    Ok(if unwritable {
        Outcome::Failed
    } else if failed > 0 || errors > 0 {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
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
