//! One export into a dataset: survey the transcripts, decide which runs are new, changed
//! or already there, cut the new ones into batches, map them on every core, and commit.
//!
//! * **Incremental.** A run is keyed by its `run_id` and the SHA-256 of its transcript: a
//!   run the manifest holds with the same hash is left alone (its file is hashed, never
//!   parsed); one with another hash is *replaced*: the batch that held it is rewritten
//!   without it (its other runs' rows copied from its files, since their transcripts may
//!   be on another machine) and the new version goes into a new batch; a run the manifest
//!   does not hold is added. Runs the inputs do not name stay as they are.
//! * **Batches.** The runs to write are grouped by partition date and, in `run_id` order,
//!   cut into batches of at most [`BATCH_BYTES`] of transcript or [`BATCH_RUNS`] runs: one
//!   file per table and batch, tens of megabytes once compressed, whatever the number of
//!   runs.
//! * **All cores, bounded memory.** Surveys, then batches, are spread over
//!   `available_parallelism` worker threads. A worker streams its batch's runs one at a
//!   time through the row mapper into the batch's table writers, which flush Arrow batches
//!   of 8,192 rows and row groups of at most 128 Ki rows or 64 MiB. What a run's mapper
//!   holds until later events is bounded too (the calls awaiting a result, a thousand
//!   model responses in memory and the rest spilled: [`DatasetReport::peak_held_rows`]):
//!   memory is a few row groups per worker, whatever the size of the input or of one run.
//!
//! This file owns those decisions. It must not know the on-disk rules (`dataset.rs`) or
//! the mapping (`rows.rs`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::dataset::{Commit, Dataset, DatasetError, Entry, EntryRun, table_file};
use super::rows::{Lineage, RowOptions, RowSink, RunRows};
use super::schema::{Cell, SCHEMA_VERSION, TABLES};
use super::source::{Source, sha256_hex, survey};
use super::write::{TableWriter, rewrite};
use crate::read::Prices;
use crate::read::tree::{LinkKind, TreeProblem};
use crate::read::{Calls, ReadItem, Reader};

/// Most transcript bytes in one batch.
pub const BATCH_BYTES: u64 = 256 << 20;
/// Most runs in one batch.
pub const BATCH_RUNS: usize = 10_000;

/// How to export.
#[derive(Clone, Debug, Default)]
pub struct DatasetOptions {
    /// Write the `content` table (message text, tool arguments and results).
    pub content: bool,
    /// Mask credentials in `content` with the recorder's redactor.
    pub redact: bool,
    /// Worker threads; 0 for every core.
    pub jobs: usize,
    /// The price table of the estimated costs; `None` for the one axt ships
    /// ([`Prices::builtin`]). The command line lays the user's over it ([`Prices::load`]),
    /// as `axt stats` does.
    pub prices: Option<Prices>,
}

/// What an export did.
#[derive(Debug, Default)]
pub struct DatasetReport {
    /// Transcript files read (surveyed).
    pub files: u64,
    /// Runs added (not in the dataset before).
    pub added: u64,
    /// Runs replaced (in the dataset with another content hash).
    pub replaced: u64,
    /// Runs left as they were (in the dataset with the same hash).
    pub unchanged: u64,
    /// Batches written (new ones and rewritten ones).
    pub batches: u64,
    /// Rows written per table, rewritten batches' copied rows included.
    pub rows: BTreeMap<&'static str, u64>,
    /// Files that could not be read at all, with why; the rest were exported.
    pub unreadable: Vec<(PathBuf, io::Error)>,
    /// Problems met in the runs read (each is also a `diagnostics` row), and runs refused
    /// (two files holding one run with different content).
    pub problems: Vec<TreeProblem>,
    /// The most rows a worker held in memory at once waiting for later events of their run
    /// (model responses, calls awaiting their result): what keeps memory bounded whatever a
    /// run's length; at most a thousand or so responses plus the calls open at one time.
    pub peak_held_rows: u64,
}

/// A run to write, with what the manifest will say of it.
struct Planned {
    source: Source,
    root_run_id: String,
}

enum Job {
    /// New runs of one date.
    New { date: String, runs: Vec<Planned> },
    /// A batch of the manifest without some of its runs.
    Rewrite { entry: Entry, drop: HashSet<String> },
}

