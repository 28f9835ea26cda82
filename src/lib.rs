#![doc = include_str!("../README.md")]
//!
//! # Layout
//!
//! * [`model`]: the canonical wire format: events, payloads, content blocks, and the strict
//!   encoder and tolerant decoder of one transcript line.
//! * [`normalize`]: provider output in, content blocks, run metadata and diagnostics out;
//!   one adapter per provider behind the [`normalize::Normalizer`] trait, and
//!   [`normalize::events`], the mapping of a normalized run onto transcript events.

pub mod model;
pub mod normalize;

pub use model::{
    Block, ContentBlock, EventType, ExchangeEvent, Fidelity, MessagePayload, Payload, Role,
    StepPayload, Timestamp, ToolPayload,
};
