//! Batch export: transcript files and directories in, every run's spans out, linked runs in
//! one trace.
//!
//! Each input is a run file or a directory (its transcripts: `*.jsonl` files, without the raw
//! copies a capture keeps, [`is_transcript`]). A run whose parent is not among the inputs is a *root of the
//! export*: its tree is rebuilt with [`read::tree`](crate::read::tree) (children in the
//! same directory, at any depth) and every run of it mapped, a child's span under the
//! `call_workflow` step that invoked it. A run reached that way is not exported again when
//! it is also an input. When a root of the export names a parent, its ancestors are looked
//! up in its directory (`<parent_run_id>.jsonl`) so that its trace is the topmost
//! ancestor's and its span goes under the step that invoked it, as when the whole tree is
//! exported; where a parent's file is missing, the topmost run id known gives the trace.
//!
//! The spans come out tree by tree ([`export_each`]): the roots ordered by when they start
//! (their first event; in file order at equal times), each tree's spans ordered by start
//! time, each handed over as soon as it and the trees before it are done, so that what is
//! held at once is a few trees per worker ([`batch`]), never every span of
//! the inputs. Trees that do not overlap in time come out exactly as one sort of every
//! span by start time would give them.
//!
//! What one thread would do serially is the workers': the inputs' first events are read on
//! them, each directory is indexed once for all the trees that look up runs in it
//! ([`tree::Indexes`]: a directory of n runs is read n times, not n²), and what is made of
//! a tree's spans (their OTLP/JSON) is made by the worker that exported it
//! ([`Plan::export_prepared`]), so the calling thread only merges and writes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::ids::{SpanId, TraceId};
use super::map::{Mapper, RunContext};
use super::span::Span;
use crate::batch;
use crate::model::ExchangeEvent;
use crate::model::files::is_transcript;
use crate::read::tree::{self, Indexes, Node, Run, TreeProblem, dir_of};
use crate::read::{ReadItem, Reader};

/// How to export.
#[derive(Clone, Debug, Default)]
pub struct BatchOptions {
    /// Message content, tool arguments and results as attributes (redacted).
    pub content: bool,
    /// Message content in a `gen_ai.client.inference.operation.details` event on each
    /// `chat` span (redacted).
    pub content_events: bool,
}

/// Spans, and what did not fit.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Every span, tree by tree (the trees in the order their roots start), each tree's
    /// ordered by start time (at equal starts, the one that ends last first, then the
    /// shallower, so a parent comes before its children).
    pub spans: Vec<Span>,
    /// Runs exported.
    pub runs: u64,
    /// The problems the tree reader met (unreadable lines, missing children, ...).
    pub problems: Vec<TreeProblem>,
}

/// Why nothing could be exported.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// An input is neither a readable file nor a directory.
    #[error("{}: {source}", path.display())]
    Io {
        /// The input.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The inputs hold no run.
    #[error("no transcript with an event in {}", describe(paths))]
    Empty {
        /// The inputs.
        paths: Vec<PathBuf>,
    },
}

