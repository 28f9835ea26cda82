//! Content blocks: the closed vocabulary of what a message is made of.
//!
//! A block is decoded tolerantly: a block whose `type` is not in the vocabulary, or whose
//! fields do not have the types the vocabulary requires, is kept as [`Block::Unrecognized`]
//! with every field it had, so the event around it still decodes and the block can be
//! reported and passed on. Encoding is strict: an unrecognized block, or a fidelity outside
//! the vocabulary, is an error.

use super::output::ToolOutput;
use super::refusal;
use serde::ser::{Error as _, SerializeMap};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Who produced a block or a tool payload.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Fidelity {
    /// Synthesized by the executor at its tool router seam: ground truth for in-process calls.
    Router,
    /// Reported by the agent itself in its output stream.
    AgentEmitted,
    /// A value outside the vocabulary, kept as read (empty when the field was missing).
    /// Readers surface it; writers refuse it.
    Unknown(String),
}

impl Fidelity {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            Fidelity::Router => "router",
            Fidelity::AgentEmitted => "agent_emitted",
            Fidelity::Unknown(other) => other,
        }
    }

    /// Reads a wire spelling; anything outside the vocabulary becomes [`Fidelity::Unknown`].
    pub fn from_wire(text: &str) -> Self {
        match text {
            "router" => Fidelity::Router,
            "agent_emitted" => Fidelity::AgentEmitted,
            other => Fidelity::Unknown(other.to_owned()),
        }
    }
}

impl Serialize for Fidelity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Fidelity::Unknown(other) => Err(S::Error::custom(refusal::fidelity(other))),
            known => serializer.serialize_str(known.as_str()),
        }
    }
}

impl<'de> Deserialize<'de> for Fidelity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Fidelity::from_wire(&text))
    }
}

/// One typed unit of agent exchange content, with its provenance.
#[derive(Clone, Debug, PartialEq)]
pub struct ContentBlock {
    /// Who produced the block.
    pub fidelity: Fidelity,
    /// What the block carries.
    pub block: Block,
}

/// The six block types of the vocabulary, plus what a reader could not recognize.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// `text`: plain text, verbatim (NUL and every other code point preserved).
    Text {
        /// The text.
        text: String,
        /// The sources the provider cited for this text (OpenAI annotations, Anthropic
        /// citations, Perplexity search results), in the provider's order. Extension field.
        citations: Vec<Citation>,
        /// In a `message.user`: this text is the composed system prompt, not the prompt.
        /// Written as `"system_prompt": true`, only when set. Extension field.
        system_prompt: bool,
    },
    /// `thinking`: reasoning output.
    Thinking {
        /// The reasoning text; empty when the provider redacted it.
        thinking: String,
        /// Opaque token the provider needs to accept this reasoning when it is replayed
        /// (Anthropic `signature`, or the `data` of `redacted_thinking`; OpenAI
        /// `encrypted_content`; Gemini `thought_signature`). Extension field.
        signature: Option<String>,
        /// The provider withheld the text (Anthropic `redacted_thinking`). Extension field.
        redacted: bool,
    },
    /// `tool_use`: the agent asked for a tool to run.
    ToolUse {
        /// Tool name as the provider advertises it.
        tool_name: String,
        /// Correlation token linking this call to its `tool_result`.
        tool_id: String,
        /// Arguments as provided; a string when the provider's arguments were not valid JSON.
        tool_input: Value,
        /// The provider ran the tool itself (Anthropic `server_tool_use`), so no executor
        /// result is expected. Extension field.
        server: bool,
        /// The call was cut off before its arguments were complete; `tool_input` holds what
        /// arrived. Extension field.
        incomplete: bool,
        /// The permission decision the client made before the call ran, when the agent asked
        /// for one (ACP `session/request_permission`): `{"decision": "allowed" | "rejected" |
        /// "cancelled", "option_id", "option_kind", "option_name"}`, the option fields as the
        /// agent offered the chosen option. Extension field.
        permission: Option<Value>,
    },
    /// `tool_result`: what a tool returned.
    ToolResult {
        /// The `tool_id` of the call this answers.
        tool_id: String,
        /// Output as observed: a string, structured value, or null.
        tool_content: ToolOutput,
        /// The tool failed (Anthropic `is_error`, a failed or declined command, an MCP error).
        /// Extension field.
        is_error: bool,
        /// Exit status of a shell command, when the provider reported one. Extension field.
        exit_code: Option<i64>,
    },
    /// `command`: a shell command that was executed.
    Command {
        /// The command line, as resolved.
        command: String,
        /// The `tool_id` of the tool call that ran it, when there was one. Extension field.
        tool_id: Option<String>,
    },
    /// `stream`: one chunk of partial output, for replays that keep partials.
    Stream {
        /// The chunk. Written as `chunk`; read from `chunk`, or from `text` when `chunk` is
        /// absent (the seed's table names both).
        chunk: String,
    },
    /// A block this reader could not map onto the vocabulary, kept field for field.
    Unrecognized(UnrecognizedBlock),
}

