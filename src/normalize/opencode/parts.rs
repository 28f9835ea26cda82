//! OpenCode's message parts as canonical blocks: the one mapping of a part (`text`,
//! `reasoning`, `tool`, `step-start`, `step-finish`, ...) wherever it is read, the
//! `run --format json` events that carry one (this adapter) or the parts OpenCode keeps in its
//! own storage (an importer of its sessions).
//!
//! * `text`: a `text` block of the assistant's (a part marked `synthetic` or `ignored` is the
//!   CLI's, not the model's: kept as passthrough by the caller).
//! * `reasoning`: a `thinking` block.
//! * `tool` (`tool`, `callID`, `state`): one part is the call and its outcome. The `tool_use`
//!   (input `state.input`; a shell tool's `command` block after it), and, once the state is
//!   `completed` or `error`, the `tool_result`: `state.output` (a `completed` part), else
//!   `state.error`; an error for `error`; the exit code from `state.metadata.exit`. A part
//!   still `pending` or `running` is the call alone.
//! * `step-finish` (`reason`, `tokens{input, output, reasoning, cache{read, write}}`, `cost`):
//!   a step's usage ([`step_usage`]): `input` is the uncached prompt, `output` the answer
//!   without the reasoning, which is counted into it as axt's convention wants.
//! * Any other part (`step-start`, `file`, `patch`, `snapshot`, `agent`, `subtask`, ...):
//!   no block.
//!
//! This room owns the part's shape and its blocks. It keeps no state: the caller tracks the
//! calls and the run.

use std::borrow::Cow;

use serde::de::{IgnoredAny, MapAccess};
use serde_json::Value;

use crate::model::tools::shell_commands;
use crate::model::{Block, Role, StopKind, StopReason, ToolOutput, Usage};
use crate::normalize::json::{Lent, Parsed};
use crate::normalize::lenient::{Members, Slot, Text};

/// What a part becomes.
#[derive(Debug)]
pub(crate) enum PartBlocks {
    /// Blocks of one role, in order. A call opens `opened`; a result answers `answered`.
    Blocks { role: Role, blocks: Vec<Block> },
    /// A tool part: the call, and its result once it has one.
    Tool {
        call: Vec<Block>,
        result: Option<Block>,
        tool_id: String,
        tool_name: String,
    },
    /// No block: a part that says nothing about the conversation (`step-start`), or one of a
    /// type this mapping does not know.
    None,
}

/// The blocks of one part (see the module docs). What becomes a block (the text, the tool's
/// input and its result) is taken out of `part`, not copied: these are most of a part's bytes,
/// and the part is read once. A part that makes no block ([`PartBlocks::None`]) is left whole,
/// for the caller to keep as passthrough.
pub(crate) fn part_blocks(part: &mut Value) -> PartBlocks {
    Said::of(part).blocks()
}

/// What of a part becomes blocks, read from its tree ([`Said::of`]) or typed ([`Part`]).
pub(crate) enum Said {
    Text {
        thinking: bool,
        text: String,
    },
    Tool {
        tool_name: String,
        tool_id: String,
        input: Value,
        /// Completed (`true`) or failed; `None` while it is pending or running.
        status: Option<bool>,
        exit_code: Option<i64>,
        /// The output, or the error, once it has a status.
        content: ToolOutput,
    },
    Nothing,
}

/// A tool part's `state.status` as its outcome.
pub(super) fn outcome(status: Option<&str>) -> Option<bool> {
    match status {
        Some("completed") => Some(true),
        Some("error") => Some(false),
        _ => None,
    }
}

