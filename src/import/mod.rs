//! Formats agents already keep on disk, turned into canonical transcripts.
//!
//! ```text
//! agent's own log files -> session graph -> provider lines -> normalizer -> events -> Recorder
//! ```
//!
//! An importer owns reading another tool's files and deciding which of their entries make the
//! run; it reuses the provider adapters of [`normalize`](crate::normalize) for the content
//! itself, so a block means the same whether it came from a live stream or a log file.
//!
//! Importers: [`claude_code`] (Claude Code session logs, `~/.claude/projects`).

pub mod claude_code;