/// One source a provider cited for a text block: a web page, a file, a passage of a
/// document. The common fields are mapped; whatever else the provider said about the source
/// is kept in `extra`, as read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Citation {
    /// The provider's kind of citation, as it spells it (`url_citation`, `file_citation`,
    /// `container_file_citation`, `file_path`, `char_location`, `page_location`,
    /// `web_search_result_location`, `search_result`, ...).
    pub kind: String,
    /// The cited web page.
    pub url: Option<String>,
    /// The title of the cited page or document.
    pub title: Option<String>,
    /// The provider's id of the cited file.
    pub file_id: Option<String>,
    /// The name of the cited file.
    pub filename: Option<String>,
    /// The passage of the source the text relies on, when the provider quotes it.
    pub cited_text: Option<String>,
    /// Where the cited span of this block's `text` starts, as the provider counts
    /// (OpenAI: characters from the start of the text).
    pub start_index: Option<u64>,
    /// Where the cited span of this block's `text` ends (exclusive).
    pub end_index: Option<u64>,
    /// The provider's other fields about the source, verbatim (Anthropic `document_index`
    /// and `start_char_index`, OpenAI `container_id` and `index`, ...).
    pub extra: Map<String, Value>,
}

/// A block kept verbatim because it is outside the vocabulary or malformed.
#[derive(Clone, Debug, PartialEq)]
pub struct UnrecognizedBlock {
    /// Every field of the block as read, `type` and `fidelity` included.
    pub raw: Value,
    /// Why it could not be recognized.
    pub reason: UnrecognizedReason,
}

/// Why a block was kept as [`Block::Unrecognized`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnrecognizedReason {
    /// Its `type` is not one of the six (the forward-compatible path: a newer writer).
    UnknownType(String),
    /// It is not an object, has no string `type`, or a field has the wrong JSON type.
    Malformed(String),
}

impl UnrecognizedReason {
    /// Why the strict writers refuse a block kept for this reason.
    pub(super) fn refusal(&self) -> String {
        match self {
            UnrecognizedReason::UnknownType(name) => refusal::unknown_block_type(name),
            UnrecognizedReason::Malformed(reason) => refusal::malformed_block(reason),
        }
    }
}

impl Block {
    /// A `text` block that cites nothing.
    pub fn text(text: impl Into<String>) -> Self {
        Block::Text {
            text: text.into(),
            citations: Vec::new(),
            system_prompt: false,
        }
    }

    /// A `text` block holding a composed system prompt (`"system_prompt": true`).
    pub fn system_prompt(text: impl Into<String>) -> Self {
        Block::Text {
            text: text.into(),
            citations: Vec::new(),
            system_prompt: true,
        }
    }

    /// The wire name of the block type (`"text"`, `"tool_use"`, ...), or for an
    /// unrecognized block the type it declared, if any.
    pub fn type_name(&self) -> &str {
        match self {
            Block::Text { .. } => "text",
            Block::Thinking { .. } => "thinking",
            Block::ToolUse { .. } => "tool_use",
            Block::ToolResult { .. } => "tool_result",
            Block::Command { .. } => "command",
            Block::Stream { .. } => "stream",
            Block::Unrecognized(unrecognized) => unrecognized
                .raw
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or(""),
        }
    }
}

impl ContentBlock {
    /// A block with the given provenance.
    pub fn new(fidelity: Fidelity, block: Block) -> Self {
        ContentBlock { fidelity, block }
    }

    /// A `text` block.
    pub fn text(fidelity: Fidelity, text: impl Into<String>) -> Self {
        Self::new(fidelity, Block::text(text))
    }

    /// A `thinking` block with no signature.
    pub fn thinking(fidelity: Fidelity, thinking: impl Into<String>) -> Self {
        let thinking = thinking.into();
        Self::new(
            fidelity,
            Block::Thinking {
                thinking,
                signature: None,
                redacted: false,
            },
        )
    }

    /// A complete `tool_use` block run by the executor.
    pub fn tool_use(
        fidelity: Fidelity,
        tool_name: impl Into<String>,
        tool_id: impl Into<String>,
        tool_input: Value,
    ) -> Self {
        let block = Block::ToolUse {
            tool_name: tool_name.into(),
            tool_id: tool_id.into(),
            tool_input,
            server: false,
            incomplete: false,
            permission: None,
        };
        Self::new(fidelity, block)
    }

