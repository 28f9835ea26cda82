#![doc = include_str!("../README.md")]
//!
//! # Layout
//!
//! * [`model`]: the canonical wire format: events, payloads, content blocks, and the strict
//!   encoder and tolerant decoder of one transcript line.
//! * [`normalize`]: provider output in, content blocks, run metadata and diagnostics out;
//!   one adapter per provider behind the [`normalize::Normalizer`] trait.
//! * [`transcribe`]: the events stage: normalized items mapped onto transcript events and
//!   handed to an [`EventSink`](transcribe::EventSink): stdout's `JsonlSink` or a recorder's
//!   `RecordingSink`, the two that number `seq` (Unix only).
//! * [`record`]: writing a run: the recorder (sole owner of `seq`), the append-only run file
//!   with crash recovery, the bounded live fan-out, and the credential redactor (Unix only).
//! * [`read`]: reading transcripts back: the tolerant, resumable reader and the run tree
//!   rebuilt across linked files.
//! * [`capture`]: the executor's seam: an agent's stdout normalized and recorded live while
//!   the agent runs, its raw bytes kept beside the transcript (Unix only).
//! * [`export`]: canonical transcripts out to other formats (AgentLog 0.2.0).
//! * [`import`]: logs agents keep on disk (Claude Code sessions) into canonical transcripts.

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
pub mod capture;

pub use model::{
    Block, Citation, ContentBlock, EventType, ExchangeEvent, Fidelity, MessagePayload, Payload,
    Role, StepPayload, Timestamp, ToolPayload,
};