fn describe(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

/// Exports the runs of `inputs` (files and directories), one tree after another: what
/// [`Plan`] does when its roots are exported in order on one thread.
pub fn export(inputs: &[PathBuf], options: &BatchOptions) -> Result<Batch, BatchError> {
    export_on(inputs, options, 1)
}

/// [`export`] on `jobs` threads (0: one per core): the trees read and mapped side by side,
/// in the order one thread gives them, so the batch is the same whatever the number of
/// threads. Every span is held; [`export_each`] hands them over tree by tree instead.
pub fn export_on(
    inputs: &[PathBuf],
    options: &BatchOptions,
    jobs: usize,
) -> Result<Batch, BatchError> {
    let mut whole = Batch::default();
    export_each(inputs, options, jobs, &mut |tree| {
        whole.spans.extend(tree.spans);
        whole.runs += tree.runs;
        whole.problems.extend(tree.problems);
    })?;
    Ok(whole)
}

/// Exports the runs of `inputs` on `jobs` threads (0: one per core), handing `each` one
/// tree's batch at a time (its spans in order, its runs, its problems), on the calling
/// thread, in the order one thread gives them: the spans of all the calls, one after
/// another, are [`export`]'s. At most a few trees per worker are held at once.
pub fn export_each(
    inputs: &[PathBuf],
    options: &BatchOptions,
    jobs: usize,
    each: &mut dyn FnMut(Batch),
) -> Result<(), BatchError> {
    Plan::new(inputs, jobs)?.export_each(options, jobs, each);
    Ok(())
}

/// The runs of a batch export, read once (each file's first event), and its roots: the
/// runs whose parent is not among the inputs, ordered by when they start (in file order
/// at equal times). Each root's tree is exported on its own ([`Plan::export_root`], on any
/// thread: the trees are read and mapped apart), and the trees merged in the roots' order
/// ([`Merged`]), which gives exactly what [`export`] gives however the trees were exported.
pub struct Plan {
    /// Every input run: its file, run id and parent.
    firsts: Vec<(PathBuf, String, Option<String>)>,
    /// The indexes in `firsts` of the roots, in order.
    roots: Vec<usize>,
    /// The inputs' directories, each indexed once for all the trees that look up runs in it.
    indexes: Indexes,
}

/// One root's tree, exported apart from the others ([`Plan::export_root`]), to be merged.
pub struct Tree {
    /// The root's index in the plan.
    root: usize,
    spans: Vec<Span>,
    runs: u64,
    problems: Vec<TreeProblem>,
    /// Every run its export went through (each once), the root first.
    visited: HashSet<String>,
}

impl Plan {
    /// The runs of `inputs`, their first events read on `jobs` threads (0: one per core):
    /// an input that is neither a readable file nor a directory is an error, and so is
    /// finding no run at all.
    pub fn new(inputs: &[PathBuf], jobs: usize) -> Result<Plan, BatchError> {
        let mut files = Vec::new();
        for input in inputs {
            expand(input, &mut files)?;
        }
        let mut seen_files = HashSet::new();
        files.retain(|f| seen_files.insert(f.clone()));
        let mut starts = Vec::new();
        let mut firsts: Vec<(PathBuf, String, Option<String>)> = Vec::new();
        let workers = batch::workers(jobs, files.len());
        batch::in_order(
            &files,
            workers,
            |_, file, send| send(first_event(file)),
            |index, first| {
                if let Some(event) = first {
                    starts.push(unix_nanos(&event));
                    firsts.push((files[index].clone(), event.run_id, event.parent_run_id));
                }
            },
        );
        if firsts.is_empty() {
            return Err(BatchError::Empty {
                paths: inputs.to_vec(),
            });
        }
        let given: HashSet<&str> = firsts.iter().map(|(_, id, _)| id.as_str()).collect();
        let mut roots: Vec<usize> = (firsts.iter().enumerate())
            .filter(|(_, (_, _, parent))| parent.as_deref().is_none_or(|p| !given.contains(p)))
            .map(|(index, _)| index)
            .collect();
        // A root's run span starts at its first event, and encloses its tree: the trees in
        // the order of their roots' starts are the order a sort of all spans gives them.
        roots.sort_by_key(|&index| starts[index]);
        Ok(Plan {
            firsts,
            roots,
            indexes: Indexes::default(),
        })
    }

    /// Exports every tree on `jobs` threads (0: one per core): [`export_each`] once the
    /// inputs are read.
    pub fn export_each(&self, options: &BatchOptions, jobs: usize, each: &mut dyn FnMut(Batch)) {
        self.export_prepared(options, jobs, &|_| (), &mut |batch, ()| each(batch));
    }

    /// [`Plan::export_each`], each batch handed over with what `prepare` makes of its spans
    /// (their encoding, say), made on the worker that exported the tree, so that what the
    /// calling thread does per span is only to take it. A tree that the merge exports again
    /// (a run two trees share) and the runs no tree reached are prepared on the calling
    /// thread: what `each` is given is `prepare` of the batch's spans either way.
    pub fn export_prepared<T: Send>(
        &self,
        options: &BatchOptions,
        jobs: usize,
        prepare: &(dyn Fn(&[Span]) -> T + Sync),
        each: &mut dyn FnMut(Batch, T),
    ) {
        let roots: Vec<usize> = (0..self.roots()).collect();
        let mut merged = self.merge(options);
        batch::in_order(
            &roots,
            batch::workers(jobs, roots.len()),
            |_, &root, send| {
                let tree = self.export_root(root, options);
                let prepared = prepare(&tree.spans);
                send((tree, prepared));
            },
            |_, (tree, prepared)| match merged.add(tree) {
                Some(Added::AsExported(batch)) => each(batch, prepared),
                Some(Added::ExportedAgain(batch)) => {
                    let prepared = prepare(&batch.spans);
                    each(batch, prepared);
                }
                None => {}
            },
        );
        let rest = merged.finish();
        if rest.runs > 0 || !rest.problems.is_empty() {
            let prepared = prepare(&rest.spans);
            each(rest, prepared);
        }
    }

    /// How many roots there are.
    pub fn roots(&self) -> usize {
        self.roots.len()
    }

    /// The tree of root `root` (an index below [`Plan::roots`]), read and mapped.
    pub fn export_root(&self, root: usize, options: &BatchOptions) -> Tree {
        let mut tree = Tree {
            root,
            spans: Vec::new(),
            runs: 0,
            problems: Vec::new(),
            visited: HashSet::new(),
        };
        let mut batch = Batch::default();
        self.export_tree(root, options, &mut batch, &mut tree.visited);
        sort(&mut batch.spans);
        (tree.spans, tree.runs, tree.problems) = (batch.spans, batch.runs, batch.problems);
        tree
    }

    /// Root `root`'s tree into `batch`, but for the runs in `done` (each added to it).
    fn export_tree(
        &self,
        root: usize,
        options: &BatchOptions,
        batch: &mut Batch,
        done: &mut HashSet<String>,
    ) {
        let (file, run_id, parent) = &self.firsts[self.roots[root]];
        let (trace, parent_span) = match parent {
            Some(parent) => ancestry(dir_of(file), run_id, parent),
            None => (TraceId::of_root(run_id), None),
        };
        let tree = tree::build_indexed(file, &self.indexes);
        batch.problems.extend(tree.problems);
        export_run(&tree.root, trace, parent_span, options, batch, done);
    }

    /// Trees merged in the roots' order.
    pub fn merge<'a>(&'a self, options: &'a BatchOptions) -> Merged<'a> {
        Merged {
            plan: self,
            options,
            done: HashSet::new(),
        }
    }
}

/// What a tree adds to the export ([`Merged::add`]).
pub enum Added {
    /// The tree as it was exported: its spans are the worker's.
    AsExported(Batch),
    /// The tree exported again without the runs earlier trees exported: new spans.
    ExportedAgain(Batch),
}

/// Trees merged one after another, in the roots' order ([`Plan::merge`]): what each adds
/// to the export. It holds the run ids exported so far, not their spans.
pub struct Merged<'a> {
    plan: &'a Plan,
    options: &'a BatchOptions,
    /// The runs exported so far.
    done: HashSet<String>,
}

