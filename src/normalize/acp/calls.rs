//! The agent's tool calls: `tool_call` and `tool_call_update` (v1), v2's upserting
//! `tool_call_update` and `tool_call_content_chunk`, and the permission the agent asks for
//! one (`session/request_permission` and the client's answer).
//!
//! A call is created by the first update that names it and patched by the later ones (a
//! field omitted stays, `null` clears it, a value replaces it; `content` is replaced whole, a
//! content chunk appends). Its `tool_use` block is handed out once the call leaves `pending`
//! (its input is complete, and its permission, when the agent asked for one, decided): named
//! by its ACP `kind` (`read`, `edit`, `execute`, ..., `other` when it has none), its input
//! the call's `rawInput`, or, without one, its `title` and `locations` (a title beside a
//! `rawInput` is display text made from it, and is not kept). An `execute` call's command
//! line is a `command` block. The `tool_result` follows when the call is `completed`,
//! `failed` or (v2) `cancelled` (an error for the last two): its content's text joined, or,
//! when it holds more than text, each item (`diff` with its path and texts, `terminal` with
//! the terminal's output as last reported, other content as sent); its `rawOutput` when it
//! has no content. A terminal's exit status is the result's exit code.
//!
//! A permission request names its call (v1 `toolCall`, v2 `subject.toolCall`, or a v2
//! `command` subject's `toolCallId`), patches it with the request's view of it, and holds
//! its `tool_use` until the client answers: the decision goes on the block (`permission`:
//! `allowed` or `rejected` by the chosen option's kind, `cancelled`, or `other` for an
//! option kind ACP does not define, which is no approval).
//!
//! This room owns the calls; the terminals whose output they show are `client`'s.

// foldhash, not std's SipHash, for the table every tool call update looks its call up in
// (as Claude's tables): several times faster, still seeded per table.
use foldhash::HashMap;

use serde_json::{Map, Value, json};

use super::client::Terminals;
use super::wire::{At, Patch, block_text, text};
use crate::model::tools::shell_commands;
use crate::model::{Block, Role, ToolOutput};
use crate::normalize::tools::PendingTools;
use crate::normalize::{Item, Source};

/// The tool calls of the session, by id, in the order they were first reported.
#[derive(Default)]
pub(super) struct Calls {
    by_id: HashMap<String, Call>,
    order: Vec<String>,
}

/// One tool call as its updates have patched it.
#[derive(Default)]
struct Call {
    title: Option<String>,
    kind: Option<String>,
    status: Option<String>,
    raw_input: Option<Value>,
    raw_output: Option<Value>,
    content: Vec<Value>,
    /// The content when it is one text part, held as the record escaped it (`content` is
    /// then empty; see [`Patch::said`]).
    said: Option<ToolOutput>,
    locations: Option<Value>,
    /// The client's decision, once it answered the agent's permission request.
    permission: Option<Value>,
    /// A permission request for it is waiting for the client's answer.
    asking: bool,
    /// Its `tool_use` is handed out.
    used: bool,
    /// Its `tool_result` is handed out.
    answered: bool,
    line: u64,
    offset: u64,
}

/// A field an update sets, or leaves (`None`).
fn set<T>(field: &mut Option<T>, value: Option<Option<T>>) {
    if let Some(value) = value {
        *field = value;
    }
}

impl Call {
    /// Applies an update's fields: omitted stays, `null` clears, a value replaces.
    fn patch(&mut self, patch: Patch) {
        let Patch {
            title,
            kind,
            status,
            raw_input,
            raw_output,
            locations,
            content,
            said,
        } = patch;
        set(&mut self.title, title);
        set(&mut self.kind, kind);
        set(&mut self.status, status);
        set(&mut self.raw_input, raw_input);
        set(&mut self.raw_output, raw_output);
        set(&mut self.locations, locations);
        if let Some(content) = content {
            self.content = content;
            self.said = said;
        }
    }

    fn started(&self) -> bool {
        !matches!(self.status.as_deref(), None | Some("pending"))
    }

    fn finished(&self) -> bool {
        matches!(
            self.status.as_deref(),
            Some("completed" | "failed" | "cancelled")
        )
    }

    fn name(&self) -> String {
        self.kind.clone().unwrap_or_else(|| "other".to_owned())
    }

    fn input(&self) -> Value {
        if let Some(input) = &self.raw_input {
            return input.clone();
        }
        let mut input = Map::new();
        if let Some(title) = &self.title {
            input.insert("title".into(), Value::String(title.clone()));
        }
        if let Some(locations) = &self.locations {
            input.insert("locations".into(), locations.clone());
        }
        Value::Object(input)
    }
}

