//! Gemini CLI's session files, `~/.gemini/tmp/<project>/chats/session-*.jsonl` (0.39 and
//! later; before, one JSON document `session-*.json` whose `messages` an importer hands on
//! one by one), and the Gemini API `Content` a saved chat (`/chat save`) keeps.
//!
//! Records, each recognised by its own shape (`ChatRecordingService`'s types):
//!
//! * the metadata record `{sessionId, projectHash, startTime, lastUpdated, kind}`: the
//!   session; passthrough.
//! * a message record `{id, timestamp, type, content, ...}`, its `timestamp` its source
//!   time. The CLI writes a message again, whole, as it grows (its tool calls scheduled and
//!   answered, its tokens counted): a record with the id of the one before replaces it, and
//!   a message is handed out when a record of another comes (or the input ends), so each
//!   is read once, in its last version.
//!   * `user`: the text of `content` (a string, or the text of its parts) is user text.
//!   * `gemini`: `thoughts` (`{subject, description}`) are thinking blocks; the text of
//!     `content` (thought parts as thinking) is assistant text; each of `toolCalls` is a
//!     `tool_use` (`name`, `id`, `args`; a `command` block for a shell tool) and, once it
//!     has one, its user-side `tool_result`: the `output` (else the `error`, else the
//!     whole) of the `functionResponse.response` in its `result`, an error unless its
//!     `status` is `success`. `tokens` (one API response's) add to the usage: `input`
//!     includes `cached`, the uncached part and `tool` are input, `output` plus `thoughts`
//!     the output (`thoughts` the reasoning), as Gemini's usage reads everywhere in axt.
//!     `model` is the run's model (the last).
//!   * `error` is a run error (not fatal); `info` and `warning` are passthrough.
//! * `{"$set": {...}}` (metadata updated, or the whole message list rewritten by a
//!   compression) and `{"$rewindTo": id}`: passthrough (an importer decides what they
//!   change; read alone, what was delivered stays).
//! * a `Content` `{role, parts}` (a saved chat's history): `text` parts are user or
//!   assistant text by the role (`thought` parts thinking), `functionCall` a `tool_use`
//!   (its `id`, else one made of the call's place), `functionResponse` a user-side
//!   `tool_result` for the call with its id, else the oldest waiting of its name.
//!
//! This room owns those records; the stream-json and json forms are the adapter's.

use serde_json::Value;

use crate::model::tools::shell_commands;
use crate::model::{Block, ContentBlock, Fidelity, Role, Timestamp};
use crate::normalize::framing::Record;
use crate::normalize::report::Fate;
use crate::normalize::tools::PendingTools;
use crate::normalize::{Diagnostic, Item, RunError, RunMeta, Source, Usage};

fn item(block: ContentBlock, role: Role, source: Source) -> Item {
    Item::new(block, role, source)
}

/// Whether a record is a session file's (or a saved chat's).
pub(super) fn is_session_record(record: &Value) -> bool {
    let has = |key: &str| record.get(key).is_some();
    let kind = record.get("type").and_then(Value::as_str);
    (has("sessionId") && has("projectHash"))
        || (has("id")
            && has("content")
            && matches!(kind, Some("user" | "gemini" | "info" | "error" | "warning")))
        || has("$set")
        || has("$rewindTo")
        || (matches!(
            record.get("role").and_then(Value::as_str),
            Some("user" | "model")
        ) && record.get("parts").is_some_and(Value::is_array))
}

/// The report's type key of a session record.
pub(super) fn kind(record: &Value) -> &str {
    if let Some(kind) = record.get("type").and_then(Value::as_str) {
        return kind;
    }
    if record.get("$set").is_some() {
        "$set"
    } else if record.get("$rewindTo").is_some() {
        "$rewindTo"
    } else if let Some(role) = record.get("role").and_then(Value::as_str) {
        match role {
            "model" => "content/model",
            _ => "content/user",
        }
    } else {
        "metadata"
    }
}

/// A message record waiting for the next, which may be its own next version.
struct Held {
    id: String,
    record: Value,
    source: Source,
}

/// The state session records need between them.
#[derive(Default)]
pub(super) struct Session {
    seen: bool,
    held: Option<Held>,
    tools: PendingTools,
    /// Calls made of a `Content` `functionCall` without an id.
    made_ids: u64,
}

impl Session {
    pub(super) fn seen(&self) -> bool {
        self.seen
    }

