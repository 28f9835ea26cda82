//! Claude Code: `claude -p --output-format stream-json --verbose [--include-partial-messages]`.
//!
//! Shapes follow Claude Code 2.1.x (the CLI's own wire schema lists 42 record types).
//! How each record is read:
//!
//! * `assistant`: each line carries one content block of an Anthropic message; the lines of
//!   one message share `message.id` and repeat its usage so far. Blocks: `text` (its
//!   `citations`, and the `citations_delta`s of partial messages, as the block's citations);
//!   `thinking` (signature kept); `redacted_thinking` (a thinking block with `redacted` and
//!   the opaque data as its signature); `tool_use`, plus a `command` block after it for a
//!   shell tool ([`crate::model::tools`]); `server_tool_use` (a `tool_use` with `server`) and its `*_tool_result`.
//!   Usage is counted once per message id, from the *last* snapshot (the copies grow as the
//!   message streams; summing them, or keeping the first, miscounts).
//! * `user`: tool results (`tool_result`, content a string or a block array, `is_error`),
//!   each checked against the tool calls seen; string or text content is user text.
//! * `stream_event` (`--include-partial-messages`): text, thinking, signature and
//!   `input_json` deltas are assembled per content block. Every block then arrives twice:
//!   as deltas and in a consolidated `assistant` line. Both orders are seen in the wild: the
//!   line before the block's `content_block_stop` (Claude Code 2.1.27x) and after it; it can
//!   also come after `message_stop`, carry one block (2.x) or the whole message, or be
//!   missing. Each block is handed out once, from whichever channel completes it first: at
//!   its stop from the deltas, or at once from a consolidated copy that fits the deltas so
//!   far. Copies are matched with streamed blocks by tool id, by index (a whole-message
//!   line), else by type and content (`MessageBlocks::reconcile`); a line sent twice
//!   (same `uuid`) adds nothing. A copy that differs from its deltas is reported
//!   (`stream-mismatch`, a warning) and the version handed out first is kept. An `error`
//!   event (the API cut the response) is a run error. A message's state ends when the next
//!   message of its scope starts streaming: a copy arriving after that would not be
//!   recognised (Claude Code writes a message's lines before it asks the model again).
//! * `result`: the run's status (`is_error` is the failure flag: an API error is reported
//!   with subtype `success`), stop reason, usage, cost, duration, turns, errors, and the
//!   final answer (`result`, kept as the run's `answer`). The run's usage is the sum of
//!   `modelUsage` over its models: `usage` counts the main loop only, without sub-agents,
//!   sidechains and auxiliary calls (the captures of 2.1.178 show it; the cost includes
//!   them); `usage` is kept verbatim as the raw usage, and is the run's usage when
//!   `modelUsage` is missing (older CLIs). Both `modelUsage` and `total_cost_usd` are the
//!   running totals of the Claude Code process, restated by every result (one per turn of
//!   a streaming-input run): the latest of each session stands, never their sum (a
//!   `/clear`'s new session is added). From Claude Code 2.1.277 on they are the running
//!   totals of the *session*, earlier runs it resumed included: the run's `usage_scope` is
//!   then `session` ([`UsageScope`](crate::model::UsageScope)). `permission_denials`,
//!   `modelUsage`, `structured_output` (`--json-schema`) and `deferred_tool_use` are kept as
//!   passthrough.
//! * `system/model_refusal_fallback` (`retracted_message_uuids`) and an assistant line's
//!   `supersedes`: Claude Code withdrew records it had delivered (a refused reply, retried
//!   on a fallback model). The transcript is written as records come, so their blocks stay;
//!   the withdrawal is reported (`retracted`, a warning) and listed in the run's
//!   `retracted`, by message and tool ids.
//! * `system/init` gives the session, model and CLI version; every other record
//!   (`system/*`, `rate_limit_event`, types added after this was written) is kept as
//!   passthrough metadata, never an error.
//!
//! Sub-agent traffic is interleaved in the same stream and carries `parent_tool_use_id`;
//! it becomes each item's `agent` scope.
//!
//! Claude Code's session-log entries (`~/.claude/projects/…`, what `axt import` reads) carry
//! the same `message` shapes and are read the same way; an entry is known by its camel-case
//! `parentUuid` or `sessionId`, gives the session id, and its `timestamp` is the source time
//! of what it holds. Stream-json stamps only some `user` lines: those are not used, as a run
//! dated partly by the source and partly by the clock would go backwards.
//!
//! The seed's simplified format (`claude-code-transcript-format.txt`) is read too, line by
//! line, mixed with stream-json or alone: `{role, content}` lines are messages; bare
//! `text` and `tool_use` lines are assistant blocks (a call without `id` gets
//! `axt-tool-<n>`, as `axt import` names it); a `tool_result` line (`output`) answers its
//! `tool_use_id`, or, without one, the oldest call still waiting; `error` is a run error;
//! `stop` ends the run (failed if it says `success: false`) and a `result` line
//! (`result`, `success`) completes it. Such lines carry no `session_id` or `uuid`.
//!
//! The files: this one holds the adapter's state and the dispatch of a record by type;
//! `wire` the record shapes and known-field tables; `blocks` a block in canonical form;
//! `messages` the consolidated `assistant` and `user` lines and retractions; `recent` the
//! latest records a retraction can name; `partial` the
//! stream deltas and their reconciliation with the consolidated copies; `simplified` the
//! seed's format; `result` the terminal record; `family` the records of the other agents that
//! write this dialect, `goose` Goose's and `cline` Cline's. Each file adds to `State` what its records
//! need; none of them imports a file that imports it.