/// What an update does to its call.
pub(super) enum Change {
    /// Sets the fields it has.
    Patch(Patch),
    /// A v2 content chunk: appended to the call's content (a `null` or absent one is none).
    Append(Option<Value>),
}

/// What handing out a call's blocks needs besides the call.
pub(super) struct Out<'o> {
    pub(super) tools: &'o mut PendingTools,
    pub(super) terminals: &'o Terminals,
    pub(super) items: &'o mut Vec<Item>,
}

impl Calls {
    /// A tool call's update (or a v2 content chunk of it): creates or patches the call `id`,
    /// then hands out what it completes.
    pub(super) fn update(&mut self, id: &str, change: Change, at: &At<'_>, out: Out<'_>) {
        let call = self.entry(id, at);
        match change {
            Change::Patch(patch) => call.patch(patch),
            Change::Append(Some(content)) => {
                // A part held as its text is a text part again when more follow it.
                if let Some(said) = call.said.take() {
                    let block = json!({"type": "text", "text": said.into_value()});
                    call.content
                        .push(json!({"type": "content", "content": block}));
                }
                call.content.push(content);
            }
            Change::Append(None) => {}
        }
        self.advance(id, false, at, out);
    }

    /// A permission request for the call it names: patched with the request's view of it,
    /// its `tool_use` held until the answer.
    pub(super) fn asked(&mut self, params: &Value, at: &At<'_>) -> bool {
        let Some((id, view)) = asked_call(params) else {
            return false;
        };
        let call = self.entry(&id, at);
        call.patch(Patch::of(&view));
        call.asking = true;
        true
    }

    /// The client's answer to a permission request (`params` the request's): the decision on
    /// the call, whose `tool_use` is then handed out. The decision, when the request named no
    /// call, to keep as passthrough.
    pub(super) fn answered(
        &mut self,
        params: &Value,
        result: &Value,
        at: &At<'_>,
        out: Out<'_>,
    ) -> Option<Value> {
        let decision = decision(params, result);
        let Some((id, _)) = asked_call(params) else {
            return Some(decision);
        };
        let call = self.entry(&id, at);
        call.asking = false;
        call.permission = Some(decision);
        self.advance(&id, true, at, out);
        None
    }

    /// The input ended: every call never handed out is, so that a call left without a
    /// result is reported by name.
    pub(super) fn finish(&mut self, at: &At<'_>, out: Out<'_>) {
        let Out {
            tools,
            terminals,
            items,
        } = out;
        let waiting: Vec<String> = (self.order.iter())
            .filter(|id| !self.by_id[id.as_str()].used)
            .cloned()
            .collect();
        for id in waiting {
            let out = Out {
                tools: &mut *tools,
                terminals,
                items: &mut *items,
            };
            self.advance(&id, true, at, out);
        }
    }

    /// The call with this id, created at `at` when it is new.
    fn entry(&mut self, id: &str, at: &At<'_>) -> &mut Call {
        if !self.by_id.contains_key(id) {
            self.order.push(id.to_owned());
        }
        self.by_id.entry(id.to_owned()).or_insert_with(|| Call {
            line: at.record.line,
            offset: at.record.offset,
            ..Call::default()
        })
    }

    /// Hands out a call's `tool_use` once it has started (or `force`), and its result once it
    /// has finished.
    fn advance(&mut self, id: &str, force: bool, at: &At<'_>, out: Out<'_>) {
        let Some(call) = self.by_id.get_mut(id) else {
            return;
        };
        if !call.used && (force || (call.started() && !call.asking)) {
            call.used = true;
            let name = call.name();
            let input = call.input();
            let source = Source {
                line: call.line,
                end_line: at.record.line,
                offset: call.offset,
            };
            let commands = shell_commands(&name, &input);
            let block = Block::ToolUse {
                tool_name: name.clone(),
                tool_id: id.to_owned(),
                tool_input: input,
                server: false,
                incomplete: false,
                permission: call.permission.clone(),
            };
            out.items
                .push(Item::emitted(block, Role::Assistant, None, source));
            for command in commands {
                let block = Block::Command {
                    command,
                    tool_id: Some(id.to_owned()),
                };
                out.items
                    .push(Item::emitted(block, Role::Assistant, None, source));
            }
            out.tools.open(id, &name, call.line, call.offset);
        }
        if call.used && !call.answered && call.finished() {
            call.answered = true;
            let (content, exit_code) = result_content(call, out.terminals);
            let block = Block::ToolResult {
                tool_id: id.to_owned(),
                tool_content: content,
                is_error: call.status.as_deref() != Some("completed"),
                exit_code,
            };
            out.items
                .push(Item::emitted(block, Role::User, None, at.source()));
            // The call was opened just above or before: answering it reports nothing.
            out.tools
                .answer(id, at.record.line, at.record.offset, &mut Vec::new());
        }
    }
}