impl Merged<'_> {
    /// The next root's tree, as it goes into the export, its spans in order; `None` when
    /// it adds nothing (a root an earlier tree exported). A tree that goes through a run
    /// an earlier tree exported (a run two trees share) is exported again here, without
    /// the runs already done, as one thread exporting them in order does.
    pub fn add(&mut self, tree: Tree) -> Option<Added> {
        let root_run = &self.plan.firsts[self.plan.roots[tree.root]].1;
        if self.done.contains(root_run) {
            return None;
        }
        if tree.visited.iter().any(|run| self.done.contains(run)) {
            let mut batch = Batch::default();
            (self.plan).export_tree(tree.root, self.options, &mut batch, &mut self.done);
            sort(&mut batch.spans);
            return Some(Added::ExportedAgain(batch));
        }
        self.done.extend(tree.visited);
        Some(Added::AsExported(Batch {
            spans: tree.spans,
            runs: tree.runs,
            problems: tree.problems,
        }))
    }

    /// The last of the export: the runs no tree reached (their parent is an input that
    /// never invokes them), each exported on its own, their spans in order.
    pub fn finish(mut self) -> Batch {
        let mut batch = Batch::default();
        let (options, done) = (self.options, &mut self.done);
        for (file, run_id, _) in &self.plan.firsts {
            if !done.contains(run_id) {
                let tree = tree::build_indexed(file, &self.plan.indexes);
                batch.problems.extend(tree.problems);
                let trace = TraceId::of_root(run_id);
                export_run(&tree.root, trace, None, options, &mut batch, done);
            }
        }
        sort(&mut batch.spans);
        batch
    }
}

/// A parent encloses its children: at equal starts the longer span first, and at equal
/// times (a fixed clock) the shallower.
fn sort(spans: &mut [Span]) {
    let parents: HashMap<SpanId, Option<SpanId>> = spans
        .iter()
        .map(|s| (s.span_id, s.parent_span_id))
        .collect();
    let depth = |mut id: Option<SpanId>| {
        let mut depth = 0;
        while let Some(parent) = id.and_then(|i| parents.get(&i).copied().flatten()) {
            depth += 1;
            id = Some(parent);
            if depth > parents.len() {
                break;
            }
        }
        depth
    };
    spans.sort_by_cached_key(|span| {
        let depth = depth(Some(span.span_id));
        (
            span.start_unix_nano,
            std::cmp::Reverse(span.end_unix_nano),
            depth,
        )
    });
}