use std::collections::HashSet;

// foldhash, not std's SipHash, for the tables a record's ids are looked up in (every
// assistant and user line is remembered by its uuid, every message's usage by its id): several
// times faster, and still seeded per table (foldhash's RandomState).
use foldhash::{HashMap, HashMapExt};

use serde::Deserialize;
use serde_json::Value;

use super::driver::{Adapter, Driver};
use super::framing::{Lines, Record};
use super::json::{JsonParser, Parsed, to_value};
use super::report::Fate;
use super::tools::{PendingTools, missing_terminal};
use super::{
    Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunError, RunMeta,
    Usage,
};

mod blocks;
mod cline;
mod family;
use family::DroidRecord;
mod goose;
mod messages;
mod partial;
mod recent;
mod result;
mod simplified;
mod skimmed;
mod wire;

use super::messages_api::{Message, MessageUsage};
use partial::{MessageBlocks, MessageKey};
use recent::Recent;
use wire::{Line, LineShape};

/// Whether the first record of an output looks like Claude Code stream-json, or like the
/// seed's simplified format. The simplified shapes are told from Gemini's `tool_use`,
/// `tool_result` and `error` lines (`tool_name`, `tool_id`, `severity`) and from the
/// `result` lines of Gemini and Copilot (`status`, `sessionId`) by their own fields.
pub(crate) fn claims(first: &Value) -> bool {
    let has = |field: &str| first.get(field).is_some();
    match first.get("type").and_then(Value::as_str) {
        Some("system" | "assistant" | "user" | "result" | "stream_event")
            if has("session_id") || has("message") =>
        {
            true
        }
        None => {
            !has("type")
                && matches!(
                    first.get("role").and_then(Value::as_str),
                    Some("user" | "assistant")
                )
                && has("content")
        }
        // Cline's first record: its run's start, or an agent event.
        Some("run_start") => has("providerId") || has("modelId"),
        Some("agent_event") => first.get("event").is_some_and(Value::is_object),
        // Goose's first record: a message, or its model.
        Some("message") => first.get("message").is_some_and(Value::is_object),
        Some("model_change") => has("model") && has("mode"),
        Some("text") => first.get("text").is_some_and(Value::is_string),
        Some("tool_use") => has("name") && !has("tool_name"),
        Some("tool_result") => (has("output") || has("tool_use_id")) && !has("tool_id"),
        // The API's own error body has the same shape, with the `request_id` the seed's
        // lines never carry.
        Some("error") => {
            first.get("error").is_some_and(Value::is_object)
                && !has("severity")
                && !has("request_id")
        }
        Some("stop") => has("stop_reason"),
        Some("result") => has("success") && !has("subtype") && !has("status") && !has("sessionId"),
        _ => false,
    }
}

