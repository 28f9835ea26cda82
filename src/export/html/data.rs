//! The page's data: which runs the page shows and how they nest (the readers'
//! [`forest`](crate::read::tree::forest)), and each run's data block, written while its
//! file is read a second time: its events ([`ViewEvent`]), its tree with the lines of what
//! each node holds, its problems; then the index of every run, with the summary the
//! directory view lists.
//!
//! It owns what of a run the page receives and where it sits; it reads transcripts only
//! through [`Reader`], [`Stats`] and the tree, and run metadata only through the summary
//! file. Every problem the readers found is handed to the page with its file, line and byte
//! offset, and to the caller.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Read, Write};
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::event::ViewEvent;
use super::page::{ScriptText, data_block, end_block};
use super::summary::{Facts, Meta, Tokens};
use crate::model::{Block, EventType, ExchangeEvent, Payload};
use crate::read::tree::{Forest, LinkKind, Node, Run, TreeProblem};
use crate::read::{ProblemKind, ReadItem, Reader, Stats};

/// The version of the data's shapes, for the page (and anyone who reads it).
pub(super) const FORMAT: u32 = 1;

/// How many `tool_use` inputs a run keeps at once to recognise the `tool.call` that repeats
/// one; past that a call's input is simply written again.
const PENDING_INPUTS: usize = 4096;

/// A run of the page: where it sits among the others.
pub(super) struct Entry<'a> {
    pub(super) run: &'a Run,
    /// The run it was invoked by, on this page.
    pub(super) up: Option<usize>,
    /// The root of its tree.
    pub(super) root: usize,
    pub(super) depth: usize,
    /// The runs it invokes that were read, in the order its tree holds them.
    pub(super) kids: Vec<usize>,
}

/// Every run of the forest, each root followed by its descendants (depth first, in the
/// order their trees hold them), and the indices of the roots.
pub(super) fn entries(forest: &Forest) -> (Vec<Entry<'_>>, Vec<usize>) {
    fn add<'a>(
        run: &'a Run,
        up: Option<usize>,
        root: Option<usize>,
        depth: usize,
        all: &mut Vec<Entry<'a>>,
    ) -> usize {
        let index = all.len();
        let root = root.unwrap_or(index);
        all.push(Entry {
            run,
            up,
            root,
            depth,
            kids: Vec::new(),
        });
        let mut children = Vec::new();
        runs_under(&run.children, &mut children);
        for child in children {
            let kid = add(child, Some(index), Some(root), depth + 1, all);
            all[index].kids.push(kid);
        }
        index
    }
    let mut all = Vec::new();
    let roots = forest
        .roots
        .iter()
        .map(|run| add(run, None, None, 0, &mut all))
        .collect();
    (all, roots)
}

fn runs_under<'a>(nodes: &'a [Node], out: &mut Vec<&'a Run>) {
    for node in nodes {
        match node {
            Node::Run(run) => out.push(run),
            Node::Step(step) => runs_under(&step.children, out),
            Node::Message(_) | Node::Tool(_) => {}
        }
    }
}

/// Opens a run's file for its second reading (stdin's copy, for a run read from stdin).
pub(super) type Open<'a> = dyn Fn(&Path) -> io::Result<Box<dyn Read + 'a>> + 'a;

/// What the index says of one run.
#[derive(Serialize)]
pub(super) struct Summary {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<String>,
    file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    tokens: Tokens,
    /// Reported cost; `null` when no agent of the run reported one.
    cost_usd: Option<f64>,
    /// Tool calls by name: `[calls, failures]`.
    tools: BTreeMap<String, [u64; 2]>,
    tool_calls: u64,
    tool_failures: u64,
    sightings: u64,
    events: u64,
    steps: u64,
    messages: u64,
    problems: u64,
    /// The run's own metadata, when it has some (a normalized run's `run.completed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    meta: Option<Meta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    up: Option<usize>,
    root: usize,
    depth: usize,
    kids: Vec<usize>,
}

