//! The seam every adapter implements: [`Normalizer`], its [`Options`], and what it hands out
//! ([`Output`] of [`Item`]s from a [`Source`]; [`Normalized`] for a whole input), and what a
//! caller knows of a run that its input does not say ([`Given`]).
//!
//! This file owns the trait and its data. It must not name an adapter nor decide anything
//! about events.

use std::ops::Range;

use serde::Serialize;
use serde_json::Value;

use super::{Diagnostic, Severity};
use crate::model::{
    Block, ContentBlock, Fidelity, Provider, Role, RunMeta, RunStatus, Timestamp, Usage,
};

/// Default record size limit: the transcript's line limit,
/// [`MAX_LINE_BYTES`](crate::model::MAX_LINE_BYTES) (16 MiB). Real single records exceed 1 MiB
/// (large tool results); integrators have had to raise limits to 8 MiB. A record limit above
/// it reads larger records, and the events made of them are still cut to fit a line.
pub const DEFAULT_MAX_RECORD_BYTES: usize = crate::model::lines::DEFAULT_MAX_LINE_BYTES;

/// How a normalizer treats its input.
#[derive(Clone, Debug)]
pub struct Options {
    /// Largest record (one line, without its terminator) accepted. A longer record is
    /// skipped up to its end and reported; memory stays bounded by this size.
    pub max_record_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
        }
    }
}

/// Incremental provider-output normalization: what every adapter provides.
pub trait Normalizer {
    /// Which provider's output this reads.
    fn provider(&self) -> Provider;

    /// Feeds the next bytes of output, split anywhere (inside a record, inside a UTF-8
    /// character). Blocks completed by these bytes, and problems found in them, are appended
    /// to `out` (blocks of a provider that stamps its records wait for its first stamp; see
    /// the driver).
    fn push(&mut self, bytes: &[u8], out: &mut Output);

    /// Ends the input: flushes an unterminated last record, emits what is still open
    /// (partial blocks, marked incomplete), reports tool calls left without a result, and
    /// settles the run's status. Pushing after `finish` is a logic error (ignored).
    fn finish(&mut self, out: &mut Output);

    /// The run's metadata as known so far; final after [`Normalizer::finish`].
    fn meta(&self) -> &RunMeta;

    /// Feeds one whole record (without its line feed) that the caller picked out of a larger
    /// input, at the caller's `line` and byte `offset`: every position reported for it is
    /// the caller's. For line-based dialects; the default feeds the record as a line, the
    /// positions then counted from the records fed.
    fn push_record(&mut self, bytes: &[u8], line: u64, offset: u64, out: &mut Output) {
        let _ = (line, offset);
        self.push(bytes, out);
        self.push(b"\n", out);
    }

    /// Feeds a record the caller made to stand for `span` of its input (without its line
    /// feed), at the caller's `line`: an importer that rewrites a line into the provider's
    /// dialect. No byte inside the record is the input's, so every position inside it is
    /// reported at `span.start`, and the input read so far ends after `span.end` and its
    /// line feed, whatever the record's own length: no position names a byte past the
    /// caller's file. The default feeds the record as [`Normalizer::push_record`] does.
    fn push_made_record(&mut self, bytes: &[u8], line: u64, span: Range<u64>, out: &mut Output) {
        self.push_record(bytes, line, span.start, out);
    }

    /// Keeps `raw` as passthrough of `kind` from the caller's `line`, as if a record of the
    /// input had been kept: what the caller knows of the run that is no provider record (an
    /// importer's compaction summary or off-chain entry). It counts in no input report.
    fn keep(&mut self, line: u64, kind: &str, raw: Value);

    /// Says the input is complete though it has no terminal record of its own: the caller
    /// settles how the run ended ([`Given::apply`]), so finishing reports no terminal
    /// record missing. Call before [`Normalizer::finish`]. The default does nothing.
    fn complete(&mut self) {}
}

