//! OpenAI Codex CLI: `codex exec --json`, in all three of its generations, and its session
//! files (`~/.codex/sessions/.../rollout-*.jsonl`, the `rollout` room).
//!
//! The generation is recognised per record, so a stream is read whichever CLI wrote it:
//!
//! * **current** (0.44 and later): `thread.started`, `turn.started|completed|failed`,
//!   `item.started|updated|completed` with `item.type`, top-level `error`;
//! * **interim** (0.42–0.43): the same events with `item.item_type`, `assistant_message`
//!   for `agent_message`, and `session.created` for `thread.started`;
//! * **legacy** (0.41 and earlier): a config line (no `type`: `model`, `sandbox`,
//!   `approval`, `workdir`, ...), a `{"prompt": ...}` line, then `{"id", "msg": {"type"}}`.
//!
//! How items become blocks (role in brackets; tool ids are item ids, legacy `call_id`s):
//!
//! * `agent_message` / `assistant_message` / legacy `agent_message` → `text` (assistant);
//!   `reasoning` / legacy `agent_reasoning` → `thinking` (assistant); the legacy prompt line
//!   → `text` (user).
//! * `command_execution` → `tool_use` named `shell` with input `{"command"}` (legacy: the
//!   argv shell-quoted, plus `cwd`) and a `command` block (assistant), handed out as soon as
//!   the command starts; its `tool_result` (user) at completion, with `aggregated_output`
//!   (legacy: `aggregated_output`, else stdout then stderr), `exit_code`, and `is_error` when
//!   the status is `failed`/`declined` or the exit code is not 0. `item.updated` repeats the
//!   whole output so far: nothing is handed out for it, the latest copy is kept in case the
//!   completion's output is empty (openai/codex#10141).
//! * `file_change` / legacy `patch_apply_begin|end` → `tool_use` named `apply_patch` with
//!   input `{"changes": [{path, kind, diff?, content?, move_path?}]}`, then its `tool_result`
//!   (the status; legacy stdout and stderr); `kind` is read as a string or as `{"type"}`.
//! * `mcp_tool_call` / legacy `mcp_tool_call_begin|end` → `tool_use` named
//!   `mcp__<server>__<tool>` (the name Codex gives the model), input the call's `arguments`;
//!   result `result.content`, else `error.message`; legacy `{"Ok": {content, isError}}` or
//!   `{"Err": "..."}`.
//! * `collab_tool_call` → `tool_use` named after its tool (`spawn_agent`, `wait`, ...) with
//!   the thread ids and prompt as input; result the `agents_states`.
//! * `web_search` / legacy `web_search_end` → `tool_use` named `web_search` with input
//!   `{"query"}` (and `action` where the CLI gives one) and its `tool_result` (`results`, where
//!   given), both at completion: the start carries no query yet.
//! * `todo_list`, `plan` and item types added after this was written are kept as
//!   passthrough metadata; an unknown type also gets an `unknown-block-type` warning.
//!
//! Run metadata: the session from `thread.started` / `session.created` / legacy
//! `session_configured`; the model from the legacy config line or `session_configured`.
//! Usage in `turn.completed` is the thread's running total, so each one replaces the last;
//! legacy `token_count` is either that total (`info.total_token_usage`, replaces) or one
//! model response's usage (flat, added up). Codex counts cached input inside
//! `input_tokens`; axt's `input_tokens` is the uncached part. `error` records and items are
//! non-fatal run errors (Codex reports transient retries that way); `turn.failed` is fatal
//! and fails the run for good; `turn.completed` (and legacy `task_complete`) completes it.
//! A stream that ends with a turn still open gets a `missing-terminal` warning and stays
//! incomplete. `exec --json` records carry no time (some versions put one on
//! `thread.started` alone, which would date the whole run at its start): events take the
//! clock's.
//!
//! A command item's start and completion as the CLI writes them (most of a stream's bytes)
//! are read by a skim of their line, its output never unescaped (`item`), and so are a
//! completed message's and reasoning's (their text unescaped once, not copied through the
//! parser's buffer); any other shape, by the parser.
//!
//! The record shapes of the three generations and the known-field tables are in `wire`;
//! a session file's records (`{"timestamp", "type", "payload"}`: `session_meta`,
//! `response_item`, `event_msg`, `turn_context`, `compacted`) are read by `rollout`, which
//! hands the conversation's Responses items to the OpenAI adapter's reading of them; this
//! file reads the records and keeps the state between them.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::driver::{Adapter, Driver};
use super::framing::{Lines, Record};
use super::json::{Borrowed, JsonParser, Parsed, to_value};
use super::report::Fate;
use super::tools::PendingTools;
use super::{
    Diagnostic, DiagnosticKind, Item, Normalizer, Options, Output, Provider, RunError, RunMeta,
    RunStatus, Source, StopKind, StopReason,
};
use crate::model::tools::shell_join;
use crate::model::{Block, ContentBlock, Fidelity, Role, ToolOutput};

