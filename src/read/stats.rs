//! Counts over transcripts: events and blocks by type, tools, tokens, cost, duration.
//!
//! [`Stats`] is filled one event at a time, so a file of any size is counted in bounded
//! memory, and two [`Stats`] merge, so files can be counted in parallel and totalled.
//! Tokens and cost come from every agent's metadata ([`agent_meta`]: a run's
//! `run.completed`, or the `step.completed` of each agent step of a workflow run, read
//! typed as [`RunMeta`](crate::model::RunMeta)), added up by the rule of [`Spend`]: a
//! provider session's running total (`usage_scope` `session`) counts once, however many runs
//! that resumed the session hold it; the cost as the [`Cost`](super::Cost) rule says:
//! reported where the provider reported one, else estimated from the price table, else
//! unknown, the three kept apart. A run's duration follows the rule of
//! [`duration`](super::duration), as `axt ls` and `axt show` do, so an undated run adds
//! none. A file without a single event is a problem ([`Stats::end_of_file`]), as `axt check`
//! says.
//!
//! A call seen on both channels (captured by the router, reported by the agent too) is
//! counted once, under the router's tool name and with the router's outcome, by the rule of
//! [`Calls`]; the agent's reports of it are counted apart, as [`Stats::sightings`], so that
//! nothing disappears silently. That rule keeps one entry per call id of the run being
//! counted (and of every run fed to this `Stats`); [`Stats::merge`] does not carry it.

use std::collections::{BTreeMap, BinaryHeap};
use std::ffi::OsString;
use std::fs::FileType;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::calls::{Calls, Verdict};
use super::cost::Cost;
use super::duration::RunDuration;
use super::meta::agent_meta;
use super::prices::Prices;
use super::reader::{Position, Problem, ProblemKind, ReadItem, no_event};
use super::spend::{Spend, Tokens};
use crate::model::files::is_transcript;
use crate::model::{EventType, ExchangeEvent, Payload};

/// Counts over one or more transcripts.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Files counted.
    pub files: u64,
    /// Events read.
    pub events: u64,
    /// Events by type (unknown types under their own name).
    pub event_types: BTreeMap<String, u64>,
    /// Content blocks by type.
    pub block_types: BTreeMap<String, u64>,
    /// Tools by name: each call once, a call seen on both channels under the router's name.
    pub tools: BTreeMap<String, ToolStats>,
    /// Calls the agent reported that the router captured too: counted once in `tools`, as
    /// the router's, and here.
    pub sightings: u64,
    /// Tokens by kind, summed over the agents' metadata ([`Spend`]: a provider session's
    /// running total once, however many runs hold it).
    pub tokens: Tokens,
    /// What the agents cost: reported, estimated and unknown, apart, as `tokens` are.
    pub cost: Cost,
    /// Runs whose usage is the running total of a provider session another run held too (a
    /// resumed session): counted once, by the session's largest total ([`Spend::repeated`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub repeated_session_totals: u64,
    /// Run durations in milliseconds, summed over the runs that have one.
    pub duration_ms: u64,
    /// Runs completed (`run.completed` events).
    pub runs: u64,
    /// Of those, runs without a duration (undated: see [`RunDuration`]).
    pub undated_runs: u64,
    /// Problems by kind.
    pub problems: BTreeMap<String, u64>,
    #[serde(skip)]
    run: RunDuration,
    #[serde(skip)]
    calls: Calls,
    #[serde(skip)]
    spend: Spend,
    /// The price table the estimates come from; the shipped one when `None`. Shared: a
    /// batch counts each file with a `Stats` of its own, and a table copied per file was
    /// a tree of allocations made and freed per file.
    #[serde(skip)]
    prices: Option<Arc<Prices>>,
}

/// One tool's calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ToolStats {
    /// `tool.call` events, a call seen on both channels once.
    pub calls: u64,
    /// `tool.result` events with an error or a non-zero exit code, of those calls.
    pub failures: u64,
    /// `tool.result` events of no call read before them (counted neither as calls nor as
    /// failures): the call is not in the file, or comes after its result.
    #[serde(skip_serializing_if = "is_zero")]
    pub results_without_call: u64,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

