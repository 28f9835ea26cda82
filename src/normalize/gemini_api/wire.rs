//! The record shapes of the Gemini API (AI Studio's `generativelanguage` and Vertex AI's
//! `aiplatform`): a response (`GenerateContentResponse`, whole or one chunk of a stream), an
//! error, and a request (`GenerateContentRequest`), the fields the adapter reads side by
//! side, borrowed where possible; and the tables of the fields it knows (the rest are
//! reported).
//!
//! The server writes camelCase; the SDKs' saved objects (google-genai's `model_dump`) and
//! requests written by hand use snake_case, which the API accepts too, so every field reads
//! both. Enums may come as their names or, with `$alt=json;enum-encoding=int` (the Vertex AI
//! GAPIC clients' REST transport), as numbers: [`Enum`].
//!
//! This file owns the wire's vocabulary. It holds no state and hands out nothing.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess};
use serde_json::{Map, Value};

use crate::model::StopKind;
use crate::normalize::history::History;
use crate::normalize::json::{Borrowed, RecordShape, Tree};
use crate::normalize::lenient::{Members, Slot};
use crate::normalize::report::{Fields, Kind};

pub(super) struct WireShape;
impl RecordShape for WireShape {
    type Of<'a> = Wire<'a>;

    fn kind<'v>(wire: &'v Wire<'_>) -> Kind<'v> {
        let kind = if wire.error.is_some() {
            "error"
        } else if wire.contents.is_some() {
            "request"
        } else if wire.candidates.is_some()
            || wire.usage.is_some()
            || wire.prompt_feedback.is_some()
        {
            "response"
        } else {
            "record"
        };
        (kind, None)
    }

    fn fields(kind: Kind<'_>) -> Option<Fields> {
        let known: fn(&str) -> bool = match kind.0 {
            // `GenerateContentResponse`; `createTime` is Vertex AI's, `modelStatus` the
            // model's release stage (kept as passthrough).
            "response" => |f| {
                matches!(
                    f,
                    "candidates"
                        | "usageMetadata"
                        | "usage_metadata"
                        | "promptFeedback"
                        | "prompt_feedback"
                        | "modelVersion"
                        | "model_version"
                        | "responseId"
                        | "response_id"
                        | "createTime"
                        | "create_time"
                        | "modelStatus"
                        | "model_status"
                        | "automaticFunctionCallingHistory"
                        | "automatic_function_calling_history"
                        | "sdkHttpResponse"
                        | "sdk_http_response"
                )
            },
            "error" => |f| f == "error",
            // `GenerateContentRequest`: what the model was asked with.
            "request" => |f| {
                matches!(
                    f,
                    "contents"
                        | "systemInstruction"
                        | "system_instruction"
                        | "tools"
                        | "toolConfig"
                        | "tool_config"
                        | "generationConfig"
                        | "generation_config"
                        | "safetySettings"
                        | "safety_settings"
                        | "cachedContent"
                        | "cached_content"
                        | "labels"
                        | "model"
                        | "modelArmorConfig"
                        | "model_armor_config"
                )
            },
            _ => return None,
        };
        Some(Fields {
            within: None,
            known,
        })
    }
}

/// One record: a response or a stream's chunk, an error (`{"error": {code, message,
/// status}}`), or a request (`contents`).
#[derive(Deserialize)]
pub(super) struct Wire<'a> {
    #[serde(borrow, default)]
    pub(super) candidates: Option<Vec<Candidate<'a>>>,
    #[serde(borrow, default, alias = "usage_metadata", rename = "usageMetadata")]
    pub(super) usage: Option<Slot<UsageMembers<'a>>>,
    #[serde(default, alias = "prompt_feedback", rename = "promptFeedback")]
    pub(super) prompt_feedback: Option<Value>,
    #[serde(borrow, default, alias = "model_version", rename = "modelVersion")]
    pub(super) model_version: Option<Borrowed<'a>>,
    #[serde(borrow, default, alias = "response_id", rename = "responseId")]
    pub(super) response_id: Option<Borrowed<'a>>,
    #[serde(borrow, default, alias = "create_time", rename = "createTime")]
    pub(super) create_time: Option<Borrowed<'a>>,
    #[serde(default, alias = "model_status", rename = "modelStatus")]
    pub(super) model_status: Option<Value>,
    #[serde(default)]
    pub(super) error: Option<Value>,
    // A request. Its contents past the history already read are built, the others only
    // checked (`history`): a request repeats the history, and requests are most of a
    // conversation file's bytes.
    #[serde(borrow, default)]
    pub(super) contents: Option<History<Content<'a>, ContentShape<'a>>>,
    #[serde(default, alias = "system_instruction", rename = "systemInstruction")]
    pub(super) system_instruction: Option<Value>,
    #[serde(default)]
    pub(super) tools: Option<Value>,
}

