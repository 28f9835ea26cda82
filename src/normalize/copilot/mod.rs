//! GitHub Copilot CLI, in both the forms it writes:
//!
//! * its stdout with `copilot -p ... --output-format json --silent`: session events and a
//!   flat terminal `result` line;
//! * its session logs, `~/.copilot/session-state/<session id>/events.jsonl`: the same session
//!   events as they are persisted (the ephemeral ones, deltas and `assistant.usage`, are not),
//!   opened by `session.start` and closed by `session.shutdown` at the end of each process.
//!
//! One JSON object a line, in two envelopes: session events `{id, timestamp, parentId,
//! agentId?, ephemeral?, type, data}` (the Copilot SDK's vocabulary) and one flat terminal
//! `{type: "result", sessionId, exitCode, usage}`. Every event's `timestamp` is its source
//! time. How each event is read:
//!
//! * `user.message`: user text.
//! * `assistant.message`: `content` → text, verbatim (it may start with `"\n\n"`), skipped when
//!   empty; `reasoningText` → thinking, with `reasoningOpaque` / `encryptedContent` as its
//!   signature (an opaque value without text is a redacted thinking block); `toolRequests[]`
//!   → tool_use blocks. `outputTokens` is summed over all messages (not only the last).
//! * `assistant.reasoning`: thinking, held until the next event: when that is an
//!   `assistant.message` carrying `reasoningText`, the message's consolidated reasoning (with
//!   its signature) is the one kept, so the same reasoning is never delivered twice.
//! * `assistant.message_delta`, `assistant.reasoning_delta`, `assistant.streaming_delta`,
//!   `tool.execution_partial_result`, `tool.execution_progress`: ignored. They are ephemeral,
//!   and the consolidated `assistant.message` / `tool.execution_complete` always follows.
//! * `tool.execution_start`: the same call as the `toolRequests` entry with its
//!   `toolCallId`. A call becomes one tool_use, at whichever of the two comes first.
//! * `tool.execution_complete`: a user-side tool_result; `is_error` is `!success`; content is
//!   `result.content` (what the model saw), else `result.detailedContent`, else
//!   `result.contents`, else `error.message`. A string content is held as the record escaped
//!   it (`model::ToolOutput`) and written back verbatim, never unescaped when the line is
//!   read by a skim (`skim::skim_complete`; most are, as Copilot CLI writes them).
//! * A `command` block follows the tool_use of `bash` / `shell` calls with `arguments.command`.
//! * `assistant.usage` (per API call; when present it replaces the `outputTokens` sum):
//!   `inputTokens` is taken to include cache reads and writes, as in the OpenAI-style usage
//!   Copilot's API reports, and is converted to axt's uncached convention. Its `cost` is a
//!   premium-request multiplier, not dollars, so `cost_usd` stays empty; the record is kept.
//! * `session.error`: a fatal run error; the run is failed. `session.warning`,
//!   `subagent.failed`: non-fatal run errors. The model comes from `session.tools_updated`,
//!   `tool.execution_complete` or `assistant.usage`.
//! * `result`: session id, exit code (non-zero: failed), `sessionDurationMs`; its `usage` is
//!   `raw_usage`.
//! * `session.start` (session logs): session id, CLI version (`copilotVersion`), the model
//!   selected (unless `auto`); `session.model_change`: the model (`newModel`).
//! * `session.shutdown` (session logs): the end of a process, and the run's terminal record
//!   when there is no `result` line: `shutdownType: "error"` fails the run with its
//!   `errorReason`, else the run completed. Its `modelMetrics` is the only token count a
//!   session log has, per model: `usage.inputTokens` includes the cache reads and writes
//!   (`tokenDetails` splits the same count: `input` + `cache_read` + `cache_write`), and is
//!   converted to axt's uncached convention. It replaces every other count (it covers the
//!   sub-agents too; `agentMetrics` splits the same tokens by agent). A resumed session has
//!   one shutdown per process: current CLIs write each as the session's running total, so a
//!   shutdown whose every count is at least the previous one's replaces it; older CLIs
//!   counted each process alone (github/copilot-cli#524), so a count that went down starts a
//!   new leg, added to the ones before. `currentModel` names the model; the record is kept
//!   as passthrough, `modelMetrics` as `raw_usage`.
//! * Everything else (`session.*`, `subagent.*`, `permission.*`, turn markers, types added
//!   later) is kept as passthrough metadata, except the ephemeral noise listed above.
//!
//! Sub-agent events carry the envelope's `agentId`: it becomes each item's `agent` scope.
//! Copilot can exit 0 without writing anything: a stream without the `result` line (or, in a
//! session log, without `session.shutdown`: a session still running) ends with a
//! missing-terminal warning and status incomplete.
//!
//! The stages, one module each: `wire` reads a record into its shape (the envelope, `data`,
//! a tool's output); `skim` reads the lines most of a session is without the parser (the
//! deltas it ignores, the tool outputs it copies); `state` turns the records into blocks and run metadata; `usage` adds
//! up the token counts of a session log's `session.shutdown` records.