    /// A successful `tool_result` block.
    pub fn tool_result(
        fidelity: Fidelity,
        tool_id: impl Into<String>,
        tool_content: impl Into<ToolOutput>,
    ) -> Self {
        let block = Block::ToolResult {
            tool_id: tool_id.into(),
            tool_content: tool_content.into(),
            is_error: false,
            exit_code: None,
        };
        Self::new(fidelity, block)
    }

    /// A `command` block not tied to a tool call.
    pub fn command(fidelity: Fidelity, command: impl Into<String>) -> Self {
        let block = Block::Command {
            command: command.into(),
            tool_id: None,
        };
        Self::new(fidelity, block)
    }

    /// A `stream` block.
    pub fn stream(fidelity: Fidelity, chunk: impl Into<String>) -> Self {
        Self::new(
            fidelity,
            Block::Stream {
                chunk: chunk.into(),
            },
        )
    }

    /// Decodes one block from JSON, tolerantly: never fails, see the module docs.
    pub fn from_json(value: Value) -> Self {
        let Value::Object(fields) = value else {
            let reason = UnrecognizedReason::Malformed("a block must be a JSON object".into());
            return Self::unrecognized(value, reason);
        };
        let fidelity = match fields.get("fidelity") {
            Some(Value::String(text)) => Fidelity::from_wire(text),
            None | Some(Value::Null) => Fidelity::Unknown(String::new()),
            Some(_) => {
                let reason = UnrecognizedReason::Malformed("`fidelity` must be a string".into());
                return Self::unrecognized(Value::Object(fields), reason);
            }
        };
        match decode_known(&fields) {
            Ok(block) => ContentBlock { fidelity, block },
            Err(reason) => Self::unrecognized(Value::Object(fields), reason),
        }
    }

    fn unrecognized(raw: Value, reason: UnrecognizedReason) -> Self {
        // The fidelity of a block we cannot read is whatever it said, kept in `raw`.
        let fidelity = match raw.get("fidelity").and_then(Value::as_str) {
            Some(text) => Fidelity::from_wire(text),
            None => Fidelity::Unknown(String::new()),
        };
        ContentBlock {
            fidelity,
            block: Block::Unrecognized(UnrecognizedBlock { raw, reason }),
        }
    }
}

/// Reads the fields of a block whose `type` is in the vocabulary.
fn decode_known(fields: &Map<String, Value>) -> Result<Block, UnrecognizedReason> {
    let block_type = match fields.get("type") {
        Some(Value::String(text)) => text.as_str(),
        Some(_) => return Err(malformed("`type` must be a string")),
        None => return Err(malformed("a block needs a `type`")),
    };
    let block = match block_type {
        "text" => Block::Text {
            text: string(fields, "text")?.unwrap_or_default(),
            citations: citations(fields)?,
            system_prompt: flag(fields, "system_prompt")?,
        },
        "thinking" => Block::Thinking {
            thinking: string(fields, "thinking")?.unwrap_or_default(),
            signature: string(fields, "signature")?.filter(|s| !s.is_empty()),
            redacted: flag(fields, "redacted")?,
        },
        "tool_use" => Block::ToolUse {
            tool_name: string(fields, "tool_name")?.unwrap_or_default(),
            tool_id: string(fields, "tool_id")?.unwrap_or_default(),
            tool_input: fields.get("tool_input").cloned().unwrap_or(Value::Null),
            server: flag(fields, "server")?,
            incomplete: flag(fields, "incomplete")?,
            permission: match fields.get("permission") {
                None | Some(Value::Null) => None,
                Some(value @ Value::Object(_)) => Some(value.clone()),
                Some(_) => return Err(malformed("`permission` must be an object")),
            },
        },
        "tool_result" => Block::ToolResult {
            tool_id: string(fields, "tool_id")?.unwrap_or_default(),
            tool_content: ToolOutput::new(
                fields.get("tool_content").cloned().unwrap_or(Value::Null),
            ),
            is_error: flag(fields, "is_error")?,
            exit_code: match fields.get("exit_code") {
                None | Some(Value::Null) => None,
                Some(value) => Some(
                    value
                        .as_i64()
                        .ok_or_else(|| malformed("`exit_code` must be an integer"))?,
                ),
            },
        },
        "command" => Block::Command {
            command: string(fields, "command")?.unwrap_or_default(),
            tool_id: string(fields, "tool_id")?.filter(|s| !s.is_empty()),
        },
        "stream" => Block::Stream {
            chunk: match string(fields, "chunk")? {
                Some(chunk) => chunk,
                None => string(fields, "text")?.unwrap_or_default(),
            },
        },
        other => return Err(UnrecognizedReason::UnknownType(other.to_owned())),
    };
    Ok(block)
}

