//! `axt import`: the sessions agents keep on disk in, canonical transcripts out; every
//! store found, or one; once, or watching.
//!
//! This file holds the arguments, finding the stores and the watch loop; `report.rs` what
//! is printed of each session and the summary.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::builder::{PossibleValuesParser, TypedValueParser};

use crate::import::claude_code::Skipped;
use crate::import::incremental::{self, Options, settled};
use crate::import::write::Mode;
use crate::import::{Env, Found, Store};
use crate::model::Timestamp;

use super::console::{self, Counting, Progress};
use super::{Outcome, with_path};

mod report;

use report::Summary;

/// Import agents' own session stores as canonical transcripts, again and again.
///
/// Without STORE, every store found under the home directory (and where the agents' own
/// environment variables move them: CLAUDE_CONFIG_DIR, ...) is listed with its sessions
/// and imported; with STORE, that store's; with STORE and PATH, the sessions under PATH (a
/// session file or a directory). Each session becomes DIR/<session-id>.jsonl; each
/// sub-agent a child run, DIR/<session-id>.agent-<id>.jsonl, linked so that `axt tree`
/// shows the whole session. What a store keeps beside the conversation (rewound branches,
/// compactions, entry types without a canonical form) is in the run's metadata.
///
/// Importing again reads only the sessions that are new or changed since (DIR keeps a
/// state file, .axt-import-state.json): a session that grew gets its new events appended
/// to its runs, the lines already there kept as they are; one that did not change is not
/// read. A run file made otherwise (by `axt normalize`) is refused, unless --replace.
/// --watch keeps going: every --interval seconds the stores are looked at again, and a
/// session is imported once its files have been still for --settle seconds (one being
/// written is imported when it pauses, and completed later; one whose last line is not
/// finished waits ten times as long, and at least 30 s, so that no record is imported torn).
///
/// Notes about a session (a sub-agent that could not be linked, ...) and errors in its
/// entries go to stderr as FILE:LINE: byte OFFSET: KIND: MESSAGE, then one summary line.
///
/// Exit status: 0 clean, 1 some entries had errors, a session could not be read or no
/// session was found, 2 usage error, a store that cannot be read or a run that cannot be
/// written (or is not the import's own, without --replace, or is being recorded by another
/// process).
///
/// Example: axt import --out transcripts/
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The store to import; every store found when omitted.
    #[arg(value_parser = store_parser())]
    store: Option<Store>,
    /// A session file or a directory of the store's; its own locations when omitted.
    path: Option<PathBuf>,
    /// Where the transcripts go (created when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Write every run anew, even one DIR has already (made otherwise, or up to date),
    /// never one another process is recording.
    #[arg(long)]
    replace: bool,
    /// Only sessions with a file changed at or after this time (2026-05-01, or an RFC 3339
    /// time).
    #[arg(long, value_name = "TIME", value_parser = since_parser)]
    since: Option<SystemTime>,
    /// Only sessions whose working directory is PATH or below it.
    #[arg(long, value_name = "PATH")]
    project: Option<PathBuf>,
    /// Keep watching the stores and import sessions as they are written, until interrupted.
    #[arg(long)]
    watch: bool,
    /// With --watch: seconds between looks at the stores.
    #[arg(long, value_name = "SECONDS", default_value = "2", requires = "watch")]
    interval: f64,
    /// With --watch: seconds a session's files must be still before it is imported.
    #[arg(long, value_name = "SECONDS", default_value = "2", requires = "watch")]
    settle: f64,
    /// Worker threads [default: one per core].
    #[arg(long, value_name = "N")]
    jobs: Option<NonZeroUsize>,
    /// Print problems on stderr as JSON lines.
    #[arg(long)]
    json: bool,
}

/// The stores' names ([`Store::ALL`], read back by `Store::from_str`).
fn store_parser() -> impl TypedValueParser<Value = Store> {
    PossibleValuesParser::new(Store::ALL.map(Store::as_str)).try_map(|name: String| name.parse())
}

/// `2026-05-01` (midnight UTC) or an RFC 3339 time.
fn since_parser(text: &str) -> Result<SystemTime, String> {
    let full = if text.len() == 10 {
        format!("{text}T00:00:00Z")
    } else {
        text.to_owned()
    };
    let nanos = Timestamp::parse(&full)
        .and_then(|t| t.unix_nanos())
        .map_err(|_| format!("{text:?} is no date (2026-05-01) or RFC 3339 time"))?;
    let nanos = u64::try_from(nanos).map_err(|_| format!("{text:?} is before 1970"))?;
    Ok(UNIX_EPOCH + Duration::from_nanos(nanos))
}

