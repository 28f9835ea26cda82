//! What agents' own stores say they spent, read fast: the usage records of a store's
//! sessions and nothing else, counted as `axt import` and `axt stats` count them (`axt
//! usage`).
//!
//! A store's session is read in one pass over its files (a Copilot CLI log without shutdown
//! totals in two): only the lines that carry usage and what deciding which of them count
//! needs, each read borrowed and typed, never as a tree. The rules are the importers' and
//! their adapters' (each API call once: Claude Code's message once per `message.id` from its
//! last snapshot, in the thread the importer keeps; Codex's running totals once per thread,
//! legs added, a fork's inherited copy left to its parent; Copilot CLI's shutdown totals
//! once, a resumed session's running total once; Gemini CLI's and Qwen Code's message once,
//! from its last version), so that a session's tokens here are the tokens `axt stats` counts
//! over the runs `axt import` makes of it; `tests/axt/usage.rs` holds them equal over every
//! store corpus. Sessions are independent: the command line reads them on every core through
//! [`crate::batch`].
//!
//! * a file per store of [`Store::ALL`] (`claude_code.rs`, ...): the store's rules; [`read`]'s
//!   match over every store makes a new store's reader a compile error until it has one.
//! * `tally`: what a session's reading gives ([`SessionUsage`]).
//! * `lines`: a file's lines, numbered as the importers number them.

mod claude_code;
mod codex;
mod copilot;
mod gemini;
mod lines;
mod opencode;
mod qwen;
mod tally;

pub use tally::SessionUsage;

use crate::import::{Found, Store};

/// Why a session's usage could not be read.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// One session's usage, as its store says it.
pub fn read(found: &Found) -> Result<SessionUsage, UsageError> {
    let files = &found.files;
    let failed = |source: std::io::Error| UsageError::Io {
        path: files
            .main
            .clone()
            .or_else(|| files.subagents.first().cloned())
            .unwrap_or_default(),
        source,
    };
    match found.store {
        Store::ClaudeCode => claude_code::read(files).map_err(failed),
        Store::Codex => codex::read(files).map_err(failed),
        Store::Copilot => copilot::read(files).map_err(failed),
        Store::Gemini => gemini::read(files).map_err(failed),
        Store::Qwen => qwen::read(files).map_err(failed),
        Store::OpenCode => opencode::read(found).map_err(failed),
    }
}