mod skim;
mod state;
mod usage;

// `axt usage copilot` counts a shutdown's totals by the adapter's own reading of them.
pub(crate) use usage::model_metrics;
mod wire;

use serde_json::Value;

use super::driver::Driver;
use super::framing::Lines;
use super::{Normalizer, Options};
use state::State;

/// Whether the first record of an output looks like Copilot CLI JSONL: an enveloped session
/// event with a dotted type, or the flat terminal `result` with `sessionId` and `exitCode`.
pub(crate) fn claims(first: &Value) -> bool {
    let Some(kind) = first.get("type").and_then(Value::as_str) else {
        return false;
    };
    if kind == "result" {
        return first.get("sessionId").is_some() && first.get("exitCode").is_some();
    }
    kind.contains('.')
        && first.get("data").is_some_and(Value::is_object)
        && first.get("id").is_some()
        && first.get("timestamp").is_some()
}

/// The Copilot normalizer: the shared line driver around this adapter's state.
pub(crate) fn normalizer(options: Options) -> impl Normalizer + Send + use<> {
    let state = State::new();
    Driver::<Lines, State>::new(&options, state)
}

#[cfg(test)]
mod tests {
    use super::super::Output;
    use super::super::driver::Adapter;
    use super::super::framing::Record;
    use super::super::json::JsonParser;
    use super::*;
    use serde_json::json;

    /// The adapter says a record is its own only where the detection claims it, so the
    /// check for another provider's records, which it spares, would have found nothing.
    #[test]
    fn a_record_is_said_to_be_claimed_only_where_the_detection_claims_it() {
        let stamp = "2026-01-01T00:00:00.000Z";
        let lines = [
            // Passthrough events, enveloped as Copilot writes them: claimed.
            (
                json!({"type": "assistant.turn_start", "data": {"turnId": "1"}, "id": "e1",
                "timestamp": stamp, "parentId": null}),
                true,
            ),
            (
                json!({"type": "session.idle", "data": {}, "id": null, "timestamp": stamp}),
                true,
            ),
            // Short of the envelope: left to the check.
            (
                json!({"type": "assistant.turn_start", "data": {}, "timestamp": stamp}),
                false,
            ),
            (
                json!({"type": "assistant.turn_start", "data": [], "id": "e1",
                "timestamp": stamp}),
                false,
            ),
            (
                json!({"type": "assistant.turn_start", "data": null, "id": "e1",
                "timestamp": stamp}),
                false,
            ),
            (
                json!({"type": "assistant.turn_start", "id": "e1", "timestamp": stamp}),
                false,
            ),
            (
                json!({"type": "assistant.turn_start", "data": {}, "id": "e1",
                "timestamp": null}),
                false,
            ),
            (
                json!({"type": "turn_start", "data": {}, "id": "e1", "timestamp": stamp}),
                false,
            ),
            (
                json!({"type": "result", "sessionId": "s", "exitCode": 0, "timestamp": stamp}),
                false,
            ),
        ];
        for (line, claimed) in lines {
            let bytes = line.to_string();
            let mut state = State::new();
            let mut parser = JsonParser::default();
            let mut out = Output::default();
            // A record read before it, claimed, must not leave its mark on this one.
            let before =
                json!({"type": "session.idle", "data": {}, "id": "e0", "timestamp": stamp});
            let before = before.to_string();
            state.record(
                &mut parser,
                Record::line(before.as_bytes(), 1, 0, true),
                &mut out,
            );
            assert!(state.claimed());
            state.record(
                &mut parser,
                Record::line(bytes.as_bytes(), 2, 0, true),
                &mut out,
            );
            assert_eq!(state.claimed(), claimed, "{line}");
            assert!(!state.claimed() || claims(&line), "{line}");
        }
    }