/// Writes the data block of run `index` and returns its summary. `problems` are the
/// forest's problems in its file; an I/O error while reading it again is added to them.
pub(super) fn write_run(
    out: &mut impl Write,
    index: usize,
    entry: &Entry<'_>,
    open: &Open<'_>,
    problems: &mut Vec<TreeProblem>,
) -> io::Result<Summary> {
    let run = entry.run;
    let mut chunks = Chunks {
        out: &mut *out,
        run: index,
        written: 0,
        count: 0,
        open: false,
    };
    let mut stats = Stats::default();
    let mut facts = Facts::default();
    let mut step_meta: HashMap<u64, Meta> = HashMap::new();
    let mut inputs: HashMap<String, Value> = HashMap::new();
    // A file the first reading could not read has its problem already: not a second one.
    let unread = problems
        .iter()
        .any(|p| p.kind == LinkKind::Read(ProblemKind::Io));
    match open(&run.file) {
        Err(_) if unread => {}
        Err(error) => problems.push(io_problem(&run.file, (1, 0), &error.to_string())),
        Ok(input) => {
            for item in Reader::new(input) {
                let (line, event) = match item {
                    ReadItem::Event { line, event, .. } => (line, event),
                    // The forest's first reading reported the rest already.
                    ReadItem::Problem(problem) if problem.kind == ProblemKind::Io && !unread => {
                        let at = (problem.line, problem.offset);
                        problems.push(io_problem(&run.file, at, &problem.message));
                        continue;
                    }
                    ReadItem::Problem(_) => continue,
                };
                stats.event(&event);
                if let Some(meta) = facts.see(&event) {
                    step_meta.insert(line, meta);
                }
                let same_input = repeats_input(&event, &mut inputs);
                chunks.push(&ViewEvent {
                    line,
                    event: &event,
                    run_id: &run.run_id,
                    same_input,
                })?;
            }
        }
    }
    let count = chunks.finish()?;
    data_block(out, &format!("axt-run-{index}"))?;
    let mut text = ScriptText(&mut *out);
    write!(text, "{{\"chunks\":{count},\"tree\":")?;
    let mut kids = entry.kids.iter().copied();
    let mut counts = (0, 0);
    let tree = nodes(&run.children, &mut kids, &step_meta, &mut counts);
    serde_json::to_writer(&mut text, &tree)?;
    text.write_all(b",\"problems\":")?;
    let listed: Vec<Value> = problems.iter().map(problem_json).collect();
    serde_json::to_writer(&mut text, &listed)?;
    text.write_all(b"}")?;
    end_block(out)?;
    Ok(summary(entry, stats, facts, counts, problems.len() as u64))
}

/// How much JSON text of a run's events one data block holds, at most (and one event more):
/// a browser parses many blocks of a large run much faster than one of it all (its HTML
/// parser slows on one long text: a 100 MB run as one block took 15 s to load, see
/// `make view-size`).
const CHUNK_BYTES: usize = 1 << 20;

/// A run's events, written as JSON arrays in data blocks of about [`CHUNK_BYTES`] each,
/// `axt-run-N-K` for K from 0.
struct Chunks<'a, W: Write> {
    out: &'a mut W,
    run: usize,
    /// Bytes in the open block.
    written: usize,
    /// Blocks opened.
    count: usize,
    open: bool,
}

impl<W: Write> Chunks<'_, W> {
    fn push(&mut self, event: &ViewEvent<'_>) -> io::Result<()> {
        if self.open {
            self.out.write_all(b",")?;
        } else {
            data_block(self.out, &format!("axt-run-{}-{}", self.run, self.count))?;
            self.out.write_all(b"[")?;
            self.open = true;
            self.count += 1;
            self.written = 0;
        }
        let mut text = Counted {
            inner: ScriptText(&mut *self.out),
            written: 0,
        };
        serde_json::to_writer(&mut text, event)?;
        self.written += text.written;
        if self.written >= CHUNK_BYTES {
            self.close()?;
        }
        Ok(())
    }

    fn close(&mut self) -> io::Result<()> {
        if self.open {
            self.out.write_all(b"]")?;
            end_block(self.out)?;
            self.open = false;
        }
        Ok(())
    }

    /// Closes the last block; returns how many there are.
    fn finish(mut self) -> io::Result<usize> {
        self.close()?;
        Ok(self.count)
    }
}

