//! The execution tree of a run and its sub-runs, rebuilt across files, with its links checked.
//!
//! [`build`] reads a root run file, follows every `child_run_id` of its
//! `step.call_workflow.*` events to the child's file in the same directory
//! (`<dir>/<child_run_id>.jsonl`, or, when no file has that name, whichever file of the
//! directory holds that run), and so on to any depth. Within a run, steps nest by path (a step
//! `a.b` opened while `a` is open is `a`'s child; iterations of one path are siblings), and
//! messages and tool calls go under the open step of their path. A child run goes under the
//! `call_workflow` step that invoked it.
//!
//! Links are checked both ways, and what does not fit is reported as a [`TreeProblem`], never
//! a failure: a child whose file is missing ([`LinkKind::MissingChild`]), a child whose
//! `parent_run_id` is not the run that invoked it, or a run invoked twice
//! ([`LinkKind::ParentMismatch`]), a run that invokes itself or an ancestor
//! ([`LinkKind::Cycle`], not followed), a file of the directory whose `parent_run_id` names a
//! run of the tree that does not invoke it ([`LinkKind::Orphan`]), and events that do not fit
//! the structure ([`LinkKind::Structure`]: a step completed that was never started). Every
//! problem the [`Reader`] finds in any file of the tree is reported too, with its file.
//!
//! [`forest`] does the same for many files at once (a directory's runs): each file once,
//! under the run that invokes it or as a root.
//!
//! The tree is held in memory (a run's messages are summarized, not kept), up to
//! [`MAX_TREE_NODES`] steps, messages and tool calls: past them a run still reads every event
//! (its status, its links, its problems) but keeps no further node, and says how many it
//! left out ([`Run::elided`]), so memory is bounded however long the runs. For a
//! bounded-memory check of one file and its direct links, see [`check_links`].
//!
//! This folder's roof builds trees (reading files, following links, placing nodes); the
//! shapes it hands out, and their JSON, are the `nodes` room's.

mod nodes;
mod unlinked;

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::Value;

use super::calls::{CallKey, Calls, Verdict};
use super::duration::{RunDuration, millis};
use super::reader::{ProblemKind, ReadItem, Reader};
use crate::model::files::is_transcript;
use crate::model::{EventType, ExchangeEvent, Payload, Timestamp};

pub use nodes::{
    LinkKind, MAX_TREE_NODES, Message, Node, Outcome, Run, Status, Step, ToolCall, Tree,
    TreeProblem,
};
pub use unlinked::may_invoke_runs;

/// Reads `root` and every run it invokes, at any depth, into one tree. Never fails: an
/// unreadable root gives an empty run and a problem.
pub fn build(root: &Path) -> Tree {
    build_sharing(root, None)
}

/// [`build`] for one of many trees built over the same directories (on any threads): each
/// directory is indexed once for all of them (`indexes`), where [`build`] indexes the
/// root's directory every time (reading the first event of each of its files).
pub fn build_indexed(root: &Path, indexes: &Indexes) -> Tree {
    build_sharing(root, Some(indexes.clone()))
}

/// [`build`], its directories indexed for this tree alone (`None`) or from `shared`.
fn build_sharing(root: &Path, shared: Option<Indexes>) -> Tree {
    let mut builder = TreeBuilder::new(dir_of(root));
    builder.runs.shared = shared;
    let run = builder.load(root, None);
    builder.finish(Some(run))
}

/// [`build`] with the root run read from `input` (stdin, say): `name` stands for it in
/// problems and child runs are looked up in `dir`.
pub fn build_from(input: impl Read, name: &Path, dir: &Path) -> Tree {
    let mut builder = TreeBuilder::new(dir);
    let run = builder.read(name, input, None);
    builder.finish(Some(run))
}

