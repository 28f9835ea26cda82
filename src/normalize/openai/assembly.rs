//! Assistant output being assembled: one message put together from a chat choice's
//! deltas, a Responses item's events, a consolidated copy, or a whole message at once.
//!
//! This file owns how text, thinking, citations and tool-call fragments accumulate and how
//! a streamed copy and a final copy are reconciled. It hands nothing out (that is `emit`)
//! and knows no Responses item kind (that is `items`).

use serde_json::{Map, Value};

use super::wire::{StrOr, WireFunction, WireMessage, parts_text};
use crate::model::Citation;
use crate::normalize::tools::{citation_of, streamed_text};
use crate::normalize::{Diagnostic, DiagnosticKind, Source};

/// One assistant message being assembled: a chat choice across its chunks, a Responses
/// item across its events, or a whole message at once.
#[derive(Default)]
pub(super) struct Assembly {
    pub(super) thinking: String,
    pub(super) signature: Option<String>,
    pub(super) thinking_span: Option<Source>,
    pub(super) text: String,
    /// `text`'s length in characters, the unit of citation offsets.
    pub(super) text_chars: u64,
    pub(super) text_span: Option<Source>,
    pub(super) citations: Vec<Citation>,
    pub(super) calls: Vec<OpenCall>,
    /// Content parts of a kind axt does not map (images, audio, ...), kept as passthrough.
    pub(super) other_parts: Vec<Value>,
}

pub(super) struct OpenCall {
    index: Option<u64>,
    pub(super) id: String,
    pub(super) name: String,
    /// What streams for the call, joined: JSON arguments (functions, MCP tools), or the
    /// free-form input of a custom tool.
    pub(super) arguments: String,
    /// How the input is made from `arguments`.
    pub(super) input: Input,
    /// The provider runs the tool itself (a Responses server tool).
    pub(super) server: bool,
    /// What the provider reported the tool produced, for a tool it ran and reports in the
    /// same item: the content and whether it failed.
    pub(super) result: Option<(Value, bool)>,
    /// The program that made the call (`caller.caller_id` of programmatic tool calling):
    /// the call is one of its sub-calls.
    pub(super) scope: Option<String>,
    pub(super) span: Source,
}

/// How a call's input is made.
pub(super) enum Input {
    /// `arguments` is JSON text, parsed when the call is handed out (`{}` when empty).
    Json,
    /// `arguments` is the input itself, a string (a custom tool's free-form input).
    Text,
    /// The input as the provider sent it, a JSON value; `arguments` is not read.
    Value(Value),
    /// These fields, with `code` set to `arguments` when code streamed or was given (the
    /// code interpreter).
    Code(Map<String, Value>),
}

/// Appends a piece of a text that may be streamed in deltas of a few bytes: the first piece
/// starts it with room for a message ([`streamed_text`]), not grown from its own size.
fn append(text: &mut String, piece: &str) {
    if text.capacity() == 0 && !piece.is_empty() {
        *text = streamed_text(piece);
    } else {
        text.push_str(piece);
    }
}

fn widen(span: &mut Option<Source>, source: Source) {
    match span {
        Some(span) => span.end_line = source.end_line,
        None => *span = Some(source),
    }
}

impl Assembly {
    pub(super) fn is_empty(&self) -> bool {
        self.thinking.is_empty()
            && self.signature.is_none()
            && self.text.is_empty()
            && self.citations.is_empty()
            && self.calls.is_empty()
            && self.other_parts.is_empty()
    }

    pub(super) fn think(&mut self, text: &str, source: Source) {
        if !text.is_empty() {
            append(&mut self.thinking, text);
            widen(&mut self.thinking_span, source);
        }
    }

    pub(super) fn sign(&mut self, signature: &str, source: Source) {
        if !signature.is_empty() {
            self.signature = Some(signature.to_owned());
            widen(&mut self.thinking_span, source);
        }
    }

    pub(super) fn say(&mut self, text: &str, source: Source) {
        if !text.is_empty() {
            append(&mut self.text, text);
            self.text_chars += text.chars().count() as u64;
            widen(&mut self.text_span, source);
        }
    }

    /// Annotations of text that starts `shift` characters into this assembly's text; an
    /// exact repeat of a citation already read (servers that resend the list on every chunk)
    /// adds nothing.
    pub(super) fn cite(&mut self, annotations: &[Value], shift: u64, source: Source) {
        for annotation in annotations {
            let Some(citation) = citation_of(annotation, shift) else {
                self.other_parts.push(annotation.clone());
                continue;
            };
            if !self.citations.contains(&citation) {
                self.citations.push(citation);
                widen(&mut self.text_span, source);
            }
        }
    }

