//! One self-contained HTML page for runs: a run and its linked sub-runs, or a directory of
//! runs with an index (`axt view`). The page needs no network and no server: it works
//! opened from disk and attached to a bug report.
//!
//! This module owns the page: the data it embeds (below), the front end (the files of
//! `page/`: `index.html`, `view.css` and the scripts, embedded at build time with
//! `include_str!`, linted by ESLint and tested in a real browser), and its
//! Content-Security-Policy. It reads transcripts only through the readers
//! ([`forest`], [`Reader`](crate::read::Reader), [`Stats`](crate::read::Stats), and
//! [`Calls`](crate::read::Calls) through the tree), never parses a line itself, and never
//! puts a byte of the input into the markup: the input travels in JSON data blocks, and
//! the page builds its DOM from them with text nodes and element properties only (no
//! `innerHTML`; ESLint refuses it). A page whose code tried otherwise would be stopped by its
//! policy: `default-src 'none'`, inline code allowed only by the SHA-256 hashes of the
//! embedded files, Trusted Types required (the `page` file).
//!
//! Rooms: `data` (what each run's block and the index hold; reading), `event` (one event as
//! the page receives it), `summary` (run metadata, in one function), `page` (the markup
//! around the data, and the policy).
//!
//! # The data (format 1)
//!
//! Each run's events in data blocks of about a megabyte, `<script type="application/json"
//! id="axt-run-N-K">` (K from 0: a browser parses many blocks of a large run much faster than
//! one), then the run's own block, `id="axt-run-N"`, and after every run the index,
//! `id="axt-index"`. The page parses a run's blocks only when the run is opened, so a
//! directory of a thousand runs opens on its index alone.
//!
//! The index: `{"format": 1, "runs": [...], "roots": [N, ...], "problems": [...]}`.
//! `runs` lists every run of the page, each tree's root followed by its descendants, depth
//! first; `roots` are the indices of the trees' roots (the directory view's rows). A run:
//! `id`, `parent`, `file`, `name` (the workflow's), `title` (the first line of its first
//! prompt), `status` (`completed`, `failed`, `incomplete`), `error`, `start` and `end` (as
//! written), `duration_ms`, `provider` and `model` (of its agents, comma-separated when
//! several), `tokens` (`input`, `output`, `cache_read`, `cache_write`, `reasoning`: its own
//! and its agent steps', by the readers' [`Stats`](crate::read::Stats)), `cost_usd` (the
//! reported cost; `null` when no agent reported one, never 0 for unknown), `tools` (name to
//! `[calls, failures]`, a call seen on both channels once), `tool_calls`, `tool_failures`,
//! `sightings`, `events`, `steps`, `messages`, `problems` (in its file), `meta` (its own run
//! metadata, when a normalized run has some: provider, version, model, tokens, cost, status,
//! stop, errors, `kept_out` counts), and where it sits: `up` (the run that invoked it),
//! `root`, `depth`, `kids`. `problems` of the index are those found in files the page
//! does not show (an orphan of a directory that was not given).
//!
//! A run's block: `{"chunks": K, "tree": [...], "problems": [...]}`, its events in the
//! arrays of its K event blocks, one after the other.
//!
//! * events: every event that decoded, in file order: `l` (line), `s` (seq), `y` (type),
//!   `p` (path), `i` (iteration), `t` (timestamp, as written), `r` (its `run_id`, only
//!   when it is not the file's), `c` (`child_run_id`), `d` (the payload: message, tool and
//!   step payloads in their wire fields; a block the vocabulary does not know as `raw` with
//!   `unrecognized`, a payload of no known shape as `raw` with `malformed`). Tool payloads
//!   add `class` (the model's tool class: `shell`, `file_edit`, ...), `commands` (a shell
//!   call's command lines) and `files` (a file tool's operations: `op`, `path`, `edits` as
//!   `[old, new]` pairs, `diff`); a `tool.call` whose input is that of the `tool_use` block
//!   written before it says `same_input` instead of repeating it. Thinking keeps `signed`
//!   instead of its opaque replay token.
//! * `tree`: the run's tree ([`tree`](crate::read::tree), the same as `axt tree`): steps
//!   (`k: "step"`, `path`, `it`, `name`, `kind`, `status`, `error`, `ms`, `line`, `end`
//!   (the line that completed it), `child` (the run a `call_workflow` step invoked), `meta`
//!   (an agent step's run metadata), `kids`), messages (`{"m": line}`), tool calls (`t`: the
//!   lines of all the call's events, `name`, `id`, `outcome`, `error`, `sighted`,
//!   `agent_id`) and the runs it invokes that were read (`{"run": N}`). Events no node
//!   holds (`run.*`, unknown types, a payload of the wrong shape) are shown where their line
//!   falls.
//! * `problems`: what the readers found in the file (`file`, `line`, `offset`, `kind`,
//!   `message`), shown at their line.