/// The `citations` of a text block; absent or null reads as none.
fn citations(fields: &Map<String, Value>) -> Result<Vec<Citation>, UnrecognizedReason> {
    let list = match fields.get("citations") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(_) => return Err(malformed("`citations` must be an array")),
    };
    list.iter()
        .map(|citation| {
            let Value::Object(fields) = citation else {
                return Err(malformed("a citation must be a JSON object"));
            };
            let optional = |name| Ok(string(fields, name)?.filter(|s| !s.is_empty()));
            let index = |name: &str| match fields.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(value) => value.as_u64().map(Some).ok_or_else(|| {
                    UnrecognizedReason::Malformed(format!(
                        "citation `{name}` must be an unsigned integer"
                    ))
                }),
            };
            Ok(Citation {
                kind: string(fields, "type")?.unwrap_or_default(),
                url: optional("url")?,
                title: optional("title")?,
                file_id: optional("file_id")?,
                filename: optional("filename")?,
                cited_text: optional("cited_text")?,
                start_index: index("start_index")?,
                end_index: index("end_index")?,
                extra: match fields.get("extra") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(extra)) => extra.clone(),
                    Some(_) => return Err(malformed("citation `extra` must be an object")),
                },
            })
        })
        .collect()
}

fn malformed(reason: &str) -> UnrecognizedReason {
    UnrecognizedReason::Malformed(reason.to_owned())
}

/// A string field; absent or null reads as `None` (Go writers omit empty strings).
fn string(fields: &Map<String, Value>, name: &str) -> Result<Option<String>, UnrecognizedReason> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(UnrecognizedReason::Malformed(format!(
            "`{name}` must be a string"
        ))),
    }
}

/// A boolean extension field; absent or null reads as false.
fn flag(fields: &Map<String, Value>, name: &str) -> Result<bool, UnrecognizedReason> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(value)) => Ok(*value),
        Some(_) => Err(UnrecognizedReason::Malformed(format!(
            "`{name}` must be a boolean"
        ))),
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Block::Unrecognized(unrecognized) = &self.block {
            return Err(S::Error::custom(unrecognized.reason.refusal()));
        }
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.block.type_name())?;
        map.serialize_entry("fidelity", &self.fidelity)?;
        match &self.block {
            Block::Text {
                text,
                citations,
                system_prompt,
            } => {
                map.serialize_entry("text", text)?;
                if !citations.is_empty() {
                    map.serialize_entry("citations", citations)?;
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
                if let Some(signature) = signature {
                    map.serialize_entry("signature", non_empty::<S>("signature", signature)?)?;
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
                if *server {
                    map.serialize_entry("server", &true)?;
                }
                if *incomplete {
                    map.serialize_entry("incomplete", &true)?;
                }
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
                if let Some(exit_code) = exit_code {
                    map.serialize_entry("exit_code", exit_code)?;
                }
            }
            Block::Command { command, tool_id } => {
                map.serialize_entry("command", command)?;
                if let Some(tool_id) = tool_id {
                    map.serialize_entry("tool_id", non_empty::<S>("tool_id", tool_id)?)?;
                }
            }
            Block::Stream { chunk } => map.serialize_entry("chunk", chunk)?,
            Block::Unrecognized(_) => unreachable!("refused above"),
        }
        map.end()
    }
}

/// A citation as the wire writes it: the fields in their documented order, absent ones
/// omitted.
impl Serialize for Citation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let citation = self;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", &citation.kind)?;
        for (name, value) in [
            ("url", &citation.url),
            ("title", &citation.title),
            ("file_id", &citation.file_id),
            ("filename", &citation.filename),
            ("cited_text", &citation.cited_text),
        ] {
            if let Some(value) = value {
                map.serialize_entry(name, non_empty::<S>(name, value)?)?;
            }
        }
        if let Some(start) = citation.start_index {
            map.serialize_entry("start_index", &start)?;
        }
        if let Some(end) = citation.end_index {
            map.serialize_entry("end_index", &end)?;
        }
        if !citation.extra.is_empty() {
            map.serialize_entry("extra", &citation.extra)?;
        }
        map.end()
    }
}

/// Optional string fields are either absent or non-empty: an empty one would be omitted on
/// the wire and so could not be read back as it was written.
pub(crate) fn non_empty<'a, S: Serializer>(
    field: &str,
    value: &'a str,
) -> Result<&'a str, S::Error> {
    if value.is_empty() {
        Err(S::Error::custom(refusal::empty_optional(field)))
    } else {
        Ok(value)
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(ContentBlock::from_json)
    }
}
