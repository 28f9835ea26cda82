//! Reading transcripts back: the tolerant, resumable [`Reader`] of one file, and the
//! [`tree`] of a run and its sub-runs rebuilt across files with its links validated,
//! [`Stats`], counts that merge across files, a run's [`summary`] (what `axt ls` and `axt
//! show` say of it), and what they share: [`Calls`], the one rule by which they all count a
//! call seen on both channels (router and agent) once; [`Spend`], the one by which runs'
//! tokens and cost add up; [`Cost`], reported or estimated from the [`Prices`] table, never
//! confused.
//!
//! This module owns reading: it imports only the [`model`](crate::model). It never writes
//! a transcript, never repairs one (a torn tail is reported, and left for a recorder to move
//! aside), and never trusts a line: every problem is a [`Problem`] in the stream, at its line
//! and byte offset, and reading goes on.
//!
//! ```
//! use axt::read::{ReadItem, Reader};
//!
//! let file = concat!(
//!     r#"{"seq":1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":null}"#, "\n",
//!     "not json\n",
//!     r#"{"seq":3,"run_id":"r","type":"run.completed","path":"","iteration":0,"timestamp":"2026-06-08T08:14:43Z","payload":null}"#, "\n",
//! );
//! let mut events = 0;
//! let mut problems = Vec::new();
//! for item in Reader::new(file.as_bytes()) {
//!     match item {
//!         ReadItem::Event { .. } => events += 1,
//!         ReadItem::Problem(problem) => problems.push(problem.to_string()),
//!     }
//! }
//! assert_eq!(events, 2);
//! assert_eq!(problems, [
//!     "2: byte 118: invalid-json: expected ident at column 2",
//!     "3: byte 127: seq-gap: seq 3, expected 2: 1 missing",
//! ]);
//! ```

mod calls;
mod cost;
pub mod duration;
pub mod meta;
mod prices;
mod reader;
mod spend;
mod stats;
pub mod summary;
pub mod tree;

pub use calls::{CallKey, Calls, Demoted, Seen, Settled, Verdict};
pub use cost::{Cost, dollars};
pub use meta::agent_meta;
pub use prices::{Price, PriceError, Prices, table_names, user_file};
pub use reader::{
    DEFAULT_MAX_LINE_BYTES, Position, Problem, ProblemKind, ReadItem, Reader, no_event,
};
pub use spend::{Spend, Tokens};
#[cfg(feature = "cli")]
pub(crate) use stats::Walk;
pub use stats::{
    FileStats, Stats, StatsReport, ToolStats, files_with_extensions, transcript_files,
};
pub use summary::{RunSummary, Summarizer, summarize, summarize_all};
