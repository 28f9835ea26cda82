//! Bookkeeping every adapter shares: tool calls waiting for their results, and the
//! diagnostics that do not depend on a provider's dialect.
//!
//! Every adapter pairs results with calls by id. [`PendingTools`] remembers each call it was
//! told about, reports a result whose call was never seen (an orphan, an error) when it
//! arrives, and at the end of the input reports every call that never got a result
//! (dangling, a warning), in the order the calls were seen.

use std::collections::HashMap;

use serde_json::Value;

use super::{Diagnostic, DiagnosticKind, describe};
use crate::model::Block;

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
    })
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