/// A writer that counts what it is given.
struct Counted<W> {
    inner: W,
    written: usize,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Whether `event` is a `tool.call` repeating the input of its call's `tool_use` block,
/// written before it; notes the inputs of a message's `tool_use` blocks for that.
fn repeats_input(event: &ExchangeEvent, inputs: &mut HashMap<String, Value>) -> bool {
    match (&event.event_type, &event.payload) {
        (EventType::MessageAssistant, Payload::Message(message)) => {
            for block in &message.blocks {
                if let Block::ToolUse {
                    tool_id,
                    tool_input,
                    ..
                } = &block.block
                    && inputs.len() < PENDING_INPUTS
                {
                    inputs.insert(tool_id.clone(), tool_input.clone());
                }
            }
            false
        }
        (EventType::ToolCall, Payload::Tool(tool)) => inputs
            .remove(&tool.call_id)
            .is_some_and(|input| input == tool.input && !input.is_null()),
        _ => false,
    }
}

fn io_problem(file: &Path, (line, offset): (u64, u64), message: &str) -> TreeProblem {
    TreeProblem {
        file: file.to_owned(),
        line,
        offset,
        kind: LinkKind::Read(ProblemKind::Io),
        message: format!("reading it again for the page: {message}"),
    }
}

/// A problem as the page lists it.
pub(super) fn problem_json(problem: &TreeProblem) -> Value {
    serde_json::json!({
        "file": problem.file.display().to_string(),
        "line": problem.line,
        "offset": problem.offset,
        "kind": problem.kind.as_str(),
        "message": problem.message,
    })
}

/// The tree as the page receives it; counts (steps, messages) on the way.
fn nodes(
    children: &[Node],
    kids: &mut impl Iterator<Item = usize>,
    step_meta: &HashMap<u64, Meta>,
    counts: &mut (u64, u64),
) -> Vec<Value> {
    use serde_json::json;
    children
        .iter()
        .map(|node| match node {
            Node::Step(step) => {
                counts.0 += 1;
                let mut value = json!({
                    "k": "step", "path": step.path, "it": step.iteration, "name": step.name,
                    "kind": step.kind, "status": step.status.as_str(), "line": step.line,
                });
                let optional = [
                    ("error", step.error.as_ref().map(|e| json!(e))),
                    ("ms", step.duration_ms.map(|ms| json!(ms))),
                    ("end", step.end_line.map(|line| json!(line))),
                    ("child", step.child_run_id.as_ref().map(|c| json!(c))),
                    (
                        "meta",
                        step.end_line
                            .and_then(|line| step_meta.get(&line))
                            .map(|meta| json!(meta)),
                    ),
                ];
                for (key, field) in optional {
                    if let Some(field) = field {
                        value[key] = field;
                    }
                }
                value["kids"] = Value::Array(nodes(&step.children, kids, step_meta, counts));
                value
            }
            Node::Message(message) => {
                counts.1 += 1;
                json!({ "m": message.line })
            }
            Node::Tool(tool) => {
                let mut value = json!({
                    "t": tool.lines, "name": tool.name, "id": tool.call_id,
                    "outcome": tool.outcome.as_str(),
                });
                if let Some(error) = &tool.error {
                    value["error"] = json!(error);
                }
                if tool.sighted_by_agent {
                    value["sighted"] = json!(true);
                }
                if let Some(id) = &tool.agent_call_id {
                    value["agent_id"] = json!(id);
                }
                value
            }
            Node::Run(_) => json!({ "run": kids.next() }),
        })
        .collect()
}

fn summary(
    entry: &Entry<'_>,
    stats: Stats,
    facts: Facts,
    (steps, messages): (u64, u64),
    problems: u64,
) -> Summary {
    let run = entry.run;
    let join = |set: &std::collections::BTreeSet<String>| {
        (!set.is_empty()).then(|| set.iter().cloned().collect::<Vec<_>>().join(", "))
    };
    let tools: BTreeMap<String, [u64; 2]> = stats
        .tools
        .iter()
        .map(|(name, t)| (name.clone(), [t.calls, t.failures]))
        .collect();
    Summary {
        id: run.run_id.clone(),
        parent: run.parent_run_id.clone(),
        file: run.file.display().to_string(),
        name: run.name.clone(),
        title: facts.title,
        status: run.status.as_str(),
        error: run.error.clone(),
        start: facts.start,
        end: facts.end,
        duration_ms: run.duration_ms,
        provider: join(&facts.providers),
        model: join(&facts.models),
        tokens: Tokens {
            input: stats.tokens.input,
            output: stats.tokens.output,
            cache_read: stats.tokens.cache_read,
            cache_write: stats.tokens.cache_write,
            reasoning: stats.tokens.reasoning,
        },
        // The reported cost only: the page has no label yet for an estimate from the
        // price table (read::Cost keeps the two apart; `axt ls` and `axt show` say which).
        cost_usd: facts.cost_known.then_some(stats.cost.reported_usd),
        tool_calls: tools.values().map(|t| t[0]).sum(),
        tool_failures: tools.values().map(|t| t[1]).sum(),
        tools,
        sightings: stats.sightings,
        events: run.events,
        steps,
        messages,
        problems,
        meta: facts.meta,
        up: entry.up,
        root: entry.root,
        depth: entry.depth,
        kids: entry.kids.clone(),
    }
}
