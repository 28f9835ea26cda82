//! One line limit and one nesting limit, shared by the writer and every reader
//! (`model::MAX_LINE_BYTES`, `model::MAX_DEPTH`): whatever the input, up to the record limit
//! and nested 128 levels deep and more, what axt writes is what `check`, `tree`, `stats`
//! and `export` read whole; what did not fit was cut, said in a diagnostic (`oversize-cut`,
//! exit 1) and marked in the event.

use std::fs;
use std::path::Path;
use std::process::Output;

use axt::model::{
    EncodeError, EventType, ExchangeEvent, MAX_DEPTH, MAX_LINE_BYTES, PASSTHROUGH_BYTES, Payload,
    StepKind, StepPayload, decode_event, encode_event,
};
use axt::normalize::{Options, Provider};
use axt::read::{ReadItem, Reader};
use axt::record::{Recorder, RecorderOptions};
use axt::transcribe::{EventOptions, JsonlSink, Transcriber};
use serde_json::{Value, json};

use crate::cli::{axt, text};
use crate::support::TempDir;

/// `value` wrapped in `levels` objects.
fn nested(levels: usize, value: Value) -> Value {
    (0..levels).fold(value, |inner, _| json!({ "a": inner }))
}

fn claude_stream(content: Value, extra: &[Value]) -> Vec<u8> {
    let init = json!({"type": "system", "subtype": "init", "session_id": "s1",
        "model": "claude-sonnet-4-6", "tools": []});
    let assistant = json!({"type": "assistant", "session_id": "s1",
        "message": {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-6", "content": content,
            "usage": {"input_tokens": 3, "output_tokens": 5}}});
    let result = json!({"type": "result", "subtype": "success", "is_error": false,
        "result": "done", "session_id": "s1", "total_cost_usd": 0.25,
        "usage": {"input_tokens": 3, "output_tokens": 5}});
    let mut lines = vec![init, assistant];
    lines.extend_from_slice(extra);
    lines.push(result);
    let mut out = Vec::new();
    for line in lines {
        serde_json::to_writer(&mut out, &line).unwrap();
        out.push(b'\n');
    }
    out
}

fn openai_body(arguments: &Value) -> Vec<u8> {
    let body = json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1_767_226_100,
        "model": "gpt-4o", "choices": [{"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
                "type": "function", "function": {"name": "f",
                    "arguments": arguments.to_string()}}]}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}});
    let mut out = serde_json::to_vec(&body).unwrap();
    out.push(b'\n');
    out
}

/// The transcript of `input` (the library's transcriber and stdout sink), and the kinds of
/// its diagnostics.
fn transcribe(provider: Provider, input: &[u8], max_record_bytes: usize) -> (Vec<u8>, Vec<String>) {
    let options = Options { max_record_bytes };
    let mut transcriber = Transcriber::new(provider, options, EventOptions::default());
    let mut kinds = Vec::new();
    let mut sink = JsonlSink::new(Vec::new(), |diagnostic| {
        kinds.push(diagnostic.kind.as_str().to_owned());
        Ok(())
    });
    transcriber.push(input, &mut sink).unwrap();
    transcriber.finish(&mut sink).unwrap();
    (sink.into_inner(), kinds)
}

/// Every problem `axt check`'s reader finds in a transcript.
fn problems(transcript: &[u8]) -> Vec<String> {
    Reader::new(transcript)
        .filter_map(|item| match item {
            ReadItem::Problem(problem) => Some(problem.to_string()),
            ReadItem::Event { .. } => None,
        })
        .collect()
}

