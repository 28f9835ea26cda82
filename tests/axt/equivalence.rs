//! The same task through every provider gives structurally equivalent transcripts.
//!
//! Each corpus has `ok/shared-scenario-shell-command.*`: the user asks how many Rust files
//! are in `src`, the agent runs `find src -name '*.rs' | wc -l`, which prints 12, and answers.
//! An adapter that reads a family of agents has the scenario once more per agent of the
//! family it tells apart, `ok/shared-scenario-shell-command-<agent>.*`, and must name that
//! agent in the run's metadata (`agent`).
//! Modulo what a provider does not expose (its reasoning; the echo of the user's prompt),
//! every provider must yield the same blocks in the same order, with the same command, output
//! and answer, and the same sequence of transcript events.

use axt::model::{Block, EventType, Role, decode_event};
use axt::normalize::{Options, Provider, normalize};
use axt::transcribe::{EventOptions, JsonlSink, Transcriber};
use serde_json::Value;

use crate::support::ROOT;

/// Every rendition of the scenario: `(provider, the agent it names or none, the output)`.
fn scenarios() -> Vec<(Provider, Option<String>, Vec<u8>)> {
    let mut all = Vec::new();
    for provider in Provider::ALL {
        let dir = format!("{ROOT}/corpus/normalize/{provider}/ok");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|error| panic!("{dir}: {error}"))
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("shared-scenario-shell-command"))
            .collect();
        names.sort();
        assert!(
            names
                .iter()
                .any(|n| n == "shared-scenario-shell-command.jsonl"),
            "{provider}: no shared scenario"
        );
        for name in names {
            let agent = name
                .trim_end_matches(".jsonl")
                .strip_prefix("shared-scenario-shell-command-")
                .map(str::to_owned);
            let input = std::fs::read(format!("{dir}/{name}")).unwrap();
            all.push((provider, agent, input));
        }
    }
    all
}

/// What every provider exposes: no thinking, no user text (the prompt echo).
fn exposed(role: &Role, block: &Block) -> bool {
    let reasoning = matches!(block, Block::Thinking { .. });
    let prompt_echo = *role == Role::User && matches!(block, Block::Text { .. });
    !(reasoning || prompt_echo)
}

#[test]
fn every_provider_yields_the_same_blocks_for_the_shared_scenario() {
    for (provider, agent, input) in scenarios() {
        let normalized = normalize(provider, &input, Options::default())
            .unwrap_or_else(|error| panic!("{provider} {agent:?}: {error}"));
        if agent.is_some() {
            assert_eq!(
                normalized.meta.agent, agent,
                "{provider}: the agent is named"
            );
        }
        let provider = format!("{provider} {}", agent.as_deref().unwrap_or(""));
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
    for (provider, agent, input) in scenarios() {
        let mut transcriber =
            Transcriber::new(provider, Options::default(), EventOptions::default());
        let mut sink = JsonlSink::new(Vec::new(), |_| Ok(()));
        transcriber.push(&input, &mut sink).unwrap();
        let provider = format!("{provider} {}", agent.as_deref().unwrap_or(""));
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
                // A reasoning block in the same message as a call is not exposed either.
                let blocks: Vec<&str> = event
                    .payload
                    .blocks()
                    .iter()
                    .filter(|b| !matches!(b.block, Block::Thinking { .. }))
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
