//! The `route` room: which adapter reads an exchange, from the request's path and the
//! response's content type.
//!
//! | request | adapter |
//! |---|---|
//! | `…/chat/completions`, `…/responses` (OpenAI, Azure, any OpenAI-compatible server) | `openai` |
//! | `…/messages` (Anthropic); Vertex AI's `…:rawPredict`, `…:streamRawPredict` | `anthropic` |
//! | `…:generateContent`, `…:streamGenerateContent` (AI Studio and Vertex AI) | `gemini-api` |
//! | Bedrock `…/model/{id}/converse`, `…/converse-stream`; any `application/vnd.amazon.eventstream` answer but an Anthropic model's `invoke` | `bedrock` |
//! | Bedrock `…/model/{id}/invoke`, `…/invoke-with-response-stream`, an Anthropic model (`anthropic.`, `us.anthropic.`, ...) | `anthropic` (its payloads are the Messages API's) |
//! | any other `POST` | detected from the bytes, as `--provider auto` does |
//! | anything else (`GET /v1/models`, ...) | not recorded: forwarded only |
//!
//! This file owns that table and nothing else.

use crate::model::Provider;

/// What the proxy does with an exchange.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Route {
    /// Recorded, read by this adapter.
    Provider(Provider),
    /// Recorded, its adapter detected from the bytes.
    Detect,
    /// Forwarded, not recorded: no model call.
    Forward,
}

/// The route of a request: its method, its path (without the query) and, once the
/// upstream answered, the response's content type.
pub(super) fn route(method: &str, path: &str, content_type: Option<&str>) -> Route {
    if !method.eq_ignore_ascii_case("POST") {
        return Route::Forward;
    }
    let path = path.trim_end_matches('/');
    let last = path.rsplit('/').next().unwrap_or_default();
    let verb = last.rsplit_once(':').map(|(_, verb)| verb);
    if matches!(verb, Some("generateContent" | "streamGenerateContent")) {
        return Route::Provider(Provider::GeminiApi);
    }
    if matches!(verb, Some("rawPredict" | "streamRawPredict")) {
        return Route::Provider(Provider::Anthropic);
    }
    if let Some(model) = bedrock_model(path) {
        return match last {
            "invoke" | "invoke-with-response-stream" if is_anthropic(model) => {
                Route::Provider(Provider::Anthropic)
            }
            "converse" | "converse-stream" => Route::Provider(Provider::Bedrock),
            _ => Route::Detect,
        };
    }
    if content_type.is_some_and(|kind| kind.starts_with("application/vnd.amazon.eventstream")) {
        return Route::Provider(Provider::Bedrock);
    }
    if path.ends_with("/chat/completions") || last == "responses" {
        return Route::Provider(Provider::OpenAi);
    }
    if last == "messages" {
        return Route::Provider(Provider::Anthropic);
    }
    Route::Detect
}

/// The model id of a Bedrock runtime path (`/model/{id}/converse`), percent-encoded as
/// the SDKs send it.
fn bedrock_model(path: &str) -> Option<&str> {
    let parts: Vec<&str> = path.split('/').collect();
    let n = parts.len();
    (n >= 3 && parts[n - 3] == "model").then(|| parts[n - 2])
}

/// Whether a Bedrock model id (or inference profile, or its ARN) is one of Anthropic's.
fn is_anthropic(model: &str) -> bool {
    let model = model.replace("%3A", ":").replace("%2F", "/");
    model
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .split('.')
        .take(2)
        .any(|part| part == "anthropic")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_api_finds_its_adapter() {
        let cases = [
            (
                "/v1/chat/completions",
                None,
                Route::Provider(Provider::OpenAi),
            ),
            (
                "/openai/deployments/d/chat/completions",
                None,
                Route::Provider(Provider::OpenAi),
            ),
            ("/v1/responses", None, Route::Provider(Provider::OpenAi)),
            ("/v1/messages", None, Route::Provider(Provider::Anthropic)),
            (
                "/v1/projects/p/locations/l/publishers/anthropic/models/claude:streamRawPredict",
                None,
                Route::Provider(Provider::Anthropic),
            ),
            (
                "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
                None,
                Route::Provider(Provider::GeminiApi),
            ),
            (
                "/v1/projects/p/locations/l/publishers/google/models/g:generateContent",
                None,
                Route::Provider(Provider::GeminiApi),
            ),
            (
                "/model/amazon.nova-pro-v1%3A0/converse",
                None,
                Route::Provider(Provider::Bedrock),
            ),
            (
                "/model/m/converse-stream",
                None,
                Route::Provider(Provider::Bedrock),
            ),
            (
                "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
                None,
                Route::Provider(Provider::Anthropic),
            ),
            (
                "/model/meta.llama3-70b-instruct-v1%3A0/invoke",
                None,
                Route::Detect,
            ),
            (
                "/v1/other",
                Some("application/vnd.amazon.eventstream"),
                Route::Provider(Provider::Bedrock),
            ),
            ("/v1/embeddings", Some("application/json"), Route::Detect),
        ];
        for (path, content_type, expected) in cases {
            assert_eq!(route("POST", path, content_type), expected, "{path}");
        }
        assert_eq!(route("GET", "/v1/models", None), Route::Forward);
    }
}
