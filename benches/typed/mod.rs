//! The serde_json typed baselines of `benches/normalize.rs`: per provider, a borrowed struct
//! with the fields a normalizer reads (strings as `Cow`, nested tool input, results and
//! usage as `RawValue`), deserialized line by line.

use std::borrow::Cow;
use std::hint::black_box;

use serde::Deserialize;
use serde_json::value::RawValue;

/// Parses every line as `T`, returns how many parsed.
fn typed<'a, T: Deserialize<'a>>(lines: impl Iterator<Item = &'a [u8]>) -> usize {
    let mut ok = 0;
    for line in lines {
        if let Ok(value) = serde_json::from_slice::<T>(line) {
            ok += 1;
            black_box(&value);
        }
    }
    ok
}

/// Claude: the fields a normalizer reads, borrowed; raw JSON for tool input, results and
/// usage.
#[derive(Deserialize)]
#[allow(dead_code)]
struct ClaudeLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<ClaudeMessage<'a>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct ClaudeMessage<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<ClaudeContent<'a>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

/// `message.content`: a string or an array of blocks, read by a small visitor (an
/// `untagged` enum would buffer every line's content first).
#[allow(dead_code)]
enum ClaudeContent<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<ClaudeBlock<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for ClaudeContent<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Content;
        impl<'de> serde::de::Visitor<'de> for Content {
            type Value = ClaudeContent<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an array of blocks")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(ClaudeContent::Text(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(ClaudeContent::Text(Cow::Owned(text.to_owned())))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(ClaudeContent::Blocks(blocks))
            }
        }
        deserializer.deserialize_any(Content)
    }
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct ClaudeBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    is_error: Option<bool>,
}

/// Codex `exec --json` (current format): the line and its item.
#[derive(Deserialize)]
#[allow(dead_code)]
struct CodexLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    thread_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<CodexItem<'a>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct CodexItem<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    command: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    aggregated_output: Option<Cow<'a, str>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(borrow, default)]
    changes: Option<&'a RawValue>,
    #[serde(borrow, default)]
    server: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    query: Option<Cow<'a, str>>,
}

/// Gemini `--output-format stream-json`.
#[derive(Deserialize)]
#[allow(dead_code)]
struct GeminiLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(default)]
    delta: Option<bool>,
    #[serde(borrow, default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    parameters: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    output: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    stats: Option<&'a RawValue>,
}

/// Copilot `--output-format json`: the envelope, its `data`, and the flat `result` line.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CopilotLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<CopilotData<'a>>,
    #[serde(borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CopilotData<'a> {
    #[serde(borrow, default)]
    message_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_requests: Option<Vec<CopilotRequest<'a>>>,
    #[serde(borrow, default)]
    reasoning_text: Option<Cow<'a, str>>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(borrow, default)]
    result: Option<CopilotResult<'a>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CopilotRequest<'a> {
    #[serde(borrow)]
    tool_call_id: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct CopilotResult<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    detailed_content: Option<Cow<'a, str>>,
}

/// OpenAI Responses events and request bodies: the fields a normalizer reads.
#[derive(Deserialize)]
#[allow(dead_code)]
struct OpenAiEvent<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    delta: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(borrow, default)]
    response: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
}

/// ACP: the JSON-RPC envelope, the update's kind, content and tool call fields borrowed,
/// the rest raw.
#[derive(Deserialize)]
#[allow(dead_code)]
struct AcpMessage<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    params: Option<AcpParams<'a>>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct AcpParams<'a> {
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    update: Option<AcpUpdate<'a>>,
    #[serde(borrow, default)]
    prompt: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct AcpUpdate<'a> {
    #[serde(rename = "sessionUpdate", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(rename = "rawInput", borrow, default)]
    raw_input: Option<&'a RawValue>,
}

/// OpenCode: the event's envelope borrowed, its part raw.
#[derive(Deserialize)]
#[allow(dead_code)]
struct OpenCodeEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    timestamp: Option<i64>,
    #[serde(rename = "sessionID", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    part: Option<&'a RawValue>,
}

/// The typed parse of `provider`'s lines; the count of lines that parsed.
pub(crate) fn parse<'a>(
    provider: axt::normalize::Provider,
    lines: impl Iterator<Item = &'a [u8]>,
) -> usize {
    use axt::normalize::Provider;
    match provider {
        Provider::Claude => typed::<ClaudeLine<'a>>(lines),
        Provider::Codex => typed::<CodexLine<'a>>(lines),
        Provider::Gemini => typed::<GeminiLine<'a>>(lines),
        Provider::Copilot => typed::<CopilotLine<'a>>(lines),
        // SSE: the JSON is each `data:` value.
        Provider::OpenAi => typed::<OpenAiEvent<'a>>(
            lines.map(|line: &'a [u8]| line.strip_prefix(b"data: ").unwrap_or(line)),
        ),
        Provider::Acp => typed::<AcpMessage<'a>>(lines),
        Provider::OpenCode => typed::<OpenCodeEvent<'a>>(lines),
    }
}
