//! The Responses API: stream events (`response.*`, `error`), response objects (whole
//! bodies and the copies terminal events carry), and request bodies (`input`).
//!
//! This file owns the items open while a response streams, found by output index before
//! id, and how a response's status ends the run's turn. What an item means is `items`';
//! handing it out is `emit`'s. It knows nothing of Chat Completions.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::State;
use super::assembly::Assembly;
use super::items::{OUTPUT_ITEMS, item_field_read, result_item, server_tool_progress};
use super::wire::{StrOr, Wire, WireItem, WireResponse, unboxed};
use crate::model::Role;
use crate::normalize::framing::Record;
use crate::normalize::json::{Borrowed, Parsed, to_value};
use crate::normalize::report::Fate;
use crate::normalize::{Diagnostic, Item, Source, StopKind};

/// A Responses output item being streamed.
pub(super) struct OpenItem {
    id: String,
    output_index: Option<u64>,
    summary_index: Option<u64>,
    /// Where each content part's text starts in the assembled text, by `content_index`:
    /// annotations count from the start of their part.
    part_starts: Vec<(u64, u64)>,
    pub(super) assembly: Assembly,
}

impl OpenItem {
    /// The character offset where content part `index` starts (from here, if unseen).
    fn part_start(&mut self, index: Option<u64>) -> u64 {
        let index = index.unwrap_or(0);
        match self.part_starts.iter().find(|(at, _)| *at == index) {
            Some((_, start)) => *start,
            None => {
                let start = self.assembly.text_chars;
                self.part_starts.push((index, start));
                start
            }
        }
    }
}

impl State {
    pub(super) fn responses_request(
        &mut self,
        mut wire: Wire<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        // The system prompt of a Responses request, kept when it changes (every request
        // repeats it).
        if let Some(instructions) = unboxed(wire.instructions).filter(|i| !i.is_null())
            && self.instructions.as_ref() != Some(&instructions)
        {
            let kept = instructions.clone();
            self.meta.keep(span.line, "instructions", || kept);
            self.instructions = Some(instructions);
        }
        self.keep_request_tools(unboxed(wire.request_tools.take()), span);
        let input = match wire.input {
            Some(StrOr::Str(text)) => {
                self.user_text(&StrOr::Str(text), span, items);
                return;
            }
            Some(StrOr::Else(input)) => input,
            None => return,
        };
        let skip = match wire.previous_response_id {
            Some(_) => 0,
            None => self.history.min(input.len()),
        };
        self.history = input.len();
        let id = self.response_id.take();
        for (at, item) in input.into_iter().enumerate().skip(skip) {
            let whole = || {
                to_value(record.bytes)
                    .pointer_mut(&format!("/input/{at}"))
                    .map(Value::take)
                    .unwrap_or_default()
            };
            self.input_item(item, whole, Some(parsed), span, items, diagnostics);
        }
        self.response_id = id;
    }

