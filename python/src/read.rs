//! Reading back: `axt.read`, `axt.tree`, `axt.stats` and `axt.export`. The documents are
//! the crate's own (`Tree::to_json`, `StatsReport`, the AgentLog and OTLP exporters), the
//! same the command line prints with `--json`; each comes with the problems met, located.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use axt::export::otlp::encode;
use axt::export::{ExportError, Misuse, Options, Output, Target, UnknownTarget, check};
use axt::model::encode_event;
use axt::read::tree::{LinkKind, TreeProblem};
use axt::read::{
    Prices, Problem, ProblemKind, ReadItem, Reader, Stats, StatsReport, transcript_files,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::convert;
use crate::errors::{InputError, input_error};
use crate::normalize::Diagnostic;

/// Problems listed per file, as the command line lists them; the rest are counted.
const LISTED: usize = 1000;

fn located(file: &Path, line: u64, offset: u64, kind: &str, message: String) -> Diagnostic {
    Diagnostic {
        file: Some(file.display().to_string()),
        line,
        offset,
        kind: kind.to_owned(),
        severity: "error".to_owned(),
        message,
    }
}

fn read_problem(file: &Path, problem: Problem) -> Diagnostic {
    located(
        file,
        problem.line,
        problem.offset,
        problem.kind.as_str(),
        problem.message,
    )
}

fn tree_problem(problem: TreeProblem) -> Diagnostic {
    located(
        &problem.file,
        problem.line,
        problem.offset,
        problem.kind.as_str(),
        problem.message,
    )
}

/// A file that could not be read at all is an exception, not a located problem.
fn unreadable(problems: &[TreeProblem]) -> Option<PyErr> {
    problems
        .iter()
        .find(|p| p.kind == LinkKind::Read(ProblemKind::Io))
        .map(|p| input_error(&p.file, &p.message))
}

/// `(document, problems)`, for the Python side to make a `Report`.
fn report<'py>(
    py: Python<'py>,
    document: Bound<'py, PyAny>,
    problems: Vec<Diagnostic>,
) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, [document, problems.into_pyobject(py)?.into_any()])
}

/// The events and problems of one transcript, in order.
#[pyclass(module = "axt", name = "TranscriptReader", frozen)]
pub(crate) struct TranscriptReader {
    reader: Mutex<Reader<File>>,
    file: PathBuf,
}

enum Item {
    Line(Vec<u8>),
    Problem(Diagnostic),
}

#[pymethods]
impl TranscriptReader {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let item = py.detach(|| {
            let mut reader = self.reader.lock().unwrap_or_else(PoisonError::into_inner);
            let item = reader.next()?;
            Some(match item {
                ReadItem::Event { event, .. } => {
                    let mut line = Vec::new();
                    match encode_event(&event, &mut line) {
                        Ok(()) => Item::Line(line),
                        // A newer writer's event: the line as it was (the reader reported
                        // why), as `axt cat` keeps it.
                        Err(_) => {
                            let raw = reader.line_bytes().unwrap_or_default();
                            Item::Line(raw.strip_suffix(b"\r").unwrap_or(raw).to_vec())
                        }
                    }
                }
                ReadItem::Problem(problem) => Item::Problem(read_problem(&self.file, problem)),
            })
        });
        match item {
            None => Ok(None),
            Some(Item::Line(line)) => convert::from_json(py, &line).map(Some),
            Some(Item::Problem(problem)) => Ok(Some(Bound::new(py, problem)?.into_any())),
        }
    }
}

/// Reads a transcript: events (dicts) and problems (`Diagnostic`s), in file order.
#[pyfunction]
pub(crate) fn read(py: Python<'_>, path: PathBuf) -> PyResult<TranscriptReader> {
    let reader = py.detach(|| {
        if path.is_dir() {
            return Err(input_error(&path, "is a directory"));
        }
        Reader::open(&path).map_err(|error| input_error(&path, error))
    })?;
    Ok(TranscriptReader {
        reader: Mutex::new(reader.keep_line_bytes()),
        file: path,
    })
}