impl Said {
    /// What of `part` becomes blocks, taken out of it (only when it makes blocks).
    fn of(part: &mut Value) -> Said {
        let kind = part.get("type").and_then(Value::as_str);
        match kind {
            Some(kind @ ("text" | "reasoning")) => {
                let thinking = kind == "reasoning";
                match part.get_mut("text") {
                    Some(Value::String(said)) if !said.is_empty() => Said::Text {
                        thinking,
                        text: std::mem::take(said),
                    },
                    _ => Said::Nothing,
                }
            }
            Some("tool") => {
                let text =
                    |field: &str| part.get(field).and_then(Value::as_str).unwrap_or_default();
                let tool_name = text("tool").to_owned();
                let tool_id = text("callID").to_owned();
                let mut no_state = Value::Null;
                let state = part.get_mut("state").unwrap_or(&mut no_state);
                let input = match state.get_mut("input") {
                    Some(input) => input.take(),
                    None => Value::Object(Default::default()),
                };
                let status = outcome(state.get("status").and_then(Value::as_str));
                let exit_code = (state.get("metadata"))
                    .and_then(|metadata| metadata.get("exit"))
                    .and_then(Value::as_i64);
                let content = match status {
                    Some(completed) => state.get_mut(if completed { "output" } else { "error" }),
                    None => None,
                };
                Said::Tool {
                    tool_name,
                    tool_id,
                    input,
                    status,
                    exit_code,
                    content: content.map(Value::take).unwrap_or(Value::Null).into(),
                }
            }
            _ => Said::Nothing,
        }
    }

    /// The blocks (see the module docs).
    pub(crate) fn blocks(self) -> PartBlocks {
        match self {
            Said::Text { thinking, text } => {
                let block = if thinking {
                    Block::Thinking {
                        thinking: text,
                        signature: None,
                        redacted: false,
                    }
                } else {
                    Block::text(text)
                };
                PartBlocks::Blocks {
                    role: Role::Assistant,
                    blocks: vec![block],
                }
            }
            Said::Tool {
                tool_name,
                tool_id,
                input,
                status,
                exit_code,
                content,
            } => {
                let commands = shell_commands(&tool_name, &input);
                let mut call = vec![Block::ToolUse {
                    tool_name: tool_name.clone(),
                    tool_id: tool_id.clone(),
                    tool_input: input,
                    server: false,
                    incomplete: false,
                    permission: None,
                }];
                call.extend(commands.into_iter().map(|command| Block::Command {
                    command,
                    tool_id: Some(tool_id.clone()).filter(|id| !id.is_empty()),
                }));
                let result = status.map(|completed| Block::ToolResult {
                    tool_id: tool_id.clone(),
                    tool_content: content,
                    is_error: !completed,
                    exit_code,
                });
                PartBlocks::Tool {
                    call,
                    result,
                    tool_id,
                    tool_name,
                }
            }
            Said::Nothing => PartBlocks::None,
        }
    }
}

/// A part as a `run --format json` event carries it, read typed and borrowed (the fields the
/// mapping and a step's end read), as [`Said::of`] and [`Step::of`] read its tree.
#[derive(Default)]
pub(crate) struct Part<'a> {
    kind: Option<Cow<'a, str>>,
    pub(crate) message_id: Option<Cow<'a, str>>,
    text: Option<Cow<'a, str>>,
    tool: Option<Cow<'a, str>>,
    call_id: Option<Cow<'a, str>>,
    /// `None` when it has none, or it is no object.
    state: Option<ToolState<'a>>,
    tokens: Option<Value>,
    cost: Option<Value>,
    reason: Option<Cow<'a, str>>,
}

/// A tool part's `state`, the fields the mapping reads.
#[derive(Default)]
struct ToolState<'a> {
    status: Option<String>,
    input: Option<Value>,
    // Read as a tree although only `exit` is wanted and OpenCode's bash tool repeats its
    // whole output in `metadata.output`: a typed `{exit}` (lenient::Integer) measured no
    // better, 479.2 M instructions either way on the bench stream and within the noise of
    // CPU time (80 ms) with every completed call's output repeated there (perf-typed).
    metadata: Option<Value>,
    /// Borrowed when a string: `state.output` is most of the stream's bytes, and goes out as
    /// the record escaped it ([`Parsed::output`]).
    output: Option<Lent<'a>>,
    error: Option<Lent<'a>>,
}

