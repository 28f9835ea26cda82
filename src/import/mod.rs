//! Formats agents already keep on disk, turned into canonical transcripts.
//!
//! ```text
//! agent's own log files -> session graph -> provider lines -> normalizer -> events -> Recorder
//! ```
//!
//! An importer owns reading another tool's files and deciding which of their entries make the
//! run; it reuses the provider adapters of [`normalize`](crate::normalize) for the content
//! itself, so a block means the same whether it came from a live stream or a log file.
//! It must not learn a provider's content dialect itself (that is the adapters'), nor write
//! files other than through the [`Recorder`](crate::record::Recorder), nor change the logs it
//! reads.
//!
//! Importers: [`claude_code`] (Claude Code session logs, `~/.claude/projects`).

pub mod claude_code;
