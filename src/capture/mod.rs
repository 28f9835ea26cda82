//! Live capture: one agent's run recorded as a canonical transcript while the agent runs.
//!
//! * [`Capture`] (the `live` room): an agent's stdout, read by the caller, normalized and
//!   recorded live as a run of its own, its raw bytes kept beside the transcript (`axt exec`).
//! * [`acp`]: axt as the client of an agent that speaks the Agent Client Protocol, every
//!   message of the exchange handed to a recording (`axt exec --acp`), the agent's file and
//!   terminal requests served in a workspace it is confined to (the `serve` room).
//! * [`proxy`] (the `proxy` feature, in the CLI's build): a recording HTTP proxy for model
//!   APIs, each exchange forwarded as it streams and recorded as a run of its own
//!   (`axt proxy`).
//!
//! This module runs no process of its own but the agent's terminals: the caller spawns,
//! waits for and kills the agent.

pub mod acp;
mod live;
#[cfg(feature = "proxy")]
pub mod proxy;
mod serve;

pub use live::{Capture, CaptureError, CaptureOptions, OnDiagnostic, ProcessEnd};