impl<'de: 'a, 'a> Members<'de> for Part<'a> {
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match &*key {
            "type" => self.kind = map.next_value::<Text<'de>>()?.0,
            "messageID" => self.message_id = map.next_value::<Text<'de>>()?.0,
            "text" => self.text = map.next_value::<Text<'de>>()?.0,
            "tool" => self.tool = map.next_value::<Text<'de>>()?.0,
            "callID" => self.call_id = map.next_value::<Text<'de>>()?.0,
            "state" => {
                self.state = match map.next_value::<Slot<ToolState<'de>>>()? {
                    Slot::Read(state) => Some(state),
                    Slot::Other => None,
                };
            }
            "tokens" => self.tokens = Some(map.next_value()?),
            "cost" => self.cost = Some(map.next_value()?),
            "reason" => self.reason = map.next_value::<Text<'de>>()?.0,
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl<'de: 'a, 'a> Members<'de> for ToolState<'a> {
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match &*key {
            "status" => self.status = map.next_value::<Text<'de>>()?.0.map(Cow::into_owned),
            "input" => self.input = Some(map.next_value()?),
            "metadata" => self.metadata = Some(map.next_value()?),
            "output" => self.output = Some(map.next_value()?),
            "error" => self.error = Some(map.next_value()?),
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl Part<'_> {
    /// What of the part becomes blocks, as [`Said::of`] reads it from the tree; a string
    /// output kept as `parsed`'s record escaped it.
    pub(crate) fn said(self, parsed: Parsed<'_>) -> Said {
        match self.kind.as_deref() {
            Some(kind @ ("text" | "reasoning")) => match self.text {
                Some(text) if !text.is_empty() => Said::Text {
                    thinking: kind == "reasoning",
                    text: text.into_owned(),
                },
                _ => Said::Nothing,
            },
            Some("tool") => {
                let text = |field: Option<Cow<'_, str>>| field.map(Cow::into_owned);
                let state = self.state.unwrap_or_default();
                let status = outcome(state.status.as_deref());
                let exit_code = (state.metadata.as_ref())
                    .and_then(|metadata| metadata.get("exit"))
                    .and_then(Value::as_i64);
                let content = match status {
                    Some(true) => state.output,
                    Some(false) => state.error,
                    None => None,
                };
                Said::Tool {
                    tool_name: text(self.tool).unwrap_or_default(),
                    tool_id: text(self.call_id).unwrap_or_default(),
                    input: (state.input).unwrap_or_else(|| Value::Object(Default::default())),
                    status,
                    exit_code,
                    content: match content {
                        Some(content) => content.output(parsed),
                        None => Value::Null.into(),
                    },
                }
            }
            _ => Said::Nothing,
        }
    }

    /// The part as a step's end, as [`Step::of`] reads it from the tree.
    pub(crate) fn step(&self) -> Step {
        Step {
            usage: self.tokens.as_ref().map(tokens_usage),
            cost: self.cost.as_ref().and_then(Value::as_f64),
            stop: self.reason.as_deref().map(stop_reason),
        }
    }
}

/// A `step-finish` part as a step's end: its usage, cost and stop reason.
#[derive(Debug)]
pub(crate) struct Step {
    pub(crate) usage: Option<Usage>,
    pub(crate) cost: Option<f64>,
    pub(crate) stop: Option<StopReason>,
}

impl Step {
    pub(crate) fn of(part: &Value) -> Step {
        Step {
            usage: step_usage(part),
            cost: part.get("cost").and_then(Value::as_f64),
            stop: step_stop(part),
        }
    }
}

/// A `step-finish` part's usage (see the module docs).
pub(crate) fn step_usage(part: &Value) -> Option<Usage> {
    part.get("tokens").map(tokens_usage)
}