mod item;
mod rollout;
mod wire;

use item::Skimmed;
use rollout::{Rollout, RolloutLine};
use wire::{Line, LineShape, Msg, RawItem, TokenUsage};

/// Whether a record looks like `codex exec --json` output of any generation.
pub(crate) fn claims(record: &Value) -> bool {
    let Some(object) = record.as_object() else {
        return false;
    };
    match object.get("type").and_then(Value::as_str) {
        // A session file's record: a rollout type with its payload.
        Some(kind) if rollout::is_rollout(kind) => {
            object.get("payload").is_some_and(Value::is_object)
                && object.get("timestamp").is_some_and(Value::is_string)
        }
        Some(kind) => {
            kind == "session.created"
                || ["thread.", "turn.", "item."]
                    .iter()
                    .any(|prefix| kind.starts_with(prefix))
        }
        None if object.contains_key("type") => false,
        // Legacy: `{"id", "msg": {"type"}}`, the config line, the prompt line.
        None => {
            object
                .get("msg")
                .and_then(|msg| msg.get("type"))
                .is_some_and(Value::is_string)
                || (object.contains_key("model")
                    && ["sandbox", "approval", "workdir"]
                        .iter()
                        .any(|key| object.contains_key(*key)))
                || (object.len() == 1 && object.get("prompt").is_some_and(Value::is_string))
        }
    }
}

/// The Codex normalizer: the shared line driver around this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    let state = State::new();
    Driver::<Lines, State>::new(&options, state)
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::Codex;
    // `exec --json` has no stamps.
    const STAMPED: bool = false;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        let Output { items, diagnostics } = out;
        // A command's line, most of the bytes, and a message's or reasoning's, are read
        // without the parser where they can be.
        match item::skim(record.bytes).filter(|_| self.skim) {
            Some(Skimmed::Command(command)) => {
                let slot = parser
                    .tally
                    .see((command.event(), Some("command_execution")));
                self.command(command, record, items, diagnostics);
                parser.tally.fate(slot, Fate::Mapped);
                return;
            }
            Some(Skimmed::Said { kind, text }) => {
                let slot = parser.tally.see(("item.completed", Some(kind)));
                said(kind, text, record, items);
                parser.tally.fate(slot, Fate::Mapped);
                return;
            }
            None => {}
        }
        // A session file's call output, most of its bytes, likewise.
        if self.skim
            && let Some(output) = rollout::skim(record.bytes)
        {
            let slot = parser.tally.see(("response_item", Some(output.kind)));
            let fate = self
                .rollout
                .call_output(output, record, &mut self.meta, items, diagnostics);
            parser.tally.fate(slot, fate);
            return;
        }
        parser.parse_in::<LineShape>(record, diagnostics, |line, parsed, diagnostics| {
            self.line(line, record, parsed, items, diagnostics)
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        self.tools.report_dangling(&mut out.diagnostics);
        if self.rollout.seen() {
            self.rollout.finish(&mut out.diagnostics);
            // A session file has no terminal record: complete as far as it goes when its
            // reader says the file is whole (an importer), else said to be cut short.
            if !self.complete && !self.saw_terminal {
                if self.meta.status != RunStatus::Failed {
                    self.meta.status = RunStatus::Incomplete;
                }
                let (line, offset) = last;
                out.diagnostics.push(Diagnostic::new(
                    DiagnosticKind::MissingTerminal,
                    line,
                    offset,
                    "a session file has no terminal record; read whole (axt import), it is complete as far as it goes; the run is incomplete".to_owned(),
                ));
            }
            return;
        }
        if !self.saw_terminal || self.turn_open {
            if self.meta.status != RunStatus::Failed {
                self.meta.status = RunStatus::Incomplete;
            }
            let (line, offset) = last;
            let what = if self.saw_terminal {
                "the stream ended inside a turn (no turn.completed or turn.failed after its turn.started)"
            } else {
                "the stream ended without a terminal record (turn.completed, turn.failed or task_complete)"
            };
            // Line 0 when no record came: the driver places it at the end of the input.
            out.diagnostics.push(Diagnostic::new(
                DiagnosticKind::MissingTerminal,
                line,
                offset,
                format!("{what}; the run is incomplete"),
            ));
        }
    }

    fn meta(&self) -> &RunMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut RunMeta {
        &mut self.meta
    }

    fn complete(&mut self) {
        self.complete = true;
    }
}