fn export_run(
    run: &Run,
    trace: TraceId,
    parent_span: Option<SpanId>,
    options: &BatchOptions,
    batch: &mut Batch,
    done: &mut HashSet<String>,
) {
    if !done.insert(run.run_id.clone()) {
        return;
    }
    let events = events(&run.file);
    if events.is_empty() {
        return;
    }
    let mut context = RunContext::from_events(trace, parent_span, &events);
    context.content = options.content;
    context.content_events = options.content_events;
    let (spans, links) = map(context, &events);
    batch.spans.extend(spans);
    batch.runs += 1;
    let links: HashMap<String, SpanId> = links.into_iter().collect();
    for child in child_runs(&run.children) {
        let parent = links.get(&child.run_id).copied();
        export_run(child, trace, parent, options, batch, done);
    }
}

/// The spans of one run's events, and the span each sub-run goes under.
fn map(context: RunContext, events: &[ExchangeEvent]) -> (Vec<Span>, Vec<(String, SpanId)>) {
    let mut mapper = Mapper::new(context);
    let mut spans = Vec::new();
    for event in events {
        mapper.push(event, &mut spans);
    }
    let links = mapper.links().to_vec();
    mapper.finish(&mut spans);
    (spans, links)
}

/// The sub-runs under `nodes`, in order, at the first level of runs.
fn child_runs(nodes: &[Node]) -> Vec<&Run> {
    let mut runs = Vec::new();
    for node in nodes {
        match node {
            Node::Run(run) => runs.push(run),
            Node::Step(step) => runs.extend(child_runs(&step.children)),
            Node::Message(_) | Node::Tool(_) => {}
        }
    }
    runs
}

/// The trace of a run whose parent is not exported with it, and the span it goes under:
/// followed up through `<dir>/<parent>.jsonl` files, at most 64 levels.
fn ancestry(dir: &Path, run_id: &str, parent: &str) -> (TraceId, Option<SpanId>) {
    let mut top = parent.to_owned();
    let mut child = run_id.to_owned();
    let mut parent_span = None;
    let mut first = true;
    for _ in 0..64 {
        let file = dir.join(format!("{top}.jsonl"));
        let events = events(&file);
        if events.first().is_none_or(|e| e.run_id != top) {
            break;
        }
        let context = RunContext::new(TraceId::of_root(&top), None);
        let (_, links) = map(context, &events);
        let span = links.iter().find(|(c, _)| *c == child).map(|(_, s)| *s);
        if first {
            parent_span = span;
            first = false;
        }
        match events[0].parent_run_id.clone() {
            Some(grandparent) => {
                child = std::mem::replace(&mut top, grandparent);
            }
            None => break,
        }
    }
    (TraceId::of_root(&top), parent_span)
}

fn expand(input: &Path, files: &mut Vec<PathBuf>) -> Result<(), BatchError> {
    let io = |source| BatchError::Io {
        path: input.to_owned(),
        source,
    };
    let meta = std::fs::metadata(input).map_err(io)?;
    if !meta.is_dir() {
        files.push(input.to_owned());
        return Ok(());
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(input)
        .map_err(io)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| is_transcript(path) && path.is_file())
        .collect();
    found.sort();
    files.extend(found);
    Ok(())
}

fn first_event(path: &Path) -> Option<ExchangeEvent> {
    Reader::open_head(path)
        .ok()?
        .into_iter()
        .find_map(|item| match item {
            ReadItem::Event { event, .. } => Some(*event),
            ReadItem::Problem(_) => None,
        })
}

/// When an event was emitted, in nanoseconds since the epoch, as the mapper reads it (a
/// time that cannot be read counts as the earliest).
fn unix_nanos(event: &ExchangeEvent) -> u64 {
    event
        .timestamp
        .unix_nanos()
        .map_or(0, |nanos| u64::try_from(nanos.max(0)).unwrap_or(u64::MAX))
}

/// A file's events; its problems are the tree's to report.
fn events(path: &Path) -> Vec<ExchangeEvent> {
    let Ok(reader) = Reader::open(path) else {
        return Vec::new();
    };
    reader
        .into_iter()
        .filter_map(|item| match item {
            ReadItem::Event { event, .. } => Some(*event),
            ReadItem::Problem(_) => None,
        })
        .collect()
}
