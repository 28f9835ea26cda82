//! What a run's output says about the run: [`RunMeta`] (session, model, [`Usage`], cost,
//! [`StopReason`], [`RunStatus`], errors, passthrough records, source times, the
//! [`InputReport`]) and how the agent's process ended ([`ProcessEnd`], as an executor reports
//! it). It is the `result` of a normalized run's `run.completed` (and of a workflow's agent
//! step's `step.completed`): wire format, so it lives here, written by the adapters and read
//! back, typed, by every reader ([`RunMeta::of`]).
//!
//! This file owns the metadata's shape, its serialization, and its tolerant reading. It must
//! not read provider records (the adapters fill it) nor observe a process (an executor
//! does, see `axt::capture`).
//!
//! **Reading is tolerant.** [`RunMeta::of`] reads the metadata of any writer, older or newer:
//! a missing field takes its default, an unknown one is ignored, a field of the wrong JSON
//! type reads as its default rather than costing the rest, and a stop reason outside the
//! vocabulary is [`StopKind::Other`]. Only `provider` is required, and it must name a
//! [`Provider`] this version knows: it is what tells run metadata from any other step result.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::payload::StepPayload;
use super::provider::Provider;
use super::report::InputReport;
use super::timestamp::{Timestamp, minute_tail};

/// Token counts, with every kind kept apart, in one convention for every provider (the
/// `usage` of `run.completed`; see [the wire format](crate::model#token-usage)):
///
/// * `input_tokens` counts only input that was neither read from nor written to a prompt
///   cache, so `input_tokens + cache_read_tokens + cache_write_tokens` is the whole prompt;
/// * `output_tokens` counts everything the model generated, reasoning included;
/// * `reasoning_tokens` is the part of `output_tokens` spent on reasoning, 0 where the
///   provider does not say.
///
/// So `input_tokens + cache_read_tokens + cache_write_tokens + output_tokens` is every token
/// billed, and totals are comparable across providers. Each adapter converts its provider's
/// counts to this convention; the table of how is in [`crate::normalize`]'s docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Uncached input tokens.
    #[serde(default, deserialize_with = "lenient")]
    pub input_tokens: u64,
    /// Output tokens, reasoning included.
    #[serde(default, deserialize_with = "lenient")]
    pub output_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default, deserialize_with = "lenient")]
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default, deserialize_with = "lenient")]
    pub cache_write_tokens: u64,
    /// Output tokens spent on reasoning (part of `output_tokens`).
    #[serde(default, deserialize_with = "lenient")]
    pub reasoning_tokens: u64,
}

impl Usage {
    /// Adds another count to this one.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.reasoning_tokens += other.reasoning_tokens;
    }
}

/// What a run's `usage` and `cost_usd` span.
///
/// Most providers report what the run itself spent. Claude Code from 2.1.277 on reports a
/// *session's* running total instead: a run that resumes a session (`claude -p --resume`,
/// the Agent SDK's `resume`) or forks one starts from the totals the session's log saved
/// when its last process exited, so its first `result` already carries every earlier run of
/// the session (its 2.1.277 changelog: "Fixed a headless resume ... starting the session's
/// cost and usage totals at zero; headless sessions now save their totals at exit"; before,
/// each process started from zero). Its output cannot tell a resumed session from a new
/// one, so every run of such a version says [`UsageScope::Session`].
///
/// The rule for readers that add runs up (`axt stats`, the AgentLog export do): runs of
/// scope `run` add; of the runs of scope `session` with one `session_id`, only the largest
/// total counts (a session's running total only grows), so a session resumed five times is
/// counted once. What no reader can tell: a fork's total carries its parent session's under
/// a new id, and totals a killed process never saved are not carried to the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageScope {
    /// What the run itself spent.
    #[default]
    Run,
    /// The provider session's running total at the run's end (its `session_id`): earlier
    /// runs that the run resumed are in it.
    Session,
}

