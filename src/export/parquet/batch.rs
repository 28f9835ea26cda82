//! One export into a dataset: survey the transcripts, decide which runs are new, changed
//! or already there, cut the new ones into batches, map their runs on every core, write
//! them batch by batch, and commit.
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
//! * **All cores, bounded memory.** Surveys, then runs, are spread over `--jobs` workers
//!   (every core by default) on the one scheduler, [`crate::batch::in_order_waiting`]: a
//!   worker reads and maps one run at a time (reading and mapping are nine tenths of the
//!   work) and hands its rows over in chunks of at most [`CHUNK_ROWS`] rows or about
//!   [`CHUNK_BYTES`], [`CHUNKS_WAITING`] of them waiting per run; the calling thread takes
//!   them in the runs' order and writes them into the open batch's table writers, which
//!   flush Arrow batches of 8,192 rows or 1 MiB of text and row groups of at most 128 Ki
//!   rows or 64 MiB, and sync a batch's files at once when it is finished. So
//!   the runs of one batch (one date's, often) use every core, and the files are byte for
//!   byte those one worker writes: the layout does not depend on the number of cores. A
//!   batch to rewrite is one worker's task. What a run's mapper holds until later events
//!   is bounded too (the calls awaiting a result, a thousand model responses in memory and
//!   the rest spilled: [`DatasetReport::peak_held_rows`]): memory is a few row groups for
//!   the open batch and a few chunks per worker, whatever the size of the input or of one
//!   run.
//!
//! This file owns those decisions. It must not know the on-disk rules (`dataset.rs`) or
//! the mapping (`rows.rs`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

use super::dataset::{Commit, Dataset, DatasetError, Entry, EntryRun, table_file};
use super::rows::{Lineage, RowOptions, RowSink, RunRows};
use super::schema::{Cell, SCHEMA_VERSION, TABLES};
use super::source::{Source, sha256_hex, survey};
use super::write::{TableWriter, rewrite};
use crate::batch;
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
    let mut report = DatasetReport::default();
    let mut dataset = Dataset::open(out)?;
    // Survey every file, on every core, keeping input order.
    let mut sources = Vec::new();
    batch::in_order(
        &files,
        batch::workers(options.jobs, files.len()),
        |_, path, send| send(survey(path)),
        |index, result| {
            report.files += 1;
            match result {
                Ok(source) => sources.push(source),
                Err(error) => report.unreadable.push((files[index].clone(), error)),
            }
        },
    );
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
    let results = run_jobs(&jobs, options.jobs, &dataset, &staging, row_options, prices);
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

type JobError = (PathBuf, io::Error);

/// One worker's task: a run of a new batch, or a whole batch to rewrite. A new batch's
/// runs are as many tasks, so that the runs of one batch (of one date) are mapped on every
/// core; their rows come back to the calling thread in the batch's order and are written
/// there, as one worker would write them: the files are the same whatever `--jobs` is.
enum Task<'a> {
    Run {
        job: usize,
        planned: &'a Planned,
        /// The batch's last run: its files are finished after it.
        last: bool,
    },
    Rewrite {
        entry: &'a Entry,
        drop: &'a HashSet<String>,
    },
}

/// What a task hands the calling thread.
enum Mapped {
    /// Rows of a run, in the order the mapper made them: (table index, cells).
    Rows(Vec<(usize, Vec<Cell>)>),
    /// A run is mapped (its last message): what it met, or why it failed.
    RunEnd(Result<RunEnd, JobError>),
    /// A rewritten batch, staged whole by its worker.
    Rewritten(Result<Staged, JobError>),
}

struct RunEnd {
    problems: Vec<TreeProblem>,
    peak_held_rows: u64,
}

/// Most rows in one [`Mapped::Rows`], and about the most bytes of text in them: chunks
/// large enough that handing them over costs nothing next to mapping them.
const CHUNK_ROWS: usize = 1024;
const CHUNK_BYTES: usize = 256 << 10;
/// Most chunks of one run waiting for the calling thread: with [`CHUNK_BYTES`] and the
/// scheduler's few runs started ahead per worker, a few megabytes per worker.
const CHUNKS_WAITING: usize = 4;