pub(crate) fn run(args: Args) -> std::io::Result<Outcome> {
    console::set_json(args.json);
    let options = Options {
        mode: if args.replace {
            Mode::Replace
        } else {
            Mode::Update
        },
        jobs: args.jobs.map_or(0, NonZeroUsize::get),
        since: args.since,
        // Watching: judged again on the files as each session is read (see below).
        settle: args
            .watch
            .then(|| Duration::from_secs_f64(args.settle.max(0.0))),
    };
    if !args.watch {
        let (sessions, skipped) = find(&args, true)?;
        if sessions.is_empty() {
            return Ok(Outcome::InputProblems);
        }
        return import(&sessions, skipped, &args, &options);
    }
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let interval = Duration::from_secs_f64(args.interval.max(0.05));
    let settle = Duration::from_secs_f64(args.settle.max(0.0));
    let mut worst = Outcome::Clean;
    let mut first = true;
    while !stop.load(Ordering::Relaxed) {
        let (sessions, skipped) = find(&args, first)?;
        // Those not still are not even read; those that are may be written to before they
        // are read, and the import judges them again then.
        let sessions: Vec<Found> = sessions
            .into_iter()
            .filter(|found| settled(found, settle, SystemTime::now()))
            .collect();
        first = false;
        let outcome = import(&sessions, skipped, &args, &options)?;
        if matches!(outcome, Outcome::Failed)
            || (matches!(outcome, Outcome::InputProblems) && matches!(worst, Outcome::Clean))
        {
            worst = outcome;
        }
        let mut waited = Duration::ZERO;
        while waited < interval && !stop.load(Ordering::Relaxed) {
            let step = Duration::from_millis(50).min(interval - waited);
            std::thread::sleep(step);
            waited += step;
        }
    }
    Ok(worst)
}

/// The sessions to import: under PATH, or in the store's (or every store's) own
/// locations, those of `--project` only, and how many files were skipped by name as no
/// session. With `list`, says what it found where.
fn find(args: &Args, list: bool) -> std::io::Result<(Vec<Found>, usize)> {
    let mut sessions = Vec::new();
    let mut left_out = 0;
    match (args.store, &args.path) {
        (Some(store), Some(path)) => {
            let (found, skipped) = store
                .discover_skipping(path)
                .map_err(|error| with_path(path, error))?;
            left_out += skipped.len();
            if list {
                say_skipped(&skipped);
            }
            if found.is_empty() && list {
                // Importing nothing is not a success: the path is likely the wrong one.
                let skipped = match skipped.len() {
                    0 => String::new(),
                    n => format!(" ({} skipped, above)", console::plural(n as u64, "file")),
                };
                console::error(&format!(
                    "{}: no {} session there{skipped}; nothing imported",
                    path.display(),
                    store.agent_name()
                ));
            }
            sessions.extend(found);
        }
        (store, _) => {
            let env = Env::from_process();
            let stores = match store {
                Some(store) => vec![store],
                None => Store::ALL.to_vec(),
            };
            for store in stores {
                for root in store.roots(&env).into_iter().filter(|r| r.exists()) {
                    let (found, skipped) = store
                        .discover_skipping(&root)
                        .map_err(|error| with_path(&root, error))?;
                    left_out += skipped.len();
                    if list {
                        say_skipped(&skipped);
                        console::notice(&format!(
                            "found {}: {} in {}",
                            store,
                            console::plural(found.len() as u64, "session"),
                            root.display()
                        ));
                    }
                    sessions.extend(found);
                }
            }
            if sessions.is_empty() && list {
                console::error(&"no session found in any store; nothing imported");
            }
        }
    }
    if let Some(project) = &args.project {
        sessions.retain(|found| in_project(found, project));
    }
    Ok((sessions, left_out))
}

/// Files Claude Code keeps beside its logs (`~/.claude/history.jsonl`) are no session:
/// said, and left out, rather than counted as sessions that failed.
fn say_skipped(skipped: &[Skipped]) {
    for skipped in skipped {
        console::notice(&format!(
            "{}: skipped: {}",
            skipped.file.display(),
            skipped.what
        ));
    }
}

/// Whether a session ran in `project` or below it.
fn in_project(found: &Found, project: &Path) -> bool {
    let Some(cwd) = found.project() else {
        return false;
    };
    let canonical = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_owned());
    cwd.starts_with(project) || cwd.starts_with(&canonical)
}

/// Imports `sessions`, prints what happened, and says how it went.
fn import(
    sessions: &[Found],
    skipped: usize,
    args: &Args,
    options: &Options,
) -> std::io::Result<Outcome> {
    if sessions.is_empty() {
        return Ok(Outcome::Clean);
    }
    // The bar starts with the first session done, when the number of sessions is known.
    let bar: OnceLock<Option<Progress>> = OnceLock::new();
    let progress = |done: usize, total: usize| {
        let bar = bar.get_or_init(|| console::progress(total as u64, Counting::Sessions));
        if let Some(bar) = bar {
            bar.set(done as u64);
        }
    };
    let mut summary = Summary::default();
    summary.skipped = skipped;
    // Each session is said as soon as it and those before it are done, in their order.
    incremental::import_each(sessions, &args.out, options, &progress, &mut |outcome| {
        summary.add(&outcome)
    })
    .map_err(|error| with_path(&args.out, error))?;
    drop(bar);
    if args.watch && summary.nothing_done() {
        return Ok(Outcome::Clean);
    }
    Ok(summary.finish(&args.out))
}