    /// One item of a conversation's input (a request's, or a store's that keeps the
    /// conversation as Responses items): user messages are user text, assistant output
    /// assistant blocks, calls open tool calls, outputs answer them user-side; system and
    /// developer messages, and every other kind, are kept (`whole` makes the item's JSON).
    /// A result's output is held as the record escaped it when the item was `parsed` from
    /// one (see [`result_item`]).
    pub(super) fn input_item(
        &mut self,
        item: WireItem<'_>,
        whole: impl FnOnce() -> Value,
        parsed: Option<Parsed<'_>>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        match item.kind() {
            "message" => match item.role.as_deref().unwrap_or("user") {
                "user" => {
                    if let Some(content) = &item.content {
                        self.user_text(content, span, items);
                    }
                }
                "assistant" => {
                    let mut assembly = Assembly::default();
                    assembly.item(&item, span);
                    self.emit(assembly, true, items, diagnostics);
                }
                role => self.meta.keep(span.line, &format!("message/{role}"), || {
                    item.content.map_or(Value::Null, StrOr::into_value)
                }),
            },
            kind if OUTPUT_ITEMS.contains(&kind) => {
                let mut assembly = Assembly::default();
                assembly.item(&item, span);
                self.emit(assembly, true, items, diagnostics);
            }
            kind => match result_item(&item, parsed) {
                Some(result) => self.tool_result(result, Role::User, span, items, diagnostics),
                None => self.meta.keep(span.line, &format!("item/{kind}"), whole),
            },
        }
    }

    pub(super) fn responses_event(
        &mut self,
        kind: &str,
        wire: Wire<'_>,
        record: Record<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Fate {
        match kind {
            "response.created" | "response.in_progress" | "response.queued" => {
                let response = wire.response.unwrap_or_default();
                let id = response.id.as_deref().filter(|id| !id.is_empty());
                if id.is_some() && self.response_id.as_deref() != id {
                    // Items still open belong to a response that was cut off; they must not
                    // take the new response's items at their output index.
                    self.flush(false, items, diagnostics);
                }
                self.begin_response(response.id.as_deref(), response.model.as_deref());
                self.streaming = true;
            }
            "response.output_item.added" => {
                self.streaming = true;
                self.saw_response = true;
                let Some(item) = wire.item else {
                    return Fate::Skipped;
                };
                let at = self.open_item(item.id.as_deref(), wire.output_index);
                self.items[at].assembly.item(&item, span);
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let at = self.item_at(&wire);
                let item = &mut self.items[at];
                item.part_start(wire.content_index);
                let delta = wire.delta.as_ref().map(|d| d.text_borrowed(""));
                let delta = delta.as_deref().unwrap_or("");
                item.assembly.say(delta, span);
            }
            "response.output_text.annotation.added" => {
                let at = self.item_at(&wire);
                let item = &mut self.items[at];
                let shift = item.part_start(wire.content_index);
                if let Some(annotation) = unboxed(wire.annotation) {
                    item.assembly.cite(&[annotation], shift, span);
                }
            }
            "response.function_call_arguments.delta"
            | "response.custom_tool_call_input.delta"
            | "response.mcp_call_arguments.delta"
            | "response.code_interpreter_call_code.delta" => {
                let at = self.item_at(&wire);
                let delta = wire.delta.as_ref().map(|d| d.text_borrowed(""));
                let delta = delta.as_deref().unwrap_or("");
                let call = &mut self.items[at].assembly;
                call.call_fragment(None, None, None, Some(StrOr::Str(delta.into())), span);
            }
            "response.function_call_arguments.done"
            | "response.custom_tool_call_input.done"
            | "response.mcp_call_arguments.done"
            | "response.code_interpreter_call_code.done" => {
                let at = self.item_at(&wire);
                let code = match unboxed(wire.code) {
                    Some(Value::String(code)) => Some(StrOr::Str(Cow::Owned(code))),
                    _ => None,
                };
                let arguments = wire
                    .arguments
                    .or(code)
                    .or(wire.input.map(|input| match input {
                        StrOr::Str(text) => StrOr::Str(text),
                        StrOr::Else(_) => StrOr::Else(Value::Null),
                    }));
                let assembly = &mut self.items[at].assembly;
                if let Some(StrOr::Str(arguments)) = arguments {
                    // The final arguments: they replace the deltas (and are all there is
                    // when a server sends no deltas).
                    assembly.call_fragment(None, None, None, None, span);
                    if let Some(call) = assembly.calls.last_mut() {
                        call.arguments = arguments.into_owned();
                    }
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let at = self.item_at(&wire);
                let item = &mut self.items[at];
                if kind == "response.reasoning_summary_text.delta" {
                    let part = wire.summary_index;
                    if item.summary_index.is_some() && item.summary_index != part {
                        item.assembly.think("\n\n", span);
                    }
                    item.summary_index = part;
                }
                let delta = wire.delta.as_ref().map(|d| d.text_borrowed(""));
                let delta = delta.as_deref().unwrap_or("");
                item.assembly.think(delta, span);
            }
            "response.output_item.done" => {
                self.saw_response = true;
                let Some(item) = wire.item else {
                    return Fate::Skipped;
                };
                let at = self.open_item(item.id.as_deref(), wire.output_index);
                let open = self.items.remove(at);
                self.streamed_items = true;
                self.output_item(&item, Some(open.assembly), span, items, diagnostics, || {
                    to_value(record.bytes)
                        .get_mut("item")
                        .map(Value::take)
                        .unwrap_or_default()
                });
            }
            "response.completed"
            | "response.incomplete"
            | "response.failed"
            | "response.cancelled" => {
                let mut response = *wire.response.unwrap_or_default();
                if response.status.is_none() {
                    let status = kind.trim_start_matches("response.");
                    response.status = Some(Borrowed(Cow::Owned(status.to_owned())));
                }
                let output_at = "/response/output";
                self.response_end(response, record, output_at, span, items, diagnostics);
            }
            "error" => {
                // openai-python types the event flat (`code`, `message`, `param`); the API
                // also sends the details in an `error` object. Each field is taken from the
                // top level, else from inside `error`.
                let mut error = match unboxed(wire.error) {
                    Some(Value::Object(inner)) => inner,
                    _ => Map::new(),
                };
                let flat = [
                    ("code", unboxed(wire.code)),
                    ("message", wire.message.map(StrOr::into_value)),
                ];
                for (name, value) in flat {
                    if let Some(value) = value.filter(|v| !v.is_null()) {
                        error.insert(name.into(), value);
                    }
                }
                self.fail(&Value::Object(error), span, items, diagnostics);
            }
            "response.content_part.added"
            | "response.content_part.done"
            | "response.output_text.done"
            | "response.refusal.done"
            | "response.reasoning_summary_part.added"
            | "response.reasoning_summary_part.done"
            | "response.reasoning_summary_text.done"
            | "response.reasoning_text.done" => {
                // Structure only: the text is in the deltas and in `output_item.done`.
                self.streaming = true;
            }
            "response.shell_call_command.added"
            | "response.shell_call_command.delta"
            | "response.shell_call_command.done"
            | "response.shell_call_output_content.delta"
            | "response.shell_call_output_content.done" => {
                // Structure only: the commands and their output are in the `shell_call` and
                // `shell_call_output` items' `output_item.done`.
                self.streaming = true;
            }
            other => match server_tool_progress(other) {
                Some(status) => {
                    let at = self.item_at(&wire);
                    let partial = (status == "partial_image").then(|| to_value(record.bytes));
                    self.items[at].assembly.progress(status, partial);
                }
                None => {
                    self.meta.keep(span.line, other, || to_value(record.bytes));
                    return Fate::Passthrough;
                }
            },
        }
        Fate::Mapped
    }

    /// The open item an event names (by `item_id`, else `output_index`); opened if unseen.
    fn item_at(&mut self, wire: &Wire<'_>) -> usize {
        self.streaming = true;
        self.saw_response = true;
        self.open_item(wire.item_id.as_deref(), wire.output_index)
    }

    /// The open item an event is about: the one at its `output_index`, else the one with its
    /// id; a new one when neither is open. The index decides first because it is the
    /// item's place in the response, while ids are not stable everywhere: some proxies give
    /// the same item a new id on every event, and going by the id would replay its deltas
    /// as a second copy.
    fn open_item(&mut self, id: Option<&str>, output_index: Option<u64>) -> usize {
        let id = id.filter(|id| !id.is_empty());
        let by_index =
            output_index.and_then(|at| self.items.iter().position(|i| i.output_index == Some(at)));
        let found = by_index.or_else(|| {
            let id = id?;
            let at = self.items.iter().position(|i| i.id == id)?;
            self.items[at].output_index = self.items[at].output_index.or(output_index);
            Some(at)
        });
        found.unwrap_or_else(|| {
            self.items.push(OpenItem {
                id: id.unwrap_or("").to_owned(),
                output_index,
                summary_index: None,
                part_starts: Vec::new(),
                assembly: Assembly::default(),
            });
            self.items.len() - 1
        })
    }

    /// A Responses object: a whole body, or the one a terminal event carries.
    /// `output_at` is where the response's `output` is in `record` (`/output` in a body,
    /// `/response/output` in a terminal event).
    pub(super) fn response_end(
        &mut self,
        mut response: WireResponse<'_>,
        record: Record<'_>,
        output_at: &str,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.begin_response(response.id.as_deref(), response.model.as_deref());
        for (name, value) in [
            ("service_tier", response.service_tier.take()),
            ("tool_usage", response.tool_usage.take()),
            ("content_filters", response.content_filters.take()),
        ] {
            self.extras.note(span.line, name, value);
        }
        let mut count = self.items.len();
        if self.streamed_items || !self.items.is_empty() {
            // The stream said it all; the output repeats it. Items never marked done are
            // complete now that the response is.
            self.flush(true, items, diagnostics);
        } else {
            let output = response.output.unwrap_or_default();
            count = output.len();
            for (at, item) in output.iter().enumerate() {
                self.output_item(item, None, span, items, diagnostics, || {
                    let pointer = format!("{output_at}/{at}");
                    to_value(record.bytes)
                        .pointer_mut(&pointer)
                        .map(Value::take)
                        .unwrap_or_default()
                });
            }
        }
        self.history += count;
        self.streamed_items = false;
        self.usage(response.usage);
        let status = response.status.as_deref().unwrap_or("");
        match status {
            "completed" => {
                let kind = if self.calls_in_response > 0 {
                    StopKind::ToolUse
                } else {
                    StopKind::EndTurn
                };
                self.stop(kind, status);
                self.completed();
            }
            "incomplete" => {
                let reason = response
                    .incomplete_details
                    .as_ref()
                    .and_then(|d| d.get("reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("incomplete");
                let kind = match reason {
                    "max_output_tokens" => StopKind::MaxTokens,
                    "content_filter" => StopKind::Refusal,
                    _ => StopKind::Other,
                };
                self.stop(kind, reason);
                self.completed();
            }
            "failed" | "cancelled" => {
                let kind = if status == "failed" {
                    StopKind::Error
                } else {
                    StopKind::Aborted
                };
                self.stop(kind, status);
                let error = response
                    .error
                    .filter(|e| !e.is_null())
                    .unwrap_or_else(|| Value::String(format!("the response {status}")));
                self.fail(&error, span, items, diagnostics);
            }
            _ => {} // in_progress, queued: a background response, still running
        }
    }

    /// One item of a response's output, complete: streamed (with what its deltas
    /// assembled) or from a body. Blocks for what axt maps, a tool result for a result item,
    /// passthrough (`raw`) for the rest.
    fn output_item(
        &mut self,
        item: &WireItem<'_>,
        streamed: Option<Assembly>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
        raw: impl FnOnce() -> Value,
    ) {
        let kind = item.kind();
        if OUTPUT_ITEMS.contains(&kind) {
            let mut assembly = Assembly::default();
            assembly.item(item, span);
            if let Some(streamed) = streamed {
                assembly.fill_from(streamed, diagnostics);
            }
            self.emit(assembly, true, items, diagnostics);
            // What the item says beyond what its blocks carry (a message's `phase`, a
            // call's `caller`, a shell's environment) is kept with the response's extras.
            let id = item.id.as_deref().unwrap_or(item.call_id());
            for (name, value) in &item.rest {
                if !item_field_read(kind, name) {
                    let name = format!("output[{id}].{name}");
                    self.extras.note(span.line, &name, Some(value.clone()));
                }
            }
        } else if let Some(result) = result_item(item, None) {
            self.tool_result(result, Role::Assistant, span, items, diagnostics);
        } else {
            self.meta.keep(span.line, &format!("item/{kind}"), raw);
        }
    }
}