/// A message's `usage` object as [`Usage`], `None` when it is not one. The field names are
/// this dialect's: whoever reads Claude usage outside a record (the session-log importer,
/// for the entries off the thread) asks here rather than naming them again.
pub(crate) fn message_usage(usage: &Value) -> Option<Usage> {
    MessageUsage::deserialize(usage)
        .ok()
        .map(MessageUsage::to_usage)
}

/// The Claude normalizer: JSON Lines, driven through this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    Driver::<Lines, State>::new(&options, State::new())
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::Claude;
    // Stream-json stamps only some lines; session-log entries, read by `axt import`, are
    // dated one by one, and nothing is held for them.
    const STAMPED: bool = false;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        if cline::is_cline(self, record.bytes) {
            let Output { items, diagnostics } = out;
            parser.parse::<cline::ClineShape>(record, diagnostics, |line, diagnostics| {
                self.cline_line(line, record, items, diagnostics)
            });
            return;
        }
        if self.skimmed(parser, record, out) {
            return;
        }
        let Output { items, diagnostics } = out;
        parser.parse_in::<LineShape>(record, diagnostics, |line, parsed, diagnostics| {
            self.line(line, (record, parsed), items, diagnostics)
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        self.flush_family(&mut out.items, &mut out.diagnostics);
        for message in std::mem::take(&mut self.messages) {
            self.end_message(
                message,
                "the input ended",
                &mut out.items,
                &mut out.diagnostics,
            );
        }
        self.tools.report_dangling(&mut out.diagnostics);
        self.meta.usage = match self.settle_totals() {
            Some(usage) => usage,
            None => {
                let mut total = Usage::default();
                for id in &self.message_order {
                    total.add(&self.message_usage[id].to_usage());
                }
                total
            }
        };
        if self.meta.usage == Usage::default()
            && let Some(usage) = self.family_usage
        {
            self.meta.usage = usage;
        }
        if self.meta.cost_usd.is_none() {
            self.meta.cost_usd = self.family_cost;
        }
        if !self.saw_result {
            let (line, offset) = last;
            out.diagnostics
                .push(missing_terminal(line, offset, "a result record"));
        }
    }

    fn meta(&self) -> &RunMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut RunMeta {
        &mut self.meta
    }

    fn complete(&mut self) {
        // A session log has no `result` record: its end is no missing terminal.
        self.saw_result = true;
    }
}

