//! The same task through every provider gives structurally equivalent transcripts.
//!
//! Each corpus has `ok/shared-scenario-shell-command.*`: the user asks how many Rust files
//! are in `src`, the agent runs `find src -name '*.rs' | wc -l`, which prints 12, and answers.
//! Modulo what a provider does not expose (its reasoning; the echo of the user's prompt),
//! every provider must yield the same blocks in the same order, with the same command, output
//! and answer, and the same sequence of transcript events.

use axt::model::{Block, EventType, Role, decode_event};
use axt::normalize::{Options, Provider, normalize};
use axt::transcribe::{EventOptions, JsonlSink, Transcriber};
use serde_json::Value;

use crate::support::ROOT;

fn scenario(provider: Provider) -> Vec<u8> {
    let path = format!("{ROOT}/corpus/normalize/{provider}/ok/shared-scenario-shell-command.jsonl");
    std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// What every provider exposes: no thinking, no user text (the prompt echo).
fn exposed(role: &Role, block: &Block) -> bool {
    let reasoning = matches!(block, Block::Thinking { .. });
    let prompt_echo = *role == Role::User && matches!(block, Block::Text { .. });
    !(reasoning || prompt_echo)
}

#[test]
fn every_provider_yields_the_same_blocks_for_the_shared_scenario() {
    for provider in Provider::ALL {
        let normalized = normalize(provider, &scenario(provider), Options::default())
            .unwrap_or_else(|error| panic!("{provider}: {error}"));
        let blocks: Vec<(&str, &str)> = normalized
            .items
            .iter()
            .filter(|item| exposed(&item.role, &item.block.block))
            .map(|item| (item.role.as_str(), item.block.block.type_name()))
            .collect();
        assert_eq!(
            blocks,
            [
                ("assistant", "tool_use"),
                ("assistant", "command"),
                ("user", "tool_result"),
                ("assistant", "text")
            ],
            "{provider}"
        );
        let mut command = None;
        let mut output = None;
        let mut answer = None;
        for block in normalized.blocks() {
            match &block.block {
                Block::Command { command: line, .. } => command = Some(line.clone()),
                Block::ToolResult {
                    tool_content,
                    is_error,
                    ..
                } => {
                    assert!(!is_error, "{provider}");
                    output = tool_content.as_str().map(|s| s.trim().to_owned());
                }
                Block::Text { text, .. } => answer = Some(text.clone()),
                _ => {}
            }
        }
        // Codex reports the shell-joined command line; the others the command as the model wrote it.
        assert!(
            command
                .as_deref()
                .is_some_and(|c| c.contains("find src -name '*.rs' | wc -l")),
            "{provider}: {command:?}"
        );
        assert_eq!(output.as_deref(), Some("12"), "{provider}");
        assert_eq!(
            answer.as_deref(),
            Some("There are 12 Rust files in src."),
            "{provider}"
        );
    }
}

#[test]
fn every_provider_yields_the_same_events_for_the_shared_scenario() {
    let mut sequences = Vec::new();
    for provider in Provider::ALL {
        let mut transcriber =
            Transcriber::new(provider, Options::default(), EventOptions::default());
        let mut sink = JsonlSink::new(Vec::new(), |_| Ok(()));
        transcriber.push(&scenario(provider), &mut sink).unwrap();
        transcriber.finish(&mut sink).unwrap();
        let types: Vec<String> = sink
            .into_inner()
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| decode_event(line).unwrap())
            .filter(|event| match event.event_type {
                EventType::MessageUser => false,
                EventType::MessageAssistant => event
                    .payload
                    .blocks()
                    .iter()
                    .any(|block| exposed(&Role::Assistant, &block.block)),
                _ => true,
            })
            .map(|event| {
                let blocks: Vec<&str> = event
                    .payload
                    .blocks()
                    .iter()
                    .map(|b| b.block.type_name())
                    .collect();
                let status = match &event.payload {
                    axt::Payload::Step(step) if event.event_type == EventType::RunCompleted => step
                        .result
                        .get("status")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    _ => String::new(),
                };
                format!("{} {} {}", event.event_type, blocks.join(","), status)
                    .trim()
                    .to_owned()
            })
            .collect();
        sequences.push((provider, types));
    }
    let (first, expected) = &sequences[0];
    assert_eq!(
        expected,
        &[
            "run.started",
            "step.started",
            "message.assistant tool_use,command",
            "tool.call",
            "tool.result",
            "message.assistant text",
            "step.completed",
            "run.completed  completed",
        ],
        "{first}"
    );
    for (provider, types) in &sequences[1..] {
        assert_eq!(types, expected, "{provider} differs from {first}");
    }
}