/// The run tree of `path` and its linked runs, as `axt tree --json`, with its problems.
#[pyfunction]
pub(crate) fn tree(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyTuple>> {
    let (document, problems) = py.detach(|| {
        let tree = axt::read::tree::build(&path);
        if tree.is_empty()
            && let Some(error) = unreadable(&tree.problems)
        {
            return Err(error);
        }
        let document = serde_json::to_vec(&tree.to_json()).map_err(crate::errors::record_error)?;
        let problems = tree.problems.into_iter().map(tree_problem).collect();
        Ok((document, problems))
    })?;
    report(py, convert::from_json(py, &document)?, problems)
}

/// Counts over transcripts (files, or directories walked for `*.jsonl`), as
/// `axt stats --json`, with the problems met.
#[pyfunction]
pub(crate) fn stats<'py>(py: Python<'py>, paths: Vec<PathBuf>) -> PyResult<Bound<'py, PyTuple>> {
    let (document, problems) = py.detach(|| {
        let (files, failed) = transcript_files(&paths);
        if let Some((path, error)) = failed.into_iter().next() {
            return Err(input_error(&path, error));
        }
        let mut report = StatsReport::default();
        let mut problems = Vec::new();
        // The shipped price table with the user's laid over it, as the CLI's; a user's
        // table that cannot be read is an error here (Python has no warning channel).
        let prices = Prices::load()
            .map(|(prices, _)| std::sync::Arc::new(prices))
            .map_err(|error| InputError::new_err(error.to_string()))?;
        for file in files {
            if file.is_dir() {
                return Err(input_error(&file, "is a directory"));
            }
            let mut reader = Reader::open(&file).map_err(|error| input_error(&file, error))?;
            let mut stats = Stats::with_prices(std::sync::Arc::clone(&prices));
            stats.files = 1;
            let mut listed = 0;
            for item in reader.by_ref() {
                stats.item(&item);
                if let ReadItem::Problem(problem) = item {
                    if problem.kind == ProblemKind::Io {
                        return Err(input_error(&file, &problem.message));
                    }
                    if listed < LISTED {
                        listed += 1;
                        problems.push(read_problem(&file, problem));
                    }
                }
            }
            // A file without an event is a problem, as `axt stats` and `axt check` say.
            if let Some(problem) = stats.end_of_file(reader.position()) {
                problems.push(read_problem(&file, problem));
            }
            report.add(file.display().to_string(), stats);
        }
        let document = serde_json::to_vec(&report).map_err(crate::errors::record_error)?;
        Ok((document, problems))
    })?;
    report(py, convert::from_json(py, &document)?, problems)
}

/// Runs exported as `axt export` exports them, through the library's one entry
/// (`axt::export::export`): the target parsed from its name, the settings checked by the
/// library. A document (AgentLog), OTLP/JSON spans (OTLP), or what was written (Parquet:
/// `{"files", "added", "replaced", "unchanged", "batches", "rows"}`), with the problems met.
#[pyfunction]
#[pyo3(signature = (paths, to = "agentlog", *, root = None, redact = false, content = false, out = None))]
pub(crate) fn export<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    to: &str,
    root: Option<PathBuf>,
    redact: bool,
    content: bool,
    out: Option<PathBuf>,
) -> PyResult<Bound<'py, PyTuple>> {
    let target: Target = to
        .parse()
        .map_err(|e: UnknownTarget| PyValueError::new_err(e.to_string()))?;
    // Parquet's estimated costs: the price table `stats` uses (the user's laid over the
    // shipped one), so the two agree.
    let prices = match target {
        Target::Parquet => Some(
            Prices::load()
                .map(|(prices, _)| prices)
                .map_err(|error| InputError::new_err(error.to_string()))?,
        ),
        _ => None,
    };
    let options = Options {
        root,
        redact,
        content,
        content_events: false,
        out,
        jobs: 0,
        prices,
    };
    check(target, &paths, &options).map_err(|misuse| PyValueError::new_err(misused(&misuse)))?;
    let (document, problems) = py.detach(|| {
        let exported = match axt::export::export(target, &paths, &options) {
            Ok(exported) => exported,
            Err(ExportError::Empty { paths, problems }) => {
                return Err(unreadable(&problems).unwrap_or_else(|| {
                    let names: Vec<String> =
                        paths.iter().map(|p| p.display().to_string()).collect();
                    InputError::new_err(format!(
                        "{}: no event to export{}",
                        names.join(", "),
                        match problems.first() {
                            Some(first) => format!(" ({first})"),
                            None => String::new(),
                        }
                    ))
                }));
            }
            Err(ExportError::Io { path, source }) => return Err(input_error(&path, source)),
            Err(ExportError::Misuse(misuse)) => {
                return Err(PyValueError::new_err(misused(&misuse)));
            }
            Err(error) => return Err(InputError::new_err(error.to_string())),
        };
        if let Some(error) = unreadable(&exported.problems) {
            return Err(error);
        }
        let document = match exported.output {
            Output::Document(document) => {
                serde_json::to_vec(&document).map_err(crate::errors::record_error)?
            }
            Output::Spans(batch) => encode::to_json(&encode::request(&batch.spans)),
            Output::Dataset(report) => {
                if let Some((path, error)) = report.unreadable.first() {
                    return Err(input_error(path, error));
                }
                serde_json::to_vec(&serde_json::json!({
                    "files": report.files,
                    "added": report.added,
                    "replaced": report.replaced,
                    "unchanged": report.unchanged,
                    "batches": report.batches,
                    "rows": report.rows,
                }))
                .map_err(crate::errors::record_error)?
            }
            _ => return Err(PyValueError::new_err(format!("to={to:?}: no output"))),
        };
        let problems = exported.problems.into_iter().map(tree_problem).collect();
        Ok((document, problems))
    })?;
    report(py, convert::from_json(py, &document)?, problems)
}

/// A request the target does not take, in Python's words.
fn misused(misuse: &Misuse) -> String {
    let quoted = |targets: &[Target]| {
        let names: Vec<String> = targets
            .iter()
            .map(|t| format!("to={:?}", t.as_str()))
            .collect();
        names.join(" and ")
    };
    match misuse {
        Misuse::Setting { setting, .. } => {
            format!("{}= is for {}", setting.as_str(), quoted(setting.targets()))
        }
        Misuse::Missing { setting, target } => {
            format!("to={:?} needs {}=", target.as_str(), setting.as_str())
        }
        Misuse::OneInput { target } => {
            format!(
                "to={:?} exports one root run: give one path",
                target.as_str()
            )
        }
        other => other.to_string(),
    }
}
