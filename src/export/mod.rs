//! Canonical transcripts out to other formats, one file per target.
//!
//! An exporter reads a run and its linked child runs back with [`read`](crate::read) and
//! writes one document; it owns the mapping onto its target's schema. It never changes the
//! transcript, and it must not reach back into a provider's dialect: what it knows of a run
//! is what the canonical events say.
//!
//! Targets: [`agentlog`] (AgentLog 0.2.0 session documents), [`otlp`] (OpenTelemetry
//! traces in the GenAI semantic conventions; encoding and sending with the `otlp` feature),
//! [`html`] (one self-contained page to read runs in a browser, `axt view`).
//! [`write_file`] writes a document to a file whole or not at all, privately
//! ([`write_file_with`] as it is made).

pub mod agentlog;
mod file;
mod file_ops;
pub mod html;
pub mod otlp;

pub use file::{write_file, write_file_with};