impl UsageScope {
    fn is_run(&self) -> bool {
        *self == UsageScope::Run
    }
}

/// Why the model stopped, normalized, with the provider's own words kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopReason {
    /// The normalized reason.
    #[serde(default, deserialize_with = "lenient")]
    pub kind: StopKind,
    /// The provider's value, verbatim.
    #[serde(default, deserialize_with = "lenient")]
    pub raw: String,
}

/// The normalized stop reasons.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopKind {
    /// The model finished its turn.
    EndTurn,
    /// The model stopped to call tools.
    ToolUse,
    /// The output token limit was reached.
    MaxTokens,
    /// The agent's turn limit was reached.
    MaxTurns,
    /// A stop sequence matched.
    StopSequence,
    /// The model refused, or a content filter stopped it.
    Refusal,
    /// The run was interrupted or aborted.
    Aborted,
    /// The provider stopped on an error.
    Error,
    /// A value axt does not map; see `raw`. A reader takes a kind it does not know for
    /// this one too.
    #[default]
    #[serde(other)]
    Other,
}

/// How the run ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// No terminal record seen (yet).
    #[default]
    Incomplete,
    /// The provider reported success.
    Completed,
    /// The provider reported failure.
    Failed,
}

/// An error the provider reported about the run (not a problem with the input).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunError {
    /// What the provider said.
    pub message: String,
    /// Whether it ended the run.
    pub fatal: bool,
    /// The line that reported it; 0 when the executor did ([`RunMeta::set_process`]).
    pub line: u64,
}

/// A record the provider withdrew after delivering it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Retraction {
    /// The line of the withdrawn record.
    pub line: u64,
    /// The line of the record that withdrew it.
    pub by_line: u64,
    /// The message its blocks belong to (`message_id` on their events), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The tool calls it made, or whose results it carried (`call_id` on their events).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_ids: Vec<String>,
}

/// A provider record axt keeps but does not turn into blocks (rate limits, hooks, ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Passthrough {
    /// The line it was on.
    pub line: u64,
    /// Its type (and subtype), as `type` or `type/subtype`.
    pub kind: String,
    /// The record, or the part of it that was not otherwise read.
    pub raw: Value,
}