    /// One session record at `record`'s place.
    pub(super) fn record(
        &mut self,
        value: Value,
        record: Record<'_>,
        meta: &mut RunMeta,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        self.seen = true;
        let source = Source::record(record.line, record.offset);
        let id = value.get("id").and_then(Value::as_str).map(str::to_owned);
        let message = id.is_some() && value.get("content").is_some();
        if message {
            let id = id.unwrap_or_default();
            if let Some(time) = value.get("timestamp").and_then(Value::as_str) {
                meta.saw_time(time);
            }
            match self.held.take() {
                Some(held) if held.id == id => {}
                Some(held) => self.message(held, meta, items, diagnostics),
                None => {}
            }
            self.held = Some(Held {
                id,
                record: value,
                source,
            });
            return Fate::Mapped;
        }
        self.release(meta, items, diagnostics);
        if let Some(role) = value.get("role").and_then(Value::as_str) {
            let role = if role == "model" {
                Role::Assistant
            } else {
                Role::User
            };
            let parts = value.get("parts").and_then(Value::as_array);
            self.parts(
                parts.map_or(&[][..], Vec::as_slice),
                role,
                source,
                meta,
                items,
                diagnostics,
            );
            return Fate::Mapped;
        }
        if value.get("sessionId").is_some() && value.get("projectHash").is_some() {
            if let Some(session) = value.get("sessionId").and_then(Value::as_str) {
                meta.session_id = Some(session.to_owned());
            }
            if let Some(time) = value.get("startTime").and_then(Value::as_str) {
                meta.saw_time(time);
            }
            meta.keep(record.line, "metadata", || value);
            return Fate::Mapped;
        }
        let kind = kind(&value).to_owned();
        meta.keep(record.line, &kind, || value);
        Fate::Passthrough
    }

    /// The message held is its last version: hands it out.
    fn release(
        &mut self,
        meta: &mut RunMeta,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if let Some(held) = self.held.take() {
            self.message(held, meta, items, diagnostics);
        }
    }

    /// The input has ended: the message held is handed out, calls without their result
    /// reported.
    pub(super) fn finish(
        &mut self,
        meta: &mut RunMeta,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.release(meta, items, diagnostics);
        self.tools.report_dangling(diagnostics);
    }

    fn message(
        &mut self,
        held: Held,
        meta: &mut RunMeta,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Held { record, source, .. } = held;
        let from = items.len();
        let stamp = (record.get("timestamp").and_then(Value::as_str))
            .and_then(|time| Timestamp::parse(time).ok());
        self.message_items(record, source, meta, items, diagnostics);
        // Handed out when the next record came: dated by its own stamp, not that one's.
        if let Some(time) = stamp {
            for item in &mut items[from..] {
                item.time = Some(time.clone());
            }
        }
    }