impl Stats {
    /// Counts with `prices` for the estimates (a user's table laid over the shipped one:
    /// [`Prices::load`]) instead of the shipped table: a table of its own, or one shared
    /// (an `Arc<Prices>`) by the counts of many files.
    pub fn with_prices(prices: impl Into<Arc<Prices>>) -> Stats {
        Stats {
            prices: Some(prices.into()),
            ..Stats::default()
        }
    }

    /// Counts one item of a [`Reader`](super::Reader).
    pub fn item(&mut self, item: &ReadItem) {
        match item {
            ReadItem::Event { event, .. } => self.event(event),
            ReadItem::Problem(problem) => self.problem(problem.kind),
        }
    }

    /// Counts a problem.
    pub fn problem(&mut self, kind: ProblemKind) {
        *self.problems.entry(kind.as_str().to_owned()).or_default() += 1;
    }

    /// Ends the count of one file, read up to `end`: a file without a single event (and
    /// without any other problem) is a problem too, [`ProblemKind::NoEvent`], counted and
    /// returned to be reported. Call it once, on a `Stats` that counted that file alone.
    pub fn end_of_file(&mut self, end: &Position) -> Option<Problem> {
        if self.events > 0 || self.problem_count() > 0 {
            return None;
        }
        let problem = no_event(end);
        self.problem(problem.kind);
        Some(problem)
    }

    /// Counts an event.
    pub fn event(&mut self, event: &ExchangeEvent) {
        self.events += 1;
        bump(&mut self.event_types, event.event_type.as_str());
        for block in event.payload.blocks() {
            bump(&mut self.block_types, block.block.type_name());
        }
        let mut without_call = false;
        if let Some(seen) = self.calls.see(event) {
            without_call = seen.without_call;
            if let Some(demoted) = seen.demoted {
                // Counted as a call when it was read; a sighting of the router's call now.
                self.sightings += 1;
                self.untool(&demoted.name, demoted.failed == Some(true));
            }
            if seen.verdict == Verdict::Sighting {
                if event.event_type == EventType::ToolCall {
                    self.sightings += 1;
                }
                return;
            }
        }
        self.run.event(event);
        if let Some(meta) = agent_meta(event) {
            self.spend(&meta);
        }
        match (&event.event_type, &event.payload) {
            (EventType::ToolCall, Payload::Tool(tool)) => {
                self.tool(&tool.name).calls += 1;
            }
            (EventType::ToolResult, Payload::Tool(tool)) if without_call => {
                self.tool(&tool.name).results_without_call += 1;
            }
            (EventType::ToolResult, Payload::Tool(tool))
                if tool.error.is_some() || tool.exit_code.is_some_and(|code| code != 0) =>
            {
                self.tool(&tool.name).failures += 1;
            }
            (EventType::RunCompleted, _) => {
                self.runs += 1;
                match std::mem::take(&mut self.run).duration() {
                    Some(duration) => self.duration_ms += duration.ms,
                    None => self.undated_runs += 1,
                }
            }
            _ => {}
        }
    }

    /// Adds the tokens and cost of run metadata (`usage`, `cost_usd`, by the rule of
    /// [`Spend`], priced by this count's table).
    fn spend(&mut self, meta: &crate::model::RunMeta) {
        let prices = self.prices.as_deref().unwrap_or_else(|| Prices::builtin());
        self.spend.add_priced(meta, prices);
        self.settle_spend();
    }

    fn settle_spend(&mut self) {
        self.tokens = self.spend.tokens;
        self.cost = self.spend.cost.clone();
        self.repeated_session_totals = self.spend.repeated;
    }

    fn tool(&mut self, name: &str) -> &mut ToolStats {
        if !self.tools.contains_key(name) {
            self.tools.insert(name.to_owned(), ToolStats::default());
        }
        self.tools.get_mut(name).expect("inserted above")
    }

    /// Takes back one call of `name` (and its failure), dropping a tool left at nothing.
    fn untool(&mut self, name: &str, failed: bool) {
        if let Some(tool) = self.tools.get_mut(name) {
            tool.calls = tool.calls.saturating_sub(1);
            if failed {
                tool.failures = tool.failures.saturating_sub(1);
            }
            if tool.calls == 0 && tool.failures == 0 && tool.results_without_call == 0 {
                self.tools.remove(name);
            }
        }
    }