    /// Content: a string, or an array of parts (Chat Completions content parts, Responses
    /// output content, Mistral's thinking and reference chunks).
    pub(super) fn content(&mut self, content: &StrOr<'_, Value>, source: Source) {
        let parts = match content {
            StrOr::Str(text) => return self.say(text, source),
            StrOr::Else(Value::Array(parts)) => parts.as_slice(),
            StrOr::Else(Value::Null) => return,
            StrOr::Else(part) => std::slice::from_ref(part),
        };
        for part in parts {
            let kind = part.get("type").and_then(Value::as_str).unwrap_or("text");
            match (kind, part) {
                (_, Value::String(text)) => self.say(text, source),
                ("text" | "output_text" | "input_text", _) => {
                    let shift = self.text_chars;
                    self.say(
                        part.get("text").and_then(Value::as_str).unwrap_or(""),
                        source,
                    );
                    if let Some(Value::Array(annotations)) = part.get("annotations") {
                        self.cite(annotations, shift, source);
                    }
                }
                ("refusal", _) => {
                    self.say(
                        part.get("refusal").and_then(Value::as_str).unwrap_or(""),
                        source,
                    );
                }
                ("thinking", _) => {
                    // Mistral: `{"type": "thinking", "thinking": [{"type": "text", ...}]}`.
                    if let Some(thinking) = part.get("thinking") {
                        self.think(&parts_text(thinking, ""), source);
                    }
                }
                ("reference", _) => {
                    // Mistral: a marker citing tool results by reference id, at this point
                    // of the text.
                    let mut extra = part.as_object().cloned().unwrap_or_default();
                    extra.remove("type");
                    let citation = Citation {
                        kind: "reference".into(),
                        start_index: Some(self.text_chars),
                        end_index: Some(self.text_chars),
                        extra,
                        ..Citation::default()
                    };
                    self.citations.push(citation);
                    widen(&mut self.text_span, source);
                }
                _ => self.other_parts.push(part.clone()),
            }
        }
    }

    /// A chat message, a whole one or one chunk's delta.
    pub(super) fn message(&mut self, message: WireMessage<'_>, source: Source) {
        let reasoning = [&message.reasoning, &message.reasoning_content]
            .into_iter()
            .flatten()
            .map(|r| r.text(""))
            .find(|r| !r.is_empty());
        let has_reasoning = reasoning.is_some();
        if let Some(reasoning) = reasoning {
            self.think(&reasoning, source);
        }
        for step in message.reasoning_steps.iter().flatten() {
            // One line per step: the steps arrive one chunk at a time.
            if let Some(thought) = step.get("thought").and_then(Value::as_str)
                && !thought.is_empty()
            {
                if !self.thinking.is_empty() && !self.thinking.ends_with('\n') {
                    self.think("\n", source);
                }
                self.think(thought, source);
            }
        }
        for detail in message.reasoning_details.iter().flatten() {
            // OpenRouter repeats the text of `reasoning` in its details; read it only alone.
            if !has_reasoning {
                let text = ["text", "summary"]
                    .iter()
                    .find_map(|key| detail.get(*key).and_then(Value::as_str));
                self.think(text.unwrap_or(""), source);
            }
            let signature = ["signature", "data"]
                .iter()
                .find_map(|key| detail.get(*key).and_then(Value::as_str));
            self.sign(signature.unwrap_or(""), source);
        }
        if let Some(content) = &message.content {
            self.content(content, source);
        }
        if let Some(refusal) = &message.refusal {
            self.say(refusal, source);
        }
        if let Some(annotations) = &message.annotations {
            self.cite(annotations, 0, source);
        }
        for call in message.tool_calls.into_iter().flatten() {
            let function = call.function.unwrap_or(WireFunction {
                name: None,
                arguments: None,
            });
            self.call_fragment(
                call.index,
                call.id.as_deref(),
                function.name.as_deref(),
                function.arguments,
                source,
            );
        }
    }

    /// A chunk's `message`: the consolidated copy so far when it extends what was assembled
    /// (Perplexity repeats the whole message on every chunk, and again in its `.done`
    /// records), so it replaces it; otherwise more of the message.
    pub(super) fn snapshot(&mut self, copy: Assembly) {
        if copy.text.starts_with(&self.text) {
            if copy.text.len() > self.text.len() || self.text_span.is_none() {
                self.text_span = self.text_span.or(copy.text_span);
            }
            self.text = copy.text;
            self.text_chars = copy.text_chars;
        } else {
            self.text.push_str(&copy.text);
            self.text_chars += copy.text_chars;
            self.text_span = self.text_span.or(copy.text_span);
        }
        if copy.thinking.starts_with(&self.thinking) {
            self.thinking_span = self.thinking_span.or(copy.thinking_span);
            self.thinking = copy.thinking;
        } else {
            self.thinking.push_str(&copy.thinking);
        }
        self.signature = copy.signature.or(self.signature.take());
        for citation in copy.citations {
            if !self.citations.contains(&citation) {
                self.citations.push(citation);
            }
        }
        if self.calls.is_empty() {
            self.calls = copy.calls;
        }
        self.other_parts.extend(copy.other_parts);
    }

