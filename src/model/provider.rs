//! The providers axt reads, by name: [`Provider`], the one registry every list of providers
//! derives from (the command line, `exec`, Python, detection, the exporters' vendor names,
//! the tests, fuzz targets and benches).
//!
//! This file owns the names and the facts about a provider that readers of a transcript need
//! (who makes it, what its agent is called). It must not name an adapter: the factory and
//! detection that do are `normalize`'s.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};

/// The providers axt reads.
///
/// Adding one is a variant here, its entry in [`Provider::ALL`] and the matches below; the
/// compiler then points at the adapter factory (`normalize/mod.rs`), and the registry test
/// (`tests/axt/registry.rs`) at every list outside Rust. The enum is exhaustive on purpose:
/// a `match` on it, in axt or in an embedder, is made to say what a new provider does (a
/// new provider is a minor-version change that can break such a match).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
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
    /// Google's Gemini API (AI Studio and Vertex AI): `generateContent` bodies,
    /// `streamGenerateContent` streams (SSE or a JSON array), request bodies.
    #[serde(rename = "gemini-api")]
    GeminiApi,
    /// Amazon Bedrock's Converse API: `Converse` bodies, `ConverseStream` events (binary
    /// event stream or decoded), request bodies.
    Bedrock,
    /// Anthropic's Messages API: response bodies, SSE streams and request bodies, as
    /// Anthropic, Vertex AI and Bedrock serve it.
    Anthropic,
    /// Any agent over the Agent Client Protocol: a captured ACP exchange (JSON-RPC, both
    /// directions), or `axt exec --acp`, where axt is the ACP client. The agent itself is
    /// named in the run's metadata ([`RunMeta::agent`](super::RunMeta::agent)).
    Acp,
    /// OpenCode, `opencode run --format json` (step and part events).
    #[serde(rename = "opencode")]
    OpenCode,
    /// Pi (`badlogic/pi-mono`'s coding agent), `pi -p --mode json` (its session's events).
    Pi,
    /// OpenAI HTTP APIs (Chat Completions, Responses) and every compatible server: response
    /// bodies, SSE streams, request bodies.
    #[serde(rename = "openai")]
    OpenAi,
}

/// Who makes a provider's models or agent: what the exporters name as its vendor, each in
/// its own format's spelling (AgentLog's `agent.provider`, OTLP's `gen_ai.provider.name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Vendor {
    /// Anthropic (Claude models, Claude Code).
    Anthropic,
    /// OpenAI (GPT models, Codex, the OpenAI-compatible APIs).
    OpenAi,
    /// Google (Gemini models, Gemini CLI).
    Google,
    /// GitHub (Copilot CLI).
    GitHub,
    /// Not known from the provider alone: a protocol any agent speaks (ACP), whose run
    /// names its agent, and whose model names its maker.
    Unknown,
    /// Amazon Web Services (Bedrock, whatever model it serves).
    Aws,
}

impl Vendor {
    /// The lower-case name (`anthropic`, `openai`, `google`, `github`, `aws`).
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Anthropic => "anthropic",
            Vendor::OpenAi => "openai",
            Vendor::Google => "google",
            Vendor::GitHub => "github",
            Vendor::Unknown => "unknown",
            Vendor::Aws => "aws",
        }
    }
}

impl Provider {
    /// Every provider, in the order help texts list them and detection asks them. OpenAI
    /// comes last: the OpenAI-compatible shapes are the catch-all of HTTP bodies.
    pub const ALL: [Provider; 11] = [
        Provider::Claude,
        Provider::Codex,
        Provider::Gemini,
        Provider::Copilot,
        Provider::GeminiApi,
        Provider::Bedrock,
        Provider::Anthropic,
        Provider::Acp,
        Provider::OpenCode,
        Provider::Pi,
        Provider::OpenAi,
    ];

    /// Lower-case name used on the command line and in transcripts.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Claude => "claude",
            Provider::Codex => "codex",
            Provider::Gemini => "gemini",
            Provider::Copilot => "copilot",
            Provider::GeminiApi => "gemini-api",
            Provider::Bedrock => "bedrock",
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
            Provider::Acp => "acp",
            Provider::OpenCode => "opencode",
            Provider::Pi => "pi",
        }
    }

    /// The product whose output this is, for people ("Claude Code", "OpenAI API").
    pub fn agent_name(self) -> &'static str {
        match self {
            Provider::Claude => "Claude Code",
            Provider::Codex => "Codex CLI",
            Provider::Gemini => "Gemini CLI",
            Provider::Copilot => "GitHub Copilot CLI",
            Provider::GeminiApi => "Gemini API",
            Provider::Bedrock => "Amazon Bedrock",
            Provider::Anthropic => "Anthropic API",
            Provider::OpenAi => "OpenAI API",
            Provider::Acp => "ACP agent",
            Provider::OpenCode => "OpenCode",
            Provider::Pi => "Pi",
        }
    }

    /// Who makes it.
    pub fn vendor(self) -> Vendor {
        match self {
            Provider::Claude | Provider::Anthropic => Vendor::Anthropic,
            Provider::Codex | Provider::OpenAi => Vendor::OpenAi,
            Provider::Gemini | Provider::GeminiApi => Vendor::Google,
            Provider::Copilot => Vendor::GitHub,
            // All three run any model: only its name says whose.
            Provider::Acp | Provider::OpenCode | Provider::Pi => Vendor::Unknown,
            Provider::Bedrock => Vendor::Aws,
        }
    }

    /// The names of every provider, joined with `sep` (for help texts and errors).
    pub fn names(sep: &str) -> String {
        Provider::ALL.map(Provider::as_str).join(sep)
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no provider's, from [`Provider::from_str`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown provider {name:?} (expected one of: {})",
    Provider::names(", ")
)]
pub struct UnknownProvider {
    /// The name given.
    pub name: String,
}

impl FromStr for Provider {
    type Err = UnknownProvider;

    /// The one parser of provider names: exactly [`Provider::as_str`]'s spellings.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Provider::ALL
            .into_iter()
            .find(|provider| provider.as_str() == name)
            .ok_or_else(|| UnknownProvider {
                name: name.to_owned(),
            })
    }
}

impl<'de> Deserialize<'de> for Provider {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_the_one_parser() {
        for provider in Provider::ALL {
            assert_eq!(provider.as_str().parse::<Provider>(), Ok(provider));
            let json = serde_json::to_string(&provider).unwrap();
            assert_eq!(json, format!("\"{provider}\""));
            assert_eq!(serde_json::from_str::<Provider>(&json).unwrap(), provider);
        }
        assert_eq!(
            "OpenAI".parse::<Provider>().unwrap_err().to_string(),
            "unknown provider \"OpenAI\" (expected one of: claude, codex, gemini, copilot, gemini-api, bedrock, anthropic, acp, opencode, pi, openai)"
        );
    }
}