/// What a job staged.
struct Staged {
    entry: Option<Entry>,
    peak_held_rows: u64,
    moves: Vec<(PathBuf, PathBuf)>,
    problems: Vec<TreeProblem>,
}

/// Exports the transcripts of `inputs` (files, and directories walked for `*.jsonl`, a
/// capture's `.raw.jsonl` copies left out) into the dataset at `out` (see the module
/// docs).
pub fn export_dataset(
    inputs: &[PathBuf],
    out: &Path,
    options: &DatasetOptions,
) -> Result<DatasetReport, DatasetError> {
    let (files, failed) = crate::read::transcript_files(inputs);
    if let Some((path, source)) = failed.into_iter().next() {
        return Err(DatasetError::Io { path, source });
    }
    // A capture's raw copy of the agent's output is no transcript.
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| !f.to_string_lossy().ends_with(".raw.jsonl"))
        .collect();
    if files.is_empty() {
        return Err(DatasetError::Empty {
            paths: inputs.to_vec(),
        });
    }
    let workers = match options.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let mut report = DatasetReport::default();
    let mut dataset = Dataset::open(out)?;
    // Survey every file, in parallel, keeping input order.
    let surveyed = parallel(&files, workers, |path| survey(path));
    let mut sources = Vec::new();
    for (path, result) in files.iter().zip(surveyed) {
        report.files += 1;
        match result {
            Ok(source) => sources.push(source),
            Err(error) => report.unreadable.push((path.clone(), error)),
        }
    }
    let plan = plan(&dataset, sources, &mut report);
    let (jobs, commit_base) = plan;
    if jobs.is_empty() {
        return Ok(report);
    }
    let staging = dataset.stage()?;
    let row_options = RowOptions {
        content: options.content,
        redact: options.redact,
    };
    let prices = options.prices.as_ref().unwrap_or_else(|| Prices::builtin());
    let results = parallel(&jobs, workers, |job| {
        run_job(job, &dataset, &staging, row_options, prices)
    });
    let mut commit = commit_base;
    for result in results {
        let staged = result.map_err(|(path, source)| DatasetError::Io { path, source })?;
        report.problems.extend(staged.problems);
        report.peak_held_rows = report.peak_held_rows.max(staged.peak_held_rows);
        if let Some(entry) = staged.entry {
            report.batches += 1;
            for (table, rows) in &entry.rows {
                let name = TABLES
                    .iter()
                    .find(|t| t.name == table.as_str())
                    .map_or("", |t| t.name);
                *report.rows.entry(name).or_default() += rows;
            }
            let text = serde_json::to_vec_pretty(&entry).map_err(|e| DatasetError::Io {
                path: staging.clone(),
                source: e.into(),
            })?;
            let path = staging
                .join("entries")
                .join(format!("{}.json", entry.batch));
            super::dataset::write_synced(&path, &text)
                .map_err(|source| DatasetError::Io { path, source })?;
            commit.add_entries.push(entry.batch);
        }
        commit.move_files.extend(staged.moves);
    }
    dataset.commit(&staging, &commit)?;
    Ok(report)
}

