//! `axt import`: logs agents keep on disk in, canonical transcripts out.

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use axt::import::claude_code::{ImportOptions, NoteKind, import};
use axt::normalize::Severity;

use super::Outcome;

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
/// A session without a session log (the layout <session-id>/transcripts/<agent-id>.jsonl)
/// makes DIR/<session-id>.agent-<agent-id>.jsonl for every agent, the one no call spawned
/// being the root.
/// Rewound branches, hook side branches and every entry type without a canonical form are
/// kept in the run's metadata; how many entries each run kept out of its thread, and why,
/// is printed. Sessions are converted on every core; progress is shown on a
/// terminal. Notes about the graph (a sub-agent that could not be linked, ...) and errors in
/// the entries go to stderr.
///
/// A file that is no session log (empty, or `claude -p` stream-json output, which
/// `axt normalize` reads) is refused with an error naming it.
///
/// Exit status: 0 clean, 1 some entries had errors, a session could not be imported or
/// nothing was found, 2 on usage or I/O errors.
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
    /// Worker threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    jobs: usize,
}

pub(crate) fn run(args: Args) -> io::Result<Outcome> {
    let Format::ClaudeCode(args) = args.format;
    let options = ImportOptions {
        replace: args.replace,
        jobs: args.jobs,
    };
    let terminal = io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if terminal {
            eprint!("\raxt: imported {done}/{total} sessions");
        }
    };
    let outcomes = import(&args.path, &args.out, &options, &progress)
        .map_err(|error| super::with_path(&args.path, error))?;
    if terminal && !outcomes.is_empty() {
        eprintln!();
    }
    let mut stderr = io::stderr().lock();
    if outcomes.is_empty() {
        // Importing nothing is not a success: the path is likely the wrong one.
        writeln!(
            stderr,
            "axt: {}: no .jsonl file there; nothing imported",
            args.path.display()
        )?;
        return Ok(Outcome::InputProblems);
    }
    let (mut runs, mut events, mut failed, mut errors) = (0usize, 0usize, 0usize, 0usize);
    let mut notes: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut kept_out: BTreeMap<&'static str, u64> = BTreeMap::new();
    for outcome in &outcomes {
        match &outcome.result {
            Ok(session) => {
                runs += session.runs.len();
                events += session.runs.iter().map(|r| r.events).sum::<usize>();
                for note in &session.notes {
                    *notes.entry(note.kind.as_str()).or_default() += 1;
                    // Entries kept out of a thread are not a problem, but the user must hear
                    // of them: the transcript's events do not show them.
                    if note.is_warning() || note.kind == NoteKind::KeptOut {
                        writeln!(stderr, "{note}")?;
                    }
                }
                for (reason, n) in &session.kept_out {
                    *kept_out.entry(reason).or_default() += n;
                }
                for diagnostic in &session.diagnostics {
                    if diagnostic.diagnostic.severity() == Severity::Error {
                        errors += 1;
                        writeln!(stderr, "{diagnostic}")?;
                    }
                }
            }
            Err(error) => {
                failed += 1;
                writeln!(stderr, "axt: {error}")?;
            }
        }
    }
    let notes: Vec<String> = notes.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let kept_out: Vec<String> = kept_out.iter().map(|(k, n)| format!("{k} {n}")).collect();
    writeln!(
        stderr,
        "axt: {} sessions, {runs} runs, {events} events written to {}; {failed} failed, {errors} entry errors{}{}",
        outcomes.len(),
        args.out.display(),
        if kept_out.is_empty() {
            String::new()
        } else {
            format!("; entries kept out of the threads: {}", kept_out.join(", "))
        },
        if notes.is_empty() {
            String::new()
        } else {
            format!("; notes: {}", notes.join(", "))
        }
    )?;
    Ok(if failed > 0 || errors > 0 {
        Outcome::InputProblems
    } else {
        Outcome::Clean
    })
}