/// A part's `tokens` as usage (see the module docs); `axt usage` counts OpenCode's steps
/// with it too.
pub(crate) fn tokens_usage(tokens: &Value) -> Usage {
    // `get`, not `pointer`: a pointer copies each of its tokens to unescape `~1`.
    let count = |within: &Value, field: &str| within.get(field).and_then(Value::as_u64);
    let cache = tokens.get("cache").unwrap_or(&Value::Null);
    counts_usage(TokenCounts {
        input: count(tokens, "input"),
        output: count(tokens, "output"),
        reasoning: count(tokens, "reasoning"),
        cache_read: count(cache, "read"),
        cache_write: count(cache, "write"),
    })
}

/// A part's `tokens`, each count as `Value::as_u64` reads it (`None` where it is absent or
/// no whole number).
#[derive(Default)]
pub(super) struct TokenCounts {
    pub(super) input: Option<u64>,
    pub(super) output: Option<u64>,
    pub(super) reasoning: Option<u64>,
    pub(super) cache_read: Option<u64>,
    pub(super) cache_write: Option<u64>,
}

/// The usage of a part's token counts (see the module docs), however they were read.
pub(super) fn counts_usage(counts: TokenCounts) -> Usage {
    let reasoning = counts.reasoning.unwrap_or(0);
    Usage {
        input_tokens: counts.input.unwrap_or(0),
        output_tokens: counts.output.unwrap_or(0) + reasoning,
        cache_read_tokens: counts.cache_read.unwrap_or(0),
        cache_write_tokens: counts.cache_write.unwrap_or(0),
        reasoning_tokens: reasoning,
    }
}

/// A `step-finish` part's `reason` as a stop reason.
pub(crate) fn step_stop(part: &Value) -> Option<StopReason> {
    part.get("reason")?.as_str().map(stop_reason)
}

