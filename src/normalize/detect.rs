//! Who sent a body that is only an error (`{"error": ...}`): such a body names no provider,
//! so detection and the adapters tell the senders apart by the shape of the error object.
//!
//! This file owns that rule. It must not name an adapter: detection, which does, is
//! `normalize/mod.rs`'s.

use serde_json::Value;

/// Who sent a body that is only an error (`{"error": ...}`), by the shape of the error
/// object, since the body names no provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorBody {
    /// OpenAI and compatible servers: `{message, type, param, code}` (`param` always there,
    /// possibly null), or a snake_case `type` (`invalid_request_error`).
    OpenAi,
    /// The Gemini CLI: `{type, message, code}` whose `type` is a JavaScript class name
    /// (`FatalAuthenticationError`).
    Gemini,
    /// The Gemini API (and every Google API): `{code, message, status}`, `status` a
    /// `google.rpc.Code` name (`RESOURCE_EXHAUSTED`).
    GeminiApi,
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
        return Some(ErrorBody::GeminiApi);
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