/// What a run's output says about the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunMeta {
    /// The provider.
    pub provider: Provider,
    /// The agent that wrote the output, where the provider's adapter reads a family of
    /// agents: an ACP agent's `agentInfo.name` (`gemini-cli`, `claude-code-acp`, ...), a
    /// Claude-compatible CLI (`amp`, `qwen-code`, `letta-code`, ...). `None` for the
    /// provider's own agent. `provider_version` is then this agent's version.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub agent: Option<String>,
    /// The agent CLI's version, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub provider_version: Option<String>,
    /// The provider's session (thread, conversation) id.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub session_id: Option<String>,
    /// The model that answered (the last one seen).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub model: Option<String>,
    /// Token usage for the whole run.
    #[serde(default, deserialize_with = "lenient")]
    pub usage: Usage,
    /// What `usage` and `cost_usd` span: the run (omitted) or its provider session's running
    /// total (`session`, Claude Code 2.1.277 and later).
    #[serde(skip_serializing_if = "UsageScope::is_run")]
    #[serde(default, deserialize_with = "lenient")]
    pub usage_scope: UsageScope,
    /// The provider's usage record, verbatim, when it reported one for the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub raw_usage: Option<Value>,
    /// Cost in US dollars, when the provider reports one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub cost_usd: Option<f64>,
    /// Why the model stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub stop_reason: Option<StopReason>,
    /// The run's final answer as its terminal record states it (Claude's `result.result`),
    /// when the run did not fail: usually a copy of the last assistant text, but the only
    /// copy when the assistant lines are missing. A failed run's text is in `errors`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub answer: Option<String>,
    /// How the run ended.
    #[serde(default, deserialize_with = "lenient")]
    pub status: RunStatus,
    /// Errors the provider reported, fatal or not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[serde(default, deserialize_with = "lenient")]
    pub errors: Vec<RunError>,
    /// Output the provider withdrew after delivering it, in the order it said so. Its blocks
    /// stay in the transcript (they were written as they came): a reader that wants the run
    /// as the provider finally stands by it drops the messages and tool calls named here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[serde(default, deserialize_with = "lenient")]
    pub retracted: Vec<Retraction>,
    /// Wall-clock duration in milliseconds, as the provider measured it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub duration_ms: Option<u64>,
    /// Agent turns, as the provider counted them (old Claude Code versions wrote -1 for a
    /// run with no model turn; kept as written).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub num_turns: Option<i64>,
    /// Records kept as they were, the first [`PASSTHROUGH_LIMIT`] of them, as long as they
    /// take no more than [`PASSTHROUGH_BYTES`] together.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[serde(default, deserialize_with = "lenient")]
    pub passthrough: Vec<Passthrough>,
    /// Passthrough records beyond either limit, counted by kind rather than kept, so that
    /// metadata stays bounded however long the stream and however large its records (the
    /// records are in the input).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    #[serde(default, deserialize_with = "lenient")]
    pub passthrough_omitted: BTreeMap<String, u64>,
    /// The bytes `passthrough` takes as written, kept as records are added.
    #[serde(skip)]
    passthrough_bytes: KeptBytes,
    /// How the agent's process ended, when axt ran it ([`crate::capture`]) and it did not
    /// simply exit with 0; normalizers, which only see output, leave it `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub process: Option<ProcessEnd>,
    /// The times the provider stamped on its records, where it does: the first and the
    /// latest seen. Events take their time from these (see `axt::transcribe::mapper`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub source_times: Option<SourceTimes>,
    /// What the adapter saw and did, record type by record type ([`InputReport`]); complete
    /// after [`Normalizer::finish`](crate::normalize::Normalizer::finish).
    #[serde(default, deserialize_with = "lenient")]
    pub report: InputReport,
    /// How the run was imported, when it was read from a log rather than an agent's output:
    /// the importer's own account ([`Given::import`](crate::normalize::Given::import)), kept as it
    /// gave it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(default, deserialize_with = "lenient")]
    pub import: Option<serde_json::Map<String, Value>>,
}

/// The provider's own times for a run: its records' stamps, first and latest.
///
/// A record's stamp is its `timestamp` (Gemini, Copilot, Claude Code session logs), kept as
/// the provider wrote it, or `created` (OpenAI, Unix seconds, written as axt writes times).
/// The latest never goes backwards: a stamp earlier than one already seen leaves it where it
/// is. A stamp that is not an RFC 3339 date-time is not used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceTimes {
    /// The first stamp seen.
    pub first: Timestamp,
    /// The latest stamp seen.
    pub last: Timestamp,
    #[serde(skip)]
    last_nanos: i128,
    /// The latest stamp's seconds and fraction, and where its offset begins
    /// ([`minute_tail`]): a later stamp of the same minute and offset is read only from
    /// there ([`SourceTimes::advance_alike`]). A function of `last`'s text.
    #[serde(skip)]
    last_tail: Option<(u64, usize)>,
}

impl SourceTimes {
    /// Times that start at `first`.
    pub fn new(first: Timestamp) -> Option<Self> {
        let last_nanos = first.unix_nanos().ok()?;
        Some(SourceTimes {
            last_tail: minute_tail(first.as_str().as_bytes()),
            last: first.clone(),
            first,
            last_nanos,
        })
    }

    /// Moves the latest time to `time` if it is later.
    fn advance(&mut self, time: Timestamp, nanos: i128) {
        if nanos > self.last_nanos {
            self.last_tail = minute_tail(time.as_str().as_bytes());
            self.last = time;
            self.last_nanos = nanos;
        }
    }