/// What the caller of a normalizer knows of a run that its input does not say: an importer
/// reading a session log knows the session and the version from the entries, has its own
/// account of the import, and knows the log is complete even though no terminal record
/// closes it. Applied to the final metadata by [`Given::apply`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Given {
    /// The session id, used when the input states none.
    pub session_id: Option<String>,
    /// The agent CLI's version, used when the input states none.
    pub provider_version: Option<String>,
    /// The importer's account of the import, for [`RunMeta::import`].
    pub import: Option<serde_json::Map<String, Value>>,
    /// The input is complete without a terminal record: the run completed (unless the input
    /// said it failed), in `duration_ms` when known. See [`Normalizer::complete`].
    pub complete: bool,
    /// The run's duration as the caller measured it; used only with `complete`.
    pub duration_ms: Option<u64>,
    /// The caller's count of the run's tokens, replacing the input's: an importer that
    /// knows a run's tokens are counted elsewhere (a sub-agent whose session total holds
    /// them already) says so, so that they are counted once.
    pub usage: Option<Usage>,
}

impl Given {
    /// Completes the final metadata with what the caller knows: what the input
    /// stated stays, and only an input without a terminal record gets its ending from the
    /// caller.
    pub fn apply(self, meta: &mut RunMeta) {
        if meta.session_id.is_none() {
            meta.session_id = self.session_id;
        }
        if meta.provider_version.is_none() {
            meta.provider_version = self.provider_version;
        }
        if self.complete {
            if meta.status != RunStatus::Failed {
                meta.status = RunStatus::Completed;
            }
            if self.duration_ms.is_some() {
                meta.duration_ms = self.duration_ms;
            }
        }
        if self.import.is_some() {
            meta.import = self.import;
        }
        if let Some(usage) = self.usage {
            meta.usage = usage;
        }
    }
}

/// Where a normalizer appends what it produces; drain it as often as you like.
#[derive(Debug, Default)]
pub struct Output {
    /// Completed blocks, in order.
    pub items: Vec<Item>,
    /// Problems found in the input, in order.
    pub diagnostics: Vec<Diagnostic>,
}

/// One completed content block and where it belongs.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The block, with fidelity `agent_emitted`.
    pub block: ContentBlock,
    /// Whose turn produced it: `Assistant` for model output, `User` for prompts and for the
    /// tool results a provider returns on the user side.
    pub role: Role,
    /// The provider's message id, when it has one; blocks of one message share it.
    pub message_id: Option<String>,
    /// The sub-agent scope: the id of the tool call that spawned the sub-agent (Claude
    /// `parent_tool_use_id`); `None` for the main thread.
    pub agent: Option<String>,
    /// On a tool call that starts a sub-agent, the sub-agent's name (the event mapper names
    /// the sub-agent's step after it); `None` otherwise.
    pub subagent: Option<String>,
    /// The input records it was made from.
    pub source: Source,
    /// The provider's time for it: the latest stamp seen when it was completed (see
    /// [`SourceTimes`](crate::model::SourceTimes)); `None` for a provider that does not stamp its records, or before
    /// the first stamp.
    pub time: Option<Timestamp>,
}

impl Item {
    /// A block of `role`'s from `source`, in no message, no sub-agent's scope, at no time
    /// yet (the driver dates it).
    pub fn new(block: ContentBlock, role: Role, source: Source) -> Item {
        Item {
            block,
            role,
            message_id: None,
            agent: None,
            subagent: None,
            source,
            time: None,
        }
    }

    /// A block the agent emitted, of the main thread, without a time yet (the driver gives
    /// it one): the item most adapters make.
    pub(crate) fn emitted(
        block: Block,
        role: Role,
        message_id: Option<String>,
        source: Source,
    ) -> Self {
        Item {
            block: ContentBlock::new(Fidelity::AgentEmitted, block),
            role,
            message_id,
            agent: None,
            subagent: None,
            source,
            time: None,
        }
    }
}

/// A span of input records: every block can be traced back to its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    /// 1-based line of the first record.
    pub line: u64,
    /// 1-based line of the last record (the same line for single-record blocks).
    pub end_line: u64,
    /// Byte offset of the first record's first byte in the input.
    pub offset: u64,
}

impl Source {
    /// A span of one record.
    pub fn record(line: u64, offset: u64) -> Self {
        Source {
            line,
            end_line: line,
            offset,
        }
    }
}

/// Everything one normalization produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Normalized {
    /// Completed blocks, in order.
    pub items: Vec<Item>,
    /// The run's metadata.
    pub meta: RunMeta,
    /// Problems found in the input, in order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Normalized {
    /// The blocks alone, in order.
    pub fn blocks(&self) -> impl Iterator<Item = &ContentBlock> {
        self.items.iter().map(|item| &item.block)
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity() == Severity::Error)
    }
}