// ---------------------------------------------------------------------------------------
// The state between records.

#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Started,
    Updated,
    Completed,
}

/// A tool call as it is handed out: its name, its input, and the command it runs, if any.
struct Call {
    name: String,
    input: Value,
    command: Option<String>,
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    /// The latest `aggregated_output` an `item.updated` carried, per running command.
    latest_output: std::collections::HashMap<String, String>,
    /// A terminal record was seen (`turn.completed`, `turn.failed`, `task_complete`).
    saw_terminal: bool,
    /// A turn (or legacy task) started after the last terminal record.
    turn_open: bool,
    /// A session file's records, when the input is one.
    rollout: Rollout,
    /// The caller says the input is whole ([`Adapter::complete`]).
    complete: bool,
    /// Item lines are skimmed ([`item::skim`]); `false` only where a test holds the
    /// skim to the parse.
    skim: bool,
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::Codex),
            tools: PendingTools::default(),
            latest_output: Default::default(),
            saw_terminal: false,
            turn_open: false,
            rollout: Rollout::new(),
            complete: false,
            skim: true,
        }
    }

    fn line(
        &mut self,
        line: Line<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let Some(kind) = line.kind.clone() else {
            return self.untyped(line, record, parsed, items, diagnostics);
        };
        if rollout::is_rollout(&kind)
            && let Some(payload) = &line.payload
        {
            let line = RolloutLine {
                kind: &kind,
                payload,
                timestamp: line.timestamp.as_deref(),
            };
            return self
                .rollout
                .record(line, record, &mut self.meta, items, diagnostics);
        }
        let kind = &*kind;
        let phase = match kind {
            "item.started" => Some(Phase::Started),
            "item.updated" => Some(Phase::Updated),
            "item.completed" => Some(Phase::Completed),
            _ => None,
        };
        if let Some(phase) = phase {
            return match line.item {
                Some(item) => self.item((phase, kind), item, record, parsed, items, diagnostics),
                None => {
                    diagnostics.push(shape(record, &format!("{kind} without `item`")));
                    Fate::Skipped
                }
            };
        }
        match kind {
            "thread.started" | "session.created" => {
                if let Some(id) = line.thread_id.or(line.session_id) {
                    self.meta.session_id = Some(id.into_owned());
                }
            }
            "turn.started" => self.turn_open = true,
            "turn.completed" => self.turn_completed(line, record),
            "turn.failed" => {
                let message = error_message(line.error.as_ref())
                    .unwrap_or_else(|| "the turn failed".to_owned());
                self.fail(message, record);
            }
            "error" => {
                let message = match &line.message {
                    Some(Value::String(text)) => text.clone(),
                    _ => error_message(line.error.as_ref())
                        .unwrap_or_else(|| "error record without a message".to_owned()),
                };
                self.error(message, record);
            }
            other => {
                self.passthrough(record, other);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// Records without `type`: the legacy generation.
    fn untyped(
        &mut self,
        line: Line<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        if let Some(msg) = line.msg {
            return self.legacy(msg, record, parsed, items, diagnostics);
        }
        if let Some(prompt) = line.prompt {
            let block = Block::text(prompt.into_owned());
            emit(items, block, Role::User, record);
            return Fate::Mapped;
        }
        if let Some(model) = line.model {
            self.meta.model = Some(model.into_owned());
            self.passthrough(record, "config");
            return Fate::Mapped;
        }
        diagnostics.push(shape(
            record,
            "a record with neither `type` nor `msg` nor the legacy config keys",
        ));
        Fate::Skipped
    }

    fn turn_completed(&mut self, line: Line<'_>, record: Record<'_>) {
        self.terminal();
        if let Some(usage) = line.usage {
            // The thread's running total: replace, never add.
            if let Some(total) = TokenUsage::read(&usage) {
                self.meta.usage = total;
            }
            self.meta.raw_usage = Some(usage);
        }
        if let Some(ms) = line.duration_ms.as_ref().and_then(Value::as_u64) {
            *self.meta.duration_ms.get_or_insert(0) += ms;
        }
        match line.status.as_ref().and_then(Value::as_str) {
            None | Some("completed") => {
                if line.status.is_some() {
                    self.meta.stop_reason = Some(StopReason {
                        kind: StopKind::EndTurn,
                        raw: "completed".to_owned(),
                    });
                }
                if self.meta.status != RunStatus::Failed {
                    self.meta.status = RunStatus::Completed;
                }
            }
            Some(other) => {
                let kind = match other {
                    "interrupted" => StopKind::Aborted,
                    "failed" => StopKind::Error,
                    _ => StopKind::Other,
                };
                self.fail(format!("the turn ended with status {other}"), record);
                self.meta.stop_reason = Some(StopReason {
                    kind,
                    raw: other.to_owned(),
                });
            }
        }
    }

    fn terminal(&mut self) {
        self.saw_terminal = true;
        self.turn_open = false;
    }

    fn fail(&mut self, message: String, record: Record<'_>) {
        self.terminal();
        self.meta.status = RunStatus::Failed;
        self.meta.stop_reason = Some(StopReason {
            kind: StopKind::Error,
            raw: "turn.failed".to_owned(),
        });
        self.meta.errors.push(RunError {
            message,
            fatal: true,
            line: record.line,
        });
    }

    fn error(&mut self, message: String, record: Record<'_>) {
        self.meta.errors.push(RunError {
            message,
            fatal: false,
            line: record.line,
        });
    }

    fn passthrough(&mut self, record: Record<'_>, kind: &str) {
        self.meta.keep(record.line, kind, || to_value(record.bytes));
    }

    // -----------------------------------------------------------------------------------
    // Current and interim items.

    /// An item of `event` (`item.started`, ...), in its phase.
    fn item(
        &mut self,
        (phase, event): (Phase, &str),
        mut item: RawItem<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let kind = item
            .kind
            .clone()
            .or(item.item_type.clone())
            .map_or(Cow::Borrowed(""), |kind| kind.0);
        let kind = &*kind;
        let done = phase == Phase::Completed;
        match kind {
            // Messages, reasoning and error items are read when they complete; their start
            // and updates carry nothing the completion does not repeat.
            "agent_message" | "assistant_message" | "reasoning" | "error" if !done => {
                return Fate::Ignored;
            }
            "agent_message" | "assistant_message" | "reasoning" => {
                said(kind, owned(item.text), record, items);
            }
            "error" => {
                let message = item.message.or(item.text).map_or_else(
                    || "error item without a message".to_owned(),
                    Borrowed::into_owned,
                );
                self.error(message, record);
            }
            "command_execution" | "file_change" | "mcp_tool_call" | "collab_tool_call"
            | "web_search" => {
                let Some(id) = item.id.as_deref().filter(|id| !id.is_empty()) else {
                    diagnostics.push(shape(record, &format!("a {kind} item without `id`")));
                    return Fate::Skipped;
                };
                let id = id.to_owned();
                if phase == Phase::Updated
                    && let Some(output) = &item.aggregated_output
                {
                    self.latest_output.insert(id.clone(), output.to_string());
                }
                // A web search's start has no query yet: it is handed out when it completes.
                if !self.tools.is_waiting(&id) && (done || kind != "web_search") {
                    self.call(&id, item_call(kind, &mut item), record, items);
                }
                if done {
                    let result = self.item_result(kind, &id, item, parsed);
                    self.result(&id, result, record, items, diagnostics);
                }
            }
            "todo_list" | "plan" => {
                self.keep_item(event, kind, record);
                return Fate::Passthrough;
            }
            other => {
                self.keep_item(event, other, record);
                if done {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticKind::UnknownBlockType,
                        record.line,
                        record.offset,
                        format!(
                            "item type {other:?} has no canonical form; kept in the run metadata"
                        ),
                    ));
                }
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// Keeps an item as passthrough. The record is parsed again (as a tree) only if it is
    /// kept: past the run's passthrough bounds it is only counted, and a turn's plan
    /// (`todo_list`, updated after every step) is most of a long run's passthrough.
    fn keep_item(&mut self, event: &str, kind: &str, record: Record<'_>) {
        self.meta.keep(record.line, &format!("{event}/{kind}"), || {
            let mut raw = to_value(record.bytes);
            raw.get_mut("item").map(Value::take).unwrap_or(raw)
        });
    }

    fn item_result(
        &mut self,
        kind: &str,
        id: &str,
        item: RawItem<'_>,
        parsed: Parsed<'_>,
    ) -> ToolOutcome {
        let status = item.status.as_deref().unwrap_or("");
        let failed = matches!(status, "failed" | "declined");
        match kind {
            "command_execution" => {
                // Nearly every byte of `exec --json` is a command's output, which goes out
                // as the record escaped it.
                let output = match item.aggregated_output {
                    Some(Borrowed(output)) if !output.is_empty() => Some(parsed.output(output)),
                    _ => None,
                };
                self.command_outcome(id, output, status, item.exit_code)
            }
            "file_change" => ToolOutcome {
                content: Value::String(status.to_owned()).into(),
                is_error: failed,
                exit_code: None,
            },
            "mcp_tool_call" => {
                let error = error_message(item.error.as_ref());
                let content = match item.result {
                    Some(Value::Object(mut result)) => {
                        result.remove("content").unwrap_or(Value::Object(result))
                    }
                    Some(other) if !other.is_null() => other,
                    _ => error.clone().map_or(Value::Null, Value::String),
                };
                ToolOutcome {
                    content: content.into(),
                    is_error: failed || error.is_some(),
                    exit_code: None,
                }
            }
            "collab_tool_call" => ToolOutcome {
                content: item.agents_states.unwrap_or(Value::Null).into(),
                is_error: failed,
                exit_code: None,
            },
            _ => ToolOutcome {
                content: item.results.unwrap_or(Value::Null).into(),
                is_error: failed,
                exit_code: None,
            },
        }
    }

    /// A command's item as [`item::skim`] read it from its line: what [`State::item`]
    /// makes of the same item parsed.
    fn command(
        &mut self,
        command: item::Command<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let id = command.id;
        if !self.tools.is_waiting(id) {
            self.call(id, shell_call(command.command.into_owned()), record, items);
        }
        if command.done {
            let status = command.status.unwrap_or("");
            let outcome = self.command_outcome(id, command.output, status, command.exit_code);
            self.result(id, outcome, record, items, diagnostics);
        }
    }

    /// How a command ended: its output (`None` when the completion carried none: then the
    /// latest copy an `item.updated` carried, openai/codex#10141), status and exit code.
    fn command_outcome(
        &mut self,
        id: &str,
        output: Option<ToolOutput>,
        status: &str,
        exit_code: Option<i64>,
    ) -> ToolOutcome {
        let latest = self.latest_output.remove(id);
        ToolOutcome {
            content: output.unwrap_or_else(|| Value::String(latest.unwrap_or_default()).into()),
            is_error: matches!(status, "failed" | "declined")
                || exit_code.is_some_and(|code| code != 0),
            exit_code,
        }
    }

    // -----------------------------------------------------------------------------------
    // Legacy `{id, msg}` events.

    fn legacy(
        &mut self,
        msg: Msg<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        match &*msg.kind {
            "session_configured" => {
                if let Some(id) = msg.session_id {
                    self.meta.session_id = Some(id.into_owned());
                }
                if let Some(model) = msg.model {
                    self.meta.model = Some(model.into_owned());
                }
            }
            "task_started" => self.turn_open = true,
            "task_complete" => {
                self.terminal();
                if self.meta.status != RunStatus::Failed {
                    self.meta.status = RunStatus::Completed;
                }
            }
            "agent_message" => {
                let text = owned(msg.message);
                emit(items, Block::text(text), Role::Assistant, record);
            }
            "agent_reasoning" => {
                let thinking = Block::Thinking {
                    thinking: owned(msg.text),
                    signature: None,
                    redacted: false,
                };
                emit(items, thinking, Role::Assistant, record);
            }
            // Deltas repeat what the complete events carry.
            "agent_message_delta"
            | "agent_reasoning_delta"
            | "agent_reasoning_raw_content_delta"
            | "agent_reasoning_section_break"
            | "exec_command_output_delta"
            | "web_search_begin" => return Fate::Ignored,
            "exec_command_begin" => {
                let command = match &msg.command {
                    Some(Value::Array(argv)) => shell_join(argv),
                    Some(Value::String(command)) => command.clone(),
                    _ => String::new(),
                };
                let mut input = Map::new();
                input.insert("command".into(), Value::String(command.clone()));
                if let Some(cwd) = msg.cwd {
                    input.insert("cwd".into(), Value::String(cwd.into_owned()));
                }
                let call = Call {
                    name: "shell".into(),
                    input: Value::Object(input),
                    command: Some(command),
                };
                self.call(&owned(msg.call_id), call, record, items);
            }
            "exec_command_end" => {
                let content = match msg.aggregated_output {
                    Some(Borrowed(output)) if !output.is_empty() => parsed.output(output),
                    _ => Value::String(owned(msg.stdout) + msg.stderr.as_deref().unwrap_or(""))
                        .into(),
                };
                let outcome = ToolOutcome {
                    content,
                    is_error: msg.exit_code.is_some_and(|code| code != 0),
                    exit_code: msg.exit_code,
                };
                self.result(&owned(msg.call_id), outcome, record, items, diagnostics);
            }
            "patch_apply_begin" => {
                let call = Call {
                    name: "apply_patch".into(),
                    input: input_of("changes", changes(msg.changes.as_ref())),
                    command: None,
                };
                self.call(&owned(msg.call_id), call, record, items);
            }
            "patch_apply_end" => {
                let content = owned(msg.stdout) + msg.stderr.as_deref().unwrap_or("");
                let outcome = ToolOutcome {
                    content: Value::String(content).into(),
                    is_error: msg.success == Some(false),
                    exit_code: None,
                };
                self.result(&owned(msg.call_id), outcome, record, items, diagnostics);
            }
            "mcp_tool_call_begin" | "mcp_tool_call_end" => {
                let id = owned(msg.call_id);
                if !self.tools.is_waiting(&id)
                    && let Some(invocation) = &msg.invocation
                {
                    let call = mcp_call(
                        invocation.get("server").and_then(Value::as_str),
                        invocation.get("tool").and_then(Value::as_str),
                        invocation.get("arguments").cloned(),
                    );
                    self.call(&id, call, record, items);
                }
                if msg.kind == "mcp_tool_call_end" {
                    let outcome = legacy_mcp_result(msg.result);
                    self.result(&id, outcome, record, items, diagnostics);
                }
            }
            "web_search_end" => {
                let id = owned(msg.call_id);
                let call = Call {
                    name: "web_search".into(),
                    input: input_of("query", msg.query.unwrap_or(Value::Null)),
                    command: None,
                };
                self.call(&id, call, record, items);
                let outcome = ToolOutcome {
                    content: Value::Null.into(),
                    is_error: false,
                    exit_code: None,
                };
                self.result(&id, outcome, record, items, diagnostics);
            }
            "token_count" => self.token_count(record),
            "error" | "stream_error" => {
                let message = msg.message.map_or_else(
                    || format!("{} without a message", msg.kind),
                    Borrowed::into_owned,
                );
                self.error(message, record);
            }
            other => {
                self.passthrough(record, other);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// Legacy token counts: the running total (`info.total_token_usage`) replaces; the
    /// older flat shape is one model response's usage and is added.
    fn token_count(&mut self, record: Record<'_>) {
        let raw = to_value(record.bytes);
        let msg = &raw["msg"];
        match msg.pointer("/info/total_token_usage") {
            Some(total) => {
                if let Some(usage) = TokenUsage::read(total) {
                    self.meta.usage = usage;
                    self.meta.raw_usage = Some(total.clone());
                }
            }
            // `info: null` comes before the first response.
            None if msg.get("info").is_some() => {}
            None => {
                if let Some(usage) = TokenUsage::read(msg) {
                    self.meta.usage.add(&usage);
                }
            }
        }
    }

    // -----------------------------------------------------------------------------------
    // Handing out calls and results.

    fn call(&mut self, id: &str, call: Call, record: Record<'_>, items: &mut Vec<Item>) {
        self.tools.open(id, &call.name, record.line, record.offset);
        let tool_use = Block::ToolUse {
            tool_name: call.name,
            tool_id: id.to_owned(),
            tool_input: call.input,
            server: false,
            incomplete: false,
            permission: None,
        };
        emit(items, tool_use, Role::Assistant, record);
        if let Some(command) = call.command {
            let tool_id = Some(id.to_owned()).filter(|id| !id.is_empty());
            emit(
                items,
                Block::Command { command, tool_id },
                Role::Assistant,
                record,
            );
        }
    }

    fn result(
        &mut self,
        id: &str,
        outcome: ToolOutcome,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.tools
            .answer(id, record.line, record.offset, diagnostics);
        let result = Block::ToolResult {
            tool_id: id.to_owned(),
            tool_content: outcome.content,
            is_error: outcome.is_error,
            exit_code: outcome.exit_code,
        };
        emit(items, result, Role::User, record);
    }
}

/// How a tool call ended.
struct ToolOutcome {
    content: ToolOutput,
    is_error: bool,
    exit_code: Option<i64>,
}

/// The tool call an item of a tool kind stands for. The fields it reads are taken out of
/// `item` (its result reads none of them), not copied.
fn item_call(kind: &str, item: &mut RawItem<'_>) -> Call {
    match kind {
        "command_execution" => shell_call(match item.command.take() {
            Some(Value::String(command)) => command,
            Some(Value::Array(argv)) => shell_join(&argv),
            _ => String::new(),
        }),
        "file_change" => Call {
            name: "apply_patch".into(),
            input: input_of("changes", changes(item.changes.as_ref())),
            command: None,
        },
        "mcp_tool_call" => mcp_call(
            item.server.as_deref(),
            item.tool.as_deref(),
            item.arguments.take(),
        ),
        "collab_tool_call" => {
            let mut input = Map::new();
            for (key, value) in [
                ("sender_thread_id", &mut item.sender_thread_id),
                ("receiver_thread_ids", &mut item.receiver_thread_ids),
                ("prompt", &mut item.prompt),
            ] {
                if let Some(value) = value.take().filter(|v| !v.is_null()) {
                    input.insert(key.into(), value);
                }
            }
            Call {
                name: item
                    .tool
                    .as_deref()
                    .unwrap_or("collab_tool_call")
                    .to_owned(),
                input: Value::Object(input),
                command: None,
            }
        }
        _ => {
            let mut input = input_of("query", item.query.take().unwrap_or(Value::Null));
            if let Some(action) = item.action.take().filter(|a| !a.is_null()) {
                input["action"] = action;
            }
            Call {
                name: "web_search".into(),
                input,
                command: None,
            }
        }
    }
}

/// A command's call: `shell`, its input the command.
fn shell_call(command: String) -> Call {
    Call {
        name: "shell".into(),
        input: input_of("command", Value::String(command.clone())),
        command: Some(command),
    }
}

/// A tool input of one field, `{name: value}`. Not `json!`, which copies an interpolated
/// value (it serializes it into a new tree).
fn input_of(name: &str, value: Value) -> Value {
    Value::Object(Map::from_iter([(name.to_owned(), value)]))
}

/// An MCP call is named `mcp__<server>__<tool>`, as Codex names MCP tools to the model.
fn mcp_call(server: Option<&str>, tool: Option<&str>, arguments: Option<Value>) -> Call {
    Call {
        name: format!("mcp__{}__{}", server.unwrap_or(""), tool.unwrap_or("")),
        input: arguments
            .filter(|a| !a.is_null())
            .unwrap_or_else(|| Value::Object(Map::new())),
        command: None,
    }
}

/// A legacy MCP result: Rust's `Result` serialised, `{"Ok": {content, isError}}` or
/// `{"Err": "..."}`.
fn legacy_mcp_result(result: Option<Value>) -> ToolOutcome {
    let (content, is_error) = match result {
        Some(Value::Object(mut result)) => match (result.remove("Ok"), result.remove("Err")) {
            (Some(Value::Object(mut ok)), _) => {
                let is_error = ok
                    .get("isError")
                    .or(ok.get("is_error"))
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let content = ok.remove("content").unwrap_or(Value::Object(ok));
                (content, is_error)
            }
            (Some(other), _) => (other, false),
            (None, Some(error)) => (error, true),
            (None, None) => (Value::Object(result), false),
        },
        other => (other.unwrap_or(Value::Null), false),
    };
    ToolOutcome {
        content: content.into(),
        is_error,
        exit_code: None,
    }
}

/// File changes as `[{path, kind, diff?, content?, move_path?}]`, from the current list
/// (`kind` a string or `{"type"}`) or the legacy map `{path: {"add"|"update"|"delete": {..}}}`.
fn changes(raw: Option<&Value>) -> Value {
    let mut out = Vec::new();
    let mut push = |path: &Value, kind: &str, details: Option<&Value>, diff: Option<&Value>| {
        let mut change = Map::new();
        change.insert("path".into(), path.clone());
        change.insert("kind".into(), Value::String(kind.to_owned()));
        let field = |name: &str| details.and_then(|d| d.get(name)).filter(|v| !v.is_null());
        if let Some(diff) = diff.filter(|v| !v.is_null()).or(field("unified_diff")) {
            change.insert("diff".into(), diff.clone());
        }
        for name in ["content", "move_path"] {
            if let Some(value) = field(name) {
                change.insert(name.into(), value.clone());
            }
        }
        out.push(Value::Object(change));
    };
    match raw {
        Some(Value::Array(list)) => {
            for change in list {
                let path = change.get("path").unwrap_or(&Value::Null);
                let (kind, details) = match change.get("kind") {
                    Some(Value::String(kind)) => (kind.as_str(), None),
                    Some(kind @ Value::Object(object)) => (
                        object.get("type").and_then(Value::as_str).unwrap_or(""),
                        Some(kind),
                    ),
                    _ => ("", None),
                };
                push(path, kind, details, change.get("diff"));
            }
        }
        Some(Value::Object(map)) => {
            for (path, change) in map {
                let path = Value::String(path.clone());
                match change.as_object() {
                    Some(object) if object.contains_key("type") => {
                        let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
                        push(&path, kind, Some(change), None);
                    }
                    Some(object) => match object.iter().next() {
                        Some((kind, details)) => push(&path, kind, Some(details), None),
                        None => push(&path, "", None, None),
                    },
                    None => push(&path, change.as_str().unwrap_or(""), None, None),
                }
            }
        }
        _ => {}
    }
    Value::Array(out)
}

/// `{"message": ...}` (or a bare string) as the error's text.
fn error_message(error: Option<&Value>) -> Option<String> {
    match error? {
        Value::String(text) => Some(text.clone()),
        Value::Null => None,
        other => Some(match other.get("message") {
            Some(Value::String(text)) => text.clone(),
            _ => other.to_string(),
        }),
    }
}

/// A completed message (`agent_message`, `assistant_message`) or `reasoning` item, with its
/// text, as its block: parsed or skimmed ([`item::skim`]) alike.
fn said(kind: &str, text: String, record: Record<'_>, items: &mut Vec<Item>) {
    let block = if kind == "reasoning" {
        Block::Thinking {
            thinking: text,
            signature: None,
            redacted: false,
        }
    } else {
        Block::text(text)
    };
    emit(items, block, Role::Assistant, record);
}

fn owned(text: Option<Borrowed<'_>>) -> String {
    text.map(Borrowed::into_owned).unwrap_or_default()
}

fn emit(items: &mut Vec<Item>, block: Block, role: Role, record: Record<'_>) {
    items.push(Item {
        block: ContentBlock::new(Fidelity::AgentEmitted, block),
        role,
        message_id: None,
        agent: None,
        subagent: None,
        source: Source::record(record.line, record.offset),
        time: None,
    });
}

fn shape(record: Record<'_>, what: &str) -> Diagnostic {
    Diagnostic::new(
        DiagnosticKind::UnexpectedShape,
        record.line,
        record.offset,
        format!("{what}, skipped"),
    )
}

/// What the adapter makes of `input` with its skims on or off: the skims' tests
/// (`item.rs`, `rollout/skim.rs`) read each input both ways and compare.
#[cfg(test)]
fn read_skimmed_or_parsed(input: &[u8], skim: bool) -> (Vec<Item>, RunMeta, Vec<Diagnostic>) {
    let mut state = State::new();
    state.skim = skim;
    let mut normalizer = Driver::<Lines, State>::new(&Options::default(), state);
    let mut out = Output::default();
    normalizer.push(input, &mut out);
    normalizer.finish(&mut out);
    (out.items, normalizer.meta().clone(), out.diagnostics)
}

/// Every `.jsonl` file of the corpus whose path names Codex: its normalize fixtures and its
/// import stores' session files, which the skims' tests read both ways.
#[cfg(test)]
fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("corpus dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.to_string_lossy().contains("codex")
                && path.extension().is_some_and(|e| e == "jsonl")
            {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 20, "{files:?}");
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claims_every_generation_and_nothing_of_claude() {
        for record in [
            json!({"type": "thread.started", "thread_id": "t"}),
            json!({"type": "turn.completed", "usage": {}}),
            json!({"type": "item.plan.delta", "item_id": "item_0", "delta": "x"}),
            json!({"type": "session.created", "session_id": "s"}),
            json!({"model": "codex-mini-latest", "sandbox": "read-only", "approval": "never"}),
            json!({"prompt": "hi"}),
            json!({"id": "0", "msg": {"type": "task_started"}}),
        ] {
            assert!(claims(&record), "{record}");
        }
        for record in [
            json!({"type": "system", "subtype": "init", "session_id": "s", "model": "m"}),
            json!({"type": "assistant", "message": {}, "session_id": "s"}),
            json!({"type": "error", "message": "x"}),
            json!({"model": "m"}),
            json!({"prompt": "hi", "type": "user"}),
        ] {
            assert!(!claims(&record), "{record}");
        }
    }
}