/// Runs the jobs on `threads` workers (0: every core): new batches' runs mapped on the
/// workers and written on the calling thread, batch after batch; rewrites done whole by a
/// worker. The results in the jobs' order.
fn run_jobs(
    jobs: &[Job],
    threads: usize,
    dataset: &Dataset,
    staging: &Path,
    options: RowOptions,
    prices: &Prices,
) -> Vec<Result<Staged, JobError>> {
    let mut tasks = Vec::new();
    for (job, planned) in jobs.iter().enumerate() {
        match planned {
            Job::New { runs, .. } => {
                tasks.extend(runs.iter().enumerate().map(|(n, planned)| Task::Run {
                    job,
                    planned,
                    last: n + 1 == runs.len(),
                }));
            }
            Job::Rewrite { entry, drop } => tasks.push(Task::Rewrite { entry, drop }),
        }
    }
    let mut results = Vec::with_capacity(jobs.len());
    // The new batch being written (its writers, what its runs met so far), or why not.
    let mut open: Option<Result<Writing, JobError>> = None;
    batch::in_order_waiting(
        &tasks,
        batch::workers(threads, tasks.len()),
        CHUNKS_WAITING,
        |_, task, send| match task {
            Task::Run { planned, .. } => {
                let mut chunk = Chunk {
                    rows: Vec::new(),
                    bytes: 0,
                    send,
                };
                let end = map_run(planned, staging, options, prices, &mut chunk);
                chunk.hand_over();
                (chunk.send)(Mapped::RunEnd(end));
            }
            Task::Rewrite { entry, drop, .. } => {
                send(Mapped::Rewritten(rewrite_batch(
                    entry,
                    drop,
                    dataset.root(),
                    staging,
                )));
            }
        },
        |index, mapped| {
            let (job, last) = match &tasks[index] {
                Task::Run { job, last, .. } => (*job, *last),
                Task::Rewrite { .. } => {
                    if let Mapped::Rewritten(staged) = mapped {
                        results.push(staged);
                    }
                    return;
                }
            };
            // A batch's runs are consecutive tasks: its first message opens it.
            let writing = open.get_or_insert_with(|| {
                let Job::New { date, runs } = &jobs[job] else {
                    unreachable!("a run is a new batch's")
                };
                Ok(Writing::new(date, runs, staging))
            });
            let run_over = matches!(mapped, Mapped::RunEnd(_));
            if let Ok(batch) = writing
                && let Err(error) = batch.take(mapped, staging)
            {
                *writing = Err(error);
            }
            if run_over && last {
                let writing = open.take().expect("opened above");
                results.push(writing.and_then(|batch| batch.finish(staging)));
            }
        },
    );
    results
}

/// A staged file's name: the target's path with `/` as `__`.
fn staged_name(target: &Path) -> PathBuf {
    PathBuf::from(target.to_string_lossy().replace('/', "__"))
}

/// A new batch being written on the calling thread: its table writers, staged under
/// `staging`, and what its runs met.
struct Writing {
    date: String,
    batch: String,
    entry_runs: Vec<EntryRun>,
    targets: Vec<PathBuf>,
    tables: Tables,
    problems: Vec<TreeProblem>,
    peak_held_rows: u64,
}

impl Writing {
    fn new(date: &str, runs: &[Planned], staging: &Path) -> Writing {
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
        let tables = Tables {
            writers: TABLES
                .iter()
                .zip(&targets)
                .map(|(table, target)| TableWriter::new(table, staging.join(staged_name(target))))
                .collect(),
        };
        Writing {
            date: date.to_owned(),
            batch,
            entry_runs,
            targets,
            tables,
            problems: Vec::new(),
            peak_held_rows: 0,
        }
    }

    /// Takes what a run's worker handed over: rows to write, or the run's end.
    fn take(&mut self, mapped: Mapped, staging: &Path) -> Result<(), JobError> {
        match mapped {
            Mapped::Rows(rows) => {
                for (table, cells) in rows {
                    self.tables
                        .push(table, cells)
                        .map_err(|e| (staging.to_owned(), e))?;
                }
            }
            Mapped::RunEnd(end) => {
                let end = end?;
                self.problems.extend(end.problems);
                self.peak_held_rows = self.peak_held_rows.max(end.peak_held_rows);
            }
            Mapped::Rewritten(_) => unreachable!("a rewrite is no new batch's"),
        }
        Ok(())
    }

