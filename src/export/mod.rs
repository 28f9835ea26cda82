//! Canonical transcripts out to other formats, one module per target (a file, or a folder
//! when it has chapters, as `agentlog/`, `otlp/`, `parquet/` and `html/` do).
//!
//! An exporter reads runs and their linked child runs back with [`read`](crate::read) and
//! writes a document, spans or a dataset; it owns the mapping onto its target's schema. It
//! never changes the transcript, and it must not reach back into a provider's dialect: what
//! it knows of a run is what the canonical events say.
//!
//! Targets: [`agentlog`] (AgentLog 0.2.0 session documents), [`atif`] (ATIF v1.8
//! trajectories), [`otlp`] (OpenTelemetry traces in the GenAI semantic conventions;
//! encoding and sending with the `otlp` feature), `parquet` (the Parquet dataset, with the
//! `parquet` feature). [`Target`] lists them and [`export()`] is the one entry the command
//! line and the Python package call ([`check`] says what a target takes, in their words via
//! [`Misuse`]). [`html`] is one self-contained page to read runs in a browser (`axt view`),
//! a viewer rather than an exchange format. [`write_file`] writes a document to a file whole
//! or not at all, privately ([`write_file_with`] as it is made).

pub mod agentlog;
pub mod atif;
mod file;
mod file_ops;
pub mod html;
pub mod otlp;
#[cfg(feature = "parquet")]
pub mod parquet;

mod target;

pub use file::{write_file, write_file_with};
pub use target::{
    ExportError, Exported, Misuse, Options, Output, Setting, Target, UnknownTarget, check, export,
};