    /// Moves the latest stamp to `text` when that is later, for a `text` written as the
    /// latest one is (the same length and offset, its first difference a digit in both),
    /// reading at most its seconds and fraction: `false`, nothing changed, for any other
    /// text, which the caller parses. Such a text's fields have the latest one's places,
    /// so its bytes sort as its instants do when it is a date-time: one that sorts first is
    /// earlier or no date-time, and leaves the latest where it is either way; one that sorts
    /// after within the same minute is read from its seconds on ([`minute_tail`]: the bytes
    /// before, shared with the latest stamp, were valid there), and the instants differ by
    /// the tails. A stream's records are stamped in order, or restart earlier (sessions one
    /// after another), so most stamps end here without a parse.
    fn advance_alike(&mut self, text: &str) -> bool {
        let Some((last_tail, offset_at)) = self.last_tail else {
            return false;
        };
        let Some(last) = self.last.rfc3339_bytes() else {
            return false;
        };
        let bytes = text.as_bytes();
        if bytes.len() != last.len() || bytes.get(offset_at..) != last.get(offset_at..) {
            return false;
        }
        let Some(at) = first_difference(bytes, last) else {
            return true; // the same text: the same instant
        };
        let (new, old) = (bytes[at], last[at]);
        if !(new.is_ascii_digit() && old.is_ascii_digit()) {
            return false;
        }
        if new < old {
            return true;
        }
        if at < 17 {
            return false; // a later minute
        }
        let Some((tail, tail_end)) = minute_tail(bytes) else {
            return false;
        };
        if tail_end != offset_at {
            return false;
        }
        if tail > last_tail {
            self.last.replace_checked(text);
            self.last_nanos += i128::from(tail - last_tail);
            self.last_tail = Some((tail, tail_end));
        }
        true
    }
}

/// Where two texts of the same length first differ, eight bytes at a time.
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("eight bytes"));
    let (words_a, words_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let (rest_a, rest_b) = (words_a.remainder(), words_b.remainder());
    for (at, (x, y)) in words_a.zip(words_b).enumerate() {
        let differ = word(x) ^ word(y);
        if differ != 0 {
            return Some(at * 8 + differ.trailing_zeros() as usize / 8);
        }
    }
    let at = a.len() - rest_a.len();
    (rest_a.iter().zip(rest_b))
        .position(|(x, y)| x != y)
        .map(|offset| at + offset)
}

impl<'de> Deserialize<'de> for SourceTimes {
    /// Both stamps as written; the latest must be an RFC 3339 date-time (it is what later
    /// stamps are compared with).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            first: Timestamp,
            last: Timestamp,
        }
        let Wire { first, last } = Wire::deserialize(deserializer)?;
        let last_nanos = last.unix_nanos().map_err(serde::de::Error::custom)?;
        Ok(SourceTimes {
            first,
            last_tail: minute_tail(last.as_str().as_bytes()),
            last,
            last_nanos,
        })
    }
}

/// A field read tolerantly: absent, or of a shape this version cannot read, it is its
/// default, and the rest of the metadata is still read.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(
    deserializer: D,
) -> Result<T, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(T::deserialize(value).unwrap_or_default())
}

/// How an agent's process ended, as an executor observed it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProcessEnd {
    /// The exit code, when the process exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that terminated it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// What else the executor knows: it never started, it had to be killed, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ProcessEnd {
    /// A process that exited with `code`.
    pub fn exited(code: i32) -> Self {
        ProcessEnd {
            exit_code: Some(code),
            ..ProcessEnd::default()
        }
    }

    /// Whether it exited with 0 and nothing else is worth saying.
    pub fn is_clean(&self) -> bool {
        self.exit_code == Some(0) && self.signal.is_none() && self.note.is_none()
    }

    /// Why this ending is a failure, in words; `None` for a clean exit.
    pub fn failure(&self) -> Option<String> {
        if self.is_clean() {
            return None;
        }
        let status = match (self.exit_code, self.signal) {
            (Some(code), _) => Some(format!("the agent exited with code {code}")),
            (None, Some(signal)) => Some(format!(
                "the agent was killed by signal {signal}{}",
                signal_name(signal).map_or_else(String::new, |name| format!(" ({name})"))
            )),
            (None, None) => None,
        };
        let parts: Vec<String> = self.note.iter().cloned().chain(status).collect();
        Some(parts.join(": "))
    }
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// A call the provider refused to run for want of permission, as the run metadata keeps it
/// (Claude Code's `result` record lists them; its adapter keeps the list as the passthrough
/// record `result/permission_denials`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeniedCall {
    /// The call's id (`call_id` of its `tool.*` events).
    pub call_id: String,
    /// The tool.
    pub tool: String,
}

