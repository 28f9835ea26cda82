#![doc = include_str!("../README.md")]
//!
//! # Layout
//!
//! The tree follows the pipeline, one stage per module:
//!
//! ```text
//! provider bytes -> normalize (framing, driver, adapter) -> Item* + RunMeta + Diagnostic*
//!                -> transcribe (mapper) -> events -> sink: record (Recorder -> <run-id>.jsonl,
//!                                                       subscribers) | JsonlSink (stdout)
//! <run-id>.jsonl -> read (reader, tree, stats, calls, cost)
//!                -> export (AgentLog, ATIF, OTLP, Parquet, an HTML page)
//! executor       -> workflow (run, step, agent step, tool scopes -> a RunRecorder: record)
//! agent process  -> capture (one agent's run: a workflow agent step, raw bytes kept)
//! session logs   -> import (plan, then transcribe -> record)
//!                -> usage (the usage records alone: tokens and cost per session)
//! ```
//!
//! * [`model`]: the canonical wire format: events, payloads, content blocks, the run
//!   metadata a normalized run ends with, the providers' registry
//!   ([`Provider`](model::Provider)), and the strict encoder and tolerant decoder of one
//!   transcript line; the threat model.
//! * [`normalize`]: provider output in, content blocks, run metadata and diagnostics out;
//!   one adapter per provider, each a framing (JSON Lines, HTTP bodies) and its state driven
//!   as a [`normalize::Normalizer`].
//! * [`transcribe`]: the events stage: normalized items mapped onto transcript events and
//!   handed to an [`EventSink`](transcribe::EventSink): stdout's `JsonlSink` or a recorder's
//!   `RecordingSink`, the two that number `seq` (Unix only).
//! * [`record`]: writing a run: the recorder (sole owner of `seq` in a run file), the
//!   append-only run file with crash recovery, the bounded live fan-out, the credential
//!   redactor, the on-disk versioning rules (Unix only).
//! * [`read`]: reading transcripts back: the tolerant, resumable reader, the run tree
//!   rebuilt across linked files, counts, and the readers' one rule for a call seen on both
//!   channels.
//! * [`capture`]: one agent's stdout normalized and recorded live as a run of its own while
//!   the agent runs, its raw bytes kept beside the transcript (`axt exec`), and axt as the
//!   client of an ACP agent, its exchange recorded (`axt exec --acp`; Unix only).
//! * [`workflow`]: the executor's seam: a whole workflow run recorded through scopes (run,
//!   steps of every kind, agent steps captured live, tools captured at the router,
//!   sub-workflows), with a guide from one agent step to parallel branches and sub-runs
//!   (Unix only).
//! * [`batch`]: the one scheduler of batches: work over many inputs on every core, what
//!   comes out in the inputs' order, as one worker gives it, with memory bounded per
//!   worker (the importers, the OTLP exporter and the command line run on it).
//! * [`import`]: logs agents keep on disk (Claude Code sessions) into canonical transcripts.
//! * [`usage`]: what agents' own stores say they spent, read straight from the store (only
//!   the usage records, each API call once, by the importers' rules), without transcribing.
//! * [`export`]: canonical transcripts out to other formats (AgentLog 0.2.0, ATIF v1.8,
//!   OpenTelemetry GenAI spans, the Parquet dataset, a self-contained HTML page to read runs
//!   in a browser), through one entry, [`export::export`], and one list of targets,
//!   [`export::Target`].
//!
//! The command line (`src/cli/`, behind the default `cli` feature) stands on all of them
//! and is not part of the library's API: it is compiled into the library, hidden, so that
//! the `axt` binary (`src/main.rs`) and the Python package's `axt` command run the same
//! code.
//!
//! # Layering rules
//!
//! Data flows one way, and so do imports: a module imports only the modules below it.
//!
//! | module | may import (of this crate) |
//! |---|---|
//! | `model` | nothing |
//! | `batch` | nothing |
//! | `normalize` | `model` |
//! | `record` | `model` |
//! | `read` | `model` |
//! | `transcribe` | `model`, `normalize`, `record` |
//! | `workflow` | `model`, `normalize`, `record`, `transcribe` |
//! | `capture` | `model`, `normalize`, `record`, `transcribe`, `workflow` |
//! | `import` | `batch`, `model`, `normalize`, `record`, `read`, `transcribe` |
//! | `export` | `batch`, `model`, `normalize`, `record`, `read` |
//! | `usage` | `batch`, `import`, `model`, `normalize`, `read` |
//! | `cli` (the command line; nothing imports it) | any of the above |
//!
//! Inside a module, no two files import each other (a folder's `mod.rs` re-exports its
//! files and defines nothing they import; `normalize/openai/` and `normalize/claude/`,
//! whose adapter state is one type written in chapters, count as one file for now), and no
//! source file is over 1,200 lines: a file with chapters is a folder. `tests/axt/layering.rs`
//! checks all three on every `cargo test`, naming the file, line and rule a change breaks,
//! and holds this table to its own.

pub mod batch;
#[cfg(unix)]
pub mod export;
#[cfg(unix)]
pub mod import;
pub mod model;
pub mod normalize;
pub mod read;
#[cfg(unix)]
pub mod record;
#[cfg(unix)]
pub mod transcribe;
#[cfg(unix)]
pub mod usage;

#[cfg(unix)]
pub mod workflow;

#[cfg(unix)]
pub mod capture;

#[cfg(all(unix, feature = "cli"))]
#[doc(hidden)]
pub mod cli;

pub use model::{
    Block, Citation, ContentBlock, EventType, ExchangeEvent, Fidelity, MessagePayload, Payload,
    Role, StepKind, StepPayload, Timestamp, ToolPayload,
};
