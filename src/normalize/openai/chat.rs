//! Chat Completions: stream chunks (and Perplexity's records among them), whole bodies,
//! `[DONE]`, and request bodies (`messages`).
//!
//! This file owns how a choice streams and ends and how a request's history is read once.
//! It assembles with `assembly` and hands out with `emit`; it knows nothing of the
//! Responses API.

use serde_json::Value;

use super::State;
use super::assembly::Assembly;
use super::items::ItemResult;
use super::wire::{StrOr, Wire, unboxed};
use crate::model::{Citation, Role};
use crate::normalize::json::Parsed;
use crate::normalize::tools::citation_of;
use crate::normalize::{Diagnostic, Item, Source, StopKind};

impl State {
    pub(super) fn chunk(
        &mut self,
        mut wire: Wire<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.begin_response(wire.id.as_deref(), wire.model.as_deref());
        // Groq reports a stream's usage only inside `x_groq`, on its last chunk.
        let groq_usage = wire
            .x_groq
            .as_ref()
            .and_then(|x| x.get("usage"))
            .filter(|usage| usage.is_object())
            .cloned();
        self.note_extras(&mut wire, span.line);
        self.sources(&mut wire);
        for choice in wire.choices.into_iter().flatten() {
            let index = choice.index.unwrap_or(0);
            let at = match self.choices.iter().position(|(i, _)| *i == index) {
                Some(at) => at,
                None => {
                    self.choices.push((index, Assembly::default()));
                    self.choices.len() - 1
                }
            };
            self.streaming = true;
            if let Some(delta) = choice.delta {
                self.choices[at].1.message(delta, span);
            }
            if let Some(message) = choice.message {
                let mut copy = Assembly::default();
                copy.message(message, span);
                self.choices[at].1.snapshot(copy);
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.stop(finish_kind(&reason), &reason);
                let (_, assembly) = self.choices.remove(at);
                self.emit_choice(index, assembly, true, items, diagnostics);
                if self.choices.is_empty() {
                    self.history += 1;
                    self.completed();
                }
            }
        }
        self.usage(
            unboxed(wire.usage)
                .filter(|usage| !usage.is_null())
                .or(groq_usage),
        );
        if let Some(error) = unboxed(wire.error).filter(|e| !e.is_null()) {
            self.fail(&error, span, items, diagnostics);
        }
    }

    /// `data: [DONE]`: the stream is over and what it said is complete, `finish_reason` or
    /// not (a missing one is not an error: Ollama sends `null`).
    pub(super) fn done(&mut self, items: &mut Vec<Item>, diagnostics: &mut Vec<Diagnostic>) {
        let open = !self.choices.is_empty() || !self.items.is_empty();
        self.flush(true, items, diagnostics);
        if open {
            self.history += 1;
        }
        if self.saw_response {
            self.completed();
        }
    }

    pub(super) fn completion(
        &mut self,
        mut wire: Wire<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.begin_response(wire.id.as_deref(), wire.model.as_deref());
        self.note_extras(&mut wire, span.line);
        self.sources(&mut wire);
        for choice in wire.choices.into_iter().flatten() {
            let mut assembly = Assembly::default();
            if let Some(message) = choice.message.or(choice.delta) {
                assembly.message(message, span);
            }
            let index = choice.index.unwrap_or(0);
            self.emit_choice(index, assembly, true, items, diagnostics);
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.stop(finish_kind(&reason), &reason);
            }
        }
        self.history += 1;
        self.usage(unboxed(wire.usage));
        match unboxed(wire.error).filter(|e| !e.is_null()) {
            Some(error) => self.fail(&error, span, items, diagnostics),
            None => self.completed(),
        }
    }

    /// A request's `tools` (Chat Completions or Responses), kept as metadata
    /// (`request/tools`) when they change: every request repeats them.
    pub(super) fn keep_request_tools(&mut self, tools: Option<Value>, span: Source) {
        if let Some(tools) = tools.filter(|t| !t.is_null())
            && self.offered.as_ref() != Some(&tools)
        {
            self.offered = Some(tools.clone());
            self.meta.keep(span.line, "request/tools", || tools);
        }
    }

    pub(super) fn chat_request(
        &mut self,
        wire: Wire<'_>,
        parsed: Parsed<'_>,
        span: Source,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.keep_request_tools(unboxed(wire.request_tools), span);
        let messages = wire.messages.unwrap_or_default();
        let skip = self.history.min(messages.len());
        self.history = messages.len();
        for message in messages.into_iter().skip(skip) {
            match message.role.as_deref().unwrap_or("user") {
                "user" => {
                    if let Some(content) = &message.content {
                        self.user_text(content, span, items);
                    }
                }
                "assistant" => {
                    let mut assembly = Assembly::default();
                    assembly.message(message, span);
                    let id = self.response_id.take();
                    self.emit(assembly, true, items, diagnostics);
                    self.response_id = id;
                }
                "tool" | "function" => {
                    let result = ItemResult {
                        tool_id: message.tool_call_id.as_deref().unwrap_or("").to_owned(),
                        // Held as the record escaped it (see `items::result_item`).
                        content: match message.content {
                            Some(StrOr::Str(text)) => parsed.output(text),
                            content => content.map_or(Value::Null, StrOr::into_value).into(),
                        },
                        is_error: false,
                        exit_code: None,
                        unnamed: None,
                        program: None,
                    };
                    self.tool_result(result, Role::User, span, items, diagnostics);
                }
                role => self.meta.keep(span.line, &format!("message/{role}"), || {
                    message.content.map_or(Value::Null, StrOr::into_value)
                }),
            }
        }
    }

    /// Perplexity's sources of the response (`search_results`, else the bare URLs of
    /// `citations`; on every chunk in its full stream mode, so the latest list is the one).
    fn sources(&mut self, wire: &mut Wire<'_>) {
        let mut sources: Vec<Citation> = Vec::new();
        if let Some(Value::Array(results)) = unboxed(wire.search_results.take()) {
            for result in results {
                let mut fields = result.as_object().cloned().unwrap_or_default();
                fields.insert("type".into(), Value::String("search_result".into()));
                if let Some(citation) = citation_of(&Value::Object(fields), 0) {
                    sources.push(citation);
                }
            }
        }
        if let Some(Value::Array(urls)) = unboxed(wire.citations.take()) {
            for url in urls.iter().filter_map(Value::as_str) {
                // Perplexity lists each source in both; a URL its search results name is
                // read once.
                if !sources.iter().any(|s| s.url.as_deref() == Some(url)) {
                    sources.push(Citation {
                        kind: "url".into(),
                        url: Some(url.to_owned()).filter(|url| !url.is_empty()),
                        ..Citation::default()
                    });
                }
            }
        }
        if !sources.is_empty() {
            self.sources = sources;
        }
    }
}

fn finish_kind(reason: &str) -> StopKind {
    match reason {
        "stop" | "end_turn" => StopKind::EndTurn,
        "length" => StopKind::MaxTokens,
        "tool_calls" | "function_call" => StopKind::ToolUse,
        "content_filter" => StopKind::Refusal,
        "error" => StopKind::Error,
        _ => StopKind::Other,
    }
}
