//! The providers axt reads, by name; and who sent an error-only body.
//!
//! This room owns the names. It must not name an adapter: the factory and detection that do
//! are the roof's (`normalize/mod.rs`).

use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// The providers axt reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Claude Code, `claude -p --output-format stream-json --verbose`.
    Claude,
    /// OpenAI Codex CLI, `codex exec --json` (all three generations of its output).
    Codex,
    /// Gemini CLI, `gemini --output-format stream-json` (or `json`).
    Gemini,
    /// GitHub Copilot CLI, `copilot -p ... --output-format json --silent`, and its session
    /// logs (`~/.copilot/session-state/<id>/events.jsonl`).
    Copilot,
    /// OpenAI HTTP APIs (Chat Completions, Responses) and every compatible server: response
    /// bodies, SSE streams, request bodies.
    #[serde(rename = "openai")]
    OpenAi,
}

impl Provider {
    /// Every provider, for help texts and detection.
    pub const ALL: [Provider; 5] = [
        Provider::Claude,
        Provider::Codex,
        Provider::Gemini,
        Provider::Copilot,
        Provider::OpenAi,
    ];

    /// Lower-case name used on the command line and in transcripts.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Claude => "claude",
            Provider::Codex => "codex",
            Provider::Gemini => "gemini",
            Provider::Copilot => "copilot",
            Provider::OpenAi => "openai",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who sent a body that is only an error (`{"error": ...}`), by the shape of the error
/// object, since the body names no provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorBody {
    /// OpenAI and compatible servers: `{message, type, param, code}` (`param` always there,
    /// possibly null), or a snake_case `type` (`invalid_request_error`).
    OpenAi,
    /// Gemini: the API's `{code, message, status}`, or the CLI's `{type, message, code}`
    /// whose `type` is a JavaScript class name (`FatalAuthenticationError`).
    Gemini,
    /// Anthropic: `{"type": "error", "error": {type, message}}`.
    Anthropic,
    /// An error object that says none of this (`{"error": "..."}`, `{code, message}`).
    Unknown,
}

/// The sender of an error-only body; `None` when `record` is not one (it has fields beside
/// `error`, or no `error`).
pub(crate) fn error_body(record: &Value) -> Option<ErrorBody> {
    let object = record.as_object()?;
    let error = object.get("error")?;
    if object.get("type").and_then(Value::as_str) == Some("error") {
        return Some(ErrorBody::Anthropic);
    }
    if object.len() > 1 {
        return None;
    }
    let Value::Object(error) = error else {
        return Some(ErrorBody::Unknown);
    };
    if error.contains_key("param") {
        return Some(ErrorBody::OpenAi);
    }
    if error.get("status").is_some_and(Value::is_string) {
        return Some(ErrorBody::Gemini);
    }
    let body = match error.get("type").and_then(Value::as_str) {
        Some(kind) if kind.starts_with(|c: char| c.is_ascii_uppercase()) => ErrorBody::Gemini,
        Some(kind)
            if !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') =>
        {
            ErrorBody::OpenAi
        }
        _ => ErrorBody::Unknown,
    };
    Some(body)
}