// ---------------------------------------------------------------------------------------
// The state between records.
struct State {
    meta: RunMeta,
    tools: PendingTools,
    /// The last usage snapshot of each message, in first-seen order.
    message_usage: HashMap<String, MessageUsage>,
    message_order: Vec<String>,
    /// The assistant messages whose blocks are being reconciled: the latest of each scope,
    /// and one still streaming when a consolidated line of another message came.
    messages: Vec<MessageBlocks>,
    /// Per sub-agent scope (`None`: main thread), the message its stream events belong to.
    streaming: HashMap<Option<String>, MessageKey>,
    saw_result: bool,
    /// What the `result` records said the run spent, which takes precedence over the
    /// per-message sums.
    totals: result::Totals,
    /// Tool call ids made up for simplified-format calls that have none.
    made_ids: u64,
    /// The latest assistant and user records, by `uuid`, for a retraction to name.
    recent: Recent,
    /// The `uuid`s already withdrawn: withdrawing one again is nothing new.
    withdrawn: HashSet<String>,
    /// Text a family agent's deltas are making (see `family`).
    family_text: Option<family::FamilyText>,
    /// Letta Code's `usage_statistics`, added up; Cline's running totals.
    family_usage: Option<Usage>,
    /// Cline's cost, which Claude Code's results do not say.
    family_cost: Option<f64>,
    /// The last texts the family's deltas made (continuation key and text), each until its
    /// whole copy is seen: Cursor can write it after the tool call that closed the segment,
    /// Cline after the next kind of delta.
    family_closed: Vec<(String, String)>,
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::Claude),
            tools: PendingTools::default(),
            message_usage: HashMap::new(),
            message_order: Vec::new(),
            messages: Vec::new(),
            streaming: HashMap::new(),
            saw_result: false,
            totals: result::Totals::default(),
            made_ids: 0,
            recent: Recent::default(),
            withdrawn: HashSet::new(),
            family_text: None,
            family_usage: None,
            family_cost: None,
            family_closed: Vec::new(),
        }
    }

    /// A line of `record`, `parsed` the parse it was read from (for the outputs kept as the
    /// record escaped them).
    fn line(
        &mut self,
        line: Line<'_>,
        (record, parsed): (Record<'_>, Parsed<'_>),
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        if self.meta.session_id.is_none()
            && let Some(session) = line.session_id.as_ref().or(line.log_session_id.as_ref())
        {
            self.meta.session_id = Some(session.to_string());
        }
        // Stream-json stamps only some `user` lines: a run clocked partly by emission and
        // partly by the source would go backwards, so only session-log entries date events.
        if (line.parent_uuid.0 || line.log_session_id.is_some())
            && let Some(wire::Stamp::Text(time)) = &line.timestamp
        {
            self.meta.saw_time(time);
        }
        let agent = line.parent_tool_use_id.as_deref().map(str::to_owned);
        // The family's delta records (see `family`), and what ends their text.
        match line.kind.as_deref() {
            Some("assistant") if line.timestamp_ms.0 && !line.model_call_id.0 => {
                if !self.continues(Some(family::CURSOR_TEXT)) {
                    self.flush_family(items, diagnostics);
                }
                return self.cursor_delta(record);
            }
            Some("assistant") if self.continues(Some(family::CURSOR_TEXT)) => {
                if self.cursor_final(record, items, diagnostics) {
                    return Fate::Ignored;
                }
            }
            Some("assistant") if self.cursor_replays_closed(record) => return Fate::Ignored,
            Some("thinking") if line.subtype.is_some() => {
                if !self.continues(Some("cursor thinking")) {
                    self.flush_family(items, diagnostics);
                }
                return self.cursor_thinking(record, items, diagnostics);
            }
            Some("agent_event") => return self.cline_event(record, items, diagnostics),
            Some(
                kind @ ("run_start"
                | "run_result"
                | "run_aborted"
                | "run_abort_requested"
                | "team_event"
                | "hook_event"
                | "team_restored"),
            ) => {
                self.flush_family(items, diagnostics);
                return self.cline_record(kind, record);
            }
            Some("message") if line.role.is_none() && line.message.is_some() => {
                return self.goose_message(record, items, diagnostics);
            }
            Some(kind @ ("model_change" | "notification" | "complete")) => {
                self.flush_family(items, diagnostics);
                return self.goose_event(kind, record);
            }
            Some("error") if matches!(line.error.as_deref(), Some(Value::String(_))) => {
                self.flush_family(items, diagnostics);
                return self.goose_event("error", record);
            }
            Some("message") if line.role.is_some() => {
                return self.droid(DroidRecord::Message, record, items, diagnostics);
            }
            Some("message") => return self.letta_message(record, items, diagnostics),
            Some("tool_call") if line.subtype.is_none() => {
                return self.droid(DroidRecord::ToolCall, record, items, diagnostics);
            }
            Some("tool_result") if line.session_id.is_some() => {
                return self.droid(DroidRecord::ToolResult, record, items, diagnostics);
            }
            Some("completion") => {
                return self.droid(DroidRecord::Completion, record, items, diagnostics);
            }
            Some("tool_call") => {
                self.flush_family(items, diagnostics);
                return self.cursor_tool_call(record, items, diagnostics);
            }
            _ => self.flush_family(items, diagnostics),
        }
        if line.kind.is_none()
            && let Some(fate) = self.chat_message(record, items, diagnostics)
        {
            return fate;
        }
        let Some(kind) = line.kind.as_deref() else {
            // The seed's `{role, content}` line: a message without id, usage or scope.
            let message = Message {
                id: None,
                role: None,
                model: None,
                content: line.content.map(|content| *content),
                usage: None,
            };
            match line.role.as_deref() {
                Some("assistant") => {
                    self.assistant(Some(message), None, None, None, record, items, diagnostics)
                }
                Some("user") => {
                    let at = (record, parsed);
                    self.user(Some(message), None, None, at, items, diagnostics);
                }
                _ => {
                    diagnostics.push(shape(
                        record,
                        "a record with no `type` and no `role` of user or assistant",
                    ));
                    return Fate::Skipped;
                }
            }
            return Fate::Mapped;
        };
        match (kind, line.subtype.as_deref()) {
            ("assistant", _) => {
                if let Some(uuids) = &line.supersedes {
                    let by = "the assistant record on this line, which supersedes them,";
                    self.retract(uuids, by, record, diagnostics);
                }
                let uuid = line.uuid.as_deref();
                self.assistant(
                    line.message.map(|message| *message),
                    line.error.map(|error| *error),
                    uuid,
                    agent,
                    record,
                    items,
                    diagnostics,
                )
            }
            ("user", _) => {
                let uuid = line.uuid.as_deref();
                self.user(
                    line.message.map(|message| *message),
                    uuid,
                    agent,
                    (record, parsed),
                    items,
                    diagnostics,
                )
            }
            ("stream_event", _) => {
                self.stream_event(line.event, agent, record, items, diagnostics);
            }
            ("result", _) => self.result(line, record),
            ("text" | "tool_use" | "tool_result" | "error" | "stop", None)
                if line.session_id.is_none() && line.uuid.is_none() =>
            {
                self.simplified(
                    kind,
                    line.stop_reason.as_deref(),
                    line.success,
                    record,
                    items,
                    diagnostics,
                )
            }
            ("system", Some("init")) => {
                if let Some(version) = &line.claude_code_version {
                    self.meta.provider_version = Some(version.to_string());
                }
                if self.meta.model.is_none() {
                    self.meta.model = line.model.as_deref().map(str::to_owned);
                }
                let init = to_value(record.bytes);
                if let Some((name, version)) = family::agent_of_init(&init) {
                    self.saw_agent(name, version);
                }
                self.keep(record, "system/init", init);
                return Fate::Mapped;
            }
            ("system", Some("model_refusal_fallback")) => {
                let raw = to_value(record.bytes);
                let field = |name: &str| raw.get(name).and_then(Value::as_str).unwrap_or("?");
                let mut by = format!(
                    "the model refusal fallback on this line ({} -> {}, {}",
                    field("original_model"),
                    field("fallback_model"),
                    field("direction")
                );
                if let Some(category) = raw.get("api_refusal_category").and_then(Value::as_str) {
                    by.push_str(&format!(", category {category}"));
                }
                by.push(')');
                if let Some(uuids) = raw.get("retracted_message_uuids") {
                    self.retract(uuids, &by, record, diagnostics);
                }
                self.keep(record, "system/model_refusal_fallback", raw);
            }
            ("system", Some("api_retry")) => {
                let raw = to_value(record.bytes);
                let message = match raw.get("error") {
                    Some(Value::String(text)) => format!("API retry: {text}"),
                    Some(other) => format!("API retry: {other}"),
                    None => "API retry".to_owned(),
                };
                self.meta.errors.push(RunError {
                    message,
                    fatal: false,
                    line: record.line,
                });
                self.keep(record, "system/api_retry", raw);
            }
            (kind, subtype) => {
                let kind = match subtype {
                    Some(subtype) => format!("{kind}/{subtype}"),
                    None => kind.to_owned(),
                };
                self.passthrough(record, &kind);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    fn passthrough(&mut self, record: Record<'_>, kind: &str) {
        self.keep(record, kind, to_value(record.bytes));
    }

    fn keep(&mut self, record: Record<'_>, kind: &str, raw: Value) {
        self.meta.keep(record.line, kind, || raw);
    }

    fn run_error(&mut self, error: Option<String>, record: Record<'_>) {
        if let Some(message) = error {
            self.meta.errors.push(RunError {
                message,
                fatal: false,
                line: record.line,
            });
        }
    }
}

fn shape(record: Record<'_>, what: &str) -> Diagnostic {
    Diagnostic::new(
        DiagnosticKind::UnexpectedShape,
        record.line,
        record.offset,
        format!("{what}, skipped"),
    )
}

#[cfg(test)]
mod tests {
    use super::claims;
    use crate::normalize::{Options, Provider, Retraction, normalize_lossy};
    use serde_json::json;

    /// A `tool_result`'s string content is held as the record escaped it when that is the
    /// writer's escaping (the writer copies it), else as its text; any other content stays a
    /// tree. Either way it reads as the same value.
    #[test]
    fn a_tool_results_string_content_is_held_as_the_record_escaped_it() {
        let result = |id: &str, content: &str| {
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":{content}}}]}},"session_id":"s"}}"#
            )
        };
        let lines = [
            result("t1", r#""line \"one\"\n\ttab \\ é \u001f""#),
            result("t2", r#""a \/ slash \u00e9""#),
            result("t3", r#"[{"type":"text","text":"x"}]"#),
            result("t4", "null"),
            result("t5", r#""""#),
        ];
        let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
        let normalized = normalize_lossy(Provider::Claude, input.as_bytes(), Options::default());
        let outputs: Vec<_> = (normalized.items.iter())
            .filter_map(|item| match &item.block.block {
                crate::model::Block::ToolResult { tool_content, .. } => Some(tool_content),
                _ => None,
            })
            .collect();
        assert_eq!(outputs.len(), 5);
        let json = |n: usize| outputs[n].json().map(|json| String::from_utf8_lossy(json));
        assert_eq!(
            json(0).as_deref(),
            Some(r#""line \"one\"\n\ttab \\ é \u001f""#)
        );
        assert_eq!(*outputs[0], json!("line \"one\"\n\ttab \\ é \u{1f}"));
        // `\/` and a `\u` for a printable character are not the writer's: kept as the text.
        assert_eq!(json(1), None);
        assert_eq!(*outputs[1], json!("a / slash é"));
        assert_eq!(json(2), None);
        assert_eq!(*outputs[2], json!([{"type": "text", "text": "x"}]));
        assert_eq!(*outputs[3], json!(null));
        assert_eq!(*outputs[4], json!(""));
    }

    #[test]
    fn an_assistant_line_that_supersedes_earlier_ones_is_reported_once() {
        let assistant = |id: &str, uuid: &str, text: &str, supersedes: &[&str]| {
            json!({"type": "assistant", "message": {"id": id, "role": "assistant",
                "content": [{"type": "text", "text": text}]},
                "session_id": "s", "uuid": uuid, "supersedes": supersedes})
        };
        let user = json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "[withdrawn]"}]},
            "session_id": "s", "uuid": "u-2"});
        let lines = [
            assistant("msg_a", "u-1", "Refused half", &[]),
            user,
            assistant("msg_b", "u-3", "The retry", &["u-1", "u-2", "u-0"]),
            assistant("msg_b", "u-4", "More of the retry", &["u-1"]),
        ];
        let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
        let normalized = normalize_lossy(Provider::Claude, input.as_bytes(), Options::default());
        let reports: Vec<String> = (normalized.diagnostics.iter())
            .filter(|d| d.kind.as_str() == "retracted")
            .map(ToString::to_string)
            .collect();
        let offset = lines[0].to_string().len() + lines[1].to_string().len() + 2;
        assert_eq!(
            reports,
            [format!(
                "line 3 (byte {offset}): warning[retracted]: the assistant record on this line, which supersedes them, withdraws output already delivered: the records on lines 1, 2 (msg_a, toolu_1); their blocks stay in the transcript, listed in the run's `retracted`; and 1 record(s) not in this output"
            )]
        );
        assert_eq!(
            normalized.meta.retracted,
            [
                Retraction {
                    line: 1,
                    by_line: 3,
                    message_id: Some("msg_a".into()),
                    tool_ids: vec![],
                },
                Retraction {
                    line: 2,
                    by_line: 3,
                    message_id: None,
                    tool_ids: vec!["toolu_1".into()],
                },
            ]
        );
    }

    #[test]
    fn the_seed_format_is_claimed_and_its_look_alikes_are_not() {
        let seed = [
            json!({"role": "user", "content": "Fix the bug in auth.ts"}),
            json!({"type": "text", "text": "I'll analyze the auth module..."}),
            json!({"type": "tool_use", "name": "Read", "input": {"file_path": "/src/auth.ts"}}),
            json!({"type": "tool_result", "output": "[file contents]", "is_error": false}),
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            json!({"type": "stop", "stop_reason": "end_turn"}),
            json!({"type": "result", "result": "Task completed successfully", "success": true}),
        ];
        for line in &seed {
            assert!(claims(line), "{line}");
        }
        // Goose's and Cline's first records.
        let goose = [
            json!({"ts": "2026-08-22T10:00:00.000Z", "type": "run_start", "providerId": "anthropic",
                "modelId": "claude-sonnet-4-6", "catalog": "live", "thinking": "off", "mode": "act"}),
            json!({"ts": "2026-08-22T10:00:00.000Z", "type": "agent_event",
                "event": {"type": "iteration_start", "iteration": 1}}),
            json!({"type": "message", "message": {"id": "m", "role": "assistant", "content": []}}),
            json!({"type": "model_change", "model": "claude-sonnet-4-5", "mode": "auto"}),
        ];
        for line in &goose {
            assert!(claims(line), "{line}");
        }
        let others = [
            // Gemini CLI stream-json
            json!({"type": "tool_use", "timestamp": "2026-01-01T00:00:00Z", "tool_name": "read_file", "tool_id": "t1", "parameters": {}}),
            json!({"type": "tool_result", "timestamp": "2026-01-01T00:00:00Z", "tool_id": "t1", "status": "success", "output": "x"}),
            json!({"type": "error", "timestamp": "2026-01-01T00:00:00Z", "severity": "error", "message": "quota"}),
            json!({"type": "result", "timestamp": "2026-01-01T00:00:00Z", "status": "success"}),
            // Copilot CLI
            json!({"type": "result", "sessionId": "s", "exitCode": 0, "success": true}),
            // Codex exec --json
            json!({"type": "error", "message": "stream disconnected"}),
            // The Anthropic API's error body (HTTP 529)
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"},
                "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}),
            // A transcript event
            json!({"seq": 1, "run_id": "r", "type": "run.started", "path": ""}),
        ];
        for line in &others {
            assert!(!claims(line), "{line}");
        }
    }
}
