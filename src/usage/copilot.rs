//! Copilot CLI's usage: a session log's token counts, by the rules `axt import`
//! transcribes a session with (`import::copilot`'s plan, then the Copilot adapter's run
//! usage).
//!
//! * A session log is the session's run; each sub-agent's events (those with a non-empty
//!   `agentId`) are a run of their own. When any `session.shutdown` of the log has
//!   `modelMetrics`, the sub-agents' runs count nothing (the shutdown counts every agent:
//!   the importer's `usage_in`).
//! * A run counts, as the adapter counts it: its `session.shutdown` records'
//!   `modelMetrics` (per model, `usage.inputTokens` including the cache reads and writes;
//!   a shutdown whose every model's counts are at least the previous one's is the same
//!   process's running total and replaces it, else a new leg, added); without a shutdown
//!   with a model's usage, its `assistant.usage` records (per API call) added; without
//!   those, its `assistant.message` records' `outputTokens` added.
//! * A shutdown's tokens go to the day of its record and the model `modelMetrics` names
//!   them by; an `assistant.usage`'s to its day and model (the run's last where it names
//!   none); the messages' `outputTokens` to their days and the run's last model, the one
//!   `axt stats` prices the run with (as the adapter sets it: the `model` of a tool, usage
//!   or tools-updated event, `session.start`'s `selectedModel`, `session.model_change`'s
//!   `newModel`, `session.shutdown`'s `currentModel`; `auto` and empty names not taken by
//!   the last three).
//!
//! A session that ended has its totals in its last lines: the log is read first for only
//! its `session.start` and `session.shutdown` events, known by the type Copilot writes
//! first in every event (`{"type":"session.shutdown",...`; a line written otherwise, or
//! that does not end as an object does, is read too). When the session's run has no
//! shutdown totals (a session still running, an older CLI), the log is read again for
//! every event whose type can carry a count or a model (a tool event only when it holds a
//! `model` field, found by a byte search, or an escape that could spell one). A line is
//! read typed and borrowed (its `data` left raw, then read for only the fields above); a
//! line of another type is not read at all, so a line torn within a record yet ending in
//! `}` is reported by `axt import`, not here, and a record the adapter refuses for a field
//! this reader does not read (a `success` that is no boolean) is counted here.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use memchr::memmem;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::codex::escapes_ascii;
use super::lines::scan;
use super::tally::SessionUsage;
use crate::import::{SessionFiles, copilot_fallback_id};
use crate::model::Usage;
use crate::normalize::copilot::model_metrics;

/// An event's envelope, as the adapter's `Event` reads it (`type` required, each field
/// once, strings or `null`).
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "agentId", borrow, default)]
    agent: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
}

/// The fields of an event's `data` this reader needs, typed as the adapter's `Data` has
/// them (a field of another type refuses the record there and here).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Data<'a> {
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    selected_model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    new_model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    current_model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_tokens: Option<u64>,
    #[serde(default)]
    cache_write_tokens: Option<u64>,
    #[serde(default)]
    reasoning_tokens: Option<u64>,
    #[serde(default)]
    model_metrics: Option<Value>,
}

/// The event types whose `data` a run's usage or model depends on.
fn read_data(kind: &str) -> bool {
    matches!(
        kind,
        "assistant.message"
            | "assistant.usage"
            | "tool.execution_start"
            | "tool.execution_complete"
            | "session.tools_updated"
            | "session.start"
            | "session.model_change"
            | "session.shutdown"
    )
}

/// Whether every model of `before` is in `now` with no count lower: the same process's
/// running total (the adapter's `ShutdownUsage::add`).
fn running_total(now: &[(String, Usage)], before: &[(String, Usage)]) -> bool {
    before.iter().all(|(model, before)| {
        now.iter()
            .find(|(m, _)| m == model)
            .is_some_and(|(_, now)| {
                now.input_tokens >= before.input_tokens
                    && now.output_tokens >= before.output_tokens
                    && now.cache_read_tokens >= before.cache_read_tokens
                    && now.cache_write_tokens >= before.cache_write_tokens
                    && now.reasoning_tokens >= before.reasoning_tokens
            })
    })
}

