//! A request body: its system instruction and tools when they change, and the contents past
//! the history already read, whose user side carries the results of the calls before it.
//!
//! This file owns reading a request. It must not touch a response's state.

use crate::normalize::json::{Borrowed, Parsed, Tree, tree_object};

use serde_json::Value;

use super::State;
use super::parts::{Candidate, Made, Out};
use super::wire::{Content, FunctionResponse, Wire};
use crate::model::{Block, Role};
use crate::normalize::framing::Record;
use crate::normalize::{Diagnostic, Item};

impl State {
    /// A request body.
    pub(super) fn request(
        &mut self,
        wire: Wire<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        // The response before it is over: its content is the history's last, which this
        // request repeats.
        self.end_response("the next request was sent", items, diagnostics);
        let line = record.span.line;
        if let Some(system) = wire.system_instruction.filter(|s| !s.is_null())
            && self.system.as_ref() != Some(&system)
        {
            self.system = Some(system.clone());
            self.meta.keep(line, "request/system", || system);
        }
        if let Some(tools) = wire.tools.filter(|t| !t.is_null())
            && self.declared.as_ref() != Some(&tools)
        {
            self.declared = Some(tools.clone());
            self.meta.keep(line, "request/tools", || tools);
        }
        let contents = wire.contents.unwrap_or_default();
        let skip = self.history.min(contents.len());
        self.history = contents.len();
        for content in contents.past(skip) {
            match content.role.as_deref().unwrap_or("user") {
                "model" => self.model_content(content, record, items, diagnostics),
                _ => self.user_content(content, record, parsed, items, diagnostics),
            }
        }
    }

    /// A model content of the history: its parts read as a body's.
    fn model_content(
        &mut self,
        content: Content<'_>,
        record: Record<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let mut candidate = Candidate::default();
        let mut out = Out::default();
        let named_calls = &mut self.named_calls;
        for part in content.parts {
            candidate.part(
                part,
                record.span,
                &mut |name| State::next_id(named_calls, name),
                &mut out,
            );
        }
        candidate.close(&mut out);
        for made in out.blocks {
            self.deliver(made, Role::Assistant, &None, items, diagnostics);
        }
        self.unknown(out.unknown, "request/part/", record.span, diagnostics);
    }

    /// A user content: its text, the responses of the functions called before it, and the
    /// other parts kept as metadata.
    fn user_content(
        &mut self,
        content: Content<'_>,
        record: Record<'_>,
        parsed: Parsed<'_>,
        items: &mut Vec<Item>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let source = record.span;
        for part in content.parts {
            let block = if let Some(text) = part.text {
                Block::text(text.into_owned())
            } else if let Some(response) = part.function_response {
                self.function_response(response, parsed)
            } else {
                let kind = part.rest.keys().next().cloned().unwrap_or_default();
                let kind = format!("request/part/{kind}");
                let part = Value::Object(part.rest);
                self.meta.keep(source.line, &kind, || part);
                continue;
            };
            self.deliver(
                Made { block, source },
                Role::User,
                &None,
                items,
                diagnostics,
            );
        }
    }

    /// A `functionResponse`: what the client's function returned, paired by its `id`, else
    /// with the oldest call of its name still waiting. The API's convention is a `response`
    /// of `{"output": ...}` or `{"error": ...}`: a response that is only one of them is its
    /// value (failed for `error`); any other response is kept whole, failed when it reports
    /// an `error` and no `output`. A string value is held as the record escaped it
    /// (`Parsed::output`): axt never reads it.
    fn function_response(&self, response: FunctionResponse<'_>, parsed: Parsed<'_>) -> Block {
        let name = response.name.map(Borrowed::into_owned).unwrap_or_default();
        let tool_id = match response
            .id
            .map(Borrowed::into_owned)
            .filter(|id| !id.is_empty())
        {
            Some(id) => id,
            None => self.tools.oldest_waiting_named(&name).unwrap_or(name),
        };
        let content = match response.response {
            Some(Tree::Object(members)) => match <[_; 1]>::try_from(members) {
                Ok([(name, value)]) if name == "output" || name == "error" => {
                    let tool_content = match value {
                        Tree::Str(text) => parsed.output(text),
                        value => value.into_value().into(),
                    };
                    return Block::ToolResult {
                        tool_id,
                        tool_content,
                        is_error: name == "error",
                        exit_code: None,
                    };
                }
                Ok(member) => Value::Object(tree_object(member.into())),
                Err(members) => Value::Object(tree_object(members)),
            },
            Some(tree) => tree.into_value(),
            None => Value::Null,
        };
        let is_error = content.get("error").is_some() && content.get("output").is_none();
        let content = match content {
            Value::Object(mut fields) if fields.len() == 1 => {
                match fields.remove("output").or_else(|| fields.remove("error")) {
                    Some(value) => value,
                    None => Value::Object(fields),
                }
            }
            other => other,
        };
        Block::ToolResult {
            tool_id,
            tool_content: content.into(),
            is_error,
            exit_code: None,
        }
    }
}