/// A `reason` as a stop reason.
pub(super) fn stop_reason(raw: &str) -> StopReason {
    let kind = match raw {
        "stop" => StopKind::EndTurn,
        "tool-calls" => StopKind::ToolUse,
        "length" => StopKind::MaxTokens,
        "content-filter" => StopKind::Refusal,
        "error" => StopKind::Error,
        _ => StopKind::Other,
    };
    StopReason {
        kind,
        raw: raw.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::framing::Record;
    use crate::normalize::json::JsonParser;
    use crate::normalize::report::Fate;

    /// Parts at the edges of what the typed reading reads: escaped, empty and mistyped
    /// fields, members twice, states that are no object, tokens and costs of every type.
    const EDGES: &[&str] = &[
        r#"{"type":"text","text":"esc\"aped\n","messageID":"m"}"#,
        r#"{"type":"t\u0065xt","text":"x"}"#,
        r#"{"type":"text","text":""}"#,
        r#"{"type":"text","text":7}"#,
        r#"{"type":"text","text":"a","text":"b"}"#,
        r#"{"type":"reasoning","text":"why","messageID":5}"#,
        r#"{"type":7,"text":"x"}"#,
        r#"{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"ls"},"output":"ok","metadata":{"exit":2}}}"#,
        r#"{"type":"tool","tool":"bash","callID":"c","state":{"status":"error","input":null,"error":{"m":1},"output":"no","metadata":{"exit":"x"}}}"#,
        r#"{"type":"tool","tool":"read","callID":"c","state":{"status":"running","input":{"filePath":"a"}}}"#,
        r#"{"type":"tool","tool":["bash"],"callID":null,"state":"completed"}"#,
        r#"{"type":"tool","tool":"bash","state":{"status":"completed","status":"error","error":"e"}}"#,
        r#"{"type":"tool","tool":"bash","callID":"c","state":[1],"state":{"status":"completed"}}"#,
        r#"{"type":"tool"}"#,
        r#"{"type":"step-finish","reason":"stop","cost":0.25,"tokens":{"input":1,"output":2,"reasoning":3,"cache":{"read":4,"write":5}}}"#,
        r#"{"type":"step-finish","reason":7,"cost":"1","tokens":null}"#,
        r#"{"type":"step-finish","reason":"tool-calls","cost":3,"tokens":{"input":-1,"output":2.5,"cache":[1]}}"#,
        r#"{"type":"step-finish","tokens":"many"}"#,
        r#"{"type":"step-start","snapshot":"abc"}"#,
        r#"{}"#,
    ];

    /// A part read typed (as the event path reads it: an event's, through the adapter's
    /// parser, its string outputs held as the record escaped them) and as a tree.
    fn both(part: &str) -> (String, String) {
        let mut tree: Value = serde_json::from_str(part).expect("a part");
        let step = Step::of(&tree);
        let tree_read = format!("{step:?} {:?}", Said::of(&mut tree).blocks());
        (typed(part), tree_read)
    }

    /// A part read as the event path reads it.
    fn typed(part: &str) -> String {
        let event = format!(r#"{{"type":"text","timestamp":1,"sessionID":"s","part":{part}}}"#);
        let record = Record::line(event.as_bytes(), 1, 0, true);
        let mut seen = "refused".to_owned();
        let mut parser = JsonParser::default();
        parser.parse_in::<super::super::EventShape>(record, &mut Vec::new(), |event, parsed, _| {
            seen = match event.part {
                Some(Slot::Read(part)) => {
                    format!("{:?} {:?}", part.step(), part.said(parsed).blocks())
                }
                Some(Slot::Other) => "no object".to_owned(),
                None => "none".to_owned(),
            };
            Fate::Mapped
        });
        seen
    }

    #[test]
    fn a_string_output_is_kept_as_its_record_escaped_it() {
        let part = r#"{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","output":"a\n\"b\"\u0001"}}"#;
        let event = format!(r#"{{"type":"tool_use","part":{part}}}"#);
        let record = Record::line(event.as_bytes(), 1, 0, true);
        let mut kept = None;
        let mut parser = JsonParser::default();
        parser.parse_in::<super::super::EventShape>(record, &mut Vec::new(), |event, parsed, _| {
            if let Some(Slot::Read(part)) = event.part
                && let PartBlocks::Tool { result, .. } = part.said(parsed).blocks()
                && let Some(Block::ToolResult { tool_content, .. }) = result
            {
                kept = Some(tool_content);
            }
            Fate::Mapped
        });
        let kept = kept.expect("a result");
        assert_eq!(kept.json(), Some(&br#""a\n\"b\"\u0001""#[..]));
        assert_eq!(*kept, Value::String("a\n\"b\"\u{1}".to_owned()));
    }

    #[test]
    fn a_part_read_typed_is_read_as_its_tree_is() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/normalize/opencode");
        let mut parts: Vec<String> = EDGES.iter().map(|part| (*part).to_owned()).collect();
        for outcome in ["ok", "err"] {
            let dir = std::fs::read_dir(format!("{corpus}/{outcome}")).expect("the corpus");
            for entry in dir {
                let input = std::fs::read_to_string(entry.expect("a fixture").path());
                for line in input.expect("a fixture").lines() {
                    let event = serde_json::from_str::<Value>(line).ok();
                    if let Some(part) = event.as_ref().and_then(|e| e.get("part")) {
                        parts.push(part.to_string());
                    }
                }
            }
        }
        assert!(
            parts.len() > 60,
            "the corpus's parts are read: {}",
            parts.len()
        );
        for part in &parts {
            let (typed, tree) = both(part);
            assert_eq!(typed, tree, "{part}");
        }
        for other in ["[1]", "\"part\"", "7"] {
            assert_eq!(both_typed_only(other), "no object");
        }
    }

    fn both_typed_only(value: &str) -> String {
        typed(value)
    }
}