/// The trees of many run files (a directory's, say), each file once: a file whose run names
/// no parent, or a parent none of `files` holds, is a root; every other file is read under
/// the run that invokes it, and one that no root reached (an orphan, a cycle) is a root of
/// its own after them. Files are taken in the order given (duplicates once); links are
/// looked up in each file's directory, which is indexed once however many roots it has.
/// The problems are every tree's, a run invoked from two trees reported as invoked twice.
pub fn forest(files: &[PathBuf]) -> Forest {
    let mut seen = HashSet::new();
    let files: Vec<&PathBuf> = files.iter().filter(|f| seen.insert(*f)).collect();
    let rooted = rooted(&files);
    let mut builders: Vec<TreeBuilder> = Vec::new();
    let mut roots = Vec::new();
    let mut load = |file: &Path, roots: &mut Vec<Run>, leftover: bool| {
        let dir = dir_of(file);
        let at = match builders.iter().position(|b| b.runs.dir == dir) {
            Some(at) => at,
            None => {
                builders.push(TreeBuilder::new(dir));
                builders.len() - 1
            }
        };
        let builder = &mut builders[at];
        if !builder.files.contains(file) {
            let run = builder.load(file, None);
            if leftover {
                // Still an orphan if its parent is in the forest: it is shown, not reached.
                builder.loaded.remove(&run.run_id);
            }
            roots.push(run);
        }
    };
    for (file, root) in files.iter().zip(&rooted) {
        if *root {
            load(file, &mut roots, false);
        }
    }
    for file in &files {
        load(file, &mut roots, true);
    }
    let mut problems = Vec::new();
    for builder in builders {
        problems.extend(builder.finish(None).problems);
    }
    Forest { roots, problems }
}

/// The files [`forest`] puts at the top when none of `files` invokes a run
/// (see [`may_invoke_runs`]), in its order: duplicates once; first the files whose run
/// names no parent, or a parent none of the files in its directory holds, then the others
/// (orphans: their parent does not invoke them), each group in the order given.
pub fn unlinked_roots(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    let files: Vec<&PathBuf> = files.iter().filter(|f| seen.insert(*f)).collect();
    let rooted = rooted(&files);
    let (mut roots, mut orphans) = (Vec::new(), Vec::new());
    for (file, root) in files.into_iter().zip(rooted) {
        if root {
            roots.push(file.clone());
        } else {
            orphans.push(file.clone());
        }
    }
    roots.append(&mut orphans);
    roots
}

/// Which of `files` (no duplicates) a [`forest`] of them takes as roots before following
/// any link, from each file's first event: a file without an event, or whose run names no
/// parent, or a parent that no file of its directory among `files` holds.
fn rooted(files: &[&PathBuf]) -> Vec<bool> {
    let firsts: Vec<Option<FirstEvent>> = files.iter().map(|file| first_run(file)).collect();
    let held: HashSet<(&Path, &str)> = firsts
        .iter()
        .flatten()
        .map(|first| (dir_of(&first.file), first.run_id.as_str()))
        .collect();
    let is_root = |first: &Option<FirstEvent>| {
        first.as_ref().is_none_or(|first| {
            first
                .parent_run_id
                .as_deref()
                .is_none_or(|parent| !held.contains(&(dir_of(&first.file), parent)))
        })
    };
    firsts.iter().map(is_root).collect()
}

/// The trees of many run files: [`forest`].
#[derive(Clone, Debug, PartialEq)]
pub struct Forest {
    /// The root runs, in the order of their files, each with everything under it.
    pub roots: Vec<Run>,
    /// Everything that did not fit, in every file read.
    pub problems: Vec<TreeProblem>,
}

