//! Bookkeeping shared by the adapters: tool calls waiting for their results, and the
//! diagnostics every line-based adapter reports the same way.
//!
//! It owns no provider knowledge: an adapter says when it saw a call and when a result
//! arrived; the ledger says which results answer nothing (orphans, errors) and which calls
//! were never answered (dangling, warnings), in the order the calls were seen.

use std::collections::HashMap;

use serde_json::Value;

use super::{Diagnostic, DiagnosticKind, describe};
use crate::model::Block;

/// A tool call seen, waiting for its result.
struct PendingTool {
    name: String,
    line: u64,
    offset: u64,
    answered: bool,
}

/// Tool calls by id, in the order they were seen.
#[derive(Default)]
pub(crate) struct ToolLedger {
    tools: HashMap<String, PendingTool>,
    order: Vec<String>,
}

impl ToolLedger {
    /// Records a call; false when the id is empty or already known (the call was seen before).
    pub(crate) fn call(&mut self, tool_id: &str, name: &str, line: u64, offset: u64) -> bool {
        if tool_id.is_empty() || self.tools.contains_key(tool_id) {
            return false;
        }
        self.order.push(tool_id.to_owned());
        self.tools.insert(
            tool_id.to_owned(),
            PendingTool {
                name: name.to_owned(),
                line,
                offset,
                answered: false,
            },
        );
        true
    }

    /// Marks a call answered; a result for a call never seen is reported as an orphan.
    pub(crate) fn answer(
        &mut self,
        tool_id: &str,
        line: u64,
        offset: u64,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        match self.tools.get_mut(tool_id) {
            Some(tool) => tool.answered = true,
            None => diagnostics.push(Diagnostic::new(
                DiagnosticKind::OrphanToolResult,
                line,
                offset,
                format!("tool_result for {tool_id:?}, a tool call never seen"),
            )),
        }
    }

    /// Reports every call left without a result, in the order the calls were seen.
    pub(crate) fn report_dangling(&self, diagnostics: &mut Vec<Diagnostic>) {
        for id in &self.order {
            let tool = &self.tools[id];
            if !tool.answered {
                diagnostics.push(Diagnostic::new(
                    DiagnosticKind::DanglingToolUse,
                    tool.line,
                    tool.offset,
                    format!("{} never received a result", describe_tool(&tool.name, id)),
                ));
            }
        }
    }
}

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