mod data;
mod event;
mod page;
mod summary;

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::read::transcript_files;
use crate::read::tree::{Forest, TreeProblem, build_from, forest};

/// What a page shows, for the caller's report.
#[derive(Debug, Default)]
pub struct ViewReport {
    /// Runs on the page.
    pub runs: usize,
    /// Events on the page.
    pub events: u64,
    /// Everything the readers found wrong, in every file read (each is on the page too).
    pub problems: Vec<TreeProblem>,
    /// Directories (or their entries) that could not be listed: not on the page.
    pub unlisted: Vec<(PathBuf, io::Error)>,
}

/// Writes the page of the runs in `paths` (run files, and directories walked for them) to
/// `out`. Problems in the input are on the page and in the report; only an error writing
/// `out` fails.
pub fn write_page(paths: &[PathBuf], out: &mut impl Write) -> io::Result<ViewReport> {
    let (files, unlisted) = transcript_files(paths);
    let forest = forest(&files);
    let open = |path: &Path| -> io::Result<Box<dyn Read>> { Ok(Box::new(File::open(path)?)) };
    let mut report = write(&forest, &open, out)?;
    report.unlisted = unlisted;
    Ok(report)
}

/// [`write_page`] for one root run read from `input` (stdin): `name` stands for it, and its
/// child runs are looked up in `dir`.
pub fn write_page_from(
    input: &[u8],
    name: &Path,
    dir: &Path,
    out: &mut impl Write,
) -> io::Result<ViewReport> {
    let tree = build_from(input, name, dir);
    let forest = Forest {
        roots: vec![tree.root],
        problems: tree.problems,
    };
    let open = |path: &Path| -> io::Result<Box<dyn Read + '_>> {
        if path == name {
            Ok(Box::new(input))
        } else {
            Ok(Box::new(File::open(path)?))
        }
    };
    write(&forest, &open, out)
}

fn write(forest: &Forest, open: &data::Open<'_>, out: &mut impl Write) -> io::Result<ViewReport> {
    let (entries, roots) = data::entries(forest);
    let mut report = ViewReport {
        runs: entries.len(),
        problems: forest.problems.clone(),
        ..ViewReport::default()
    };
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    page::write_page(&mut out, |out| {
        let mut summaries = Vec::with_capacity(entries.len());
        let mut by_file: HashMap<&Path, Vec<&TreeProblem>> = HashMap::new();
        for problem in &forest.problems {
            by_file.entry(&problem.file).or_default().push(problem);
        }
        for (index, entry) in entries.iter().enumerate() {
            let mut problems: Vec<TreeProblem> = by_file
                .remove(entry.run.file.as_path())
                .unwrap_or_default()
                .into_iter()
                .cloned()
                .collect();
            let before = problems.len();
            let summary = data::write_run(out, index, entry, open, &mut problems)?;
            report.problems.extend(problems.drain(before..));
            report.events += entry.run.events;
            summaries.push(summary);
        }
        // Found in files no run of the page was read from, in the forest's order.
        let elsewhere: Vec<_> = forest
            .problems
            .iter()
            .filter(|problem| by_file.contains_key(problem.file.as_path()))
            .map(data::problem_json)
            .collect();
        page::data_block(out, "axt-index")?;
        let index = serde_json::json!({
            "format": data::FORMAT,
            "runs": summaries,
            "roots": roots,
            "problems": elsewhere,
        });
        serde_json::to_writer(page::ScriptText(&mut *out), &index)?;
        page::end_block(out)
    })?;
    out.flush()?;
    Ok(report)
}
