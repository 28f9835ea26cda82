//! The one list of export targets and the one entry both front ends call: `axt export`
//! and the Python package's `axt.export` parse a [`Target`] from its name, check their
//! settings with it, and call [`export`]; neither keeps a list of targets or of which
//! setting a target takes.
//!
//! This file owns that list and the dispatch. It must not map anything itself: each target's
//! module does.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde_json::Value;

use super::agentlog;
use super::atif;
use super::otlp;
#[cfg(feature = "parquet")]
use super::parquet;
use crate::read::tree::{TreeProblem, dir_of};

/// A format runs are exported to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Target {
    /// AgentLog 0.2.0: one session document for a run and its linked child runs.
    AgentLog,
    /// ATIF v1.8: one trajectory for a run, its sub-runs embedded.
    Atif,
    /// OpenTelemetry spans in the GenAI semantic conventions (OTLP/JSON).
    Otlp,
    /// The Parquet dataset: runs, steps, model and tool calls, content, diagnostics.
    Parquet,
}

impl Target {
    /// Every target, in the order help texts list them.
    pub const ALL: [Target; 4] = [
        Target::AgentLog,
        Target::Atif,
        Target::Otlp,
        Target::Parquet,
    ];

    /// The name front ends take (`--to NAME`, `to="NAME"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Target::AgentLog => "agentlog",
            Target::Atif => "atif",
            Target::Otlp => "otlp",
            Target::Parquet => "parquet",
        }
    }

    /// What it writes, for help texts.
    pub fn about(self) -> &'static str {
        match self {
            Target::AgentLog => "AgentLog 0.2.0 session documents",
            Target::Atif => "ATIF v1.8 trajectories (Harbor), sub-runs embedded",
            Target::Otlp => "OpenTelemetry traces (OTLP/JSON, or OTLP/HTTP with --endpoint)",
            Target::Parquet => {
                "a Parquet dataset (runs, steps, llm_calls, tool_calls, content, diagnostics)"
            }
        }
    }

    /// Whether it exports many runs given as files and directories (else one root run,
    /// from a file or stdin, with the runs it links).
    pub fn takes_many(self) -> bool {
        matches!(self, Target::Otlp | Target::Parquet)
    }

    /// The names of every target, joined with `sep`.
    pub fn names(sep: &str) -> String {
        Target::ALL.map(Target::as_str).join(sep)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no target's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown export target {name:?} (expected one of: {})",
    Target::names(", ")
)]
pub struct UnknownTarget {
    /// The name given.
    pub name: String,
}

impl FromStr for Target {
    type Err = UnknownTarget;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Target::ALL
            .into_iter()
            .find(|target| target.as_str() == name)
            .ok_or_else(|| UnknownTarget {
                name: name.to_owned(),
            })
    }
}

/// A setting of [`Options`], for saying which target takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Setting {
    /// [`Options::root`].
    Root,
    /// [`Options::redact`].
    Redact,
    /// [`Options::content`].
    Content,
    /// [`Options::out`].
    Out,
    /// [`Options::content_events`].
    ContentEvents,
}

impl Setting {
    /// The targets that take it.
    pub fn targets(self) -> &'static [Target] {
        match self {
            Setting::Root => &[Target::AgentLog],
            Setting::Redact => &[Target::AgentLog, Target::Atif, Target::Parquet],
            Setting::Content => &[Target::Otlp, Target::Parquet],
            Setting::Out => &[Target::Parquet],
            Setting::ContentEvents => &[Target::Otlp],
        }
    }

    /// Its name in [`Options`].
    pub fn as_str(self) -> &'static str {
        match self {
            Setting::Root => "root",
            Setting::Redact => "redact",
            Setting::Content => "content",
            Setting::Out => "out",
            Setting::ContentEvents => "content_events",
        }
    }
}