    /// The `data` of a delta, which the adapter ignores, is skipped when `type` comes first
    /// (as Copilot writes it): its members are not read, but whether it is an object still
    /// counts for the detection, and a value that is no `data` at all still refuses it;
    /// alike whether the record is skimmed or parsed.
    #[test]
    fn an_ignored_events_data_is_skipped_but_still_shaped() {
        let stamp = r#""id":"e1","timestamp":"2026-01-01T00:00:00.000Z""#;
        let delta = r#"{"type":"assistant.message_delta","data":"#;
        // (record, claimed, refused)
        let lines = [
            (
                format!(r#"{delta}{{"messageId":"m","deltaContent":"hi"}},{stamp}}}"#),
                true,
                false,
            ),
            // A member of a type `Data` would refuse: not read, so not refused.
            (
                format!(r#"{delta}{{"messageId":5,"messageId":6}},{stamp}}}"#),
                true,
                false,
            ),
            (format!(r#"{delta}[],{stamp}}}"#), false, false),
            (format!(r#"{delta}null,{stamp}}}"#), false, false),
            (format!(r#"{delta}"text",{stamp}}}"#), false, true),
            (format!(r#"{delta}{{}},"data":{{}},{stamp}}}"#), false, true),
            // `data` before `type`: read whole, as before.
            (
                format!(r#"{{"data":{{"messageId":5}},"type":"assistant.message_delta",{stamp}}}"#),
                false,
                true,
            ),
        ];
        for (line, claimed, refused) in lines {
            // As Copilot writes it (skimmed where it can be), and with a space before it
            // (parsed): the same.
            let mut reports = Vec::new();
            for line in [line.clone(), format!(" {line}")] {
                let mut state = State::new();
                let mut parser = JsonParser::default();
                let mut out = Output::default();
                let record = Record::line(line.as_bytes(), 1, 0, true);
                state.record(&mut parser, record, &mut out);
                assert_eq!(state.claimed(), claimed, "{line}");
                assert_eq!(
                    !out.diagnostics.is_empty(),
                    refused,
                    "{line}: {:?}",
                    out.diagnostics
                );
                assert!(out.items.is_empty(), "{line}");
                reports.push(format!("{:?} {:?}", parser.tally.report(), state.meta()));
            }
            assert_eq!(reports[0], reports[1], "{line}");
        }
    }

    /// Each fixture of the corpus (normalize and import), read as the adapter reads it (the
    /// completions and the deltas skimmed where they can be) and with every record parsed:
    /// the same items, diagnostics, detection answers, run metadata and input report; and
    /// the skim takes most of the fixtures' completions.
    #[test]
    fn a_skimmed_completion_is_read_as_its_parse() {
        fn files(dir: &std::path::Path, into: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("the corpus") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    files(&path, into);
                } else if path.extension().is_some_and(|e| e == "jsonl") {
                    into.push(path);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut paths = Vec::new();
        files(&root.join("corpus/normalize/copilot"), &mut paths);
        files(&root.join("corpus/import/copilot"), &mut paths);
        let (mut completions, mut skimmed) = (0, 0);
        for path in &paths {
            let input = std::fs::read(path).expect("a fixture");
            let mut read = Vec::new();
            for skim in [true, false] {
                let mut state = State::new();
                let mut parser = JsonParser::default();
                let mut out = Output::default();
                let mut claimed = Vec::new();
                let mut offset = 0;
                for (at, line) in input.split(|b| *b == b'\n').enumerate() {
                    let record = Record::line(line, at as u64 + 1, offset, true);
                    offset += line.len() as u64 + 1;
                    if line.is_empty() {
                        continue;
                    }
                    if skim {
                        if line.starts_with(br#"{"type":"tool.execution_complete""#) {
                            completions += 1;
                            skimmed += usize::from(skim::skim_complete(line).is_some());
                        }
                        state.record(&mut parser, record, &mut out);
                    } else {
                        let Output { items, diagnostics } = &mut out;
                        let read = parser.parse_in::<wire::EventShape>(
                            record,
                            diagnostics,
                            |event, parsed, diagnostics| {
                                state.event(event, record, parsed, items, diagnostics)
                            },
                        );
                        // `record` says no for a record it could not read.
                        if !read {
                            claimed.push(false);
                            continue;
                        }
                    }
                    claimed.push(state.claimed());
                }
                state.finish((0, 0), &mut out);
                read.push(format!(
                    "{:?}\n{:?}\n{claimed:?}\n{:?}\n{:?}",
                    out.items,
                    out.diagnostics,
                    state.meta(),
                    parser.tally.report()
                ));
            }
            assert_eq!(read[0], read[1], "{}", path.display());
        }
        assert!(
            completions >= 20 && skimmed * 4 >= completions * 3,
            "{skimmed} of {completions}"
        );
    }
}