/// The day of a record's `timestamp` (empty when undated).
fn day(time: Option<&str>) -> String {
    time.and_then(|t| t.get(..10))
        .unwrap_or_default()
        .to_owned()
}

/// One run's counts, as the adapter keeps them.
#[derive(Default)]
struct Run {
    /// The run's model so far (the adapter's `meta.model`).
    model: Option<String>,
    /// The shutdowns' legs: each the day of its last shutdown and its counts per model.
    legs: Vec<(String, Vec<(String, Usage)>)>,
    /// `assistant.usage` by day and the model it names.
    calls: BTreeMap<(String, Option<String>), Usage>,
    /// `assistant.message`'s `outputTokens` by day.
    outputs: BTreeMap<String, u64>,
}

impl Run {
    fn event(&mut self, kind: &str, time: Option<&str>, data: Data<'_>) {
        let named = |name: Option<Cow<'_, str>>| {
            name.filter(|m| !m.is_empty() && m != "auto")
                .map(Cow::into_owned)
        };
        match kind {
            "assistant.message" => {
                *self.outputs.entry(day(time)).or_default() += data.output_tokens.unwrap_or(0);
            }
            "tool.execution_start" | "tool.execution_complete" | "session.tools_updated" => {
                if let Some(model) = data.model {
                    self.model = Some(model.into_owned());
                }
            }
            "assistant.usage" => {
                let model = data.model.map(Cow::into_owned);
                if model.is_some() {
                    self.model.clone_from(&model);
                }
                let cache_read = data.cache_read_tokens.unwrap_or(0);
                let cache_write = data.cache_write_tokens.unwrap_or(0);
                let usage = Usage {
                    input_tokens: (data.input_tokens.unwrap_or(0))
                        .saturating_sub(cache_read + cache_write),
                    output_tokens: data.output_tokens.unwrap_or(0),
                    cache_read_tokens: cache_read,
                    cache_write_tokens: cache_write,
                    reasoning_tokens: data.reasoning_tokens.unwrap_or(0),
                };
                self.calls
                    .entry((day(time), model))
                    .or_default()
                    .add(&usage);
            }
            "session.start" => {
                if let Some(model) = named(data.selected_model) {
                    self.model = Some(model);
                }
            }
            "session.model_change" => {
                if let Some(model) = named(data.new_model) {
                    self.model = Some(model);
                }
            }
            "session.shutdown" => {
                if let Some(model) = named(data.current_model) {
                    self.model = Some(model);
                }
                let per_model = data.model_metrics.as_ref().map(model_metrics);
                if let Some(per_model) = per_model.filter(|p| !p.is_empty()) {
                    match self.legs.last_mut() {
                        Some(last) if running_total(&per_model, &last.1) => {
                            *last = (day(time), per_model);
                        }
                        _ => self.legs.push((day(time), per_model)),
                    }
                }
            }
            _ => {}
        }
    }

    /// The run's tokens into `usage`: the shutdowns', else the calls', else the messages'.
    fn end(self, usage: &mut SessionUsage) {
        let model = self.model.unwrap_or_default();
        if !self.legs.is_empty() {
            for (day, per_model) in &self.legs {
                for (name, tokens) in per_model {
                    usage.add(Some(day), name, tokens);
                }
            }
        } else if !self.calls.is_empty() {
            for ((day, own), tokens) in &self.calls {
                usage.add(Some(day), own.as_deref().unwrap_or(&model), tokens);
            }
        } else {
            for (day, output_tokens) in self.outputs {
                let tokens = Usage {
                    output_tokens,
                    ..Usage::default()
                };
                usage.add(Some(&day), &model, &tokens);
            }
        }
    }
}

/// What a read of the log gives.
#[derive(Default)]
struct Session {
    /// The first `session.start`'s `sessionId` (the importer's run id).
    id: Option<String>,
    /// A shutdown has `modelMetrics`: the sub-agents count none.
    totals: bool,
    root: Run,
    agents: BTreeMap<String, Run>,
    usage: SessionUsage,
}

/// What says whether a line must be read.
struct Sieve {
    model: memmem::Finder<'static>,
    escape: memmem::Finder<'static>,
}

/// The type of an event written as Copilot writes every event, `{"type":"<type>",...`
/// (a plain string first); `None` for any other line.
fn kind_first(line: &[u8]) -> Option<&[u8]> {
    let rest = line.strip_prefix(b"{\"type\":\"")?;
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    (rest[end] == b'"').then(|| &rest[..end])
}