/// A compaction of the agent's context, as the run metadata keeps it (the passthrough record
/// `system/compact_boundary` of a Claude Code stream or session log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compaction {
    /// The line of the record.
    pub line: u64,
    /// What started it (`auto`, `manual`), when it says.
    pub trigger: Option<String>,
    /// The context's tokens before it, when it says.
    pub tokens_before: Option<u64>,
    /// When, when the record is stamped (session logs are).
    pub time: Option<Timestamp>,
}

/// How many passthrough records a run's metadata keeps verbatim.
pub const PASSTHROUGH_LIMIT: usize = 1_000;

/// How many bytes (as written) the passthrough records a run's metadata keeps may take
/// together: a quarter of a transcript line, so that the `run.completed` carrying them
/// always fits one ([`MAX_LINE_BYTES`](super::MAX_LINE_BYTES)), and a stream of large
/// unknown records costs memory up to this, not up to the stream.
pub const PASSTHROUGH_BYTES: usize = super::limits::MAX_LINE_BYTES / 4;

/// A count that is bookkeeping, not metadata: every two are equal, so that metadata read
/// back from a transcript (where it is not written) equals the metadata it was written from.
#[derive(Clone, Copy, Debug, Default)]
struct KeptBytes(usize);

impl PartialEq for KeptBytes {
    fn eq(&self, _: &KeptBytes) -> bool {
        true
    }
}

impl RunMeta {
    /// The run metadata a step payload carries as its `result` (a normalized run's
    /// `run.completed`, a workflow's agent step's `step.completed`), read tolerantly (see the
    /// module docs); `None` when the result is not run metadata: not an object, or without a
    /// `provider` this version knows.
    ///
    /// ```
    /// use axt::model::{Provider, RunMeta, StepKind, StepPayload, StopKind};
    /// use serde_json::json;
    ///
    /// let mut step = StepPayload::new("claude", StepKind::Agent);
    /// step.result = json!({"provider": "claude", "usage": {"input_tokens": 12, "output_tokens": "?"},
    ///     "stop_reason": {"kind": "paused_by_a_newer_api", "raw": "pause_turn"}, "from_a_newer_axt": 1});
    /// let meta = RunMeta::of(&step).unwrap();
    /// assert_eq!(meta.provider, Provider::Claude);
    /// assert_eq!((meta.usage.input_tokens, meta.usage.output_tokens), (12, 0));
    /// assert_eq!(meta.stop_reason.unwrap().kind, StopKind::Other);
    /// step.result = json!({"answer": 42});
    /// assert_eq!(RunMeta::of(&step), None);
    /// ```
    pub fn of(step: &StepPayload) -> Option<RunMeta> {
        RunMeta::deserialize(&step.result).ok()
    }

    /// The calls the provider denied for want of permission (see [`DeniedCall`]).
    pub fn denied_calls(&self) -> Vec<DeniedCall> {
        self.passthrough
            .iter()
            .filter(|p| p.kind == "result/permission_denials")
            .filter_map(|p| p.raw.as_array())
            .flatten()
            .filter_map(|denial| {
                Some(DeniedCall {
                    call_id: denial.get("tool_use_id")?.as_str()?.to_owned(),
                    tool: denial.get("tool_name")?.as_str().unwrap_or("").to_owned(),
                })
            })
            .collect()
    }