/// Decides what to write: the jobs, and the commit's removals.
fn plan(dataset: &Dataset, sources: Vec<Source>, report: &mut DatasetReport) -> (Vec<Job>, Commit) {
    let manifest = &dataset.manifest;
    // One source per run key: the first in input order; another file of the same run with
    // other content is refused, never a second copy.
    let mut chosen: Vec<Source> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for source in sources {
        let key = source.key();
        match by_key.get(&key) {
            Some(&index) if chosen[index].sha256 == source.sha256 => {}
            Some(&index) => {
                let first = &chosen[index];
                report.problems.push(TreeProblem {
                    file: source.path.clone(),
                    line: 1,
                    offset: 0,
                    kind: LinkKind::ParentMismatch,
                    message: format!(
                        "run {key} is also in {}, with other content: exported from there only",
                        first.path.display()
                    ),
                });
            }
            None => {
                by_key.insert(key, chosen.len());
                chosen.push(source);
            }
        }
    }
    // Parents, to find each run's root: the manifest's, then this export's.
    let mut parents: HashMap<String, Option<String>> = HashMap::new();
    for entry in manifest.entries.values() {
        for run in &entry.runs {
            if let Some(id) = &run.run_id {
                parents.insert(id.clone(), run.parent_run_id.clone());
            }
        }
    }
    for source in &chosen {
        if let Some(run) = &source.run {
            parents.insert(run.run_id.clone(), run.parent_run_id.clone());
        }
    }
    let root_of = |id: &str| {
        let mut top = id.to_owned();
        let mut seen = HashSet::new();
        while let Some(Some(parent)) = parents.get(&top) {
            if !seen.insert(top.clone()) {
                break; // a cycle: the run where it closed
            }
            top = parent.clone();
        }
        top
    };
    let mut commit = Commit::default();
    let mut drops: BTreeMap<String, HashSet<String>> = BTreeMap::new();
    let mut by_date: BTreeMap<String, Vec<Planned>> = BTreeMap::new();
    for source in chosen {
        let key = source.key();
        match manifest.run(&key) {
            Some((_, run)) if run.source_sha256 == source.sha256 => {
                report.unchanged += 1;
                continue;
            }
            Some((entry, _)) => {
                report.replaced += 1;
                drops
                    .entry(entry.batch.clone())
                    .or_default()
                    .insert(key.clone());
            }
            None => report.added += 1,
        }
        let root_run_id = match &source.run {
            Some(run) => root_of(&run.run_id),
            None => String::new(),
        };
        by_date
            .entry(source.date().to_owned())
            .or_default()
            .push(Planned {
                source,
                root_run_id,
            });
    }
    let mut jobs = Vec::new();
    for (batch, drop) in drops {
        let entry = manifest.entries[&batch].clone();
        commit
            .remove_files
            .extend(entry.files().into_iter().map(|(_, f)| f));
        commit.remove_entries.push(batch);
        jobs.push(Job::Rewrite { entry, drop });
    }
    for (date, mut runs) in by_date {
        runs.sort_by_key(|run| run.source.key());
        let mut batch: Vec<Planned> = Vec::new();
        let mut bytes = 0;
        for run in runs {
            if !batch.is_empty()
                && (bytes + run.source.bytes > BATCH_BYTES || batch.len() >= BATCH_RUNS)
            {
                let runs = std::mem::take(&mut batch);
                jobs.push(Job::New {
                    date: date.clone(),
                    runs,
                });
                bytes = 0;
            }
            bytes += run.source.bytes;
            batch.push(run);
        }
        if !batch.is_empty() {
            jobs.push(Job::New { date, runs: batch });
        }
    }
    (jobs, commit)
}

/// The key of a batch of runs: SHA-256 over their keys and hashes, sorted; 32 hex digits.
fn batch_key(runs: &[EntryRun]) -> String {
    let mut lines: Vec<String> = runs
        .iter()
        .map(|run| format!("{}\t{}\n", run.key, run.source_sha256))
        .collect();
    lines.sort();
    let mut key = sha256_hex(lines.concat().as_bytes());
    key.truncate(32);
    key
}

/// The table writers of one batch, staged under `staging`.
struct Tables {
    writers: Vec<TableWriter>,
}

impl RowSink for Tables {
    fn push(&mut self, table: usize, cells: Vec<Cell>) -> io::Result<()> {
        self.writers[table].push(cells)
    }
}

type JobError = (PathBuf, io::Error);

fn run_job(
    job: &Job,
    dataset: &Dataset,
    staging: &Path,
    options: RowOptions,
    prices: &Prices,
) -> Result<Staged, JobError> {
    match job {
        Job::New { date, runs } => new_batch(date, runs, staging, options, prices),
        Job::Rewrite { entry, drop } => rewrite_batch(entry, drop, dataset.root(), staging),
    }
}

/// A staged file's name: the target's path with `/` as `__`.
fn staged_name(target: &Path) -> PathBuf {
    PathBuf::from(target.to_string_lossy().replace('/', "__"))
}

