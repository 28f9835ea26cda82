#![doc = include_str!("../README.md")]
//!
//! # Layout
//!
//! * [`model`]: the canonical wire format: events, payloads, content blocks, and the strict
//!   encoder and tolerant decoder of one transcript line.
//! * [`record`]: writing a run: the recorder (sole owner of `seq`), the append-only run file
//!   with crash recovery, the bounded live fan-out, and the credential redactor (Unix only).

pub mod model;
#[cfg(unix)]
pub mod record;

pub use model::{
    Block, ContentBlock, EventType, ExchangeEvent, Fidelity, MessagePayload, Payload, Role,
    StepPayload, Timestamp, ToolPayload,
};
