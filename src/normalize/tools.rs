//! Bookkeeping every adapter shares: tool calls waiting for their results, the reading of a
//! provider's citation objects, the diagnostics that do not depend on a provider's
//! dialect, and the text a stream's deltas are assembled into.
//!
//! Every adapter pairs results with calls by id. [`PendingTools`] remembers each call it was
//! told about, reports a result whose call was never seen (an orphan, an error) when it
//! arrives, and at the end of the input reports every call that never got a result
//! (dangling, a warning), in the order the calls were seen.

// foldhash, not std's SipHash: every call of every adapter is looked up here by its id, and
// the table is still seeded per run (foldhash's RandomState).
use foldhash::HashMap;

use serde_json::Value;

use super::{Diagnostic, DiagnosticKind, describe};
use crate::model::{Block, Citation};

/// A tool call seen, waiting for its result.
struct Call {
    name: String,
    line: u64,
    offset: u64,
    answered: bool,
}

#[derive(Default)]
pub(crate) struct PendingTools {
    calls: HashMap<String, Call>,
    /// Tool ids in the order their calls were seen, for a stable dangling report.
    order: Vec<String>,
}

impl PendingTools {
    /// Remembers a call and says whether it is a new one. A call already waiting is left as
    /// it is and gives false (a repeated copy of the same call: Copilot announces each call
    /// twice); an id whose call was already answered is opened again (Codex numbers its items
    /// per turn, so `item_2` can name a new call in the next turn). Empty ids are not tracked.
    pub(crate) fn open(&mut self, tool_id: &str, name: &str, line: u64, offset: u64) -> bool {
        if tool_id.is_empty() {
            return false;
        }
        match self.calls.get_mut(tool_id) {
            Some(call) if !call.answered => return false,
            Some(call) => {
                *call = Call {
                    name: name.to_owned(),
                    line,
                    offset,
                    answered: false,
                };
            }
            None => {
                self.order.push(tool_id.to_owned());
                self.calls.insert(
                    tool_id.to_owned(),
                    Call {
                        name: name.to_owned(),
                        line,
                        offset,
                        answered: false,
                    },
                );
            }
        }
        true
    }

    /// The call seen first of those still waiting for their result: the one a result that
    /// names no call answers (the seed's simplified format allows that).
    pub(crate) fn oldest_waiting(&self) -> Option<String> {
        self.order
            .iter()
            .find(|id| !self.calls[id.as_str()].answered)
            .cloned()
    }

    /// The call of tool `name` seen first of those still waiting for their result: the one
    /// a result of that tool that names no call answers (a server-side tool search).
    pub(crate) fn oldest_waiting_named(&self, name: &str) -> Option<String> {
        self.order
            .iter()
            .find(|id| {
                let call = &self.calls[id.as_str()];
                !call.answered && call.name == name
            })
            .cloned()
    }

    /// Whether a call with this id was seen and still waits for its result.
    pub(crate) fn is_waiting(&self, tool_id: &str) -> bool {
        self.calls.get(tool_id).is_some_and(|call| !call.answered)
    }

    /// Marks the call answered, or reports the result as an orphan when no call with this
    /// id was seen.
    pub(crate) fn answer(
        &mut self,
        tool_id: &str,
        line: u64,
        offset: u64,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        match self.calls.get_mut(tool_id) {
            Some(call) => call.answered = true,
            None => diagnostics.push(Diagnostic::new(
                DiagnosticKind::OrphanToolResult,
                line,
                offset,
                format!("tool_result for {tool_id:?}, a tool call never seen"),
            )),
        }
    }

    /// Reports every call still waiting, in the order the calls were seen.
    pub(crate) fn report_dangling(&self, diagnostics: &mut Vec<Diagnostic>) {
        for id in &self.order {
            let call = &self.calls[id];
            if call.answered {
                continue;
            }
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::DanglingToolUse,
                call.line,
                call.offset,
                format!("{} never received a result", describe_tool(&call.name, id)),
            ));
        }
    }
}

/// "tool_use NAME (ID)", as diagnostics name a call.
pub(crate) fn describe_tool(name: &str, id: &str) -> String {
    describe(&Block::ToolUse {
        tool_name: name.to_owned(),
        tool_id: id.to_owned(),
        tool_input: Value::Null,
        server: false,
        incomplete: false,
        permission: None,
    })
}

/// A provider's citation object as a [`Citation`]: OpenAI annotations (Responses
/// `annotations[]`; Chat Completions `annotations[]`, whose details nest under the type's
/// name), Anthropic `citations[]` (`document_title` is the title), Perplexity search
/// results. `shift` moves its offsets to count from the start of the assembled text. `None`
/// for what is not an object with a string `type`.
pub(crate) fn citation_of(annotation: &Value, shift: u64) -> Option<Citation> {
    let mut fields = annotation.as_object()?.clone();
    let kind = match fields.remove("type") {
        Some(Value::String(kind)) => kind,
        _ => return None,
    };
    if let Some(Value::Object(inner)) = fields.remove(&kind) {
        for (name, value) in inner {
            fields.entry(name).or_insert(value);
        }
    }
    // A field of the type it should have is mapped; anything else stays in `extra`.
    let mut text = |name: &str| match fields.get(name) {
        Some(Value::String(text)) if !text.is_empty() => fields
            .remove(name)
            .and_then(|v| v.as_str().map(str::to_owned)),
        Some(Value::Null) => fields.remove(name).and(None),
        Some(Value::String(_)) => fields.remove(name).and(None),
        _ => None,
    };
    let url = text("url");
    let title = text("title").or_else(|| text("document_title"));
    let file_id = text("file_id");
    let filename = text("filename");
    let cited_text = text("cited_text");
    let mut index = |name: &str| {
        let at = fields.get(name)?.as_u64()?;
        fields.remove(name);
        Some(at + shift)
    };
    let start_index = index("start_index");
    let end_index = index("end_index");
    Some(Citation {
        kind,
        url,
        title,
        file_id,
        filename,
        cited_text,
        start_index,
        end_index,
        extra: fields,
    })
}

/// Each citation object of a list (Anthropic's `citations` of a text block); `null` or
/// absent is none.
pub(crate) fn citations_of(list: Option<&Value>) -> Vec<Citation> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|citation| citation_of(citation, 0))
        .collect()
}

/// The diagnostic for a record the framer skipped as too large.
pub(crate) fn too_large(line: u64, offset: u64, size: u64, terminated: bool) -> Diagnostic {
    let ending = if terminated {
        ""
    } else {
        " (and unterminated)"
    };
    Diagnostic::new(
        DiagnosticKind::RecordTooLarge,
        line,
        offset,
        format!("record of {size} bytes is over the limit{ending}, skipped"),
    )
}

/// The diagnostic for a stream that ended without its terminal record (`what`).
pub(crate) fn missing_terminal(line: u64, offset: u64, what: &str) -> Diagnostic {
    Diagnostic::new(
        DiagnosticKind::MissingTerminal,
        line,
        offset,
        format!("the stream ended without {what}; the run is incomplete"),
    )
}

/// A text to be assembled from streamed deltas (8-60 bytes each, most of a stream's lines),
/// started with its first: room for a message of a few hundred bytes from the start, so that
/// appending the deltas does not reallocate and copy the text at every doubling.
pub(crate) fn streamed_text(first: &str) -> String {
    const ROOM: usize = 512;
    let mut text = String::with_capacity(first.len().max(ROOM));
    text.push_str(first);
    text
}
