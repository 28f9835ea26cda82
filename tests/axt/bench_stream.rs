//! The benchmark's generated provider streams are valid input: each normalizes through its
//! adapter without a single diagnostic, yields every kind of block it should, and answers
//! every tool call exactly once, so no generator can drift from its format.

#[path = "../../benches/providers/mod.rs"]
mod providers;

use std::collections::HashSet;

use axt::model::{Block, decode_event, encode_event};
use axt::normalize::{Normalized, Options, Provider, RunStatus, normalize_lossy};
use axt::transcribe::{EventOptions, JsonlSink, Transcriber};

/// Generates a 2 MB sample twice (it must be the same), normalizes it and checks it against
/// the kinds its generator promises.
fn check(provider: Provider) -> Vec<u8> {
    let stream = providers::stream(provider);
    let (generate, kinds) = (stream.generate, stream.kinds);
    let input = generate(2 << 20, 7);
    assert_eq!(input, generate(2 << 20, 7), "{provider}: deterministic");
    assert!(
        input.len() >= 2 << 20,
        "{provider}: at least the size asked"
    );
    let normalized = normalize_lossy(provider, &input, Options::default());
    assert_eq!(normalized.diagnostics, Vec::new(), "{provider}");
    assert_eq!(normalized.meta.status, RunStatus::Completed, "{provider}");
    for kind in kinds {
        let count = normalized
            .blocks()
            .filter(|b| b.block.type_name() == *kind)
            .count();
        assert!(count > 0, "{provider}: no {kind} block");
    }
    each_call_answered_once(provider, &normalized);
    input
}

/// Walks the blocks in order: a call opens its id, its result closes it; ids may be reused
/// once answered (Codex numbers items per thread), never while open.
fn each_call_answered_once(provider: Provider, normalized: &Normalized) {
    let mut open = HashSet::new();
    let (mut calls, mut results) = (0, 0);
    for block in normalized.blocks() {
        match &block.block {
            Block::ToolUse { tool_id, .. } => {
                calls += 1;
                assert!(open.insert(tool_id), "{provider}: {tool_id} called twice");
            }
            Block::ToolResult { tool_id, .. } => {
                results += 1;
                assert!(open.remove(tool_id), "{provider}: {tool_id} answered twice");
            }
            _ => {}
        }
    }
    assert!(open.is_empty(), "{provider}: calls left without a result");
    assert_eq!(calls, results, "{provider}");
    assert!(calls > 0, "{provider}: no tool call");
}

fn lines(input: &[u8]) -> impl Iterator<Item = &[u8]> + Clone {
    input.split(|b| *b == b'\n').filter(|l| !l.is_empty())
}

/// The share of lines that start with `prefix`.
fn share(input: &[u8], prefix: &[u8]) -> f64 {
    let all = lines(input);
    let matching = all.clone().filter(|l| l.starts_with(prefix)).count();
    matching as f64 / all.count() as f64
}

#[test]
fn every_generated_stream_normalizes_cleanly() {
    for provider in Provider::ALL {
        check(provider);
    }
}

/// Every generated stream's transcript, as a transcriber writes it chunk by chunk, is byte
/// for byte what the writer writes for the events it holds: each line, decoded and encoded
/// again, is itself. A guard for any shortcut taken on the way to a line (strings copied
/// rather than escaped, a cheaper adapter path), on every provider's stream.
#[test]
fn every_stream_s_transcript_is_what_the_escaping_writer_writes() {
    for provider in Provider::ALL {
        let input = (providers::stream(provider).generate)(1 << 20, 11);
        let mut transcriber =
            Transcriber::new(provider, Options::default(), EventOptions::default());
        let mut sink = JsonlSink::new(Vec::new(), |_| Ok(()));
        for chunk in input.chunks(64 << 10) {
            transcriber.push(chunk, &mut sink).unwrap();
        }
        transcriber.finish(&mut sink).unwrap();
        for line in lines(&sink.into_inner()) {
            let mut again = Vec::new();
            encode_event(&decode_event(line).unwrap(), &mut again).unwrap();
            assert!(
                again == line,
                "{provider}: {}",
                String::from_utf8_lossy(line)
            );
        }
    }
}

#[test]
fn generated_claude_stream_mixes_partial_messages() {
    let input = (providers::stream(Provider::Claude).generate)(2 << 20, 7);
    let streamed = share(&input, b"{\"type\":\"stream_event\"");
    assert!(
        (0.6..0.95).contains(&streamed),
        "stream_event share {streamed}"
    );
}

#[test]
fn generated_codex_stream_has_every_item_type() {
    let input = (providers::stream(Provider::Codex).generate)(2 << 20, 7);
    for kind in [
        "command_execution",
        "file_change",
        "todo_list",
        "mcp_tool_call",
        "web_search",
    ] {
        let needle = format!("\"type\":\"{kind}\"");
        assert!(
            lines(&input).any(|l| l.windows(needle.len()).any(|w| w == needle.as_bytes())),
            "no {kind} item"
        );
    }
    let completed = share(&input, b"{\"type\":\"item.completed\"");
    assert!(
        (0.45..0.8).contains(&completed),
        "item.completed share {completed}"
    );
}

#[test]
fn generated_gemini_stream_is_mostly_deltas() {
    let input = (providers::stream(Provider::Gemini).generate)(2 << 20, 7);
    let deltas = share(&input, b"{\"type\":\"message\"");
    assert!((0.5..0.98).contains(&deltas), "message share {deltas}");
}

#[test]
fn generated_copilot_stream_is_mostly_deltas() {
    let input = (providers::stream(Provider::Copilot).generate)(2 << 20, 7);
    let deltas = share(&input, b"{\"type\":\"assistant.message_delta\"");
    assert!(
        (0.4..0.95).contains(&deltas),
        "message_delta share {deltas}"
    );
}

#[test]
fn generated_openai_stream_is_mostly_text_deltas() {
    let input = (providers::stream(Provider::OpenAi).generate)(2 << 20, 7);
    let deltas = share(&input, b"data: {\"type\":\"response.output_text.delta\"");
    assert!(
        (0.15..0.5).contains(&deltas),
        "output_text.delta share {deltas}"
    );
}

#[test]
fn generated_acp_stream_is_mostly_session_updates() {
    let input = check(Provider::Acp);
    let updates = share(
        &input,
        b"{\"jsonrpc\":\"2.0\",\"method\":\"session/update\"",
    );
    assert!(
        (0.7..0.99).contains(&updates),
        "session/update share {updates}"
    );
}

#[test]
fn generated_opencode_stream_has_tool_events() {
    let input = check(Provider::OpenCode);
    let tools = share(&input, b"{\"type\":\"tool_use\"");
    assert!((0.1..0.6).contains(&tools), "tool_use share {tools}");
}

#[test]
fn generated_pi_stream_is_mostly_message_updates() {
    let input = check(Provider::Pi);
    let updates = share(&input, b"{\"type\":\"message_update\"");
    assert!(
        (0.2..0.9).contains(&updates),
        "message_update share {updates}"
    );
}