fn new_batch(
    date: &str,
    runs: &[Planned],
    staging: &Path,
    options: RowOptions,
    prices: &Prices,
) -> Result<Staged, JobError> {
    let entry_runs: Vec<EntryRun> = runs
        .iter()
        .map(|planned| EntryRun {
            key: planned.source.key(),
            run_id: planned.source.run.as_ref().map(|r| r.run_id.clone()),
            parent_run_id: planned
                .source
                .run
                .as_ref()
                .and_then(|r| r.parent_run_id.clone()),
            root_run_id: Some(planned.root_run_id.clone()).filter(|r| !r.is_empty()),
            source_sha256: planned.source.sha256.clone(),
            source_bytes: planned.source.bytes,
        })
        .collect();
    let batch = batch_key(&entry_runs);
    let targets: Vec<PathBuf> = TABLES
        .iter()
        .map(|t| table_file(t.name, date, &batch))
        .collect();
    let mut tables = Tables {
        writers: TABLES
            .iter()
            .zip(&targets)
            .map(|(table, target)| TableWriter::new(table, staging.join(staged_name(target))))
            .collect(),
    };
    let mut problems = Vec::new();
    let mut peak_held_rows = 0;
    for planned in runs {
        let source = &planned.source;
        let io = |error| (source.path.clone(), error);
        let settled = if source.routed {
            Some(settle(&source.path).map_err(io)?)
        } else {
            None
        };
        let lineage = Lineage {
            root_run_id: planned.root_run_id.clone(),
        };
        let mut rows = RunRows::new(source, prices, lineage, options, settled, staging);
        for item in Reader::open(&source.path).map_err(io)? {
            if let ReadItem::Problem(problem) = &item {
                problems.push(TreeProblem::read(&source.path, problem.clone()));
            }
            rows.item(item, &mut tables)
                .map_err(|e| (staging.to_owned(), e))?;
        }
        peak_held_rows = peak_held_rows.max(rows.peak_held() as u64);
        rows.finish(&mut tables)
            .map_err(|e| (staging.to_owned(), e))?;
    }
    let mut counts = BTreeMap::new();
    let mut moves = Vec::new();
    for ((table, writer), target) in TABLES.iter().zip(tables.writers).zip(targets) {
        let rows = writer.finish().map_err(|e| (staging.to_owned(), e))?;
        if rows > 0 {
            counts.insert(table.name.to_owned(), rows);
            moves.push((staged_name(&target), target));
        }
    }
    let entry = Entry {
        batch,
        date: date.to_owned(),
        schema_version: SCHEMA_VERSION.to_owned(),
        rows: counts,
        runs: entry_runs,
    };
    Ok(Staged {
        entry: Some(entry),
        peak_held_rows,
        moves,
        problems,
    })
}

/// Settles the calls of a file with `router` payloads: which `tool.*` events are a call,
/// which the agent's sighting of one.
fn settle(path: &Path) -> io::Result<Calls> {
    let mut calls = Calls::default();
    for item in Reader::open(path)? {
        if let ReadItem::Event { event, .. } = item {
            calls.see(&event);
        }
    }
    Ok(calls)
}

fn rewrite_batch(
    entry: &Entry,
    drop: &HashSet<String>,
    root: &Path,
    staging: &Path,
) -> Result<Staged, JobError> {
    let runs: Vec<EntryRun> = entry
        .runs
        .iter()
        .filter(|run| !drop.contains(&run.key))
        .cloned()
        .collect();
    if runs.is_empty() {
        return Ok(Staged {
            entry: None,
            peak_held_rows: 0,
            moves: Vec::new(),
            problems: Vec::new(),
        });
    }
    let batch = batch_key(&runs);
    let mut counts = BTreeMap::new();
    let mut moves = Vec::new();
    for table in TABLES {
        if entry.rows.get(table.name).copied().unwrap_or(0) == 0 {
            continue;
        }
        let from = root.join(entry.file(table.name));
        let target = table_file(table.name, &entry.date, &batch);
        let to = staging.join(staged_name(&target));
        let rows = rewrite(table, &from, &to, drop).map_err(|e| (from.clone(), e))?;
        if rows > 0 {
            counts.insert(table.name.to_owned(), rows);
            moves.push((staged_name(&target), target));
        }
    }
    Ok(Staged {
        peak_held_rows: 0,
        entry: Some(Entry {
            batch,
            date: entry.date.clone(),
            schema_version: SCHEMA_VERSION.to_owned(),
            rows: counts,
            runs,
        }),
        moves,
        problems: Vec::new(),
    })
}

/// `work` over `items` on `workers` threads; results in input order.
fn parallel<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let result = work(item);
                    results.lock().expect("no worker panics holding it")[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("no worker panics holding it")
        .into_iter()
        .map(|result| result.expect("every item was worked"))
        .collect()
}