    /// Adds another count to this one.
    pub fn merge(&mut self, other: &Stats) {
        self.files += other.files;
        self.events += other.events;
        add_all(&mut self.event_types, &other.event_types);
        add_all(&mut self.block_types, &other.block_types);
        for (name, tool) in &other.tools {
            let mine = self.tool(name);
            mine.calls += tool.calls;
            mine.failures += tool.failures;
            mine.results_without_call += tool.results_without_call;
        }
        self.sightings += other.sightings;
        self.spend.merge(&other.spend);
        self.settle_spend();
        self.duration_ms += other.duration_ms;
        self.runs += other.runs;
        self.undated_runs += other.undated_runs;
        add_all(&mut self.problems, &other.problems);
    }

    /// Problems counted, all kinds.
    pub fn problem_count(&self) -> u64 {
        self.problems.values().sum()
    }
}

fn bump(counts: &mut BTreeMap<String, u64>, key: &str) {
    match counts.get_mut(key) {
        Some(count) => *count += 1,
        None => {
            counts.insert(key.to_owned(), 1);
        }
    }
}

fn add_all(counts: &mut BTreeMap<String, u64>, other: &BTreeMap<String, u64>) {
    // Looked up before inserting: `entry` takes an owned key, a copy of every name made
    // and freed per merge although most are there already (the total of many files).
    for (key, count) in other {
        match counts.get_mut(key) {
            Some(mine) => *mine += count,
            None => {
                counts.insert(key.clone(), *count);
            }
        }
    }
}

/// Counts per file and in total, as `axt stats --json` prints them (and the Python
/// package's `axt.stats` returns them): `{"files": [{"file", "stats"}...], "total"}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StatsReport {
    /// Each file's counts, in the order the files were given (directories walked sorted).
    pub files: Vec<FileStats>,
    /// Every file's counts merged.
    pub total: Stats,
}

/// One file's counts in a [`StatsReport`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileStats {
    /// The file as named on the command line (or found in a directory).
    pub file: String,
    /// Its counts.
    pub stats: Stats,
}

impl StatsReport {
    /// Adds one file's counts.
    pub fn add(&mut self, file: String, stats: Stats) {
        self.total.merge(&stats);
        self.files.push(FileStats { file, stats });
    }
}

/// The transcripts `paths` name: files as given, directories walked for `*.jsonl` files
/// (not raw captures: [`is_transcript`]; siblings sorted by name, so output is stable;
/// symbolic links inside a directory are not followed, so no walk loops). What cannot be
/// listed is returned beside, with its path, and the walk goes on.
pub fn transcript_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<(PathBuf, io::Error)>) {
    collect(Walk::transcripts(paths))
}

/// [`transcript_files`] for files of other extensions (`axt normalize DIR` reads agent
/// output: `jsonl`, `json`, `sse`, and `axt exec`'s raw captures, `raw`): files as given,
/// directories walked the same way for files whose extension is one of `extensions`.
pub fn files_with_extensions(
    paths: &[PathBuf],
    extensions: &[&str],
) -> (Vec<PathBuf>, Vec<(PathBuf, io::Error)>) {
    let take = |path: &Path| {
        path.extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x))
    };
    collect(Walk::new(paths, &take))
}

/// The files of a walk apart from what it could not list.
fn collect(walk: Walk<'_>) -> (Vec<PathBuf>, Vec<(PathBuf, io::Error)>) {
    let mut files = Vec::new();
    let mut failed = Vec::new();
    for found in walk {
        match found {
            Ok(file) => files.push(file),
            Err(failure) => failed.push(failure),
        }
    }
    (files, failed)
}

/// How many entries of one directory a [`Walk`] holds at most, sorted, before it hands
/// them out: a larger directory is read again for each next batch of its names (those
/// after the last one handed out), so that a directory of tens of thousands of
/// transcripts costs the walk the memory of this many names, not of all of them.
const BATCH_ENTRIES: usize = 8192;

/// At most how many times a [`Walk`] reads one directory: past `BATCH_ENTRIES` times this
/// many entries, a batch holds a share of the directory instead, so that the reads stay
/// few however large the directory (memory then grows by a name per this many entries).
const MOST_READS: usize = 8;