    fn message_items(
        &mut self,
        record: Value,
        source: Source,
        meta: &mut RunMeta,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let content = record.get("content").unwrap_or(&Value::Null);
        match record.get("type").and_then(Value::as_str).unwrap_or("") {
            "user" => self.content(content, Role::User, source, meta, items, diagnostics),
            "gemini" => {
                for thought in record
                    .get("thoughts")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let text = thought_text(thought);
                    if !text.is_empty() {
                        let block = ContentBlock::thinking(Fidelity::AgentEmitted, text);
                        items.push(item(block, Role::Assistant, source));
                    }
                }
                self.content(content, Role::Assistant, source, meta, items, diagnostics);
                for call in record
                    .get("toolCalls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    self.tool_call(call, source, items, diagnostics);
                }
                if let Some(tokens) = record.get("tokens").filter(|t| t.is_object()) {
                    meta.usage.add(&usage(tokens));
                }
                if let Some(model) = record.get("model").and_then(Value::as_str) {
                    meta.model = Some(model.to_owned());
                }
            }
            "error" => {
                meta.errors.push(RunError {
                    message: text_of(content),
                    fatal: false,
                    line: source.line,
                });
                meta.keep(source.line, "message/error", || record);
            }
            kind => {
                let kind = format!("message/{kind}");
                meta.keep(source.line, &kind, || record);
            }
        }
    }

    /// A message's `content`: a string, or a part, or a list of parts.
    fn content(
        &mut self,
        content: &Value,
        role: Role,
        source: Source,
        meta: &mut RunMeta,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        match content {
            Value::String(text) if !text.is_empty() => {
                items.push(item(
                    ContentBlock::text(Fidelity::AgentEmitted, text.clone()),
                    role,
                    source,
                ));
            }
            Value::Array(parts) => self.parts(parts, role, source, meta, items, diagnostics),
            Value::Object(_) => self.parts(
                std::slice::from_ref(content),
                role,
                source,
                meta,
                items,
                diagnostics,
            ),
            _ => {}
        }
    }

    /// Gemini API parts: text (thought parts as thinking), calls, responses; other parts
    /// (inline data, files, code) kept as passthrough.
    fn parts(
        &mut self,
        parts: &[Value],
        role: Role,
        source: Source,
        meta: &mut RunMeta,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let mut text = String::new();
        let flush = |text: &mut String, items: &mut Vec<Item>| {
            if !text.is_empty() {
                let block = ContentBlock::text(Fidelity::AgentEmitted, std::mem::take(text));
                items.push(item(block, role.clone(), source));
            }
        };
        for part in parts {
            if let Some(chunk) = part.get("text").and_then(Value::as_str) {
                if part.get("thought") == Some(&Value::Bool(true)) {
                    flush(&mut text, items);
                    let block = ContentBlock::thinking(Fidelity::AgentEmitted, chunk);
                    items.push(item(block, Role::Assistant, source));
                } else {
                    text.push_str(chunk);
                }
            } else if let Some(call) = part.get("functionCall") {
                flush(&mut text, items);
                let id = match call.get("id").and_then(Value::as_str) {
                    Some(id) if !id.is_empty() => id.to_owned(),
                    _ => {
                        self.made_ids += 1;
                        format!("call-{}-{}", source.line, self.made_ids)
                    }
                };
                let name = call.get("name").and_then(Value::as_str).unwrap_or("");
                let args = call.get("args").cloned().unwrap_or(Value::Null);
                self.call(name, &id, args, source, items);
            } else if let Some(response) = part.get("functionResponse") {
                flush(&mut text, items);
                let name = response.get("name").and_then(Value::as_str).unwrap_or("");
                let id = response
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|id| self.tools.is_waiting(id))
                    .map(str::to_owned)
                    .or_else(|| self.tools.oldest_waiting_named(name))
                    .unwrap_or_default();
                let content = response_content(response.get("response").unwrap_or(&Value::Null));
                let failed = response.pointer("/response/error").is_some();
                self.result(&id, content, failed, source, items, diagnostics);
            } else {
                let kind = part
                    .as_object()
                    .and_then(|p| p.keys().next())
                    .map_or_else(|| "part".to_owned(), |k| format!("part/{k}"));
                meta.keep(source.line, &kind, || part.clone());
            }
        }
        flush(&mut text, items);
    }

    /// One of a `gemini` message's `toolCalls`: the call, and its result once it has one.
    fn tool_call(
        &mut self,
        call: &Value,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        let args = call.get("args").cloned().unwrap_or(Value::Null);
        self.call(name, &id, args, source, items);
        let status = call.get("status").and_then(Value::as_str).unwrap_or("");
        let result = call.get("result").filter(|r| !r.is_null());
        // A call still scheduled or running has no result yet.
        if result.is_none() && !matches!(status, "success" | "error" | "cancelled") {
            return;
        }
        let content = match result {
            Some(Value::Array(parts)) => {
                let contents: Vec<Value> = parts.iter().map(part_content).collect();
                match <[Value; 1]>::try_from(contents) {
                    Ok([one]) => one,
                    Err(all) => Value::Array(all),
                }
            }
            Some(other) => part_content(other),
            None => Value::Null,
        };
        self.result(
            &id,
            content,
            status != "success",
            source,
            items,
            diagnostics,
        );
    }

    fn call(&mut self, name: &str, id: &str, args: Value, source: Source, items: &mut Vec<Item>) {
        self.tools.open(id, name, source.line, source.offset);
        let commands = shell_commands(name, &args);
        let tool_use = ContentBlock::tool_use(Fidelity::AgentEmitted, name, id, args);
        items.push(item(tool_use, Role::Assistant, source));
        for command in commands {
            let block = Block::Command {
                command,
                tool_id: Some(id.to_owned()).filter(|id| !id.is_empty()),
            };
            items.push(item(
                ContentBlock::new(Fidelity::AgentEmitted, block),
                Role::Assistant,
                source,
            ));
        }
    }

    fn result(
        &mut self,
        id: &str,
        content: Value,
        is_error: bool,
        source: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.tools
            .answer(id, source.line, source.offset, diagnostics);
        let block = Block::ToolResult {
            tool_id: id.to_owned(),
            tool_content: content.into(),
            is_error,
            exit_code: None,
        };
        items.push(item(
            ContentBlock::new(Fidelity::AgentEmitted, block),
            Role::User,
            source,
        ));
    }
}

/// A thought summary as text: its subject, then its description.
fn thought_text(thought: &Value) -> String {
    let field = |key: &str| {
        thought
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
    };
    match (field("subject"), field("description")) {
        ("", description) => description.to_owned(),
        (subject, "") => subject.to_owned(),
        (subject, description) => format!("{subject}\n\n{description}"),
    }
}

/// What a tool's result part holds: a `functionResponse`'s response, a text part's text,
/// else the part.
fn part_content(part: &Value) -> Value {
    if let Some(response) = part.get("functionResponse") {
        return response_content(response.get("response").unwrap_or(&Value::Null));
    }
    match part.get("text") {
        Some(text) => text.clone(),
        None => part.clone(),
    }
}

/// A function response's `output`, else its `error`, else the whole.
fn response_content(response: &Value) -> Value {
    response
        .get("output")
        .or_else(|| response.get("error"))
        .cloned()
        .unwrap_or_else(|| response.clone())
}

/// The text of a message's content: a string, or its text parts.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        other => other
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
    }
}

/// One API response's tokens in axt's convention (see the module docs).
fn usage(tokens: &Value) -> Usage {
    let count = |key: &str| tokens.get(key).and_then(Value::as_u64).unwrap_or(0);
    let thoughts = count("thoughts");
    Usage {
        input_tokens: count("input").saturating_sub(count("cached")) + count("tool"),
        output_tokens: count("output") + thoughts,
        cache_read_tokens: count("cached"),
        cache_write_tokens: 0,
        reasoning_tokens: thoughts,
    }
}