/// How to export; each target takes the settings [`Setting::targets`] says.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// AgentLog: the project root paths are made relative to, when the run does not say.
    pub root: Option<PathBuf>,
    /// Mask credentials with the recorder's redactor (OTLP always does).
    pub redact: bool,
    /// OTLP and Parquet: message text, tool arguments and results (redacted in OTLP; in
    /// Parquet with `redact`).
    pub content: bool,
    /// OTLP: message content in a `gen_ai.client.inference.operation.details` event on each
    /// `chat` span (redacted): the conventions' content capture setting `EVENT_ONLY` or
    /// `SPAN_AND_EVENT` ([`otlp::Capture`]).
    pub content_events: bool,
    /// Parquet: the dataset's directory (required).
    pub out: Option<PathBuf>,
    /// Parquet: the price table of the estimated costs; `None` for the one axt ships
    /// ([`Prices::builtin`](crate::read::Prices::builtin)).
    pub prices: Option<crate::read::Prices>,
    /// OTLP and Parquet (and the command line's AgentLog over several runs): worker
    /// threads, 0 for every core; the output is the same whatever their number.
    pub jobs: usize,
}

/// What an export made.
#[derive(Debug)]
#[non_exhaustive]
pub enum Output {
    /// A JSON document (AgentLog, ATIF).
    Document(Value),
    /// Spans (OTLP): encode them ([`otlp::encode`], with the `otlp` feature) or send them.
    Spans(otlp::Batch),
    /// A dataset written (Parquet).
    #[cfg(feature = "parquet")]
    Dataset(parquet::DatasetReport),
}

/// An export's output, and every problem it met, located.
#[derive(Debug)]
pub struct Exported {
    /// What was made.
    pub output: Output,
    /// Problems in the input (lines that are no events, missing children, ...): the output
    /// was still made from the rest.
    pub problems: Vec<TreeProblem>,
}

/// A request a target does not take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Misuse {
    /// A setting the target does not take.
    #[error("{} is for {}", setting.as_str(), names(setting.targets()))]
    Setting {
        /// The setting.
        setting: Setting,
        /// The target asked for.
        target: Target,
    },
    /// A required setting missing.
    #[error("{target} needs {}", setting.as_str())]
    Missing {
        /// The setting.
        setting: Setting,
        /// The target asked for.
        target: Target,
    },
    /// Several inputs for a target that exports one root run.
    #[error("{target} exports one root run: give one input")]
    OneInput {
        /// The target.
        target: Target,
    },
    /// Stdin for a target that reads files and directories.
    #[error("{target} reads run files and directories, not stdin")]
    NoStdin {
        /// The target.
        target: Target,
    },
    /// A target this build does not include.
    #[error("{target} is not in this build (its cargo feature is off)")]
    NotBuilt {
        /// The target.
        target: Target,
    },
}

fn names(targets: &[Target]) -> String {
    let names: Vec<&str> = targets.iter().map(|t| t.as_str()).collect();
    names.join(" and ")
}