/// The files [`transcript_files`] lists, in the same order, one at a time: what `axt
/// stats` counts over a directory of any number of transcripts in memory that does not
/// grow with their number. Each item is a file, or what could not be listed with its path
/// (the walk goes on past it). Directories are walked depth first, siblings sorted by name
/// a batch at a time ([`BATCH_ENTRIES`]); nothing is kept of a file once handed out.
pub(crate) struct Walk<'a> {
    paths: std::slice::Iter<'a, PathBuf>,
    take: &'a (dyn Fn(&Path) -> bool + Sync),
    /// Entries of a directory held at once at most ([`BATCH_ENTRIES`]; fewer in tests).
    batch: usize,
    /// The directories being walked, outermost first.
    open: Vec<Listing>,
}

/// A directory being walked: the batch of its entries being handed out, in name order.
struct Listing {
    dir: PathBuf,
    /// Entries held at once at most, at least (see [`MOST_READS`]).
    held: usize,
    /// Entries of this batch not yet handed out, the next last (each with its type).
    names: Vec<(OsString, io::Result<FileType>)>,
    /// The last name of this batch when entries after it are still to be read.
    after: Option<OsString>,
    /// Entries in the directory, as its first read counted them.
    entries: usize,
    /// An error reading the directory was returned: another read's is not returned again.
    failed: bool,
}

impl<'a> Walk<'a> {
    pub(crate) fn new(paths: &'a [PathBuf], take: &'a (dyn Fn(&Path) -> bool + Sync)) -> Self {
        Walk {
            paths: paths.iter(),
            take,
            batch: BATCH_ENTRIES,
            open: Vec::new(),
        }
    }

    /// The transcripts of `paths` ([`transcript_files`]).
    pub(crate) fn transcripts(paths: &'a [PathBuf]) -> Self {
        Walk::new(paths, &is_transcript)
    }
}

impl Iterator for Walk<'_> {
    type Item = Result<PathBuf, (PathBuf, io::Error)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let Some(listing) = self.open.last_mut() else {
                let path = self.paths.next()?;
                if !path.is_dir() {
                    return Some(Ok(path.clone()));
                }
                match Listing::open(path.clone(), self.batch) {
                    Ok((listing, failure)) => {
                        self.open.push(listing);
                        if let Some(failure) = failure {
                            return Some(Err(failure));
                        }
                    }
                    Err(failure) => return Some(Err(failure)),
                }
                continue;
            };
            let Some((name, kind)) = listing.names.pop() else {
                if listing.after.is_none() {
                    self.open.pop();
                } else if let Some(failure) = listing.read() {
                    return Some(Err(failure));
                }
                continue;
            };
            let path = listing.dir.join(name);
            match kind {
                Ok(kind) if kind.is_dir() => match Listing::open(path, self.batch) {
                    Ok((listing, failure)) => {
                        self.open.push(listing);
                        if let Some(failure) = failure {
                            return Some(Err(failure));
                        }
                    }
                    Err(failure) => return Some(Err(failure)),
                },
                Ok(kind) if kind.is_file() && (self.take)(&path) => return Some(Ok(path)),
                Ok(_) => {}
                Err(error) => return Some(Err((path, error))),
            }
        }
    }
}

/// An entry of a directory being read, ordered by its name alone (names in one directory
/// are distinct).
struct Named(OsString, io::Result<FileType>);

impl PartialEq for Named {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Named {}

impl PartialOrd for Named {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Named {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

impl Listing {
    /// `dir` with its first batch read, and the error that cut the read short, if one did;
    /// or the error of opening it.
    #[allow(clippy::type_complexity)]
    fn open(
        dir: PathBuf,
        batch: usize,
    ) -> Result<(Listing, Option<(PathBuf, io::Error)>), (PathBuf, io::Error)> {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) => return Err((dir, error)),
        };
        let mut listing = Listing {
            dir,
            held: batch,
            names: Vec::new(),
            after: None,
            entries: 0,
            failed: false,
        };
        let failure = listing.read_from(entries);
        Ok((listing, failure))
    }

    /// Reads the directory again for the batch of names after `after`; the error that
    /// stopped it, if it is the directory's first.
    fn read(&mut self) -> Option<(PathBuf, io::Error)> {
        match std::fs::read_dir(&self.dir) {
            Ok(entries) => self.read_from(entries),
            Err(error) => {
                // Gone since its first read: what was not handed out is not there.
                self.after = None;
                self.fail(error)
            }
        }
    }