/// `check`, `tree`, `stats` and `export` all read `path` clean.
fn every_reader_takes(path: &Path) {
    let path = path.to_str().unwrap();
    for args in [
        vec!["check", path],
        vec!["tree", path],
        vec!["stats", path],
        vec!["export", path, "-o", "/dev/null"],
    ] {
        let output: Output = axt(&args, b"");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
}

#[test]
fn the_line_limits_are_the_decoders() {
    let line = |levels: usize| {
        let event = json!({"seq": 1, "run_id": "r", "type": "step.completed", "path": "",
            "iteration": 0, "timestamp": "2026-06-08T08:00:00Z",
            // event (1), payload (2), result at 3: the result's own chain adds the rest.
            "payload": {"name": "s", "kind": "command", "result": nested(levels - 2, json!(1))}});
        serde_json::to_vec(&event).unwrap()
    };
    assert!(decode_event(&line(MAX_DEPTH)).is_ok());
    assert_eq!(
        decode_event(&line(MAX_DEPTH + 1)).unwrap_err().category(),
        axt::model::DecodeCategory::TooDeep
    );
    // The strict writer refuses what the decoder would.
    let mut event = decode_event(&line(MAX_DEPTH)).unwrap();
    let mut out = Vec::new();
    encode_event(&event, &mut out).unwrap();
    if let Payload::Step(step) = &mut event.payload {
        step.result = nested(MAX_DEPTH - 1, json!(1));
    }
    out.clear();
    let error = encode_event(&event, &mut out).unwrap_err();
    assert!(
        matches!(error, EncodeError::TooDeep { level: 128 }),
        "{error}"
    );
    assert!(out.is_empty());
    if let Payload::Step(step) = &mut event.payload {
        step.result = json!("x".repeat(MAX_LINE_BYTES));
    }
    let error = encode_event(&event, &mut out).unwrap_err();
    assert!(matches!(error, EncodeError::TooLong { .. }), "{error}");
    assert!(out.is_empty());
}

/// Tool inputs nested around the limit and far past it, from two providers: the transcript
/// always passes `axt check`; an input too deep for its event is cut where it passes the
/// limit, with an `oversize-cut` diagnostic, and only then.
/// (Nested 1000 levels, the adapter's own parse of the record needs more than a test
/// thread's 2 MiB of stack in a debug build, before anything here runs; 500 levels does not.)
#[test]
fn tool_input_nested_up_to_128_levels_and_past_them_writes_lines_every_reader_takes() {
    for levels in (118..=130).chain([200, 500]) {
        let input = nested(levels, json!("bottom"));
        let tool_use = json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": input}]);
        for (provider, bytes) in [
            (Provider::Claude, claude_stream(tool_use, &[])),
            (Provider::OpenAi, openai_body(&input)),
        ] {
            let (transcript, kinds) = transcribe(provider, &bytes, MAX_LINE_BYTES);
            assert_eq!(
                problems(&transcript),
                Vec::<String>::new(),
                "{provider} {levels}"
            );
            // The tool.call's input is at level 3, a tool_use block's at level 5. OpenAI's
            // arguments are a JSON string, parsed with serde_json's limit: nested 128 levels
            // or more they stay a string (`invalid-tool-input`), and nothing is cut.
            let parsed = provider == Provider::Claude || levels < 128;
            let cut = parsed && levels + 4 > MAX_DEPTH;
            assert_eq!(
                kinds.iter().any(|kind| kind == "oversize-cut"),
                cut,
                "{provider} {levels}: {kinds:?}"
            );
            let marked = String::from_utf8_lossy(&transcript)
                .contains("[axt: cut: nested deeper than the transcript's 127 levels]");
            assert_eq!(marked, cut, "{provider} {levels}");
        }
    }
}

/// The issue's case: a 9.5 MB Bash command, which the message writes twice (the tool_use
/// input and the command block), through `axt normalize --out`: exit 1 with an `oversize-cut`
/// diagnostic naming both fields, every line under the limit, and every reader takes the
/// run whole: the call, its result and the run's metadata.
#[test]
fn a_command_written_twice_over_the_line_limit_is_cut_and_said() {
    let tmp = TempDir::new("limits-bash");
    let command = format!("echo {}", "x".repeat(9_500_000));
    let tool_use = json!([{"type": "tool_use", "id": "t1", "name": "Bash",
        "input": {"command": command, "description": "big"}}]);
    let result = json!({"type": "user", "session_id": "s1", "message": {"role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}});
    let input = tmp.path().join("input.jsonl");
    fs::write(&input, claude_stream(tool_use, &[result])).unwrap();
    let out = tmp.path().join("runs");
    let output = axt(
        &[
            "normalize",
            "--out",
            out.to_str().unwrap(),
            "--run-id",
            "big",
            input.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(
            "input.jsonl:2: byte 92: oversize-cut: the message.assistant event did not fit a \
             transcript line and was cut (the event marks where): payload.blocks[0].tool_input: \
             cut from 9500039 to "
        ) && stderr.contains("payload.blocks[1].command: cut from 9500007 to "),
        "{stderr}"
    );
    let path = out.join("big.jsonl");
    let transcript = fs::read(&path).unwrap();
    assert!(
        transcript
            .split(|b| *b == b'\n')
            .all(|line| line.len() <= MAX_LINE_BYTES)
    );
    every_reader_takes(&path);
    let tree = axt(&["tree", "--json", path.to_str().unwrap()], b"");
    let tree: Value = serde_json::from_slice(&tree.stdout).unwrap();
    assert_eq!(tree["root"]["status"], "completed", "{tree}");
    let stats = axt(&["stats", "--json", path.to_str().unwrap()], b"");
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["total"]["cost"]["reported_usd"], 0.25, "{stats}");
    assert_eq!(stats["total"]["tools"]["Bash"]["calls"], 1, "{stats}");
    let events: Vec<ExchangeEvent> = Reader::new(transcript.as_slice())
        .map(|item| match item {
            ReadItem::Event { event, .. } => *event,
            ReadItem::Problem(problem) => panic!("{problem}"),
        })
        .collect();
    // The tool.call carries the command once: it fits, whole.
    let call = events
        .iter()
        .find(|e| e.event_type == EventType::ToolCall)
        .unwrap();
    let Payload::Tool(tool) = &call.payload else {
        panic!()
    };
    assert_eq!(tool.input["command"].as_str().unwrap(), command);
    assert!(events.iter().any(|e| e.event_type == EventType::ToolResult));
}

/// A `run.completed` that would carry a thousand large passthrough records: the metadata
/// keeps what takes up to a quarter of a line and counts the rest by kind, so the line fits
/// and the run's status, usage and cost reach every reader.
#[test]
fn a_thousand_large_passthrough_records_leave_the_run_s_metadata_whole() {
    let extra: Vec<Value> = (0..1000)
        .map(|n| json!({"type": "mystery_event", "session_id": "s1", "n": n, "blob": "y".repeat(20_000)}))
        .collect();
    let text_block = json!([{"type": "text", "text": "hello"}]);
    let (transcript, kinds) = transcribe(
        Provider::Claude,
        &claude_stream(text_block, &extra),
        MAX_LINE_BYTES,
    );
    assert!(!kinds.contains(&"oversize-cut".to_owned()), "{kinds:?}");
    assert_eq!(problems(&transcript), Vec::<String>::new());
    let last = transcript.split(|b| *b == b'\n').rev().nth(1).unwrap();
    assert!(last.len() < MAX_LINE_BYTES / 2, "{}", last.len());
    let completed = decode_event(last).unwrap();
    let Payload::Step(step) = &completed.payload else {
        panic!()
    };
    let meta = &step.result;
    assert_eq!(meta["status"], "completed");
    assert_eq!(meta["cost_usd"], 0.25);
    let kept = meta["passthrough"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|record| record["kind"] == "mystery_event")
        .count();
    assert!(0 < kept && kept < 1000, "{kept}");
    assert_eq!(
        meta["passthrough_omitted"]["mystery_event"],
        json!(1000 - kept)
    );
    assert!(serde_json::to_vec(&meta["passthrough"]).unwrap().len() <= PASSTHROUGH_BYTES);
}

/// Issue 24: `--max-record-bytes` above the line limit reads a larger record, and what it
/// makes is still cut to lines every reader takes.
#[test]
fn a_record_limit_above_the_line_limit_still_writes_lines_every_reader_takes() {
    let tmp = TempDir::new("limits-max-record");
    let text_block = json!([{"type": "text", "text": "z".repeat(MAX_LINE_BYTES + 1000)}]);
    let input = tmp.path().join("input.jsonl");
    fs::write(&input, claude_stream(text_block, &[])).unwrap();
    let transcript = tmp.path().join("out.jsonl");
    let output = axt(
        &[
            "normalize",
            "--max-record-bytes",
            "40000000",
            input.to_str().unwrap(),
        ],
        b"",
    );
    fs::write(&transcript, &output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("oversize-cut: the message.assistant event did not fit"),
        "{}",
        text(&output.stderr)
    );
    every_reader_takes(&transcript);
}

/// A writer fed an over-limit event by an executor (not through the transcriber) fits it
/// rather than fail or write a line no reader takes: the recorder.
#[test]
fn the_recorder_fits_an_executor_s_event_over_the_limits() {
    let tmp = TempDir::new("limits-recorder");
    let recorder = Recorder::create(tmp.path(), "r", RecorderOptions::default()).unwrap();
    recorder
        .record(ExchangeEvent::new(
            "r",
            EventType::RunStarted,
            "",
            Payload::None,
        ))
        .unwrap();
    let mut step = StepPayload::new("build", StepKind::Command);
    step.result =
        json!({"log": "l".repeat(MAX_LINE_BYTES), "deep": nested(200, json!(0)), "ok": true});
    recorder
        .record(ExchangeEvent::new(
            "r",
            EventType::StepCompleted,
            "build",
            Payload::Step(step),
        ))
        .unwrap();
    recorder
        .record(ExchangeEvent::new(
            "r",
            EventType::RunCompleted,
            "",
            Payload::None,
        ))
        .unwrap();
    recorder.close().unwrap();
    let transcript = fs::read(recorder.path()).unwrap();
    assert_eq!(problems(&transcript), Vec::<String>::new());
    let line = transcript.split(|b| *b == b'\n').nth(1).unwrap();
    let event = decode_event(line).unwrap();
    let Payload::Step(step) = &event.payload else {
        panic!()
    };
    assert_eq!(step.result["ok"], true, "small fields stay whole");
    assert!(
        step.result["log"]
            .as_str()
            .unwrap()
            .ends_with("bytes cut to fit the transcript's line limit]")
    );
}