/// Why nothing was exported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The request does not fit the target.
    #[error(transparent)]
    Misuse(#[from] Misuse),
    /// An input (or the output directory) could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The inputs hold no event.
    #[error("{}: no event to export", describe(paths))]
    Empty {
        /// The inputs.
        paths: Vec<PathBuf>,
        /// What is wrong with their lines, if anything.
        problems: Vec<TreeProblem>,
    },
    /// The output directory holds a dataset this version must not write into.
    #[error("{path}: {reason}", path = path.display())]
    Incompatible {
        /// The file that says so.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

fn describe(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

/// Checks that `target` takes these settings and inputs.
pub fn check(target: Target, inputs: &[PathBuf], options: &Options) -> Result<(), Misuse> {
    let given = [
        (Setting::Root, options.root.is_some()),
        (Setting::Redact, options.redact),
        (Setting::Content, options.content),
        (Setting::Out, options.out.is_some()),
        (Setting::ContentEvents, options.content_events),
    ];
    for (setting, on) in given {
        if on && !setting.targets().contains(&target) {
            return Err(Misuse::Setting { setting, target });
        }
    }
    if target == Target::Parquet && options.out.is_none() {
        return Err(Misuse::Missing {
            setting: Setting::Out,
            target,
        });
    }
    if target.takes_many() {
        if inputs.iter().any(|input| input.as_os_str() == "-") {
            return Err(Misuse::NoStdin { target });
        }
    } else if inputs.len() != 1 {
        return Err(Misuse::OneInput { target });
    }
    Ok(())
}

/// `input` opened, or why not: a directory is no run file.
fn open(input: &Path) -> Result<std::fs::File, ExportError> {
    let io = |source| ExportError::Io {
        path: input.to_owned(),
        source,
    };
    if input.is_dir() {
        return Err(io(std::io::Error::other("is a directory")));
    }
    std::fs::File::open(input).map_err(io)
}

/// Exports the runs of `inputs` to `target`: for AgentLog one root run (`-` for stdin,
/// its children looked up in the current directory), for the others run files and
/// directories of them.
pub fn export(
    target: Target,
    inputs: &[PathBuf],
    options: &Options,
) -> Result<Exported, ExportError> {
    check(target, inputs, options)?;
    match target {
        Target::AgentLog => agentlog_document(&inputs[0], options),
        Target::Atif => atif_document(&inputs[0], options),
        Target::Otlp => {
            let batch_options = otlp::BatchOptions {
                content: options.content,
                content_events: options.content_events,
            };
            match otlp::export_on(inputs, &batch_options, options.jobs) {
                Ok(mut batch) => {
                    let problems = std::mem::take(&mut batch.problems);
                    Ok(Exported {
                        output: Output::Spans(batch),
                        problems,
                    })
                }
                Err(otlp::BatchError::Io { path, source }) => Err(ExportError::Io { path, source }),
                Err(otlp::BatchError::Empty { paths }) => Err(ExportError::Empty {
                    paths,
                    problems: Vec::new(),
                }),
            }
        }
        Target::Parquet => dataset(inputs, options),
    }
}

fn atif_document(input: &Path, options: &Options) -> Result<Exported, ExportError> {
    let result = if input.as_os_str() == "-" {
        atif::export(
            std::io::stdin().lock(),
            input,
            Path::new("."),
            options.redact,
        )
    } else {
        let file = open(input)?;
        atif::export(file, input, dir_of(input), options.redact)
    };
    match result {
        Ok(exported) => Ok(Exported {
            output: Output::Document(
                serde_json::to_value(&exported.trajectory).expect("a trajectory is JSON"),
            ),
            problems: exported.problems,
        }),
        Err(problems) => Err(ExportError::Empty {
            paths: vec![input.to_owned()],
            problems,
        }),
    }
}

fn agentlog_document(input: &Path, options: &Options) -> Result<Exported, ExportError> {
    let agentlog_options = agentlog::ExportOptions {
        root: options.root.clone(),
        redact: options.redact,
    };
    let result = if input.as_os_str() == "-" {
        agentlog::export_from(
            std::io::stdin().lock(),
            input,
            Path::new("."),
            &agentlog_options,
        )
    } else {
        let file = open(input)?;
        agentlog::export_from(file, input, dir_of(input), &agentlog_options)
    };
    match result {
        Ok(exported) => Ok(Exported {
            output: Output::Document(exported.document),
            problems: exported.problems,
        }),
        Err(agentlog::ExportError::Io { path, source }) => Err(ExportError::Io { path, source }),
        Err(agentlog::ExportError::Empty { path, problems }) => Err(ExportError::Empty {
            paths: vec![path],
            problems,
        }),
    }
}

#[cfg(feature = "parquet")]
fn dataset(inputs: &[PathBuf], options: &Options) -> Result<Exported, ExportError> {
    let out = options.out.as_deref().expect("checked: parquet needs out");
    let dataset_options = parquet::DatasetOptions {
        content: options.content,
        redact: options.redact,
        jobs: options.jobs,
        prices: options.prices.clone(),
    };
    match parquet::export_dataset(inputs, out, &dataset_options) {
        Ok(mut report) => {
            let problems = std::mem::take(&mut report.problems);
            Ok(Exported {
                output: Output::Dataset(report),
                problems,
            })
        }
        Err(parquet::DatasetError::Io { path, source }) => Err(ExportError::Io { path, source }),
        Err(parquet::DatasetError::Incompatible { path, reason }) => {
            Err(ExportError::Incompatible { path, reason })
        }
        Err(parquet::DatasetError::Empty { paths }) => Err(ExportError::Empty {
            paths,
            problems: Vec::new(),
        }),
    }
}

#[cfg(not(feature = "parquet"))]
fn dataset(_inputs: &[PathBuf], _options: &Options) -> Result<Exported, ExportError> {
    Err(Misuse::NotBuilt {
        target: Target::Parquet,
    }
    .into())
}