/// The directory a run file's linked runs are looked up in: the file's own (`.` for a bare
/// file name).
pub fn dir_of(file: &Path) -> &Path {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// A directory's runs by run id, from each file's first event.
type Index = HashMap<String, FirstEvent>;

/// Directories' indexes (their runs by run id) shared by the trees of one batch
/// ([`build_indexed`]), each directory indexed once, by the first tree that needs it, however
/// many trees and threads: a directory of n runs exported tree by tree is read n times, not
/// n². A directory that changes while it is shared is seen as it was when indexed.
#[derive(Clone, Debug, Default)]
pub struct Indexes {
    dirs: Arc<Mutex<HashMap<PathBuf, Arc<Indexing>>>>,
}

/// A directory's index, made by the first tree that needs it while the others wait.
type Indexing = OnceLock<Arc<Index>>;

impl Indexes {
    fn of(&self, dir: &Path) -> Arc<Index> {
        let slot = {
            let mut dirs = self.dirs.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(dirs.entry(dir.to_owned()).or_default())
        };
        // Indexed outside the lock: trees over other directories do not wait for this one.
        Arc::clone(slot.get_or_init(|| Arc::new(index_dir(dir))))
    }
}

/// The run files of a directory, found by run id: `<dir>/<run-id>.jsonl` when that file
/// holds the run, else whichever file of the directory does (the directory is indexed by
/// each file's first event once, on the first lookup that needs it). How [`build`] follows
/// a `child_run_id`, for any reader that follows links (`axt show`).
#[derive(Debug)]
pub struct RunFiles {
    dir: PathBuf,
    index: Option<Arc<Index>>,
    /// Where the index is taken from when the directory is indexed for many trees.
    shared: Option<Indexes>,
}

impl RunFiles {
    /// The run files of `dir`.
    pub fn new(dir: &Path) -> Self {
        RunFiles {
            dir: dir.to_owned(),
            index: None,
            shared: None,
        }
    }

    /// The file of `run_id`, if the directory has one.
    pub fn locate(&mut self, run_id: &str) -> Option<PathBuf> {
        let named = self.dir.join(format!("{run_id}.jsonl"));
        if first_run(&named).is_some_and(|first| first.run_id == run_id) {
            return Some(named);
        }
        self.index().get(run_id).map(|first| first.file.clone())
    }

    fn index(&mut self) -> &Arc<Index> {
        let (dir, shared) = (&self.dir, &self.shared);
        self.index.get_or_insert_with(|| match shared {
            Some(indexes) => indexes.of(dir),
            None => Arc::new(index_dir(dir)),
        })
    }
}

struct TreeBuilder {
    /// Where a child run's file is found.
    runs: RunFiles,
    /// Nodes the tree may still keep.
    room: usize,
    /// Runs loaded so far, with their files.
    loaded: HashSet<String>,
    /// The files they were read from.
    files: HashSet<PathBuf>,
    ancestors: Vec<String>,
    problems: Vec<TreeProblem>,
}

impl TreeBuilder {
    fn new(dir: &Path) -> Self {
        TreeBuilder {
            runs: RunFiles::new(dir),
            room: MAX_TREE_NODES,
            loaded: HashSet::new(),
            files: HashSet::new(),
            ancestors: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// The tree of `root`, or (with `None`, for a [`Forest`]) only the problems, with the
    /// orphans of the directory.
    fn finish(mut self, root: Option<Run>) -> Tree {
        self.find_orphans();
        Tree {
            root: root.unwrap_or_else(|| {
                RunBuilder::new(&self.runs.dir, 0).into_run(String::new(), Vec::new())
            }),
            problems: self.problems,
        }
    }

    /// Loads one run file and, recursively, its children. `invoked` is `(parent run, child
    /// id)` when a parent names this run.
    fn load(&mut self, path: &Path, invoked: Option<(&str, &str)>) -> Run {
        match File::open(path) {
            Ok(file) => self.read(path, file, invoked),
            Err(error) => {
                self.problems.push(TreeProblem::at(
                    path,
                    (1, 0),
                    LinkKind::Read(ProblemKind::Io),
                    error.to_string(),
                ));
                self.read(path, io::empty(), invoked)
            }
        }
    }

    /// [`TreeBuilder::load`] of a run read from `input`.
    fn read(&mut self, path: &Path, input: impl Read, invoked: Option<(&str, &str)>) -> Run {
        let mut run = RunBuilder::new(path, self.room);
        for item in Reader::new(input) {
            match item {
                ReadItem::Problem(problem) => {
                    self.problems.push(TreeProblem::read(path, problem));
                }
                ReadItem::Event {
                    line,
                    offset,
                    event,
                } => run.event((line, offset), *event),
            }
        }
        self.problems.append(&mut run.problems);
        self.room = run.room;
        let run_id = run.run_id.clone().unwrap_or_default();
        if let Some((parent, child)) = invoked
            && run.parent_run_id.as_deref() != Some(parent)
        {
            let names = run
                .parent_run_id
                .as_deref()
                .map_or_else(|| "no parent".to_owned(), |p| format!("parent {p:?}"));
            let message = format!("run {child:?} is invoked by {parent:?} but names {names}");
            let problem = TreeProblem::at(path, run.first, LinkKind::ParentMismatch, message);
            self.problems.push(problem);
        }
        self.loaded.insert(run_id.clone());
        self.files.insert(path.to_owned());
        self.ancestors.push(run_id.clone());
        run.drop_stamped_durations();
        let children = run.finish_steps();
        let mut resolved = Vec::with_capacity(run.links.len());
        for (child, line, offset) in std::mem::take(&mut run.links) {
            resolved.push(self.child(path, &run_id, &child, (line, offset)));
        }
        self.ancestors.pop();
        let children = assemble(&mut run.arena, &children, &mut resolved);
        run.into_run(run_id, children)
    }

    fn child(&mut self, path: &Path, run_id: &str, child: &str, at: (u64, u64)) -> Option<Run> {
        if self.ancestors.iter().any(|a| a == child) {
            let message = format!("run {child:?} is invoked by its own descendant {run_id:?}");
            let problem = TreeProblem::at(path, at, LinkKind::Cycle, message);
            self.problems.push(problem);
            return None;
        }
        if self.loaded.contains(child) {
            let message = format!("run {child:?} is invoked a second time, here by {run_id:?}");
            let problem = TreeProblem::at(path, at, LinkKind::ParentMismatch, message);
            self.problems.push(problem);
            return None;
        }
        let Some(file) = self.runs.locate(child) else {
            let message = format!("child run {child:?}: no file of the directory holds it");
            let problem = TreeProblem::at(path, at, LinkKind::MissingChild, message);
            self.problems.push(problem);
            return None;
        };
        if self.files.contains(&file) {
            // Read already, as a root of a forest that did not reach it first.
            let message = format!("run {child:?} is invoked a second time, here by {run_id:?}");
            let problem = TreeProblem::at(path, at, LinkKind::ParentMismatch, message);
            self.problems.push(problem);
            return None;
        }
        Some(self.load(&file, Some((run_id, child))))
    }

    /// Files of the directory whose parent is in the tree but that the tree did not reach.
    fn find_orphans(&mut self) {
        let index = Arc::clone(self.runs.index());
        let mut orphans: Vec<_> = index
            .iter()
            .filter(|(run_id, first)| {
                !self.loaded.contains(*run_id)
                    && first
                        .parent_run_id
                        .as_ref()
                        .is_some_and(|p| self.loaded.contains(p))
            })
            .collect();
        orphans.sort_by(|a, b| a.0.cmp(b.0));
        for (run_id, first) in orphans {
            let parent = first.parent_run_id.as_deref().unwrap_or_default();
            let message =
                format!("run {run_id:?} names parent {parent:?}, which does not invoke it");
            let problem = TreeProblem::at(&first.file, first.at, LinkKind::Orphan, message);
            self.problems.push(problem);
        }
    }
}

/// A file's first event: the run it holds, and that run's parent.
#[derive(Clone, Debug)]
struct FirstEvent {
    file: PathBuf,
    run_id: String,
    parent_run_id: Option<String>,
    /// Its line and byte offset.
    at: (u64, u64),
}

/// The first event of the file at `path`, if it has one.
fn first_run(path: &Path) -> Option<FirstEvent> {
    let reader = Reader::open_head(path).ok()?;
    reader.into_iter().find_map(|item| match item {
        ReadItem::Event {
            line,
            offset,
            event,
        } => Some(FirstEvent {
            file: path.to_owned(),
            run_id: event.run_id,
            parent_run_id: event.parent_run_id,
            at: (line, offset),
        }),
        ReadItem::Problem(_) => None,
    })
}

fn index_dir(dir: &Path) -> Index {
    let mut index = Index::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return index;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| is_transcript(path) && path.is_file())
        .collect();
    files.sort();
    for file in files {
        if let Some(first) = first_run(&file) {
            index.entry(first.run_id.clone()).or_insert(first);
        }
    }
    index
}

/// The direct links of one file, gathered while reading it (for [`check_links`]).
#[derive(Clone, Debug, Default)]
pub struct Links {
    /// The run, from the first event.
    pub run_id: Option<String>,
    /// Its parent, from the first event.
    pub parent_run_id: Option<String>,
    /// The line and byte offset of the first event.
    pub first: (u64, u64),
    /// Children named by `step.call_workflow.started`, with the line and byte offset of
    /// that event, in order.
    pub children: Vec<(String, u64, u64)>,
}

impl Links {
    /// Notes what `event` (on `line`, at byte `offset`) says about links.
    pub fn add(&mut self, line: u64, offset: u64, event: &ExchangeEvent) {
        if self.run_id.is_none() {
            self.run_id = Some(event.run_id.clone());
            self.parent_run_id = event.parent_run_id.clone();
            self.first = (line, offset);
        }
        if event.event_type == EventType::CallWorkflowStarted
            && let Some(child) = &event.child_run_id
        {
            self.children.push((child.clone(), line, offset));
        }
    }
}

/// Checks the direct links of the file at `path` both ways, reading only the first event of
/// each child's file and streaming the parent's file: every child it names has a file in
/// the same directory whose `parent_run_id` is this run, and the parent it names (if any)
/// has a file that invokes it.
pub fn check_links(path: &Path, links: &Links) -> Vec<TreeProblem> {
    let mut problems = Vec::new();
    let Some(run_id) = links.run_id.as_deref() else {
        return problems;
    };
    let dir = dir_of(path);
    let mut index = None;
    let mut locate = |id: &str| -> Option<FirstEvent> {
        let named = dir.join(format!("{id}.jsonl"));
        match first_run(&named) {
            Some(first) if first.run_id == id => Some(first),
            _ => index.get_or_insert_with(|| index_dir(dir)).get(id).cloned(),
        }
    };
    for (child, line, offset) in &links.children {
        let at = (*line, *offset);
        if child == run_id {
            let message = format!("run {run_id:?} invokes itself");
            problems.push(TreeProblem::at(path, at, LinkKind::Cycle, message));
            continue;
        }
        match locate(child) {
            None => {
                let message = format!("child run {child:?}: no file of the directory holds it");
                problems.push(TreeProblem::at(path, at, LinkKind::MissingChild, message));
            }
            Some(first) if first.parent_run_id.as_deref() != Some(run_id) => {
                let names = first
                    .parent_run_id
                    .map_or_else(|| "no parent".to_owned(), |p| format!("{p:?}"));
                let message = format!("child run {child:?} names {names} as its parent");
                problems.push(TreeProblem::at(path, at, LinkKind::ParentMismatch, message));
            }
            Some(_) => {}
        }
    }
    if let Some(parent) = links.parent_run_id.as_deref() {
        let invoked = locate(parent).is_some_and(|first| {
            Reader::open(&first.file).is_ok_and(|reader| {
                reader.into_iter().any(|item| match item {
                    ReadItem::Event { event, .. } => event.child_run_id.as_deref() == Some(run_id),
                    ReadItem::Problem(_) => false,
                })
            })
        });
        if !invoked {
            let message = format!(
                "run {run_id:?} names parent {parent:?}, which does not invoke it (or has no file in the directory)"
            );
            problems.push(TreeProblem::at(
                path,
                links.first,
                LinkKind::Orphan,
                message,
            ));
        }
    }
    problems
}

/// A node while the run is read: steps refer to their children by index.
enum Slot {
    Step {
        step: Step,
        kids: Vec<usize>,
        started: Option<Timestamp>,
        /// Its duration is its stamps' difference, not a measured one.
        stamped: bool,
        /// Opened by `step.call_workflow.started` itself (no `step.started`), so closed by
        /// `step.call_workflow.completed`.
        by_call: bool,
    },
    Message(Message),
    Tool(ToolCall),
    /// The place of a child run: index into the run's links.
    Child(usize),
    /// A tool node that turned out to be a sighting of another call: left out.
    Sighting,
}

struct RunBuilder {
    file: PathBuf,
    run_id: Option<String>,
    parent_run_id: Option<String>,
    name: Option<String>,
    status: Status,
    error: Option<String>,
    duration: RunDuration,
    events: u64,
    arena: Vec<Slot>,
    roots: Vec<usize>,
    open: Vec<usize>,
    /// Nodes the tree may still keep; past them nodes are counted in `elided`.
    room: usize,
    elided: u64,
    /// Steps opened when the tree had no room, still open, by path and iteration: their
    /// completions close them, not a kept step of the same path (nor a problem).
    unkept: HashMap<(String, u64), usize>,
    /// Tool nodes by call.
    tools: HashMap<CallKey, usize>,
    calls: Calls,
    /// Children invoked, with the line and byte offset of the invoking event.
    links: Vec<(String, u64, u64)>,
    problems: Vec<TreeProblem>,
    /// Line and byte offset of the first event, where the run names its ids.
    first: (u64, u64),
}

impl RunBuilder {
    fn new(file: &Path, room: usize) -> Self {
        RunBuilder {
            file: file.to_owned(),
            run_id: None,
            parent_run_id: None,
            name: None,
            status: Status::Incomplete,
            error: None,
            duration: RunDuration::default(),
            events: 0,
            arena: Vec::new(),
            roots: Vec::new(),
            open: Vec::new(),
            room,
            elided: 0,
            unkept: HashMap::new(),
            tools: HashMap::new(),
            calls: Calls::default(),
            links: Vec::new(),
            problems: Vec::new(),
            first: (1, 0),
        }
    }

    fn event(&mut self, at: (u64, u64), event: ExchangeEvent) {
        let line = at.0;
        self.events += 1;
        if self.run_id.is_none() {
            self.run_id = Some(event.run_id.clone());
            self.parent_run_id = event.parent_run_id.clone();
            self.first = at;
        }
        self.duration.event(&event);
        let step = match &event.payload {
            Payload::Step(step) => Some(step),
            _ => None,
        };
        match event.event_type {
            EventType::RunStarted => {
                self.name = step.map(|s| s.name.clone());
            }
            EventType::RunCompleted => {
                let result = step.map_or(&Value::Null, |s| &s.result);
                self.error = step.and_then(|s| s.error.clone());
                let failed = self.error.is_some() || result["status"] == "failed";
                self.status = if failed {
                    Status::Failed
                } else {
                    Status::Completed
                };
            }
            EventType::StepStarted => {
                self.open_step(line, &event, false);
            }
            EventType::StepCompleted => {
                if self.close_unkept(&event.path, event.iteration) {
                    return;
                }
                if let Some(at) = self.find_open(&event.path, event.iteration, |_| true) {
                    let index = self.open.remove(at);
                    self.close(index, line, &event);
                } else {
                    let message = format!(
                        "step.completed of {:?} iteration {} with no step.started",
                        event.path, event.iteration
                    );
                    let problem = TreeProblem::at(&self.file, at, LinkKind::Structure, message);
                    self.problems.push(problem);
                }
            }
            EventType::CallWorkflowStarted => {
                let child = event.child_run_id.clone().unwrap_or_default();
                let existing = self.find_open(&event.path, event.iteration, |slot| {
                    matches!(slot, Slot::Step { step, .. }
                        if step.kind == "call_workflow" && step.child_run_id.is_none())
                });
                let index = match existing {
                    Some(at) => Some(self.open[at]),
                    None => self.open_step(line, &event, true),
                };
                // The child is read either way (its links and problems count); it has a
                // place in the tree only under a kept step.
                if let Some(index) = index {
                    let place = self.arena.len();
                    if let Slot::Step { step, kids, .. } = &mut self.arena[index] {
                        step.child_run_id = Some(child.clone());
                        kids.push(place);
                    }
                    self.arena.push(Slot::Child(self.links.len()));
                }
                self.links.push((child, at.0, at.1));
            }
            EventType::CallWorkflowCompleted => {
                if self.close_unkept(&event.path, event.iteration) {
                    return;
                }
                let child = event.child_run_id.as_deref();
                let found = self.arena.iter().rposition(|slot| {
                    matches!(slot, Slot::Step { step, .. } if step.child_run_id.as_deref() == child)
                });
                match found {
                    Some(index) => {
                        if matches!(self.arena[index], Slot::Step { by_call: true, .. })
                            && let Some(at) = self.open.iter().rposition(|i| *i == index)
                        {
                            self.open.remove(at);
                            self.close(index, line, &event);
                        }
                    }
                    None => {
                        let message = format!(
                            "step.call_workflow.completed names child {child:?}, which no step.call_workflow.started invoked"
                        );
                        let problem =
                            TreeProblem::at(&self.file, at, LinkKind::ParentMismatch, message);
                        self.problems.push(problem);
                    }
                }
            }
            EventType::MessageUser | EventType::MessageAssistant => {
                let role = match &event.payload {
                    Payload::Message(message) => message.role.as_str().to_owned(),
                    _ => event.event_type.as_str()["message.".len()..].to_owned(),
                };
                let blocks = event
                    .payload
                    .blocks()
                    .iter()
                    .map(|b| b.block.type_name().to_owned())
                    .collect();
                let slot = Slot::Message(Message { role, blocks, line });
                self.attach(&event.path, event.iteration, slot);
            }
            EventType::ToolCall | EventType::ToolResult => self.tool(line, &event),
            EventType::Unknown(_) => {}
        }
    }

    /// A `tool.call` or `tool.result`: one node per call, by the rule of [`Calls`].
    fn tool(&mut self, line: u64, event: &ExchangeEvent) {
        if self.room == 0 && !self.calls.knows(event) {
            // A call the tree has no room for: counted, and not remembered (memory stays
            // bounded by the kept calls, however many follow).
            if event.event_type == EventType::ToolCall {
                self.elided += 1;
            }
            return;
        }
        let (Some(seen), Payload::Tool(tool)) = (self.calls.see(event), &event.payload) else {
            return;
        };
        let is_call = event.event_type == EventType::ToolCall;
        let mut known = self.tools.get(&seen.call).copied();
        if let Some(demoted) = &seen.demoted {
            // The agent's call, counted until now, is a sighting of the router's: the
            // router's takes its node, or, when it has one already, the agent's goes.
            let agents = if demoted.call == seen.call {
                known
            } else {
                self.tools.remove(&demoted.call)
            };
            match (known, agents) {
                (Some(mine), Some(agents)) if mine != agents => {
                    let gone = std::mem::replace(&mut self.arena[agents], Slot::Sighting);
                    if let (Slot::Tool(gone), Slot::Tool(node)) = (gone, &mut self.arena[mine]) {
                        node.lines.extend(gone.lines);
                        node.lines.sort_unstable();
                    }
                }
                (None, Some(agents)) => known = Some(agents),
                _ => {}
            }
            if let Some(Slot::Tool(node)) = known.map(|index| &mut self.arena[index]) {
                node.sighted_by_agent = true;
                if is_call {
                    if node.call_id != tool.call_id {
                        node.agent_call_id = Some(std::mem::take(&mut node.call_id));
                    }
                    node.name = tool.name.clone();
                    node.call_id = tool.call_id.clone();
                    node.outcome = Outcome::Pending;
                    node.error = None;
                } else if let Some(alias) = &tool.agent_call_id
                    && *alias != tool.call_id
                {
                    node.agent_call_id = Some(alias.clone());
                }
            }
        }
        if seen.verdict == Verdict::Sighting {
            if let Some(Slot::Tool(node)) = known.map(|index| &mut self.arena[index]) {
                node.lines.push(line);
                node.sighted_by_agent = true;
                if is_call && node.call_id != tool.call_id {
                    node.agent_call_id = Some(tool.call_id.clone());
                }
            }
            return;
        }
        if is_call {
            if seen.verdict == Verdict::Call
                && let Some(index) = known
            {
                // The router's call, taking over the agent's node (agent first).
                if let Slot::Tool(node) = &mut self.arena[index] {
                    node.lines.push(line);
                }
                self.tools.insert(seen.call, index);
                return;
            }
            let slot = Slot::Tool(ToolCall {
                name: tool.name.clone(),
                call_id: tool.call_id.clone(),
                outcome: Outcome::Pending,
                error: None,
                sighted_by_agent: false,
                agent_call_id: None,
                line,
                lines: vec![line],
            });
            if let Some(index) = self.attach(&event.path, event.iteration, slot) {
                self.tools.insert(seen.call, index);
            }
            return;
        }
        let failed = tool.error.is_some() || tool.exit_code.is_some_and(|c| c != 0);
        let outcome = if failed { Outcome::Error } else { Outcome::Ok };
        match known.map(|index| &mut self.arena[index]) {
            Some(Slot::Tool(call)) => {
                call.outcome = outcome;
                call.error = tool.error.as_deref().map(str::to_owned);
                call.lines.push(line);
            }
            _ => {
                let slot = Slot::Tool(ToolCall {
                    name: tool.name.clone(),
                    call_id: tool.call_id.clone(),
                    outcome: Outcome::NoCall,
                    error: tool.error.as_deref().map(str::to_owned),
                    sighted_by_agent: false,
                    agent_call_id: None,
                    line,
                    lines: vec![line],
                });
                self.attach(&event.path, event.iteration, slot);
            }
        }
    }

    /// Opens a step; its index, or `None` when the tree has no room for it (it is then
    /// only remembered as open, to be closed).
    fn open_step(&mut self, line: u64, event: &ExchangeEvent, by_call: bool) -> Option<usize> {
        if !self.keep() {
            *self
                .unkept
                .entry((event.path.clone(), event.iteration))
                .or_default() += 1;
            return None;
        }
        let (name, kind) = match &event.payload {
            Payload::Step(step) => (step.name.clone(), step.kind.as_str().to_owned()),
            _ => (event.path.clone(), String::new()),
        };
        let slot = Slot::Step {
            step: Step {
                path: event.path.clone(),
                iteration: event.iteration,
                name,
                kind,
                status: Status::Incomplete,
                error: None,
                duration_ms: None,
                child_run_id: None,
                line,
                end_line: None,
                children: Vec::new(),
            },
            kids: Vec::new(),
            started: Some(event.timestamp.clone()),
            stamped: false,
            by_call,
        };
        let parent = self.owner(&event.path, event.iteration, false);
        let index = self.arena.len();
        self.arena.push(slot);
        self.link(parent, index);
        self.open.push(index);
        Some(index)
    }

    /// Takes a place in the tree for one more node; counts it left out when there is none.
    fn keep(&mut self) -> bool {
        if self.room == 0 {
            self.elided += 1;
            return false;
        }
        self.room -= 1;
        true
    }

    /// Closes the most recent step left out at `path` and `iteration`, if one is open.
    fn close_unkept(&mut self, path: &str, iteration: u64) -> bool {
        let key = (path.to_owned(), iteration);
        match self.unkept.get_mut(&key) {
            Some(open) => {
                *open -= 1;
                if *open == 0 {
                    self.unkept.remove(&key);
                }
                true
            }
            None => false,
        }
    }

    fn close(&mut self, index: usize, line: u64, event: &ExchangeEvent) {
        if let Slot::Step {
            step,
            started,
            stamped,
            ..
        } = &mut self.arena[index]
        {
            step.end_line = Some(line);
            let (error, timed) = match &event.payload {
                Payload::Step(payload) => (payload.error.clone(), payload.duration_ms),
                _ => (None, None),
            };
            step.status = if error.is_some() {
                Status::Failed
            } else {
                Status::Completed
            };
            step.error = error;
            // The writer's monotonic clock when it timed the step, else the wall clock's.
            *stamped = timed.is_none();
            step.duration_ms = timed.or_else(|| millis(started.as_ref()?, &event.timestamp));
        }
    }

    /// The position in the open list of the most recent open step at exactly `path`,
    /// preferring `iteration`, that `fits`.
    fn find_open(&self, path: &str, iteration: u64, fits: impl Fn(&Slot) -> bool) -> Option<usize> {
        let at = |same_iteration: bool| {
            self.open.iter().rposition(|index| {
                let Slot::Step { step, .. } = &self.arena[*index] else {
                    return false;
                };
                step.path == path
                    && (!same_iteration || step.iteration == iteration)
                    && fits(&self.arena[*index])
            })
        };
        at(true).or_else(|| at(false))
    }

    /// The open step a node at `path` belongs under: the one at exactly `path` (when
    /// `exact` is allowed), else the deepest open step whose path is a dot-prefix.
    fn owner(&self, path: &str, iteration: u64, exact: bool) -> Option<usize> {
        let mut best: Option<(usize, usize, bool)> = None; // (depth, index, same iteration)
        for &index in &self.open {
            let Slot::Step { step, .. } = &self.arena[index] else {
                continue;
            };
            let fits = (exact && step.path == path)
                || (path.len() > step.path.len()
                    && path.starts_with(&step.path)
                    && path.as_bytes()[step.path.len()] == b'.');
            if !fits {
                continue;
            }
            let candidate = (step.path.len(), index, step.iteration == iteration);
            // Deeper wins; at equal depth a matching iteration, then the most recent.
            if best.is_none_or(|(depth, _, same)| {
                candidate.0 > depth || (candidate.0 == depth && (candidate.2 || !same))
            }) {
                best = Some(candidate);
            }
        }
        best.map(|(_, index, _)| index)
    }

    /// Places a node under the open step it belongs to; its index, or `None` when the tree
    /// has no room for it.
    fn attach(&mut self, path: &str, iteration: u64, slot: Slot) -> Option<usize> {
        if !self.keep() {
            return None;
        }
        let parent = self.owner(path, iteration, true);
        let index = self.arena.len();
        self.arena.push(slot);
        self.link(parent, index);
        Some(index)
    }

    fn link(&mut self, parent: Option<usize>, index: usize) {
        match parent.map(|p| &mut self.arena[p]) {
            Some(Slot::Step { kids, .. }) => kids.push(index),
            _ => self.roots.push(index),
        }
    }

    fn finish_steps(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.roots)
    }

    fn into_run(self, run_id: String, children: Vec<Node>) -> Run {
        let duration = self.duration.duration();
        Run {
            run_id,
            parent_run_id: self.parent_run_id,
            file: self.file,
            name: self.name,
            status: self.status,
            error: self.error,
            duration_ms: duration.map(|d| d.ms),
            duration_source: duration.map(|d| d.source),
            reported_duration_ms: self.duration.reported_beside(),
            events: self.events,
            children,
            elided: self.elided,
        }
    }

    /// An undated run's step stamps are the times axt wrote them, not the run's: the
    /// durations read from them go (a measured `duration_ms` stays).
    fn drop_stamped_durations(&mut self) {
        if self.duration.stamps_are_times() {
            return;
        }
        for slot in &mut self.arena {
            if let Slot::Step {
                step,
                stamped: true,
                ..
            } = slot
            {
                step.duration_ms = None;
            }
        }
    }
}

/// Turns arena indices into owned nodes, moving them out of the arena (not copying: the
/// tree would be held twice); child-run places take the next resolved link.
fn assemble(arena: &mut [Slot], indices: &[usize], resolved: &mut [Option<Run>]) -> Vec<Node> {
    let mut nodes = Vec::with_capacity(indices.len());
    for &index in indices {
        match std::mem::replace(&mut arena[index], Slot::Sighting) {
            Slot::Step { mut step, kids, .. } => {
                step.children = assemble(arena, &kids, resolved);
                nodes.push(Node::Step(step));
            }
            Slot::Message(message) => nodes.push(Node::Message(message)),
            Slot::Tool(tool) => nodes.push(Node::Tool(tool)),
            Slot::Sighting => {}
            Slot::Child(link) => {
                if let Some(run) = resolved.get_mut(link).and_then(Option::take) {
                    nodes.push(Node::Run(run));
                }
            }
        }
    }
    nodes
}