    /// The compactions of the agent's context (see [`Compaction`]), in order.
    pub fn compactions(&self) -> Vec<Compaction> {
        self.passthrough
            .iter()
            .filter(|p| p.kind == "system/compact_boundary")
            .map(|p| {
                // The stream's `compact_metadata`, the session log's `compactMetadata`.
                let metadata = p
                    .raw
                    .get("compact_metadata")
                    .or_else(|| p.raw.get("compactMetadata"));
                let field = |a: &str, b: &str| metadata.and_then(|m| m.get(a).or_else(|| m.get(b)));
                Compaction {
                    line: p.line,
                    trigger: field("trigger", "trigger")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    tokens_before: field("pre_tokens", "preTokens").and_then(Value::as_u64),
                    time: p
                        .raw
                        .get("timestamp")
                        .and_then(Value::as_str)
                        .and_then(|t| Timestamp::parse(t).ok()),
                }
            })
            .collect()
    }

    /// Empty metadata for a provider's run.
    pub fn new(provider: Provider) -> Self {
        RunMeta {
            provider,
            agent: None,
            provider_version: None,
            session_id: None,
            model: None,
            usage: Usage::default(),
            usage_scope: UsageScope::Run,
            raw_usage: None,
            cost_usd: None,
            stop_reason: None,
            answer: None,
            status: RunStatus::Incomplete,
            errors: Vec::new(),
            retracted: Vec::new(),
            duration_ms: None,
            num_turns: None,
            passthrough: Vec::new(),
            passthrough_omitted: BTreeMap::new(),
            passthrough_bytes: KeptBytes::default(),
            process: None,
            source_times: None,
            report: InputReport::default(),
            import: None,
        }
    }

    /// Notes a record's stamp, RFC 3339 text (see [`SourceTimes`]).
    ///
    /// Called for every record of a stamped stream: the text is parsed once, and a later
    /// stamp is copied into the latest one's buffer rather than into a new string.
    pub(crate) fn saw_time(&mut self, text: &str) {
        match &mut self.source_times {
            Some(times) => {
                // The latest stamp again (records written in the same millisecond): the same
                // instant, so not a later one, known without parsing it.
                if times.last.is(text) {
                    return;
                }
                // A stamp written as the latest one is: compared with it, at most its
                // seconds and fraction read, against the latest one's kept beside it.
                // (Reading both stamps' tails here measured no better than the whole
                // parse: 6ca2694.)
                if times.advance_alike(text) {
                    return;
                }
                let Ok(nanos) = Timestamp::nanos_of(text) else {
                    return;
                };
                if nanos > times.last_nanos {
                    times.last.replace_checked(text);
                    times.last_nanos = nanos;
                    times.last_tail = minute_tail(text.as_bytes());
                }
            }
            None => {
                if let Ok(time) = Timestamp::parse(text) {
                    self.source_times = SourceTimes::new(time);
                }
            }
        }
    }

    /// Notes a record's stamp, kept as the provider wrote it.
    pub(crate) fn saw_timestamp(&mut self, time: Timestamp) {
        let Ok(nanos) = time.unix_nanos() else {
            return;
        };
        match &mut self.source_times {
            Some(times) => times.advance(time, nanos),
            None => self.source_times = SourceTimes::new(time),
        }
    }

    /// Records how the agent's process ended. An ending that is not a clean exit makes the
    /// run failed whatever its output said, with a fatal error (line 0: the executor, not
    /// the output, reported it) that says why, and whether the output was cut short.
    pub fn set_process(&mut self, end: ProcessEnd) {
        let Some(mut message) = end.failure() else {
            return;
        };
        if self.status == RunStatus::Incomplete {
            message.push_str("; the output ended before the run's terminal record");
        }
        self.status = RunStatus::Failed;
        self.errors.push(RunError {
            message,
            fatal: true,
            line: 0,
        });
        self.process = Some(end);
    }

