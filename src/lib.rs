#![doc = include_str!("../README.md")]
//!
//! # Layout
//!
//! * [`model`]: the canonical wire format: events, payloads, content blocks, and the strict
//!   encoder and tolerant decoder of one transcript line.

pub mod model;

pub use model::{
    Block, ContentBlock, EventType, ExchangeEvent, Fidelity, MessagePayload, Payload, Role,
    StepPayload, Timestamp, ToolPayload,
};
