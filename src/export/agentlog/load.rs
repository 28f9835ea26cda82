//! A run read back for the AgentLog export: its events with their places, its problems,
//! and what its run metadata says (the run's own, its agent steps', the importer's account,
//! the working directory).
//!
//! This file owns reading a run file. It must not map events (`events.rs`).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::model::{EventType, ExchangeEvent, Payload, RunMeta, StepKind};
use crate::read::tree::TreeProblem;
use crate::read::{ReadItem, Reader};
use crate::record::Redactor;

/// Why a transcript could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The root transcript could not be opened.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The root transcript has no event.
    #[error("{}: no event to export{}", path.display(), describe_problems(problems.len()))]
    Empty {
        /// The file.
        path: PathBuf,
        /// What is wrong with its lines, if anything.
        problems: Vec<TreeProblem>,
    },
}

fn describe_problems(count: usize) -> String {
    match count {
        0 => String::new(),
        1 => " (1 problem in its lines)".to_owned(),
        n => format!(" ({n} problems in its lines)"),
    }
}

/// One run read back.
pub(super) struct RunData {
    pub(super) file: PathBuf,
    pub(super) run_id: String,
    pub(super) parent_run_id: Option<String>,
    pub(super) events: Vec<ExchangeEvent>,
    /// The line and byte offset of each event.
    pub(super) places: Vec<(u64, u64)>,
    /// The reader's problems, until the exporter takes them.
    pub(super) problems: Vec<TreeProblem>,
    pub(super) problem_count: u64,
}

pub(super) fn load(
    path: &Path,
    redact: bool,
    redactions: &mut u64,
) -> Result<RunData, ExportError> {
    let file = File::open(path).map_err(|source| ExportError::Io {
        path: path.to_owned(),
        source,
    })?;
    load_from(file, path, redact, redactions)
}

pub(super) fn load_from(
    input: impl Read,
    path: &Path,
    redact: bool,
    redactions: &mut u64,
) -> Result<RunData, ExportError> {
    let mut events = Vec::new();
    let mut places = Vec::new();
    let mut problems = Vec::new();
    for item in Reader::new(input) {
        match item {
            ReadItem::Event {
                line,
                offset,
                event,
            } => {
                let mut event = *event;
                if redact {
                    *redactions += Redactor::credentials().redact_event(&mut event) as u64;
                }
                events.push(event);
                places.push((line, offset));
            }
            ReadItem::Problem(problem) => problems.push(TreeProblem::read(path, problem)),
        }
    }
    let Some(first) = events.first() else {
        return Err(ExportError::Empty {
            path: path.to_owned(),
            problems,
        });
    };
    Ok(RunData {
        file: path.to_owned(),
        run_id: first.run_id.clone(),
        parent_run_id: first.parent_run_id.clone(),
        events,
        places,
        problem_count: problems.len() as u64,
        problems,
    })
}

/// The metadata `run.completed` carries (the normalizer's run metadata), or, for a
/// workflow run, its first agent step's; `None` when there is none.
pub(super) fn run_meta(run: &RunData) -> Option<RunMeta> {
    agent_metas(run).into_iter().next()
}

/// Every agent run's metadata in a run: its `run.completed` result when the run is an
/// agent's, and the result of each agent step of a workflow run (the
/// [`workflow`](crate::workflow) seam puts an agent step's metadata there). A writer puts
/// an agent's metadata in one place, so summing over these counts each agent once.
pub(super) fn agent_metas(run: &RunData) -> Vec<RunMeta> {
    let completed = run
        .events
        .iter()
        .rev()
        .find(|e| e.event_type == EventType::RunCompleted)
        .and_then(|e| match &e.payload {
            Payload::Step(step) => RunMeta::of(step),
            _ => None,
        });
    let steps = run.events.iter().filter_map(|e| match &e.payload {
        Payload::Step(step)
            if e.event_type == EventType::StepCompleted && step.kind == StepKind::Agent =>
        {
            RunMeta::of(step)
        }
        _ => None,
    });
    completed.into_iter().chain(steps).collect()
}

/// A field of the importer's own account of an imported run ([`RunMeta::import`]).
pub(super) fn imported<'m>(meta: Option<&'m RunMeta>, key: &str) -> Option<&'m Value> {
    meta?.import.as_ref()?.get(key)
}

/// The working directory a run says it ran in.
pub(super) fn run_cwd(meta: Option<&RunMeta>) -> Option<String> {
    // The one reading of a run's working directory, `axt ls`'s and `axt show`'s too.
    crate::read::meta::cwd(meta?).map(str::to_owned)
}