    /// Keeps a record the adapter does not turn into blocks, or, past
    /// [`PASSTHROUGH_LIMIT`] records (`raw` is then never built) or [`PASSTHROUGH_BYTES`],
    /// counts it by kind.
    pub(crate) fn keep(&mut self, line: u64, kind: &str, raw: impl FnOnce() -> Value) {
        // Once the bytes are spent, `raw` is not built either.
        if self.passthrough.len() < PASSTHROUGH_LIMIT
            && self.passthrough_bytes.0 < PASSTHROUGH_BYTES
        {
            let raw = raw();
            let bytes = super::fit::value_len(&raw) + kind.len() + 48;
            if self.passthrough_bytes.0 + bytes <= PASSTHROUGH_BYTES {
                self.passthrough_bytes.0 += bytes;
                let kind = kind.to_owned();
                self.passthrough.push(Passthrough { line, kind, raw });
                return;
            }
        }
        *self.passthrough_omitted.entry(kind.to_owned()).or_default() += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::StepKind;
    use serde_json::json;

    fn of(result: Value) -> Option<RunMeta> {
        let mut step = StepPayload::new("run", StepKind::Agent);
        step.result = result;
        RunMeta::of(&step)
    }

    #[test]
    fn a_field_this_version_cannot_read_costs_only_itself() {
        let meta = of(json!({
            "provider": "codex",
            "model": 7,
            "session_id": "s-1",
            "status": "paused",
            "usage": {"input_tokens": 3, "cache_read_tokens": -1},
            "source_times": {"first": "2026-01-01T00:00:00Z", "last": "yesterday"},
            "errors": [{"message": "boom", "fatal": true, "line": 4, "code": "E1"}],
            "stop_reason": {"kind": "max_tokens"},
        }))
        .expect("run metadata");
        assert_eq!(meta.provider, Provider::Codex);
        assert_eq!(meta.model, None);
        assert_eq!(meta.session_id.as_deref(), Some("s-1"));
        assert_eq!(meta.status, RunStatus::Incomplete);
        assert_eq!(meta.usage.input_tokens, 3);
        assert_eq!(meta.usage.cache_read_tokens, 0);
        assert_eq!(meta.source_times, None);
        assert_eq!(meta.errors[0].message, "boom");
        let stop = meta.stop_reason.expect("a stop reason");
        assert_eq!((stop.kind, stop.raw.as_str()), (StopKind::MaxTokens, ""));
    }

    #[test]
    fn source_times_keep_the_first_stamp_and_the_latest_instant() {
        let mut meta = RunMeta::new(Provider::Gemini);
        let stamps = [
            "2026-05-14T09:00:01.500Z",
            "2026-05-14T09:00:01.500Z",  // the latest again
            "2026-05-14T09:00:00.900Z",  // earlier
            "not a time",                // ignored
            "2026-05-14T10:00:02+01:00", // later than the first by 0.5 s
            "2026-05-14T09:00:02.000Z",  // the same instant, written otherwise
            "2026-05-14T09:00:01.999Z",  // earlier
        ];
        for stamp in stamps {
            meta.saw_time(stamp);
        }
        let times = meta.source_times.expect("stamps seen");
        assert_eq!(times.first.as_str(), "2026-05-14T09:00:01.500Z");
        assert_eq!(times.last.as_str(), "2026-05-14T10:00:02+01:00");
    }

    /// A stamp written as the latest one is, compared with it and read at most from its
    /// seconds (`advance_alike`): for every three stamps in a row of valid and broken ones,
    /// most of one length and offset, earlier and later in each field, the latest stamp, its
    /// instant and its kept tail are those the whole parse of each stamp gives.
    #[test]
    fn a_stamp_of_the_latest_minute_moves_the_latest_as_the_whole_parse_does() {
        let stamps = [
            "2026-05-14T09:00:01.500Z",
            "2026-05-14T09:00:01.501Z",
            "2026-05-14T09:00:01.499Z",
            "2026-05-14T09:00:01.5Z",
            "2026-05-14T09:00:01.50Z",
            "2026-05-14T09:00:02.000Z",
            "2026-05-14T09:00:02.0001Z",
            "2026-05-14T09:00:59.999999999Z",
            "2026-05-14T09:00:59.9999999999Z",
            "2026-05-14T09:00:60.000Z",
            "2026-05-14T09:00:61.000Z",
            "2026-05-14T09:00:0a.000Z",
            "2026-05-14T09:00:01.Z",
            "2026-05-14T09:00:01.500z",
            "2026-05-14T09:00:01.500+00:00",
            "2026-05-14T09:00:01.500+01:00",
            "2026-05-14T09:00:01.500-01:00",
            "2026-05-14T09:00:01.500+24:00",
            "2026-05-14T09:00:01.500",
            "2026-05-14T09:00:01.500Zz",
            "2026-05-14T09:00:01.5001Z",
            "2026-05-14T09:00:01,500Z",
            "2026-05-14t09:00:01.700Z",
            "2026-05-14 09:00:01.700Z",
            "2026-05-14T09:01:00.000Z",
            "2026-05-14T08:59:59.999Z",
            "2026-05-14T09:00:01Z",
            "2026-05-14T09:00:09Z",
            "2026-05-14T09:00:10+00:00",
            "2026-05-14T09:00:10+00:01",
            "2026-05-14T09:00:10-00:00",
            "2026-05-14T09:00:10+00:0a",
            "2026-05-14T10:00:01.500Z",
            "2026-05-15T00:00:00.000Z",
            "2026-05-13T23:59:59.999Z",
            "2027-01-01T00:00:00.000Z",
            "2025-12-31T23:59:59.999Z",
            "2026-02-30T09:00:01.500Z",
            "2026-13-14T09:00:01.500Z",
            "2026-00-14T09:00:01.500Z",
            "2026-05-14T24:00:01.500Z",
            "2026-05-14T09:60:01.500Z",
            "2026-05-14T09:00:01.500Y",
            "2026-05-14T09:0a:01.500Z",
            "2026-05-14T09-00:01.500Z",
            "2026-05-14T09:00:01.5a0Z",
            "2026-05-14T09:00:01.5001234567Z",
            "2026-05-14T09:00:01.5001234568Z",
            "2026-05-14T09:00:01.5001234566Z",
            "not a time at all, 24 b",
        ];
        let nanos = |text: &str| Timestamp::nanos_of(text).ok();
        for a in stamps {
            for b in stamps {
                for c in stamps {
                    let mut meta = RunMeta::new(Provider::Gemini);
                    let mut expected: Option<(&str, i128)> = None;
                    for stamp in [a, b, c] {
                        meta.saw_time(stamp);
                        if let Some(at) = nanos(stamp)
                            && expected.is_none_or(|(_, latest)| at > latest)
                        {
                            expected = Some((stamp, at));
                        }
                    }
                    let case = format!("{a} / {b} / {c}");
                    let Some((latest, at)) = expected else {
                        assert_eq!(meta.source_times, None, "{case}");
                        continue;
                    };
                    let times = meta.source_times.expect("a valid stamp seen");
                    assert_eq!(times.last.as_str(), latest, "{case}");
                    assert_eq!(times.last_nanos, at, "{case}");
                    assert_eq!(times.last_tail, minute_tail(latest.as_bytes()), "{case}");
                }
            }
        }
    }

    #[test]
    fn only_a_known_provider_makes_a_result_run_metadata() {
        assert_eq!(of(json!({"provider": "mistral", "usage": {}})), None);
        assert_eq!(of(json!({"usage": {"input_tokens": 1}})), None);
        assert_eq!(of(json!("done")), None);
        assert_eq!(of(Value::Null), None);
        assert_eq!(
            of(json!({"provider": "gemini"})),
            Some(RunMeta::new(Provider::Gemini))
        );
    }
}
