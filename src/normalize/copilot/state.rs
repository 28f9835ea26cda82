//! The state between Copilot's records: each event read ([`super::wire::Event`]) becomes
//! blocks, run metadata or passthrough; reasoning is held until the next event says whether a
//! message consolidates it; each tool call becomes one tool_use. Reads no bytes itself.

use serde_json::Value;

use super::super::driver::Adapter;
use super::super::framing::Record;
use super::super::json::{Borrowed, JsonParser, Parsed, to_value};
use super::super::report::Fate;
use super::super::tools::{PendingTools, missing_terminal};
use super::super::{
    Diagnostic, Item, Output, Provider, RunError, RunMeta, RunStatus, Source, Usage,
};
use super::skim::{skim_complete, skim_ignored};
use super::usage::{ShutdownUsage, model_metrics};
use super::wire::{Data, Event, EventShape, Payload, ignored};
use crate::model::tools::shell_commands;
use crate::model::{Block, ContentBlock, Fidelity, Role, ToolOutput};

/// An `assistant.reasoning` waiting to see whether the next message consolidates it.
struct HeldReasoning {
    text: String,
    agent: Option<String>,
    source: Source,
}

pub(super) struct State {
    meta: RunMeta,
    tools: PendingTools,
    held: Vec<HeldReasoning>,
    /// Sum of `assistant.message.outputTokens`.
    message_output: u64,
    /// Sum of `assistant.usage`, when the stream has any.
    api_usage: Option<Usage>,
    /// The tokens `session.shutdown` records count, when a session log has them.
    shutdown: Option<ShutdownUsage>,
    session_failed: bool,
    saw_result: bool,
    /// A session log's `session.shutdown` was seen (its terminal when no `result` is).
    saw_shutdown: bool,
    /// The caller says the input is whole without a terminal record (an importer reading a
    /// sub-agent's events out of a session log, or a session still running).
    complete: bool,
    /// The record just read is one `claims` claims (see [`Adapter::claimed`]).
    claimed: bool,
}

impl Adapter for State {
    const PROVIDER: Provider = Provider::Copilot;
    // Every event has its `timestamp`.
    const STAMPED: bool = true;

    fn record(&mut self, parser: &mut JsonParser, record: Record<'_>, out: &mut Output) {
        let Output { items, diagnostics } = out;
        self.claimed = false;
        if let Some(skimmed) = skim_ignored(record.bytes) {
            // As the parser counts an event it reads, and as `event` takes an ignored one.
            let slot = parser.tally.see((skimmed.kind, None));
            if let Some(time) = skimmed.timestamp {
                self.meta.saw_time(time);
            }
            // Every ignored type has its dot.
            self.claimed = skimmed.id && skimmed.timestamp.is_some() && skimmed.data_object;
            parser.tally.fate(slot, Fate::Ignored);
            return;
        }
        if let Some(done) = skim_complete(record.bytes) {
            // As the parser counts the event (every member of its `data` known) and as
            // `event` takes it.
            let slot = parser.tally.see(("tool.execution_complete", None));
            if let Some(time) = done.timestamp {
                self.meta.saw_time(time);
            }
            self.claimed = done.id && done.timestamp.is_some();
            self.release_reasoning(None, items);
            let at = Place {
                agent: done.agent_id.map(str::to_owned),
                message_id: None,
                source: Source::record(record.line, record.offset),
            };
            let done = Done {
                tool_call_id: done.tool_call_id.map(str::to_owned),
                model: done.model,
                success: done.success,
                content: ToolOutput::escaped(done.output),
            };
            self.tool_complete(done, at, record, items, diagnostics);
            parser.tally.fate(slot, Fate::Mapped);
            return;
        }
        parser.parse_in::<EventShape>(record, diagnostics, |event, parsed, diagnostics| {
            self.event(event, record, parsed, items, diagnostics)
        });
    }