impl Sieve {
    fn new() -> Sieve {
        Sieve {
            // `model"`, `selectedModel"`, `newModel"`, `currentModel"`.
            model: memmem::Finder::new(b"odel\""),
            escape: memmem::Finder::new(b"\\u00"),
        }
    }

    /// Whether `bytes` must be read: with `all`, every line that can hold a count or a
    /// model; else only the start and the shutdowns. A line whose type, written first,
    /// is another is not read: the adapter refuses a record that gives its type twice, so
    /// that type is the record's or the record is none. Nor is a tool or tools-updated
    /// event that holds no model field (nor an escape that could spell one).
    fn wants(&self, bytes: &[u8], all: bool) -> bool {
        if bytes.last() != Some(&b'}') {
            // Torn, or not as Copilot writes: read (and reported, if it is no record).
            return true;
        }
        let Some(kind) = kind_first(bytes) else {
            return true;
        };
        match kind {
            b"session.start" | b"session.shutdown" => true,
            b"assistant.message" | b"assistant.usage" | b"session.model_change" => all,
            b"tool.execution_start" | b"tool.execution_complete" | b"session.tools_updated" => {
                all && (self.model.find(bytes).is_some() || escapes_ascii(&self.escape, bytes))
            }
            _ => false,
        }
    }
}

/// Reads the log, the lines the sieve passes (`all`: see [`Sieve::wants`]).
fn read_log(path: &Path, sieve: &Sieve, all: bool) -> io::Result<Session> {
    let mut session = Session::default();
    scan(path, |line| {
        let usage = &mut session.usage;
        if line.too_long {
            usage.line_too_long(path, (line.number, line.offset));
            return;
        }
        if !sieve.wants(line.bytes, all) {
            return;
        }
        let refused = |usage: &mut SessionUsage, error: serde_json::Error| {
            usage.unreadable(path, (line.number, line.offset), &error);
        };
        let event: Event<'_> = match serde_json::from_slice(line.bytes) {
            Ok(event) => event,
            Err(error) => return refused(usage, error),
        };
        let time = event.timestamp.as_deref();
        if let Some(time) = time {
            usage.saw(time);
        }
        let kind = &*event.kind;
        // An object's fields; `null`, an absent `data` or any other value: none (the
        // adapter passes such an event through).
        let raw = event.data.filter(|raw| raw.get().starts_with('{'));
        let Some(raw) = raw.filter(|_| read_data(kind)) else {
            return;
        };
        let data: Data<'_> = match serde_json::from_str(raw.get()) {
            Ok(data) => data,
            Err(error) => return refused(usage, error),
        };
        if kind == "session.start" && session.id.is_none() {
            session.id = data.session_id.as_deref().map(str::to_owned);
        }
        if kind == "session.shutdown" && data.model_metrics.is_some() {
            session.totals = true;
        }
        let run = match event.agent.filter(|a| !a.is_empty()) {
            None => &mut session.root,
            Some(agent) => session.agents.entry(agent.into_owned()).or_default(),
        };
        run.event(kind, time, data);
    })?;
    Ok(session)
}

/// One session log's usage.
pub(super) fn read(files: &SessionFiles) -> io::Result<SessionUsage> {
    let path = files.main.as_deref().unwrap_or(Path::new(""));
    let sieve = Sieve::new();
    let mut session = read_log(path, &sieve, false)?;
    // The totals of the session's run are all it counts when the log has them (the
    // sub-agents then count none); else every count and model is read.
    if !session.totals || session.root.legs.is_empty() {
        session = read_log(path, &sieve, true)?;
    }
    let Session {
        id,
        totals,
        root,
        agents,
        mut usage,
    } = session;
    usage.agent = "Copilot CLI";
    root.end(&mut usage);
    if !totals {
        for run in agents.into_values() {
            run.end(&mut usage);
        }
    }
    // The importer's run id: the session's id, else the session's directory's name (the
    // file's stem in the older layout).
    let fallback = copilot_fallback_id(path);
    usage.session = id.filter(|id| !id.is_empty()).unwrap_or(fallback);
    Ok(usage)
}
