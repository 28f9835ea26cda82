//! Canonical transcripts out to other formats, one file per target.
//!
//! An exporter reads a run and its linked child runs back with [`read`](crate::read) and
//! writes one document; it never changes the transcript.
//!
//! Targets: [`agentlog`] (AgentLog 0.2.0 session documents).

pub mod agentlog;