/// The call a permission request names, and the request's view of it.
fn asked_call(params: &Value) -> Option<(String, Value)> {
    let subject = params.get("subject");
    let view = params.get("toolCall").or_else(|| {
        subject
            .filter(|s| text(s, "type") == Some("tool_call"))
            .and_then(|s| s.get("toolCall"))
    });
    if let Some(view) = view {
        return Some((text(view, "toolCallId")?.to_owned(), view.clone()));
    }
    let id = subject.and_then(|s| text(s, "toolCallId"))?.to_owned();
    Some((id, Value::Null))
}

/// The client's decision on a permission request: the outcome, and the chosen option as the
/// agent offered it.
fn decision(params: &Value, result: &Value) -> Value {
    let outcome = result.get("outcome").unwrap_or(&Value::Null);
    let mut decision = Map::new();
    match text(outcome, "outcome") {
        Some("selected") => {
            let chosen = text(outcome, "optionId");
            let option = (params.get("options").and_then(Value::as_array))
                .into_iter()
                .flatten()
                .find(|option| chosen.is_some() && text(option, "optionId") == chosen);
            let kind = option.and_then(|o| text(o, "kind"));
            let verdict = match kind {
                Some("allow_once" | "allow_always") => "allowed",
                Some("reject_once" | "reject_always") => "rejected",
                _ => "other",
            };
            decision.insert("decision".into(), json!(verdict));
            if let Some(chosen) = chosen {
                decision.insert("option_id".into(), json!(chosen));
            }
            if let Some(kind) = kind {
                decision.insert("option_kind".into(), json!(kind));
            }
            if let Some(name) = option.and_then(|o| text(o, "name")) {
                decision.insert("option_name".into(), json!(name));
            }
        }
        Some("cancelled") => {
            decision.insert("decision".into(), json!("cancelled"));
        }
        _ => {
            decision.insert("decision".into(), json!("other"));
            decision.insert("outcome".into(), outcome.clone());
        }
    }
    Value::Object(decision)
}

/// A finished call's result content and exit code (see the module docs), taken out of the
/// call: it is answered once, and its content is most of the bytes of the exchange.
fn result_content(call: &mut Call, terminals: &Terminals) -> (ToolOutput, Option<i64>) {
    if let Some(said) = call.said.take() {
        return (said, None);
    }
    let content = std::mem::take(&mut call.content);
    if content.is_empty() {
        return (call.raw_output.take().unwrap_or(Value::Null).into(), None);
    }
    let exit_code = (content.iter())
        .filter(|part| text(part, "type") == Some("terminal"))
        .find_map(|part| terminals.seen(text(part, "terminalId").unwrap_or("")).1);
    let all_text = content.iter().all(|part| match text(part, "type") {
        Some("content") => block_text(part.get("content").unwrap_or(&Value::Null)).is_some(),
        Some("terminal") => {
            let id = text(part, "terminalId").unwrap_or("");
            terminals.seen(id).0.is_some()
        }
        _ => false,
    });
    if all_text {
        let mut texts = content.into_iter().map(|mut part| {
            if text(&part, "type") == Some("terminal") {
                let id = text(&part, "terminalId").unwrap_or("");
                return terminals.seen(id).0.unwrap_or_default().to_owned();
            }
            match part
                .get_mut("content")
                .and_then(|inner| inner.get_mut("text"))
            {
                Some(Value::String(said)) => std::mem::take(said),
                _ => String::new(),
            }
        });
        // One part (the usual result) is moved, not copied.
        let first = texts.next().unwrap_or_default();
        let joined = texts.fold(first, |mut joined, said| {
            joined.push('\n');
            joined.push_str(&said);
            joined
        });
        return (Value::String(joined).into(), exit_code);
    }
    let parts = (content.into_iter())
        .map(|mut part| match text(&part, "type") {
            Some("content") => {
                let inner = part.get_mut("content").map_or(Value::Null, Value::take);
                match block_text(&inner) {
                    Some(said) => json!({"type": "text", "text": said}),
                    None => inner,
                }
            }
            Some("terminal") => {
                let id = text(&part, "terminalId").unwrap_or("");
                let (output, code) = terminals.seen(id);
                json!({"type": "terminal", "terminal_id": id, "output": output, "exit_code": code})
            }
            Some("diff") => {
                if let Some(fields) = part.as_object_mut() {
                    for (from, to) in [("oldText", "old_text"), ("newText", "new_text")] {
                        if let Some(value) = fields.remove(from) {
                            fields.insert(to.to_owned(), value);
                        }
                    }
                }
                part
            }
            _ => part,
        })
        .collect();
    (Value::Array(parts).into(), exit_code)
}