    /// One fragment of a tool call; see the adapter's docs ("Tool calls") for how fragments
    /// find their call.
    pub(super) fn call_fragment(
        &mut self,
        index: Option<u64>,
        id: Option<&str>,
        name: Option<&str>,
        arguments: Option<StrOr<'_, Value>>,
        source: Source,
    ) {
        let id = id.filter(|id| !id.is_empty());
        let at = match id {
            Some(id) => self.calls.iter().position(|c| c.id == id).or_else(|| {
                // A call whose fragments came before its id (rare): adopt the id.
                let last = self.calls.len().checked_sub(1)?;
                let call = &self.calls[last];
                (call.id.is_empty() && call.index == index).then_some(last)
            }),
            None => match index {
                Some(index) => self.calls.iter().rposition(|c| c.index == Some(index)),
                None => self.calls.len().checked_sub(1),
            },
        };
        let at = at.unwrap_or_else(|| {
            self.calls.push(OpenCall {
                index,
                id: String::new(),
                name: String::new(),
                arguments: String::new(),
                input: Input::Json,
                server: false,
                result: None,
                scope: None,
                span: source,
            });
            self.calls.len() - 1
        });
        let call = &mut self.calls[at];
        call.span.end_line = source.end_line;
        if let (true, Some(id)) = (call.id.is_empty(), id) {
            call.id = id.to_owned();
        }
        if let (true, Some(name)) = (call.name.is_empty(), name) {
            call.name = name.to_owned();
        }
        match arguments {
            Some(StrOr::Str(piece)) => append(&mut call.arguments, &piece),
            Some(StrOr::Else(Value::Null)) | None => {}
            Some(StrOr::Else(value)) => call.input = Input::Value(value),
        }
    }

    pub(super) fn last_call(&mut self) -> &mut OpenCall {
        self.calls.last_mut().expect("a call was just added")
    }

    /// A new call with this id, name and input.
    pub(super) fn call_at(&mut self, id: &str, name: &str, input: Input, source: Source) {
        self.calls.push(OpenCall {
            index: None,
            id: id.to_owned(),
            name: name.to_owned(),
            arguments: String::new(),
            input,
            server: false,
            result: None,
            scope: None,
            span: source,
        });
    }

    /// What the consolidated copy of an item lacks, taken from what its deltas assembled;
    /// a disagreement between the two is reported (the consolidated copy wins).
    pub(super) fn fill_from(&mut self, streamed: Assembly, diagnostics: &mut Vec<Diagnostic>) {
        let mut mismatch = |what: &str, span: Option<Source>| {
            let span = span.unwrap_or(Source::record(1, 0));
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::StreamMismatch,
                span.line,
                span.offset,
                format!("the streamed {what} differs from the item's final copy; kept the copy"),
            ));
        };
        if self.text.is_empty() {
            self.text = streamed.text;
            self.text_chars = streamed.text_chars;
        } else if !streamed.text.is_empty() && streamed.text != self.text {
            mismatch("text", self.text_span);
        }
        if let Some(span) = streamed.text_span {
            self.text_span = Some(Source {
                end_line: self.text_span.map_or(span.end_line, |s| s.end_line),
                ..span
            });
        }
        if self.citations.is_empty() {
            self.citations = streamed.citations;
        } else if !streamed.citations.is_empty() && streamed.citations != self.citations {
            mismatch("citations", self.text_span);
        }
        if self.thinking.is_empty() {
            self.thinking = streamed.thinking;
        }
        self.signature = self.signature.take().or(streamed.signature);
        if let Some(span) = streamed.thinking_span {
            self.thinking_span = Some(Source {
                end_line: self.thinking_span.map_or(span.end_line, |s| s.end_line),
                ..span
            });
        }
        if self.calls.is_empty() {
            self.calls = streamed.calls;
            return;
        }
        for (call, streamed) in self.calls.iter_mut().zip(streamed.calls) {
            if matches!(call.input, Input::Value(_)) {
                // The copy's input is a JSON value: the deltas were its text, nothing to add.
            } else if call.arguments.is_empty() {
                call.arguments = streamed.arguments;
            } else if !streamed.arguments.is_empty() && streamed.arguments != call.arguments {
                mismatch("tool arguments", Some(call.span));
            }
            call.span = Source {
                end_line: call.span.end_line,
                ..streamed.span
            };
        }
    }
}