    fn finish(&mut self, last: (u64, u64), out: &mut Output) {
        self.release_reasoning(None, &mut out.items);
        self.tools.report_dangling(&mut out.diagnostics);
        // The session's own totals first, then the per-call counts, then the messages'.
        self.meta.usage = match (&self.shutdown, self.api_usage) {
            (Some(shutdown), _) => shutdown.total(),
            (None, Some(api)) => api,
            (None, None) => Usage {
                output_tokens: self.message_output,
                ..Usage::default()
            },
        };
        if !self.saw_result {
            if self.session_failed {
                self.meta.status = RunStatus::Failed;
            } else if self.saw_shutdown {
                self.meta.status = RunStatus::Completed;
            }
        }
        if !self.saw_result && !self.saw_shutdown && !self.complete {
            let (line, offset) = last;
            out.diagnostics.push(missing_terminal(
                line,
                offset,
                "the result line (or a session log's session.shutdown)",
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

    fn claimed(&self) -> bool {
        self.claimed
    }
}

impl State {
    pub(super) fn new() -> Self {
        State {
            meta: RunMeta::new(Provider::Copilot),
            tools: PendingTools::default(),
            held: Vec::new(),
            message_output: 0,
            api_usage: None,
            shutdown: None,
            session_failed: false,
            saw_result: false,
            saw_shutdown: false,
            complete: false,
            claimed: false,
        }
    }

    pub(super) fn event(
        &mut self,
        event: Event<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        if let Some(time) = &event.timestamp {
            self.meta.saw_time(time);
        }
        let kind = &*event.kind;
        // What `claims` asks of an enveloped event (a dotted type, a `data` object, `id`
        // and `timestamp`), known from the record as read.
        self.claimed =
            kind.contains('.') && event.id.0 && event.timestamp.is_some() && event.data_object;
        if ignored(kind) {
            return Fate::Ignored;
        }
        let agent = event.agent_id.as_deref().map(str::to_owned);
        let at = Place {
            agent,
            message_id: None,
            source: Source::record(record.line, record.offset),
        };
        if kind == "assistant.reasoning" {
            let text = (event.data).and_then(|p| p.data.content).map(value_text);
            if let Some(text) = text.filter(|t| !t.is_empty()) {
                self.held.push(HeldReasoning {
                    text,
                    agent: at.agent,
                    source: at.source,
                });
            }
            return Fate::Mapped;
        }
        if kind != "assistant.message" {
            self.release_reasoning(None, items);
        }
        if kind == "result" {
            self.result(event, record);
            return Fate::Mapped;
        }
        let Some(Payload { data, .. }) = event.data else {
            self.keep(record, kind);
            return Fate::Passthrough;
        };
        let data = *data;
        match kind {
            "user.message" => {
                if let Some(text) = data.content.map(value_text).filter(|t| !t.is_empty()) {
                    let block = ContentBlock::text(Fidelity::AgentEmitted, text);
                    items.push(at.item(block, Role::User));
                }
            }
            "assistant.message" => self.assistant_message(data, at, record, items),
            "tool.execution_start" => {
                if let Some(model) = data.model.as_deref() {
                    self.meta.model = Some(model.to_owned());
                }
                let tool_id = data.tool_call_id.as_deref().unwrap_or("");
                let name = data.tool_name.as_deref().unwrap_or("");
                self.tool_use(tool_id, name, data.arguments, &at, record, items);
            }
            "tool.execution_complete" => {
                let tool_call_id = data.tool_call_id.map(Borrowed::into_owned);
                // Kept as the record escaped it when a string (most of a session's bytes).
                let content = match data.result.content() {
                    Some(content) => content.output(parsed),
                    None => (data.error.as_ref().and_then(|e| e.get("message")).cloned())
                        .unwrap_or(Value::Null)
                        .into(),
                };
                let done = Done {
                    tool_call_id,
                    model: data.model.as_deref(),
                    success: data.success,
                    content,
                };
                self.tool_complete(done, at, record, items, diagnostics);
            }
            "assistant.usage" => {
                if let Some(model) = data.model.as_deref() {
                    self.meta.model = Some(model.to_owned());
                }
                let cache_read = data.cache_read_tokens.unwrap_or(0);
                let cache_write = data.cache_write_tokens.unwrap_or(0);
                let usage = Usage {
                    input_tokens: data
                        .input_tokens
                        .unwrap_or(0)
                        .saturating_sub(cache_read + cache_write),
                    output_tokens: data.output_tokens.unwrap_or(0),
                    cache_read_tokens: cache_read,
                    cache_write_tokens: cache_write,
                    reasoning_tokens: data.reasoning_tokens.unwrap_or(0),
                };
                self.api_usage
                    .get_or_insert_with(Usage::default)
                    .add(&usage);
                // `cost` is a premium-request multiplier, not dollars: kept verbatim only.
                self.keep(record, kind);
            }
            "session.tools_updated" => {
                if let Some(model) = data.model.as_deref() {
                    self.meta.model = Some(model.to_owned());
                }
                self.keep(record, kind);
            }
            "session.error" => {
                self.session_failed = true;
                let message = data.message.map(value_text).unwrap_or_default();
                let message = match data.error_type.as_deref() {
                    Some(kind) if !kind.is_empty() => format!("{kind}: {message}"),
                    // Nothing said: the record's type is all there is.
                    _ if message.is_empty() => kind.to_owned(),
                    _ => message,
                };
                self.error(message, true, record);
                self.keep(record, kind);
            }
            "session.warning" | "subagent.failed" => {
                let message = data
                    .message
                    .or(data.error)
                    .map(value_text)
                    .unwrap_or_else(|| kind.to_owned());
                self.error(message, false, record);
                self.keep(record, kind);
            }
            "session.start" => {
                if let Some(session) = data.session_id {
                    self.meta.session_id = Some(session.into_owned());
                }
                if let Some(version) = data.copilot_version {
                    self.meta.provider_version = Some(version.into_owned());
                }
                // `auto` is a placeholder until the first model call picks one.
                if let Some(model) = data.selected_model.filter(|m| !m.is_empty() && m != "auto") {
                    self.meta.model = Some(model.into_owned());
                }
                self.keep(record, kind);
            }
            "session.model_change" => {
                if let Some(model) = data.new_model.filter(|m| !m.is_empty() && m != "auto") {
                    self.meta.model = Some(model.into_owned());
                }
                self.keep(record, kind);
            }
            "session.shutdown" => self.shutdown(data, record),
            _ => {
                self.keep(record, kind);
                return Fate::Passthrough;
            }
        }
        Fate::Mapped
    }

    /// A `tool.execution_complete`, parsed or skimmed: the call's tool_result.
    fn tool_complete(
        &mut self,
        done: Done<'_>,
        at: Place,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if let Some(model) = done.model {
            self.meta.model = Some(model.to_owned());
        }
        let tool_id = done.tool_call_id.unwrap_or_default();
        self.tools
            .answer(&tool_id, record.line, record.offset, diagnostics);
        let block = Block::ToolResult {
            tool_id,
            tool_content: done.content,
            is_error: !done.success.unwrap_or(true),
            exit_code: None,
        };
        let block = ContentBlock::new(Fidelity::AgentEmitted, block);
        items.push(at.item(block, Role::User));
    }

    /// A session log's `session.shutdown`: the process ended; its token counts.
    fn shutdown(&mut self, data: Data<'_>, record: Record<'_>) {
        self.saw_shutdown = true;
        if let Some(model) = data.current_model.filter(|m| !m.is_empty() && m != "auto") {
            self.meta.model = Some(model.into_owned());
        }
        if data.shutdown_type.as_deref() == Some("error") {
            self.session_failed = true;
            let reason = data.error_reason.map(value_text).unwrap_or_default();
            let message = match reason.is_empty() {
                true => "the session shut down on an error".to_owned(),
                false => reason,
            };
            self.error(message, true, record);
        }
        if let Some(metrics) = data.model_metrics {
            let per_model = model_metrics(&metrics);
            if !per_model.is_empty() {
                self.shutdown
                    .get_or_insert_with(ShutdownUsage::default)
                    .add(per_model);
                self.meta.raw_usage = Some(metrics);
            }
        }
        self.keep(record, "session.shutdown");
    }

    fn assistant_message(
        &mut self,
        data: Data<'_>,
        at: Place,
        record: Record<'_>,
        items: &mut Vec<Item>,
    ) {
        let at = Place {
            message_id: data.message_id.as_deref().map(str::to_owned),
            ..at
        };
        self.message_output += data.output_tokens.unwrap_or(0);
        let signature = data
            .reasoning_opaque
            .or(data.encrypted_content)
            .map(Borrowed::into_owned)
            .filter(|s| !s.is_empty());
        match data.reasoning_text.filter(|t| !t.is_empty()) {
            // The consolidated reasoning replaces the `assistant.reasoning` events before it.
            Some(text) => {
                self.held.clear();
                let block = Block::Thinking {
                    thinking: text.into_owned(),
                    signature,
                    redacted: false,
                };
                items.push(at.item(
                    ContentBlock::new(Fidelity::AgentEmitted, block),
                    Role::Assistant,
                ));
            }
            // Reasoning the provider withheld: only its opaque token arrived.
            None if self.held.is_empty() => {
                if let Some(signature) = signature {
                    let block = Block::Thinking {
                        thinking: String::new(),
                        signature: Some(signature),
                        redacted: true,
                    };
                    let block = ContentBlock::new(Fidelity::AgentEmitted, block);
                    items.push(at.item(block, Role::Assistant));
                }
            }
            None => self.release_reasoning(signature, items),
        }
        if let Some(text) = data.content.map(value_text).filter(|t| !t.is_empty()) {
            let block = ContentBlock::text(Fidelity::AgentEmitted, text);
            items.push(at.item(block, Role::Assistant));
        }
        for request in data.tool_requests.unwrap_or_default() {
            let tool_id = request.tool_call_id.as_deref().unwrap_or("");
            let name = request.name.as_deref().unwrap_or("");
            self.tool_use(tool_id, name, request.arguments, &at, record, items);
        }
    }

    /// Hands out held `assistant.reasoning` blocks; an opaque signature from the message that
    /// follows them goes on the last one (or on a redacted block of its own).
    pub(super) fn release_reasoning(&mut self, signature: Option<String>, items: &mut Vec<Item>) {
        let held = std::mem::take(&mut self.held);
        let count = held.len();
        let mut signature = signature;
        for (index, reasoning) in held.into_iter().enumerate() {
            let block = Block::Thinking {
                thinking: reasoning.text,
                signature: if index + 1 == count {
                    signature.take()
                } else {
                    None
                },
                redacted: false,
            };
            items.push(Item {
                block: ContentBlock::new(Fidelity::AgentEmitted, block),
                role: Role::Assistant,
                message_id: None,
                agent: reasoning.agent,
                subagent: None,
                source: reasoning.source,
                time: None,
            });
        }
    }

    /// One tool_use per call id, from whichever of `toolRequests` / `execution_start` comes
    /// first; plus its command block for shell tools.
    fn tool_use(
        &mut self,
        tool_id: &str,
        name: &str,
        arguments: Option<Value>,
        at: &Place,
        record: Record<'_>,
        items: &mut Vec<Item>,
    ) {
        if !self.tools.open(tool_id, name, record.line, record.offset) && !tool_id.is_empty() {
            return;
        }
        let tool_input = arguments.unwrap_or(Value::Null);
        let commands = shell_commands(name, &tool_input);
        let block = ContentBlock::tool_use(Fidelity::AgentEmitted, name, tool_id, tool_input);
        items.push(at.item(block, Role::Assistant));
        for command in commands {
            let block = Block::Command {
                command,
                tool_id: Some(tool_id.to_owned()).filter(|id| !id.is_empty()),
            };
            items.push(at.item(
                ContentBlock::new(Fidelity::AgentEmitted, block),
                Role::Assistant,
            ));
        }
    }

    fn result(&mut self, event: Event<'_>, record: Record<'_>) {
        self.saw_result = true;
        if let Some(session) = event.session_id {
            self.meta.session_id = Some(session.into_owned());
        }
        let exit_code = event.exit_code.unwrap_or(0);
        let failed = exit_code != 0 || self.session_failed;
        self.meta.status = if failed {
            RunStatus::Failed
        } else {
            RunStatus::Completed
        };
        if exit_code != 0 && !self.meta.errors.iter().any(|e| e.fatal) {
            self.error(
                format!("the CLI exited with code {exit_code}"),
                true,
                record,
            );
        }
        if let Some(usage) = event.usage {
            if let Some(ms) = usage.get("sessionDurationMs").and_then(Value::as_u64) {
                self.meta.duration_ms = Some(ms);
            }
            self.meta.raw_usage = Some(usage);
        }
    }

    fn error(&mut self, message: String, fatal: bool, record: Record<'_>) {
        self.meta.errors.push(RunError {
            message,
            fatal,
            line: record.line,
        });
    }

    fn keep(&mut self, record: Record<'_>, kind: &str) {
        self.meta.keep(record.line, kind, || to_value(record.bytes));
    }
}

/// What a `tool.execution_complete` says, parsed or skimmed.
struct Done<'a> {
    tool_call_id: Option<String>,
    model: Option<&'a str>,
    success: Option<bool>,
    content: ToolOutput,
}

/// Where an event's blocks belong.
struct Place {
    agent: Option<String>,
    message_id: Option<String>,
    source: Source,
}

impl Place {
    fn item(&self, block: ContentBlock, role: Role) -> Item {
        Item {
            block,
            role,
            message_id: self.message_id.clone(),
            agent: self.agent.clone(),
            subagent: None,
            source: self.source,
            time: None,
        }
    }
}

/// A string as itself; anything else as its JSON text.
fn value_text(value: Value) -> String {
    match value {
        Value::String(text) => text,
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
