//! The Agent Client Protocol: a captured ACP exchange (JSON-RPC 2.0, newline-delimited, both
//! directions in the order they crossed the wire), as any ACP client sees a run of any ACP
//! agent: Gemini CLI `--acp`, Qwen Code, Kimi `acp`, OpenCode `acp`, Goose, Claude Code and
//! Codex through their ACP adapters, and every agent of the ACP registry.
//!
//! Shapes follow the protocol's schema (`agent-client-protocol-schema`, v1 as stabilized, and
//! the v2 draft where it differs). A line is a JSON-RPC message, or a wrapper
//! `{"direction": "client_to_agent" | "agent_to_client", "message": {...}, "timestamp"}` (what
//! `axt exec --acp` records; `msg` and `payload` are read for `message`, `ts` and `time` for
//! `timestamp`, an ISO date or Unix milliseconds, the source time of what the line holds).
//! Who sent a request is fixed by its method; a response is paired with its request by id,
//! and where both sides have a request of that id waiting (their ids are independent), by
//! the wrapper's direction, else by the result's shape. How each message is read:
//!
//! * `initialize`: the response's `agentInfo` is the run's agent (`name`) and version
//!   ([`RunMeta::agent`](crate::model::RunMeta::agent), `provider_version`); `session/new|load|resume`: the session id, and
//!   the model where the response says it (`models.currentModelId`, a config option of
//!   category `model`). A `session/load` replays the history as updates before its
//!   response: they are read like live ones.
//! * `session/prompt`: the prompt's text blocks are user text; other prompt content
//!   (resources, images) is kept as passthrough. Its response's `stopReason` ends the turn
//!   (`end_turn`, `max_tokens`, `max_turn_requests`, `refusal`, `cancelled`) and with it the
//!   run, until the next prompt; an unstable `usage` in it (`inputTokens`, `outputTokens`,
//!   `thoughtTokens`, `cachedReadTokens`, `cachedWriteTokens`, `totalTokens`) is that turn's
//!   and is added up. Whether its input counts the cache and its output the thoughts is told
//!   by `totalTokens`, as for xAI's usage. An error response fails the run. In v2 the
//!   response only acknowledges the prompt; the turn ends with a `state_update` whose state
//!   is `idle`, carrying the stop reason.
//! * `session/update`: message and thought chunks are accumulated into one block per
//!   message, v2 whole-message upserts replace it (the `text` room); tool calls are upserts by
//!   id (the `calls` room); `usage_update` gives the session's cumulative `cost` (in USD) and
//!   its context (`used`, `size`, the raw usage when no prompt response counted tokens);
//!   `plan` and v2 `plan_update`, `available_commands_update`, `current_mode_update`,
//!   `config_option_update` (the model too, when an option of category `model` changes),
//!   `session_info_update` and kinds of later versions are kept as passthrough; v2
//!   `state_update` `idle` with a `stopReason` ends the turn; v2 `terminal_update` and
//!   `terminal_output_chunk` are the agent's own terminals (the `client` room).
//! * `session/request_permission` and its answer: the decision kept on the call (the `calls`
//!   room); `fs/*` and `terminal/*`: the client's file and terminal service as the tool calls
//!   they are (the `client` room).
//! * Anything else (`authenticate`, `session/set_mode`, extension methods, a method of a later
//!   version) is kept as passthrough, its response too; an error response is a run error.
//!
//! The exchange ends with the answer to its last prompt: without it, a missing-terminal
//! warning, and the run is incomplete.
//!
//! The rooms, each importing only those after it: `state` (the state between records, the
//! dispatch of a message, the session and its turns), `calls`, `client`, `text`, `skim`
//! (the lines of text chunks and tool call updates read by a skim, without the parser), and
//! `wire` (the shapes, and an item at a record). This file names the adapter for detection and the
//! factory, and defines nothing the rooms use.

use serde_json::Value;

mod calls;
mod client;
mod skim;
mod state;
mod text;
mod wire;

pub(crate) use state::normalizer;
pub use wire::{Side, wrap};
use wire::{sender_of, text};

/// Whether a record is an ACP message (bare or wrapped): JSON-RPC 2.0 with a method only ACP
/// defines (MCP's `initialize` has a date for its protocol version, ACP's an integer), or the
/// response to `initialize` naming the agent's capabilities.
pub(crate) fn claims(record: &Value) -> bool {
    let message = match record.get("message") {
        Some(message) if record.get("direction").is_some() => message,
        _ => record,
    };
    if text(message, "jsonrpc") != Some("2.0") {
        return false;
    }
    let integer_version = |holder: Option<&Value>| {
        holder
            .and_then(|holder| holder.get("protocolVersion"))
            .is_some_and(Value::is_u64)
    };
    match text(message, "method") {
        Some("initialize") => integer_version(message.get("params")),
        Some(method) => sender_of(method).is_some(),
        None => {
            let result = message.get("result");
            integer_version(result)
                && result.is_some_and(|r| {
                    r.get("agentCapabilities").is_some() || r.get("agentInfo").is_some()
                })
        }
    }
}