    /// The next batch, the smallest names after `after` (a bounded max-heap of them, so
    /// that a read keeps no more names than a batch holds), sorted.
    fn read_from(&mut self, entries: std::fs::ReadDir) -> Option<(PathBuf, io::Error)> {
        let limit = self.held.max(self.entries.div_ceil(MOST_READS));
        let after = self.after.take();
        let mut heap: BinaryHeap<Named> = BinaryHeap::new();
        let (mut seen, mut more, mut failure) = (0, false, None);
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    failure = Some(error);
                    break;
                }
            };
            seen += 1;
            let name = entry.file_name();
            if after.as_ref().is_some_and(|after| name <= *after) {
                continue;
            }
            if heap.len() == limit {
                more = true;
                match heap.peek_mut() {
                    Some(mut largest) if name < largest.0 => {
                        *largest = Named(name, entry.file_type());
                    }
                    _ => {}
                }
            } else {
                heap.push(Named(name, entry.file_type()));
            }
        }
        if self.entries == 0 {
            self.entries = seen;
        }
        let mut batch: Vec<_> = heap.into_vec();
        // Sorted largest first: the batch is handed out from its end.
        batch.sort_unstable_by(|a, b| b.cmp(a));
        self.after = if more {
            batch.first().map(|last| last.0.clone())
        } else {
            None
        };
        self.names = batch
            .into_iter()
            .map(|Named(name, kind)| (name, kind))
            .collect();
        failure.and_then(|error| self.fail(error))
    }

    fn fail(&mut self, error: io::Error) -> Option<(PathBuf, io::Error)> {
        if std::mem::replace(&mut self.failed, true) {
            return None;
        }
        Some((self.dir.clone(), error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk as it was, every directory's entries read and sorted at once: the order
    /// [`Walk`] keeps.
    fn walked_at_once(dir: &Path, files: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap())
            .collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                walked_at_once(&entry.path(), files);
            } else if kind.is_file() && is_transcript(&entry.path()) {
                files.push(entry.path());
            }
        }
    }

    /// A directory read a batch of names at a time lists the files a whole read does, in
    /// the same order, whatever the batch (one entry, a few, more than a read's share, all):
    /// subdirectories in their place between files, other files and symbolic links left out,
    /// files given beside the directory in their place.
    #[test]
    fn a_directory_read_a_batch_at_a_time_is_listed_as_a_whole_read_lists_it() {
        let dir = std::env::temp_dir().join(format!("axt-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let nested = dir.join("m-nested");
        std::fs::create_dir_all(nested.join("deeper")).unwrap();
        std::fs::create_dir_all(dir.join("empty")).unwrap();
        for n in 0..50 {
            // Names whose byte order is not their numbers' order.
            std::fs::write(dir.join(format!("{n}.jsonl")), "").unwrap();
        }
        for name in [
            "a.txt",
            "z.jsonl",
            "Z.jsonl",
            "m-nested.jsonl",
            "capture.raw.jsonl",
        ] {
            std::fs::write(dir.join(name), "").unwrap();
        }
        for n in 0..7 {
            std::fs::write(nested.join(format!("{n:02}.jsonl")), "").unwrap();
            std::fs::write(nested.join("deeper").join(format!("{n}.jsonl")), "").unwrap();
        }
        std::os::unix::fs::symlink(dir.join("0.jsonl"), dir.join("link.jsonl")).unwrap();
        let single = dir.join("7.jsonl");
        let paths = [single.clone(), dir.clone(), single.clone()];
        let mut expected = vec![single.clone()];
        walked_at_once(&dir, &mut expected);
        expected.push(single);
        assert!(expected.len() > 2 + 50 + 14, "{expected:?}");
        for batch in [1, 2, 3, 7, 8, 9, 64, BATCH_ENTRIES] {
            let mut walk = Walk::transcripts(&paths);
            walk.batch = batch;
            let walked: Vec<PathBuf> = walk.map(Result::unwrap).collect();
            assert_eq!(walked, expected, "batches of {batch}");
        }
        let (files, failed) = transcript_files(&paths);
        assert!(files == expected && failed.is_empty(), "{failed:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