/// One candidate of a response.
#[derive(Deserialize)]
pub(super) struct Candidate<'a> {
    #[serde(borrow, default)]
    pub(super) content: Option<Content<'a>>,
    #[serde(borrow, default, alias = "finish_reason", rename = "finishReason")]
    pub(super) finish_reason: Option<Enum<'a>>,
    #[serde(default)]
    pub(super) index: Option<u64>,
    /// Everything else the candidate reports (safety ratings, citations, grounding, URL
    /// context, log probabilities, the finish message): kept as it came.
    #[serde(flatten)]
    pub(super) rest: serde_json::Map<String, Value>,
}

/// A `Content`: a role and its parts. Its JSON values are `V`, the members of a part of
/// another kind `R`: read as trees, or (for [`ContentShape`]) only looked at.
#[derive(Deserialize)]
pub(super) struct Content<'a, V = Value, R = Map<String, Value>, F = Tree<'a>> {
    #[serde(borrow, default)]
    pub(super) role: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) parts: Vec<Part<'a, V, R, F>>,
}

/// A [`Content`] read without building it, accepting exactly what it accepts: a content of
/// the history the adapter already read.
pub(super) type ContentShape<'a> = Content<'a, IgnoredAny, IgnoredAny, IgnoredAny>;

/// One part of a content, every kind's fields side by side; a function's response read as
/// `F` (lent, so that its output can be held as the record escaped it: `bodies.rs`).
#[derive(Deserialize)]
pub(super) struct Part<'a, V = Value, R = Map<String, Value>, F = Tree<'a>> {
    #[serde(borrow, default)]
    pub(super) text: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) thought: Option<bool>,
    #[serde(
        borrow,
        default,
        alias = "thought_signature",
        rename = "thoughtSignature"
    )]
    pub(super) thought_signature: Option<Borrowed<'a>>,
    #[serde(borrow, default, alias = "function_call", rename = "functionCall")]
    pub(super) function_call: Option<FunctionCall<'a, V>>,
    #[serde(
        borrow,
        default,
        alias = "function_response",
        rename = "functionResponse"
    )]
    pub(super) function_response: Option<FunctionResponse<'a, F>>,
    #[serde(borrow, default, alias = "executable_code", rename = "executableCode")]
    pub(super) executable_code: Option<ExecutableCode<'a>>,
    #[serde(
        borrow,
        default,
        alias = "code_execution_result",
        rename = "codeExecutionResult"
    )]
    pub(super) code_execution_result: Option<CodeExecutionResult<'a>>,
    /// Any other kind of part (`inlineData`, `fileData`, `videoMetadata`, ...): kept.
    #[serde(flatten)]
    pub(super) rest: R,
}

#[derive(Deserialize)]
pub(super) struct FunctionCall<'a, V = Value> {
    #[serde(borrow, default)]
    pub(super) id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) name: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) args: Option<V>,
}

#[derive(Deserialize)]
pub(super) struct FunctionResponse<'a, F = Tree<'a>> {
    #[serde(borrow, default)]
    pub(super) id: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    pub(super) name: Option<Borrowed<'a>>,
    #[serde(default)]
    pub(super) response: Option<F>,
}

#[derive(Deserialize)]
pub(super) struct ExecutableCode<'a> {
    #[serde(borrow, default)]
    pub(super) language: Option<Enum<'a>>,
    #[serde(borrow, default)]
    pub(super) code: Option<Borrowed<'a>>,
}

#[derive(Deserialize)]
pub(super) struct CodeExecutionResult<'a> {
    #[serde(borrow, default)]
    pub(super) outcome: Option<Enum<'a>>,
    #[serde(borrow, default)]
    pub(super) output: Option<Borrowed<'a>>,
}

/// An enum value, as its name or (`enum-encoding=int`) its number.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub(super) enum Enum<'a> {
    Name(#[serde(borrow)] Cow<'a, str>),
    Number(i64),
}

impl Enum<'_> {
    /// The value as text: its name, or its number written out.
    pub(super) fn text(&self) -> Cow<'_, str> {
        match self {
            Enum::Name(name) => Cow::Borrowed(name),
            Enum::Number(number) => Cow::Owned(number.to_string()),
        }
    }
}

/// A candidate's `finishReason`, its raw word kept: names as the API spells them; numbers
/// (`enum-encoding=int`) by the values both APIs share (1 `STOP` to 5 `OTHER`). Above 5 the
/// two APIs number differently (AI Studio's 6 is `LANGUAGE`, Vertex AI's `BLOCKLIST`), so a
/// number there keeps its digits as its raw word; 7 and 8 are a block in both.
pub(super) fn finish_reason(reason: &Enum<'_>) -> (StopKind, String) {
    const SHARED: [&str; 6] = [
        "FINISH_REASON_UNSPECIFIED",
        "STOP",
        "MAX_TOKENS",
        "SAFETY",
        "RECITATION",
        "OTHER",
    ];
    let raw = match reason {
        Enum::Name(name) => name.to_string(),
        Enum::Number(number) => match usize::try_from(*number).ok().and_then(|n| SHARED.get(n)) {
            Some(name) => (*name).to_owned(),
            None if matches!(number, 7 | 8) => {
                return (StopKind::Refusal, number.to_string());
            }
            None => return (StopKind::Other, number.to_string()),
        },
    };
    let kind = match raw.as_str() {
        "STOP" => StopKind::EndTurn,
        "MAX_TOKENS" => StopKind::MaxTokens,
        "SAFETY"
        | "RECITATION"
        | "BLOCKLIST"
        | "PROHIBITED_CONTENT"
        | "SPII"
        | "IMAGE_SAFETY"
        | "IMAGE_PROHIBITED_CONTENT"
        | "IMAGE_RECITATION"
        | "MODEL_ARMOR" => StopKind::Refusal,
        _ => StopKind::Other,
    };
    (kind, raw)
}

