//! The adapter's state between records and the dispatch of a message: requests paired with
//! their responses, the session's setup, prompts and their turns, and each `session/update`
//! handed to the room that reads it.
//!
//! This room owns the run's metadata and the order of things; the blocks of messages, tool
//! calls and the client's service are made by `text`, `calls` and `client`.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::calls::{Calls, Change, Out};
use super::client::{self, Asked, Terminals};
use super::skim::{self, Skimmed};
use super::text::{Chunks, role_of};
use super::wire::{
    At, Hot, Line, LineShape, Patch, Side, ValueLine, block_text, id_key, sender_of, text,
};
use crate::model::{Block, Role, Timestamp};
use crate::normalize::driver::{Adapter, Driver};
use crate::normalize::framing::{Lines, Record};
use crate::normalize::json::{JsonParser, Parsed, to_value};
use crate::normalize::report::Fate;
use crate::normalize::tools::{PendingTools, missing_terminal};
use crate::normalize::{
    Diagnostic, Item, Normalizer, Options, Output, Provider, RunError, RunMeta, RunStatus,
    StopKind, StopReason, Usage,
};

/// The ACP normalizer: JSON Lines, driven through this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    Driver::<Lines, State>::new(&options, State::new())
}

/// One JSON-RPC message, unwrapped.
#[derive(Deserialize, Default)]
struct Message {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Value>,
    #[serde(default, deserialize_with = "super::wire::present")]
    result: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

/// A request waiting for its response.
struct Request {
    method: String,
    id: Value,
    params: Value,
    line: u64,
    offset: u64,
}

impl Request {
    fn asked(&self) -> Asked<'_> {
        Asked {
            method: &self.method,
            id: &self.id,
            params: &self.params,
            line: self.line,
            offset: self.offset,
        }
    }
}

