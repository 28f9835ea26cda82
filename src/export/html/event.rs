//! One transcript event as the page receives it: the envelope in short keys, the payload
//! as the tolerant reader decoded it, written whole whatever it holds (an unknown role, a
//! block of an unknown type, a payload of no known shape: kept, with why, never dropped),
//! and what the page needs to show a tool call (its class, its command lines, its edits).
//!
//! The shapes are in the module documentation of [`html`](super). This file writes one
//! event; it does not decide where an event goes on the page, nor read run metadata.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use super::super::file_ops::file_operations;
use crate::model::tools::{ToolClass, classify, shell_commands};
use crate::model::{
    Block, Citation, ContentBlock, ExchangeEvent, MessagePayload, Payload, StepPayload,
    ToolPayload, UnrecognizedReason,
};

/// An event of a run, as the page's `events` list holds it.
pub(super) struct ViewEvent<'a> {
    /// Its line in the file.
    pub(super) line: u64,
    pub(super) event: &'a ExchangeEvent,
    /// The run of the file: the event's own `run_id` is written only when it differs.
    pub(super) run_id: &'a str,
    /// A `tool.call` whose input is the input of the `tool_use` block of the same call,
    /// written just before: the page takes it from there (`"same_input": true`).
    pub(super) same_input: bool,
}

impl Serialize for ViewEvent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let event = self.event;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("l", &self.line)?;
        map.serialize_entry("s", &event.seq)?;
        map.serialize_entry("y", event.event_type.as_str())?;
        map.serialize_entry("p", &event.path)?;
        map.serialize_entry("i", &event.iteration)?;
        map.serialize_entry("t", event.timestamp.as_str())?;
        if event.run_id != self.run_id {
            map.serialize_entry("r", &event.run_id)?;
        }
        if let Some(child) = &event.child_run_id {
            map.serialize_entry("c", child)?;
        }
        match &event.payload {
            Payload::None => {}
            Payload::Message(message) => map.serialize_entry("d", &Message(message))?,
            Payload::Tool(tool) => map.serialize_entry(
                "d",
                &Tool {
                    tool,
                    same_input: self.same_input,
                },
            )?,
            Payload::Step(step) => map.serialize_entry("d", &Step(step))?,
            Payload::Blocks(blocks) => map.serialize_entry("d", &Unshaped::Blocks(blocks))?,
            Payload::Raw(value) => map.serialize_entry("d", &Unshaped::Raw(value, None))?,
            Payload::Malformed { value, reason, .. } => {
                map.serialize_entry("d", &Unshaped::Raw(value, Some(reason)))?;
            }
        }
        map.end()
    }
}

struct Message<'a>(&'a MessagePayload);

impl Serialize for Message<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("role", self.0.role.as_str())?;
        map.serialize_entry("blocks", &Blocks(&self.0.blocks))?;
        if let Some(id) = &self.0.message_id {
            map.serialize_entry("message_id", id)?;
        }
        map.end()
    }
}

struct Blocks<'a>(&'a [ContentBlock]);

impl Serialize for Blocks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for block in self.0 {
            seq.serialize_element(&BlockView(block))?;
        }
        seq.end()
    }
}

/// A block as the page receives it: its wire fields, like the model's `Serialize`, which is
/// the strict writer's and so refuses what a reader must still show (a block of an unknown
/// type, an empty optional string); this one writes every block it is given.
struct BlockView<'a>(&'a ContentBlock);