/// Whether a code execution's `outcome` is success (`OUTCOME_OK`, 1).
pub(super) fn outcome_ok(outcome: Option<&Enum<'_>>) -> bool {
    match outcome {
        Some(Enum::Name(name)) => name == "OUTCOME_OK",
        Some(Enum::Number(number)) => *number == 1,
        None => true,
    }
}

/// The counts of a `usageMetadata` (every field in either spelling).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Counts {
    pub(super) prompt: u64,
    pub(super) candidates: u64,
    pub(super) cached: u64,
    pub(super) thoughts: u64,
    pub(super) tool_use_prompt: u64,
}

impl Counts {
    /// Each count from its camelCase field when that is there (whatever its value), else from
    /// its snake_case one; `members` in their order (a later member of a name replaces an
    /// earlier one, as in the tree). One walk over the fields, not a lookup per spelling: a
    /// stream's every chunk repeats its usage.
    fn of<'v>(members: impl Iterator<Item = (&'v str, &'v Value)>) -> Counts {
        // Per count: the camelCase value, the snake_case value.
        let mut found: [(Option<&Value>, Option<&Value>); 5] = [(None, None); 5];
        for (name, value) in members {
            let (count, camel) = match name {
                "promptTokenCount" => (0, true),
                "prompt_token_count" => (0, false),
                "candidatesTokenCount" => (1, true),
                "candidates_token_count" => (1, false),
                "cachedContentTokenCount" => (2, true),
                "cached_content_token_count" => (2, false),
                "thoughtsTokenCount" => (3, true),
                "thoughts_token_count" => (3, false),
                "toolUsePromptTokenCount" => (4, true),
                "tool_use_prompt_token_count" => (4, false),
                _ => continue,
            };
            match camel {
                true => found[count].0 = Some(value),
                false => found[count].1 = Some(value),
            }
        }
        let [prompt, candidates, cached, thoughts, tool_use_prompt] =
            found.map(|(camel, snake)| camel.or(snake).and_then(Value::as_u64).unwrap_or(0));
        Counts {
            prompt,
            candidates,
            cached,
            thoughts,
            tool_use_prompt,
        }
    }
}

/// A `usageMetadata` object as it came: its members in order, their names borrowed (read
/// as a [`Slot`], `Slot::Other` where it is no object). A stream's every chunk repeats its
/// usage and the run keeps only the last one whole, so its tree (`Value`: a map, a name
/// copied per member) is built only when it differs from the one kept
/// ([`UsageMembers::keep_in`]).
#[derive(Default)]
pub(super) struct UsageMembers<'a>(pub(super) Vec<(Cow<'a, str>, Value)>);

impl UsageMembers<'_> {
    /// The counts (see [`Counts`]).
    pub(super) fn counts(&self) -> Counts {
        Counts::of(self.0.iter().map(|(name, value)| (&**name, value)))
    }

    /// Keeps the usage in `kept` as its tree (as `Value` reads it: a later member of a name
    /// replaces an earlier one), built only when the members differ from `last`, those of
    /// the tree kept (the tree is a function of the members in order). `last` is compared
    /// member by member in order, not the tree looked up by name: a stream's every chunk
    /// repeats its usage, so this runs per chunk.
    pub(super) fn keep_in(self, kept: &mut Option<Value>, last: &mut Vec<(String, Value)>) {
        let members = self.0;
        let same = kept.is_some()
            && last.len() == members.len()
            && (last.iter().zip(&members)).all(|((kept_name, kept_value), (name, value))| {
                kept_name == name && kept_value == value
            });
        if same {
            return;
        }
        last.clear();
        last.extend((members.iter()).map(|(name, value)| ((**name).to_owned(), value.clone())));
        let members = members
            .into_iter()
            .map(|(name, value)| (name.into_owned(), value));
        *kept = Some(Value::Object(members.collect::<Map<_, _>>()));
    }
}

impl<'de: 'a, 'a> Members<'de> for UsageMembers<'a> {
    fn member<A: MapAccess<'de>>(
        &mut self,
        key: Cow<'de, str>,
        map: &mut A,
    ) -> Result<(), A::Error> {
        self.0.push((key, map.next_value::<Value>()?));
        Ok(())
    }
}