struct State {
    meta: RunMeta,
    tools: PendingTools,
    /// Requests waiting for their response, by who sent them and their id.
    requests: HashMap<(Side, String), Request>,
    chunks: Chunks,
    calls: Calls,
    terminals: Terminals,
    /// A prompt is waiting for the end of its turn.
    prompt_open: bool,
    saw_prompt: bool,
    turns: i64,
    usage: Option<Usage>,
    /// The open prompt's text, which a v2 agent repeats as the turn's `user_message`.
    prompt: Option<String>,
    /// Every line is read whole, none from the hot path's typed fields: the tests' reference
    /// the hot path is held to.
    whole_lines_only: bool,
    /// Text chunks' and tool call updates' lines are read by a skim ([`skim`]); off, they
    /// are parsed (the tests' reference the skim is held to).
    skim: bool,
    /// A skimmed chunk's text that opens a block, kept for its allocation.
    skimmed: String,
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::Acp;
    // Bare JSON-RPC has no time; a wrapper's stamps date what follows them.
    const STAMPED: bool = false;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        if self.skim && !self.whole_lines_only && self.skimmed(parser, record, out) {
            return;
        }
        let Output { items, diagnostics } = out;
        parser.parse_in::<LineShape>(record, diagnostics, |line, parsed, diagnostics| {
            self.line(line, parsed, At { record }, items, diagnostics)
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        self.chunks.flush(&mut out.items);
        let record = Record::line(b"", last.0.max(1), last.1, true);
        let out_calls = Out {
            tools: &mut self.tools,
            terminals: &self.terminals,
            items: &mut out.items,
        };
        self.calls.finish(&At { record }, out_calls);
        self.tools.report_dangling(&mut out.diagnostics);
        if let Some(usage) = self.usage {
            self.meta.usage = usage;
        }
        if self.turns > 0 {
            self.meta.num_turns = Some(self.turns);
        }
        if self.prompt_open || !self.saw_prompt {
            let (line, offset) = last;
            let what = if self.saw_prompt {
                "the end of its last prompt's turn (the session/prompt response)"
            } else {
                "a session/prompt and the end of its turn"
            };
            out.diagnostics.push(missing_terminal(line, offset, what));
        }
    }

    fn meta(&self) -> &RunMeta {
        &self.meta
    }

    fn meta_mut(&mut self) -> &mut RunMeta {
        &mut self.meta
    }
}

impl State {
    fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::Acp),
            tools: PendingTools::default(),
            requests: HashMap::new(),
            chunks: Chunks::default(),
            calls: Calls::default(),
            terminals: Terminals::default(),
            prompt_open: false,
            saw_prompt: false,
            turns: 0,
            usage: None,
            prompt: None,
            whole_lines_only: false,
            skim: true,
            skimmed: String::new(),
        }
    }

    fn out<'o>(&'o mut self, items: &'o mut Vec<Item>) -> (&'o mut Calls, Out<'o>) {
        let out = Out {
            tools: &mut self.tools,
            terminals: &self.terminals,
            items,
        };
        (&mut self.calls, out)
    }

    /// Whether `record` is a line [`skim::skim`] reads: then taken as [`State::line`] takes
    /// it, and counted as the parse counts it. A chunk's text is unescaped straight onto the
    /// open block's where it continues it.
    fn skimmed(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) -> bool {
        let Some(skimmed) = skim::skim(record.bytes) else {
            return false;
        };
        let at = At { record };
        let (kind, fate) = match skimmed {
            Skimmed::Chunk(head) => match self.skimmed_chunk(&head, &at, &mut out.items) {
                Some(fate) => (head.kind, fate),
                None => return false,
            },
            Skimmed::Call { id, patch } => {
                let Output { items, diagnostics } = out;
                let fate = self.tool_call(Some(id), Change::Patch(patch), &at, items, diagnostics);
                ("tool_call_update", fate)
            }
        };
        let slot = parser.tally.see(("session/update", Some(kind)));
        parser.tally.fate(slot, fate);
        true
    }

    /// A chunk [`skim::skim`] read up to its text: what became of it, `None` when the rest of
    /// its line is not read ([`skim::text`]; then nothing is).
    fn skimmed_chunk(
        &mut self,
        head: &skim::Head<'_>,
        at: &At<'_>,
        items: &mut Vec<Item>,
    ) -> Option<Fate> {
        // A user's chunk may repeat the prompt, which only its whole text tells
        // ([`State::chunk`]): read aside first.
        if head.kind != "user_message_chunk" {
            let role = role_of(head.kind);
            let read = |text: &mut String| skim::text(head, text);
            if let Some(read) = (self.chunks).continue_with(role, head.message_id, at, read) {
                return read.then_some(Fate::Mapped);
            }
        }
        let mut text = std::mem::take(&mut self.skimmed);
        text.clear();
        let fate = skim::text(head, &mut text)
            .map(|()| self.chunk(head.kind, head.message_id, &text, at, items));
        self.skimmed = text;
        fate
    }

    /// A line: the text chunks and tool call updates that are most of an exchange's lines
    /// from their typed fields, every other line read again whole.
    fn line<'a>(
        &mut self,
        mut line: Line<'a>,
        parsed: Parsed<'a>,
        at: At<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let Some(hot) = line.hot(parsed).filter(|_| !self.whole_lines_only) else {
            let value = to_value(at.record.bytes);
            return match ValueLine::deserialize(&value) {
                Ok(line) => self.whole_line(line, at, items, diagnostics),
                // simd-json read the record, serde_json cannot: not seen yet.
                Err(_) => {
                    diagnostics.push(at.shape("a line only one of the JSON parsers reads"));
                    Fate::Skipped
                }
            };
        };
        if line.message.is_some()
            && let Some(time) = &line.timestamp
        {
            self.saw_time(time);
        }
        match hot {
            Hot::Chunk {
                kind,
                message_id,
                text,
            } => self.chunk(&kind, message_id.as_deref(), &text, &at, items),
            Hot::Call { id, patch } => {
                self.tool_call(id.as_deref(), Change::Patch(patch), &at, items, diagnostics)
            }
        }
    }

    /// A line read whole (see [`State::line`]).
    fn whole_line(
        &mut self,
        line: ValueLine<'_>,
        at: At<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let (message, side) = match line.message {
            Some(inner) => {
                if let Some(time) = &line.timestamp {
                    self.saw_time(time);
                }
                let side = line.direction.as_deref().and_then(Side::of_direction);
                match serde_json::from_value::<Message>(inner) {
                    Ok(message) => (message, side),
                    Err(_) => {
                        diagnostics
                            .push(at.shape("a wrapper whose message is not a JSON-RPC object"));
                        return Fate::Skipped;
                    }
                }
            }
            None => {
                let message = Message {
                    id: line.id,
                    method: line.method.map(|m| m.into_owned()),
                    params: line.params,
                    result: line.result,
                    error: line.error,
                };
                (message, None)
            }
        };
        match (message.method, message.id) {
            (Some(method), Some(id)) => {
                let params = message.params.unwrap_or(Value::Null);
                let request = Request {
                    method,
                    id,
                    params,
                    line: at.record.line,
                    offset: at.record.offset,
                };
                let fate = self.request(&request, &at, items, diagnostics);
                let side = side
                    .or_else(|| sender_of(&request.method))
                    .unwrap_or(Side::Client);
                if let Some(key) = id_key(&request.id) {
                    self.requests.insert((side, key), request);
                }
                fate
            }
            (Some(method), None) => {
                let params = message.params.unwrap_or(Value::Null);
                self.notification(&method, &params, &at, items, diagnostics)
            }
            (None, Some(id)) if message.result.is_some() || message.error.is_some() => {
                let Some(request) = self.take_request(&id, side, message.result.as_ref()) else {
                    diagnostics.push(at.shape(&format!(
                        "a response to request {id}, which this exchange never sent"
                    )));
                    return Fate::Skipped;
                };
                match message.error {
                    Some(error) => self.error_response(&request, &error, &at, items, diagnostics),
                    None => {
                        let result = message.result.unwrap_or(Value::Null);
                        self.response(&request, &result, &at, items, diagnostics)
                    }
                }
            }
            _ => {
                diagnostics.push(
                    at.shape("a JSON object that is no JSON-RPC request, notification or response"),
                );
                Fate::Skipped
            }
        }
    }

    /// The request a response answers: the responder's peer's, when the wrapper says who
    /// responded; else whichever side has a request of that id waiting, told apart by the
    /// result's shape when both have.
    fn take_request(
        &mut self,
        id: &Value,
        responder: Option<Side>,
        result: Option<&Value>,
    ) -> Option<Request> {
        let key = id_key(id)?;
        if let Some(responder) = responder {
            return self.requests.remove(&(responder.other(), key));
        }
        let waiting = |side| self.requests.get(&(side, key.clone())).map(|r| r.line);
        let requester = match (waiting(Side::Client), waiting(Side::Agent)) {
            (Some(_), None) => Side::Client,
            (None, Some(_)) => Side::Agent,
            (None, None) => return None,
            (Some(client), Some(agent)) => {
                let has = |field: &str| result.is_some_and(|r| r.get(field).is_some());
                let agents = ["outcome", "content", "terminalId", "output", "exitCode"];
                let clients = ["stopReason", "sessionId", "protocolVersion"];
                if agents.iter().any(|f| has(f)) {
                    Side::Agent
                } else if clients.iter().any(|f| has(f)) {
                    Side::Client
                } else if client > agent {
                    // The newer request: the other is the long one it was made during (a
                    // client's prompt, open for the whole turn, around an agent's file
                    // request of the same id).
                    Side::Client
                } else {
                    Side::Agent
                }
            }
        };
        self.requests.remove(&(requester, key))
    }

    fn request(
        &mut self,
        request: &Request,
        at: &At<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let params = &request.params;
        match request.method.as_str() {
            "initialize" | "session/new" => {}
            "session/load" | "session/resume" => {
                if let Some(session) = text(params, "sessionId") {
                    self.meta.session_id = Some(session.to_owned());
                }
            }
            "session/prompt" => self.prompt(params, at, items),
            "session/request_permission" => {
                self.chunks.flush(items);
                if !self.calls.asked(params, at) {
                    // No call named: kept as it is, and the decision with the answer.
                    self.keep(at, "session/request_permission", params);
                    return Fate::Passthrough;
                }
            }
            "fs/read_text_file" | "fs/write_text_file" => {
                self.chunks.flush(items);
                client::file_call(&request.asked(), at, &mut self.tools, items);
            }
            "terminal/release" => {
                self.chunks.flush(items);
                (self.terminals).released(params, at, &mut self.tools, items, diagnostics);
            }
            "terminal/create" | "terminal/output" | "terminal/wait_for_exit" | "terminal/kill" => {
                self.chunks.flush(items);
            }
            other => {
                self.keep(at, other, params);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    fn notification(
        &mut self,
        method: &str,
        params: &Value,
        at: &At<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        match method {
            "session/update" => match params.get("update") {
                Some(update) => self.update(update, at, items, diagnostics),
                None => {
                    diagnostics.push(at.shape("a session/update without its `update`"));
                    Fate::Skipped
                }
            },
            // The agent answers it: the prompt's stop reason says `cancelled`.
            "session/cancel" => Fate::Mapped,
            other => {
                self.keep(at, other, params);
                Fate::Passthrough
            }
        }
    }

    /// A `session/update`: see the module docs for what each kind becomes.
    fn update(
        &mut self,
        update: &Value,
        at: &At<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let Some(kind) = text(update, "sessionUpdate") else {
            diagnostics.push(at.shape("a session/update whose `update` has no `sessionUpdate`"));
            return Fate::Skipped;
        };
        let message_id = text(update, "messageId");
        match kind {
            "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk" => {
                let content = update.get("content").unwrap_or(&Value::Null);
                let Some(chunk) = block_text(content) else {
                    let of = text(content, "type").unwrap_or("?");
                    self.keep(at, &format!("session/update/{kind}/{of}"), update);
                    return Fate::Passthrough;
                };
                return self.chunk(kind, message_id, chunk, at, items);
            }
            "user_message"
                if (update.get("content").and_then(Value::as_array)).is_some_and(|blocks| {
                    let said: String = blocks.iter().filter_map(block_text).collect();
                    self.echoes_prompt(&said)
                }) =>
            {
                return Fate::Ignored;
            }
            "agent_message" | "agent_thought" | "user_message" => {
                let role = role_of(kind);
                let message_id = message_id.map(str::to_owned);
                (self.chunks).whole(role, message_id, update, at, items, diagnostics);
            }
            "tool_call" | "tool_call_update" | "tool_call_content_chunk" => {
                let change = if kind == "tool_call_content_chunk" {
                    Change::Append(update.get("content").filter(|c| !c.is_null()).cloned())
                } else {
                    Change::Patch(Patch::of(update))
                };
                let id = text(update, "toolCallId");
                return self.tool_call(id, change, at, items, diagnostics);
            }
            "usage_update" => {
                if let Some(cost) = update.get("cost")
                    && text(cost, "currency").is_none_or(|c| c.eq_ignore_ascii_case("USD"))
                    && let Some(amount) = cost.get("amount").and_then(Value::as_f64)
                {
                    self.meta.cost_usd = Some(amount);
                }
                // The context's size is the usage ACP v1 reports, unless a prompt response
                // gave the tokens.
                if self.usage.is_none() {
                    self.meta.raw_usage = Some(update.clone());
                }
            }
            "state_update" => {
                if text(update, "state") == Some("idle")
                    && let Some(reason) = text(update, "stopReason")
                {
                    self.chunks.flush(items);
                    self.turn_ended(reason);
                }
            }
            "terminal_update" | "terminal_output_chunk" => {
                self.terminals.agent_update(kind, update)
            }
            other => {
                if other == "config_option_update"
                    && let Some(model) = model_option(update.get("configOptions"))
                {
                    self.meta.model = Some(model.to_owned());
                }
                self.keep(at, &format!("session/update/{other}"), update);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// A chunk of a message's or thought's text: the user's repeating the open prompt is
    /// dropped.
    fn chunk(
        &mut self,
        kind: &str,
        message_id: Option<&str>,
        chunk: &str,
        at: &At<'_>,
        items: &mut Vec<Item>,
    ) -> Fate {
        if kind == "user_message_chunk" && self.echoes_prompt(chunk) {
            return Fate::Ignored;
        }
        (self.chunks).chunk(role_of(kind), message_id, chunk, at, items);
        Fate::Mapped
    }

    /// A tool call's update (`id` its `toolCallId`), or a v2 content chunk of one.
    fn tool_call(
        &mut self,
        id: Option<&str>,
        change: Change,
        at: &At<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        self.chunks.flush(items);
        let Some(id) = id else {
            diagnostics.push(at.shape("a tool call update without `toolCallId`"));
            return Fate::Skipped;
        };
        let (calls, out) = self.out(items);
        calls.update(id, change, at, out);
        Fate::Mapped
    }

    fn response(
        &mut self,
        request: &Request,
        result: &Value,
        at: &At<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        match request.method.as_str() {
            "initialize" => {
                // v1 `agentInfo`, v2 `info`.
                if let Some(info) = result.get("agentInfo").or_else(|| result.get("info")) {
                    self.meta.agent = text(info, "name").map(str::to_owned);
                    self.meta.provider_version = text(info, "version").map(str::to_owned);
                }
            }
            "session/new" | "session/load" | "session/resume" => {
                if let Some(session) = text(result, "sessionId") {
                    self.meta.session_id = Some(session.to_owned());
                }
                let model = (result.pointer("/models/currentModelId"))
                    .and_then(Value::as_str)
                    .or_else(|| model_option(result.get("configOptions")));
                if let Some(model) = model {
                    self.meta.model = Some(model.to_owned());
                }
                // Modes, models and config options: the session's settings, kept.
                let mut settings = result.clone();
                if let Some(fields) = settings.as_object_mut() {
                    fields.remove("sessionId");
                    if !fields.is_empty() {
                        self.keep(at, &format!("{} response", request.method), &settings);
                    }
                }
            }
            "session/prompt" => {
                self.chunks.flush(items);
                if let Some(usage) = result.get("usage") {
                    self.turn_usage(usage);
                }
                // v2 answers without one: the prompt is accepted, and its turn ends with an
                // idle state update.
                if let Some(reason) = text(result, "stopReason") {
                    self.turn_ended(reason);
                }
            }
            "session/request_permission" => {
                let (calls, out) = self.out(items);
                if let Some(decision) = calls.answered(&request.params, result, at, out) {
                    self.keep(at, "session/request_permission decision", &decision);
                }
            }
            "fs/read_text_file" | "fs/write_text_file" => {
                let content = match request.method.as_str() {
                    "fs/read_text_file" => result.get("content").cloned().unwrap_or(Value::Null),
                    _ => Value::Null,
                };
                let asked = request.asked();
                client::file_result(
                    &asked,
                    (content, false),
                    at,
                    &mut self.tools,
                    items,
                    diagnostics,
                );
            }
            "terminal/create" => {
                self.chunks.flush(items);
                let asked = request.asked();
                (self.terminals).created(&asked, result, at, &mut self.tools, items);
            }
            "terminal/output" | "terminal/wait_for_exit" => {
                self.terminals.reported(&request.asked(), result);
            }
            "terminal/kill" | "terminal/release" => {}
            other => {
                self.keep(at, &format!("{other} response"), result);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    fn error_response(
        &mut self,
        request: &Request,
        error: &Value,
        at: &At<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        let message = text(error, "message").unwrap_or("no message");
        let code = (error.get("code")).map_or_else(String::new, |code| format!(" (code {code})"));
        let said = format!("{} failed: {message}{code}", request.method);
        let asked = request.asked();
        match request.method.as_str() {
            "fs/read_text_file" | "fs/write_text_file" => {
                let result = (Value::String(said), true);
                client::file_result(&asked, result, at, &mut self.tools, items, diagnostics);
                return Fate::Mapped;
            }
            "terminal/create" => {
                self.chunks.flush(items);
                Terminals::refused(&asked, said, at, &mut self.tools, items, diagnostics);
                return Fate::Mapped;
            }
            "session/request_permission" => {
                let result = serde_json::json!({"outcome": {"outcome": "error", "error": error}});
                let (calls, out) = self.out(items);
                calls.answered(&request.params, &result, at, out);
            }
            _ => {}
        }
        let fatal = matches!(
            request.method.as_str(),
            "initialize" | "session/new" | "session/load" | "session/resume" | "session/prompt"
        );
        if request.method == "session/prompt" {
            self.chunks.flush(items);
            self.prompt_open = false;
            self.meta.stop_reason = Some(StopReason {
                kind: StopKind::Error,
                raw: said.clone(),
            });
        }
        if fatal {
            self.meta.status = RunStatus::Failed;
        }
        self.meta.errors.push(RunError {
            message: said,
            fatal,
            line: at.record.line,
        });
        Fate::Mapped
    }

    /// A `session/prompt`: its text is the user's.
    fn prompt(&mut self, params: &Value, at: &At<'_>, items: &mut Vec<Item>) {
        self.chunks.flush(items);
        self.prompt_open = true;
        self.saw_prompt = true;
        self.turns += 1;
        if self.meta.status == RunStatus::Completed {
            self.meta.status = RunStatus::Incomplete;
        }
        let blocks = params.get("prompt").and_then(Value::as_array);
        self.prompt = blocks.map(|blocks| blocks.iter().filter_map(block_text).collect());
        for block in blocks.into_iter().flatten() {
            match block_text(block) {
                Some(prompt) => {
                    items.push(Item::emitted(
                        Block::text(prompt),
                        Role::User,
                        None,
                        at.source(),
                    ));
                }
                None => {
                    let kind = text(block, "type").unwrap_or("?");
                    self.keep(at, &format!("session/prompt/{kind}"), block);
                }
            }
        }
    }

    /// Whether a user message of the open turn is its prompt's text, repeated (v2 reports
    /// where the prompt went in the history as a `user_message`): dropped, the prompt is read.
    fn echoes_prompt(&self, said: &str) -> bool {
        self.prompt_open && self.prompt.as_deref() == Some(said)
    }

    /// A turn ended with `reason` (the prompt's response, or v2's idle state update).
    fn turn_ended(&mut self, reason: &str) {
        self.prompt_open = false;
        let kind = match reason {
            "end_turn" => StopKind::EndTurn,
            "max_tokens" => StopKind::MaxTokens,
            "max_turn_requests" => StopKind::MaxTurns,
            "refusal" => StopKind::Refusal,
            "cancelled" => StopKind::Aborted,
            _ => StopKind::Other,
        };
        self.meta.stop_reason = Some(StopReason {
            kind,
            raw: reason.to_owned(),
        });
        if self.meta.status != RunStatus::Failed {
            self.meta.status = RunStatus::Completed;
        }
    }

    /// A turn's token usage (the prompt response's unstable `usage`), added to the run's.
    fn turn_usage(&mut self, usage: &Value) {
        let count = |field: &str| usage.get(field).and_then(Value::as_u64).unwrap_or(0);
        let (input, output) = (count("inputTokens"), count("outputTokens"));
        let (read, write) = (count("cachedReadTokens"), count("cachedWriteTokens"));
        let thoughts = count("thoughtTokens");
        let total = usage.get("totalTokens").and_then(Value::as_u64);
        // The total says what the parts hold: an input that counts the cache makes it
        // smaller than the parts' sum; thoughts counted beside the output make it larger
        // than the prompt and the output.
        let cached_inside = total.is_some_and(|total| total < input + output + read + write);
        let prompt = if cached_inside {
            input
        } else {
            input + read + write
        };
        let output = match total {
            Some(total) if thoughts > 0 && total >= prompt + output + thoughts => output + thoughts,
            _ => output,
        };
        let input = if cached_inside {
            input.saturating_sub(read + write)
        } else {
            input
        };
        self.usage.get_or_insert_with(Usage::default).add(&Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: read,
            cache_write_tokens: write,
            reasoning_tokens: thoughts.min(output),
        });
        self.meta.raw_usage = Some(usage.clone());
    }

    fn saw_time(&mut self, time: &Value) {
        match time {
            Value::String(text) => self.meta.saw_time(text),
            Value::Number(number) => {
                if let Some(millis) = number.as_i64() {
                    let nanos = i128::from(millis) * 1_000_000;
                    self.meta.saw_timestamp(Timestamp::from_unix_nanos(nanos));
                }
            }
            _ => {}
        }
    }

    /// Keeps a message, or the part of one, that the adapter does not turn into blocks.
    fn keep(&mut self, at: &At<'_>, kind: &str, raw: &Value) {
        self.meta.keep(at.record.line, kind, || raw.clone());
    }
}

/// The current value of the config option of category `model`, where the options have one.
fn model_option(options: Option<&Value>) -> Option<&str> {
    options?
        .as_array()?
        .iter()
        .find(|option| text(option, "category") == Some("model"))
        .and_then(|option| text(option, "currentValue"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines the hot path takes or turns down at its edges: escaped and non-string fields,
    /// `null`s, members twice, wrapped messages that are and are not JSON-RPC, and tool calls
    /// patched field by field.
    const EDGES: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"edge","version":"1"}}}
{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"t\u0065xt","text":"esc\"aped\n"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a","annotations":{"x":[1,2]}}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"b"},"content":{"type":"text","text":"c"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","messageId":7,"content":{"type":"text","text":"d"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":7}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"image","data":"AAAA"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_thought_chunk","content":[{"type":"text","text":"e"}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_thought_chunk"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":"agent_thought_chunk"}}
{"jsonrpc":"2.0","method":"session/update","params":[1,2]}
{"jsonrpc":"2.0","method":"session/update","params":null}
{"jsonrpc":"2.0","id":9,"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"f"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"ls","kind":"execute","status":"pending","rawInput":{"command":"ls -l"},"content":[],"locations":[]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"in_progress","title":null,"kind":5}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"one"}},{"type":"content","content":{"type":"text","text":"two"}}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c2","status":"completed","rawOutput":{"ok":true},"content":{"type":"text","text":"not an array"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c3","status":"failed","rawInput":null,"content":[{"type":"diff","path":"a.rs","oldText":"x","newText":"y"},{"type":"content","content":{"type":"text","text":"z"}},{"type":"content"}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","status":"completed"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":{"id":"c4"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_content_chunk","toolCallId":"c4","content":{"type":"text","text":"g"}}}}
{"direction":"agent_to_client","timestamp":"2026-01-02T03:04:05.678Z","message":{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"wrapped"}}}}}
{"direction":"agent_to_client","ts":1767323045000,"msg":{"jsonrpc":"2.0","method":"session/update","id":null,"params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c5","status":"completed","content":[{"type":"content","content":{"type":"text","text":"h"}}]}}}}
{"direction":"agent_to_client","message":{"jsonrpc":"2.0","method":7,"params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"i"}}}}}
{"direction":"agent_to_client","message":{"jsonrpc":"2.0","method":7,"method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"j"}}}}}
{"direction":"agent_to_client","message":"session/update"}
{"direction":"agent_to_client","message":{"jsonrpc":"2.0","error":null}}
{"direction":"incoming","payload":{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"k"}}}}}
{"direction":5,"message":{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"l"}}}}}
{"jsonrpc":"2.0","method":"session/update","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"m"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"raw	tab"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c6","status":"in_progress","content":[{"type":"content","content":{"type":"text","text":"esc\"aped\n\u001b[0m"}}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_content_chunk","toolCallId":"c6","content":{"type":"content","content":{"type":"text","text":"more"}}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c6","status":"completed"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c7","status":"completed","content":[{"type":"content","content":{"type":"text","text":"a\/b","text":"last\/"},"type":"content"}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c8","status":"completed","content":[{"type":"content","content":{"type":"text","text":5}}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c9","status":"completed","content":[{"type":"content","content":{"type":"text","text":"t\u00e9","annotations":{}},"extra":1}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c10","status":"completed","content":[{"content":{"type":"text","text":"first"},"type":"content","content":{"type":"image","data":"x"}}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"c11","status":"completed","content":[{"type":"content","content":{"type":"text","text":"kept"}}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"c11","content":[{"type":"terminal","terminalId":"t0"}]}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","messageId":"t1","content":{"type":"text","text":"think "}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","messageId":"t1","content":{"type":"text","text":"more\n\u00e9\/"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","messageId":"t1","content":{"type":"text","text":"pair \ud83d\ude00"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","messageId":"t1","content":{"type":"text","text":"lone \ud800"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","messageId":"t1","content":{"type":"text","text":"raw	tab"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"t1","content":{"type":"text","text":"same id, no thought"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"t1","content":{"type":"text","text":"torn"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"t1","content":{"type":"text","text":"after"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"not the prompt"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":" again"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x\u0001"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c12","status":"pending","title":"ls","kind":"execute","rawInput":{"command":"ls"}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c12","status":"in_progress"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c12","status":"completed","content":[{"type":"content","content":{"type":"text","text":"a\n\"b\"\u001b[0m\\"}}]}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c13","status":"completed","content":[{"type":"content","content":{"type":"text","text":"a\/b"}}]}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c14","status":"failed","content":[{"type":"content","content":{"type":"text","text":""}}]}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c15","content":[{"type":"content","content":{"type":"text","text":"no status"}}]}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c15","status":"completed"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c16","status":"completed","content":[{"type":"content","content":{"type":"text","text":"raw	tab"}}]}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"","status":"completed"}}}
{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}
"#;

    /// What a normalizer made of `input`, whole, as text to compare; and the tool results'
    /// outputs held as their record escaped them (or not: the same value either way).
    fn read(mut normalizer: impl Normalizer, input: &[u8]) -> (String, Vec<Option<Vec<u8>>>) {
        let mut out = Output::default();
        normalizer.push(input, &mut out);
        normalizer.finish(&mut out);
        let held: Vec<_> = (out.items.iter())
            .map(|item| match &item.block.block {
                Block::ToolResult { tool_content, .. } => tool_content.json().map(<[u8]>::to_vec),
                _ => None,
            })
            .collect();
        let read = format!(
            "{:#?}\n{:#?}\n{:#?}",
            out.items,
            out.diagnostics,
            normalizer.meta()
        );
        (read, held)
    }

    fn whole_lines_normalizer() -> impl Normalizer {
        let mut state = State::new();
        state.whole_lines_only = true;
        Driver::<Lines, State>::new(&Options::default(), state)
    }

    /// The edge cases, every input of the ACP corpus, and the bench's generated stream.
    fn inputs() -> Vec<(String, Vec<u8>)> {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/normalize/acp");
        let mut inputs = vec![("edges".to_owned(), EDGES.as_bytes().to_vec())];
        for outcome in ["ok", "err"] {
            let dir = std::fs::read_dir(format!("{corpus}/{outcome}")).expect("the ACP corpus");
            for entry in dir {
                let path = entry.expect("a fixture").path();
                let input = std::fs::read(&path).expect("a fixture");
                inputs.push((path.display().to_string(), input));
            }
        }
        assert!(inputs.len() > 10, "the corpus is read");
        inputs.push((
            "bench".to_owned(),
            crate::normalize::bench_streams::acp_stream::acp_stream(1 << 20, 7),
        ));
        inputs
    }

    #[test]
    fn the_hot_path_reads_every_line_as_the_whole_reading_does() {
        for (name, input) in inputs() {
            let hot = read(normalizer(Options::default()), &input).0;
            let whole = read(whole_lines_normalizer(), &input).0;
            assert_eq!(hot, whole, "{name}");
        }
    }

    /// Lines skimmed or parsed, alike: the same items (outputs held alike, escaped or not),
    /// diagnostics and run metadata with its input report; most of the bench's lines
    /// skimmed, and some of the edges'.
    #[test]
    fn every_line_the_skim_takes_is_read_as_the_parse_reads_it() {
        for (name, input) in inputs() {
            let parsed = {
                let mut state = State::new();
                state.skim = false;
                read(
                    Driver::<Lines, State>::new(&Options::default(), state),
                    &input,
                )
            };
            let skimmed = read(normalizer(Options::default()), &input);
            assert_eq!(skimmed, parsed, "{name}");
            let lines = input.split(|&b| b == b'\n').count();
            let taken = (input.split(|&b| b == b'\n'))
                .filter(|line| match skim::skim(line) {
                    Some(Skimmed::Chunk(head)) => skim::text(&head, &mut String::new()).is_some(),
                    Some(Skimmed::Call { .. }) => true,
                    None => false,
                })
                .count();
            match name.as_str() {
                "bench" => assert!(taken * 100 / lines > 50, "{taken} of {lines}"),
                "edges" => assert!(taken >= 10, "{taken}"),
                _ => {}
            }
        }
    }
}