impl Serialize for BlockView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let block = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", block.block.type_name())?;
        map.serialize_entry("fidelity", block.fidelity.as_str())?;
        match &block.block {
            Block::Text {
                text,
                citations,
                system_prompt,
            } => {
                map.serialize_entry("text", text)?;
                if !citations.is_empty() {
                    let citations: Vec<CitationView<'_>> =
                        citations.iter().map(CitationView).collect();
                    map.serialize_entry("citations", &citations)?;
                }
                if *system_prompt {
                    map.serialize_entry("system_prompt", &true)?;
                }
            }
            Block::Thinking {
                thinking,
                signature,
                redacted,
            } => {
                map.serialize_entry("thinking", thinking)?;
                // The opaque replay token is of no use to a reader: only that there is one.
                if signature.is_some() {
                    map.serialize_entry("signed", &true)?;
                }
                if *redacted {
                    map.serialize_entry("redacted", &true)?;
                }
            }
            Block::ToolUse {
                tool_name,
                tool_id,
                tool_input,
                server,
                incomplete,
                permission,
            } => {
                map.serialize_entry("tool_name", tool_name)?;
                map.serialize_entry("tool_id", tool_id)?;
                map.serialize_entry("tool_input", tool_input)?;
                if let Some(class) = classify(tool_name) {
                    map.serialize_entry("class", class.as_str())?;
                }
                if *server {
                    map.serialize_entry("server", &true)?;
                }
                if *incomplete {
                    map.serialize_entry("incomplete", &true)?;
                }
                // The decision the client made when the agent asked (ACP), as recorded.
                if let Some(permission) = permission {
                    map.serialize_entry("permission", permission)?;
                }
            }
            Block::ToolResult {
                tool_id,
                tool_content,
                is_error,
                exit_code,
            } => {
                map.serialize_entry("tool_id", tool_id)?;
                map.serialize_entry("tool_content", tool_content)?;
                if *is_error {
                    map.serialize_entry("is_error", &true)?;
                }
                if let Some(code) = exit_code {
                    map.serialize_entry("exit_code", code)?;
                }
            }
            Block::Command { command, tool_id } => {
                map.serialize_entry("command", command)?;
                if let Some(id) = tool_id {
                    map.serialize_entry("tool_id", id)?;
                }
            }
            Block::Stream { chunk } => map.serialize_entry("chunk", chunk)?,
            Block::Unrecognized(unrecognized) => {
                map.serialize_entry("raw", &unrecognized.raw)?;
                let why = match &unrecognized.reason {
                    UnrecognizedReason::UnknownType(name) => format!("unknown block type {name:?}"),
                    UnrecognizedReason::Malformed(reason) => format!("malformed block: {reason}"),
                };
                map.serialize_entry("unrecognized", &why)?;
            }
        }
        map.end()
    }
}

struct CitationView<'a>(&'a Citation);

impl Serialize for CitationView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let citation = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", &citation.kind)?;
        let texts = [
            ("url", &citation.url),
            ("title", &citation.title),
            ("filename", &citation.filename),
            ("cited_text", &citation.cited_text),
        ];
        for (key, value) in texts {
            if let Some(value) = value {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

struct Tool<'a> {
    tool: &'a ToolPayload,
    same_input: bool,
}

impl Serialize for Tool<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tool = self.tool;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &tool.name)?;
        map.serialize_entry("call_id", &tool.call_id)?;
        if self.same_input {
            map.serialize_entry("same_input", &true)?;
        } else if !tool.input.is_null() {
            map.serialize_entry("input", &tool.input)?;
        }
        if !tool.output.is_null() {
            map.serialize_entry("output", &tool.output)?;
        }
        if let Some(error) = &tool.error {
            map.serialize_entry("error", error)?;
        }
        map.serialize_entry("fidelity", tool.fidelity.as_str())?;
        if let Some(code) = tool.exit_code {
            map.serialize_entry("exit_code", &code)?;
        }
        if let Some(ms) = tool.duration_ms {
            map.serialize_entry("duration_ms", &ms)?;
        }
        if let Some(id) = &tool.agent_call_id {
            map.serialize_entry("agent_call_id", id)?;
        }
        if let Some(class) = classify(&tool.name) {
            map.serialize_entry("class", class.as_str())?;
        }
        let commands = shell_commands(&tool.name, &tool.input);
        if !commands.is_empty() {
            map.serialize_entry("commands", &commands)?;
        }
        let changes = matches!(
            classify(&tool.name),
            Some(ToolClass::FileEdit | ToolClass::FilePatch)
        );
        let files = file_operations(&tool.name, &tool.input);
        if changes && !files.is_empty() {
            let files: Vec<Value> = files
                .into_iter()
                .map(|op| {
                    let edits: Vec<[&str; 2]> = op.edits.iter().map(|e| [e.old, e.new]).collect();
                    serde_json::json!({
                        "op": op.operation, "path": op.path, "edits": edits, "diff": op.diff,
                    })
                })
                .collect();
            map.serialize_entry("files", &files)?;
        }
        map.end()
    }
}