    /// Finishes the batch's files, synced. Each file is synced on a thread of its own as
    /// soon as it is closed, while the next ones are closed: the batch waits for the
    /// slowest `fsync(2)`, not for their sum (4 to 6 files: 33 ms of a 110 ms tail, one
    /// after another, in the batch bench on a busy machine).
    // Tried and measured no better for the 2v1 ratio: each table's close (last rows
    // encoded, footer) on its sync thread, all at once (095b9d7, reverted). The closes
    // took ~4 ms of the 23 ms tail on two cores (perf trace); 2-core wall medians 0.273 ->
    // 0.264 s and 0.236 -> 0.232 s (25 and 21 alternated rounds, chrt -f 1), 2v1 1.80x ->
    // 1.73x and, in `make bench-batch`, 1.76x -> 1.81x and 1.73x -> 1.70x: noise. The
    // rest of the tail is fsync(2) latency (2-9 ms each on a busy disk) and the commit's
    // own syncs (~6 ms).
    fn finish(self, staging: &Path) -> Result<Staged, JobError> {
        let mut counts = BTreeMap::new();
        let mut moves = Vec::new();
        let at = |e| (staging.to_owned(), e);
        std::thread::scope(|scope| {
            let mut syncs = Vec::new();
            let tables = TABLES.iter().zip(self.tables.writers).zip(self.targets);
            for ((table, writer), target) in tables {
                let (rows, file) = writer.close().map_err(at)?;
                if let Some(file) = file {
                    let sync = std::thread::Builder::new()
                        .name("axt-sync".to_owned())
                        .spawn_scoped(scope, move || file.sync_all())
                        .map_err(at)?;
                    syncs.push(sync);
                }
                if rows > 0 {
                    counts.insert(table.name.to_owned(), rows);
                    moves.push((staged_name(&target), target));
                }
            }
            for sync in syncs {
                sync.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    .map_err(at)?;
            }
            Ok(())
        })?;
        let entry = Entry {
            batch: self.batch,
            date: self.date,
            schema_version: SCHEMA_VERSION.to_owned(),
            rows: counts,
            runs: self.entry_runs,
        };
        Ok(Staged {
            entry: Some(entry),
            peak_held_rows: self.peak_held_rows,
            moves,
            problems: self.problems,
        })
    }
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

/// A worker's sink: a run's rows gathered into chunks handed over to the calling thread.
struct Chunk<'s> {
    rows: Vec<(usize, Vec<Cell>)>,
    /// About the bytes in `rows`: their text, eight per other cell.
    bytes: usize,
    send: &'s mut dyn FnMut(Mapped),
}

impl Chunk<'_> {
    fn hand_over(&mut self) {
        if !self.rows.is_empty() {
            self.bytes = 0;
            (self.send)(Mapped::Rows(std::mem::take(&mut self.rows)));
        }
    }
}

impl RowSink for Chunk<'_> {
    fn push(&mut self, table: usize, cells: Vec<Cell>) -> io::Result<()> {
        self.bytes += cells
            .iter()
            .map(|cell| match cell {
                Cell::Text(Some(text)) => text.len(),
                _ => 8,
            })
            .sum::<usize>();
        self.rows.push((table, cells));
        if self.rows.len() >= CHUNK_ROWS || self.bytes >= CHUNK_BYTES {
            self.hand_over();
        }
        Ok(())
    }
}

/// Maps one run of a new batch into `sink`.
fn map_run(
    planned: &Planned,
    staging: &Path,
    options: RowOptions,
    prices: &Prices,
    sink: &mut dyn RowSink,
) -> Result<RunEnd, JobError> {
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
    let mut problems = Vec::new();
    let mut rows = RunRows::new(source, prices, lineage, options, settled, staging);
    for item in Reader::open(&source.path).map_err(io)? {
        if let ReadItem::Problem(problem) = &item {
            problems.push(TreeProblem::read(&source.path, problem.clone()));
        }
        rows.item(item, sink).map_err(|e| (staging.to_owned(), e))?;
    }
    let peak_held_rows = rows.peak_held() as u64;
    rows.finish(sink).map_err(|e| (staging.to_owned(), e))?;
    Ok(RunEnd {
        problems,
        peak_held_rows,
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