struct Step<'a>(&'a StepPayload);

impl Serialize for Step<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let step = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &step.name)?;
        map.serialize_entry("kind", step.kind.as_str())?;
        if let Some(error) = &step.error {
            map.serialize_entry("error", error)?;
        }
        if !step.result.is_null() {
            map.serialize_entry("result", &step.result)?;
        }
        if let Some(ms) = step.duration_ms {
            map.serialize_entry("duration_ms", &ms)?;
        }
        map.end()
    }
}

/// A payload of no shape of the vocabulary, kept as read.
enum Unshaped<'a> {
    Blocks(&'a [ContentBlock]),
    /// The value, and why it did not fit the shape its keys named.
    Raw(&'a Value, Option<&'a String>),
}

impl Serialize for Unshaped<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Unshaped::Blocks(blocks) => map.serialize_entry("blocks", &Blocks(blocks))?,
            Unshaped::Raw(value, reason) => {
                map.serialize_entry("raw", value)?;
                if let Some(reason) = reason {
                    map.serialize_entry("malformed", reason)?;
                }
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::decode_event;

    fn view(line: &str, run_id: &str, same_input: bool) -> String {
        let event = decode_event(line.as_bytes()).unwrap();
        let view = ViewEvent {
            line: 7,
            event: &event,
            run_id,
            same_input,
        };
        serde_json::to_string(&view).unwrap()
    }

    #[test]
    fn a_tool_call_carries_its_class_commands_and_edits() {
        let line = r#"{"seq":3,"run_id":"r","type":"tool.call","path":"agent","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{"name":"Edit","call_id":"t1","input":{"file_path":"a.go","old_string":"x := 1","new_string":"x := 2"},"output":null,"fidelity":"agent_emitted"}}"#;
        assert_eq!(
            view(line, "r", false),
            r#"{"l":7,"s":3,"y":"tool.call","p":"agent","i":0,"t":"2026-06-08T08:14:42Z","d":{"name":"Edit","call_id":"t1","input":{"file_path":"a.go","new_string":"x := 2","old_string":"x := 1"},"fidelity":"agent_emitted","class":"file_edit","files":[{"diff":null,"edits":[["x := 1","x := 2"]],"op":"edit","path":"a.go"}]}}"#
        );
        let shell = r#"{"seq":4,"run_id":"other","type":"tool.call","path":"agent","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{"name":"Bash","call_id":"t2","input":{"command":"ls"},"output":null,"fidelity":"router"}}"#;
        assert_eq!(
            view(shell, "r", true),
            r#"{"l":7,"s":4,"y":"tool.call","p":"agent","i":0,"t":"2026-06-08T08:14:42Z","r":"other","d":{"name":"Bash","call_id":"t2","same_input":true,"fidelity":"router","class":"shell","commands":["ls"]}}"#
        );
    }

    #[test]
    fn what_the_vocabulary_does_not_know_is_kept_with_why() {
        let line = r#"{"seq":5,"run_id":"r","type":"message.assistant","path":"agent","iteration":0,"timestamp":"2026-06-08T08:14:42Z","payload":{"role":"assistant","blocks":[{"type":"image","fidelity":"agent_emitted","url":"x"},{"type":"thinking","fidelity":"agent_emitted","thinking":"hm","signature":"c2ln"}]}}"#;
        assert_eq!(
            view(line, "r", false),
            r#"{"l":7,"s":5,"y":"message.assistant","p":"agent","i":0,"t":"2026-06-08T08:14:42Z","d":{"role":"assistant","blocks":[{"type":"image","fidelity":"agent_emitted","raw":{"fidelity":"agent_emitted","type":"image","url":"x"},"unrecognized":"unknown block type \"image\""},{"type":"thinking","fidelity":"agent_emitted","thinking":"hm","signed":true}]}}"#
        );
        let raw = r#"{"seq":6,"run_id":"r","type":"step.paused","path":"a","iteration":1,"timestamp":"2026-06-08T08:14:42Z","payload":{"why":"<b>"}}"#;
        assert_eq!(
            view(raw, "r", false),
            r#"{"l":7,"s":6,"y":"step.paused","p":"a","i":1,"t":"2026-06-08T08:14:42Z","d":{"raw":{"why":"<b>"}}}"#
        );
    }
}
