//! The wire format: seed examples, forward compatibility, bad input, the strict writer, and
//! the round trip. Expected JSON is compared as `serde_json::Value`, an independent decoder.

use axt::model::{
    Block, Citation, ContentBlock, DecodeCategory, DecodeWarning, EncodeError, EventType,
    ExchangeEvent, Fidelity, MessagePayload, Payload, PayloadKind, Role, StepKind, StepPayload,
    Text, Timestamp, ToolPayload, UnrecognizedReason, check_encodable, decode_event, encode_event,
    warnings,
};
use insta::assert_snapshot;
use serde_json::{Value, json};

/// Wraps a payload the seed shows alone in a complete envelope.
fn envelope(event_type: &str, payload: Value) -> Value {
    json!({
        "seq": 7,
        "run_id": "550e8400-e29b-41d4-a716-446655440000",
        "type": event_type,
        "path": "analyze",
        "iteration": 0,
        "timestamp": "2026-06-08T08:14:42.123Z",
        "payload": payload,
    })
}

fn decode(value: &Value) -> ExchangeEvent {
    decode_event(value.to_string().as_bytes()).expect("decodes")
}

/// Encodes strictly and reads the output back with serde_json alone.
fn encode(event: &ExchangeEvent) -> Value {
    let mut out = Vec::new();
    encode_event(event, &mut out).expect("encodes");
    assert!(!out.contains(&b'\n'), "one event is one line");
    serde_json::from_slice(&out).unwrap()
}

fn message_blocks(event: &ExchangeEvent) -> &[ContentBlock] {
    match &event.payload {
        Payload::Message(message) => &message.blocks,
        other => panic!("expected a message payload, got {other:?}"),
    }
}

mod seed_examples {
    use super::*;

    /// transcript-schema.txt, "All lines share the same envelope".
    #[test]
    fn envelope_of_run_started() {
        let wire = json!({
            "seq": 1,
            "run_id": "550e8400-e29b-41d4-a716-446655440000",
            "type": "run.started",
            "path": "",
            "iteration": 0,
            "timestamp": "2026-06-08T08:14:42.123Z",
            "payload": null
        });
        let event = decode(&wire);
        assert_eq!(event, {
            let mut event = ExchangeEvent::new(
                "550e8400-e29b-41d4-a716-446655440000",
                EventType::RunStarted,
                String::new(),
                Payload::None,
            );
            event.seq = 1;
            event.parent_run_id = None;
            event.child_run_id = None;
            event.iteration = 0;
            event.timestamp = Timestamp::parse("2026-06-08T08:14:42.123Z").unwrap();
            event
        });
        assert_eq!(encode(&event), wire);
    }

    /// transcript-schema.txt, StepPayload example.
    #[test]
    fn step_started() {
        let wire = envelope("step.started", json!({"name": "analyze", "kind": "agent"}));
        let event = decode(&wire);
        let expected = StepPayload::new("analyze", "agent".into());
        assert_eq!(event.payload, Payload::Step(expected));
        assert_eq!(encode(&event), wire);
    }

    /// The executor seam's extensions: the system prompt told apart by a flag (not by its
    /// place), a step's and a tool call's measured duration, and the agent's id for a
    /// router-captured call.
    #[test]
    fn seam_extensions_round_trip() {
        let user = envelope(
            "message.user",
            json!({"role": "user", "blocks": [
                {"type": "text", "fidelity": "router", "text": "You are terse.", "system_prompt": true},
                {"type": "text", "fidelity": "router", "text": "Review main.go."}
            ]}),
        );
        let event = decode(&user);
        let blocks = event.payload.blocks();
        assert_eq!(
            blocks[0].block,
            Block::system_prompt("You are terse."),
            "a flag, not a position"
        );
        assert_eq!(blocks[1].block, Block::text("Review main.go."));
        assert_eq!(encode(&event), user);

        let step = envelope(
            "step.completed",
            json!({"name": "review", "kind": "approval", "result": {"ok": true}, "duration_ms": 1250}),
        );
        let event = decode(&step);
        let Payload::Step(payload) = &event.payload else {
            panic!("a step payload");
        };
        assert_eq!(payload.kind, StepKind::Custom("approval".into()));
        assert_eq!(payload.duration_ms, Some(1250));
        assert_eq!(encode(&event), step);

        let result = envelope(
            "tool.result",
            json!({"name": "read_file", "call_id": "7", "input": null, "output": "package main",
                   "fidelity": "router", "duration_ms": 3, "agent_call_id": "toolu_01"}),
        );
        let event = decode(&result);
        let Payload::Tool(payload) = &event.payload else {
            panic!("a tool payload");
        };
        assert_eq!(
            (payload.duration_ms, payload.agent_call_id.as_deref()),
            (Some(3), Some("toolu_01"))
        );
        assert_eq!(encode(&event), result);
    }

    /// transcript-schema.txt, MessagePayload example.
    #[test]
    fn message_user() {
        let wire = envelope(
            "message.user",
            json!({"role": "user", "blocks": [
                {"type": "text", "fidelity": "router", "text": "Review main.go for bugs."}
            ]}),
        );
        let event = decode(&wire);
        let expected = MessagePayload::new(
            Role::User,
            vec![ContentBlock::text(
                Fidelity::Router,
                "Review main.go for bugs.",
            )],
        );
        assert_eq!(event.payload, Payload::Message(expected));
        assert_eq!(encode(&event), wire);
    }

    /// transcript-schema.txt, ToolPayload example.
    #[test]
    fn tool_call() {
        let wire = envelope(
            "tool.call",
            json!({"name": "Read", "call_id": "tool_01H...", "input": {"path": "main.go"},
                   "output": null, "fidelity": "router"}),
        );
        let event = decode(&wire);
        let expected = ToolPayload::call(
            "Read",
            "tool_01H...",
            json!({"path": "main.go"}),
            Fidelity::Router,
        );
        assert_eq!(event.payload, Payload::Tool(expected));
        assert_eq!(encode(&event), wire);
    }

    /// transcript-schema.txt, the five ContentBlock examples, each inside an assistant message.
    #[rstest::rstest]
    #[case(
        json!({"type": "text", "fidelity": "agent_emitted", "text": "Found 2 issues."}),
        ContentBlock::text(Fidelity::AgentEmitted, "Found 2 issues.")
    )]
    #[case(
        json!({"type": "thinking", "fidelity": "agent_emitted", "thinking": "First I should..."}),
        ContentBlock::thinking(Fidelity::AgentEmitted, "First I should...")
    )]
    #[case(
        json!({"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "Read",
               "tool_id": "toolu_01", "tool_input": {"path": "main.go"}}),
        ContentBlock::tool_use(Fidelity::AgentEmitted, "Read", "toolu_01", json!({"path": "main.go"}))
    )]
    #[case(
        json!({"type": "tool_result", "fidelity": "router", "tool_id": "toolu_01",
               "tool_content": "package main\n..."}),
        ContentBlock::tool_result(Fidelity::Router, "toolu_01", json!("package main\n..."))
    )]
    #[case(
        json!({"type": "command", "fidelity": "router", "command": "go test ./..."}),
        ContentBlock::command(Fidelity::Router, "go test ./...")
    )]
    fn content_block(#[case] block: Value, #[case] expected: ContentBlock) {
        let wire = envelope(
            "message.assistant",
            json!({"role": "assistant", "blocks": [block]}),
        );
        let event = decode(&wire);
        assert_eq!(message_blocks(&event), [expected]);
        assert!(warnings(&event).is_empty());
        assert_eq!(encode(&event), wire);
    }

    /// The sub-workflow linkage the schema describes: child_run_id on the parent's
    /// call_workflow events, parent_run_id on the child's.
    #[test]
    fn run_links() {
        let mut parent = envelope(
            "step.call_workflow.started",
            json!({"name": "sub", "kind": "call_workflow"}),
        );
        parent["child_run_id"] = json!("child-1");
        let mut child = envelope("run.started", Value::Null);
        child["parent_run_id"] = json!("parent-1");
        assert_eq!(decode(&parent).child_run_id.as_deref(), Some("child-1"));
        assert_eq!(decode(&child).parent_run_id.as_deref(), Some("parent-1"));
        assert_eq!(encode(&decode(&parent)), parent);
        assert_eq!(encode(&decode(&child)), child);
    }
}

mod forward_compatibility {
    use super::*;

    #[test]
    fn unknown_event_type_is_kept_and_reported_and_not_written() {
        let wire = envelope("run.paused", json!({"name": "review", "kind": "workflow"}));
        let event = decode(&wire);
        assert_eq!(event.event_type, EventType::Unknown("run.paused".into()));
        assert!(matches!(event.payload, Payload::Step(_)));
        assert_eq!(
            warnings(&event),
            [DecodeWarning::UnknownEventType("run.paused".into())]
        );
        let error = encode_event(&event, &mut Vec::new()).unwrap_err();
        assert_snapshot!(error, @r#"event type "run.paused" is not in the vocabulary"#);
    }

    #[test]
    fn unknown_block_type_is_kept_verbatim_between_known_blocks() {
        let image = json!({"type": "image", "fidelity": "agent_emitted",
                           "source": {"media_type": "image/png", "data": "iVBORw0KGgo="}});
        let wire = envelope(
            "message.assistant",
            json!({"role": "assistant", "blocks": [
                {"type": "text", "fidelity": "agent_emitted", "text": "before"},
                image,
                {"type": "text", "fidelity": "agent_emitted", "text": "after"},
            ]}),
        );
        let event = decode(&wire);
        let blocks = message_blocks(&event);
        assert_eq!(blocks.len(), 3);
        assert_eq!(
            blocks[0],
            ContentBlock::text(Fidelity::AgentEmitted, "before")
        );
        assert_eq!(
            blocks[2],
            ContentBlock::text(Fidelity::AgentEmitted, "after")
        );
        let Block::Unrecognized(unrecognized) = &blocks[1].block else {
            panic!("expected the image block to be kept as unrecognized");
        };
        assert_eq!(unrecognized.raw, image);
        assert_eq!(
            unrecognized.reason,
            UnrecognizedReason::UnknownType("image".into())
        );
        assert_eq!(blocks[1].fidelity, Fidelity::AgentEmitted);
        assert_eq!(
            warnings(&event),
            [DecodeWarning::UnknownBlockType {
                index: 1,
                block_type: "image".into()
            }]
        );
        let error = encode_event(&event, &mut Vec::new()).unwrap_err();
        assert_snapshot!(error, @r#"block type "image" is not in the vocabulary"#);
    }

    #[test]
    fn malformed_block_is_kept_and_reported_without_failing_the_event() {
        let wire = envelope(
            "message.assistant",
            json!({"role": "assistant", "blocks": [
                {"type": "text", "fidelity": "agent_emitted", "text": 42},
                "not an object",
                {"fidelity": "agent_emitted", "text": "no type"},
            ]}),
        );
        let event = decode(&wire);
        assert_eq!(
            warnings(&event),
            [
                DecodeWarning::MalformedBlock {
                    index: 0,
                    reason: "`text` must be a string".into()
                },
                DecodeWarning::MalformedBlock {
                    index: 1,
                    reason: "a block must be a JSON object".into()
                },
                DecodeWarning::MalformedBlock {
                    index: 2,
                    reason: "a block needs a `type`".into()
                },
            ]
        );
    }

    #[test]
    fn a_citation_of_the_wrong_shape_makes_its_text_block_malformed() {
        let wire = envelope(
            "message.assistant",
            json!({"role": "assistant", "blocks": [
                {"type": "text", "fidelity": "agent_emitted", "text": "a", "citations": {}},
                {"type": "text", "fidelity": "agent_emitted", "text": "b", "citations": ["x"]},
                {"type": "text", "fidelity": "agent_emitted", "text": "c",
                 "citations": [{"type": "url_citation", "start_index": -1}]},
                {"type": "text", "fidelity": "agent_emitted", "text": "d",
                 "citations": [{"type": "url_citation", "extra": []}]},
            ]}),
        );
        let found: Vec<String> = warnings(&decode(&wire))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            found,
            [
                "block 0: malformed: `citations` must be an array",
                "block 1: malformed: a citation must be a JSON object",
                "block 2: malformed: citation `start_index` must be an unsigned integer",
                "block 3: malformed: citation `extra` must be an object",
            ]
        );
    }

    #[test]
    fn citation_fields_a_reader_does_not_know_are_ignored_and_empty_ones_absent() {
        let wire = envelope(
            "message.assistant",
            json!({"role": "assistant", "blocks": [
                {"type": "text", "fidelity": "agent_emitted", "text": "a",
                 "citations": [{"type": "url_citation", "url": "https://a.example", "title": "",
                                "confidence": 0.9}]},
            ]}),
        );
        let event = decode(&wire);
        assert!(warnings(&event).is_empty());
        let Block::Text { citations, .. } = &message_blocks(&event)[0].block else {
            panic!("a text block");
        };
        assert_eq!(
            citations,
            &[Citation {
                kind: "url_citation".into(),
                url: Some("https://a.example".into()),
                ..Citation::default()
            }]
        );
    }

    #[test]
    fn unknown_fidelity_and_role_are_kept_and_reported() {
        let wire = envelope(
            "message.assistant",
            json!({"role": "system", "blocks": [
                {"type": "text", "fidelity": "proxy", "text": "a"},
                {"type": "text", "text": "b"},
            ]}),
        );
        let event = decode(&wire);
        let blocks = message_blocks(&event);
        assert_eq!(blocks[0].fidelity, Fidelity::Unknown("proxy".into()));
        assert_eq!(blocks[1].fidelity, Fidelity::Unknown(String::new()));
        let found: Vec<String> = warnings(&event).iter().map(ToString::to_string).collect();
        assert_eq!(
            found,
            [
                r#"unknown message role "system""#,
                r#"block 0: unknown fidelity "proxy""#,
                "block 1: no fidelity"
            ]
        );
    }

    #[test]
    fn unknown_fields_are_ignored_everywhere() {
        let plain = envelope(
            "message.assistant",
            json!({"role": "assistant", "blocks": [
                {"type": "text", "fidelity": "agent_emitted", "text": "hi"}
            ]}),
        );
        let mut extended = plain.clone();
        extended["schema_version"] = json!(2);
        extended["payload"]["model"] = json!("claude-sonnet-4-6");
        extended["payload"]["blocks"][0]["cache_control"] = json!({"type": "ephemeral"});
        let event = decode(&extended);
        assert_eq!(event, decode(&plain));
        assert!(warnings(&event).is_empty());
        assert_eq!(encode(&event), plain);
    }

    #[test]
    fn missing_optional_fields_take_their_empty_values() {
        // Go writers omit every empty block field (omitempty); those blocks must still read.
        let wire = envelope(
            "message.assistant",
            json!({"role": "assistant", "blocks": [
                {"type": "text", "fidelity": "agent_emitted"},
                {"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "Stop"},
                {"type": "tool_result", "fidelity": "agent_emitted", "tool_id": "t1"},
                {"type": "thinking", "fidelity": "agent_emitted", "thinking": "x", "signature": ""},
            ]}),
        );
        let event = decode(&wire);
        assert!(warnings(&event).is_empty());
        assert_eq!(
            message_blocks(&event),
            [
                ContentBlock::text(Fidelity::AgentEmitted, ""),
                ContentBlock::tool_use(Fidelity::AgentEmitted, "Stop", "", Value::Null),
                ContentBlock::tool_result(Fidelity::AgentEmitted, "t1", Value::Null),
                ContentBlock::thinking(Fidelity::AgentEmitted, "x"),
            ]
        );
        let step = decode(&envelope(
            "step.completed",
            json!({"name": "a", "kind": "agent"}),
        ));
        let Payload::Step(step) = step.payload else {
            panic!()
        };
        assert_eq!((step.error, step.result), (None, Value::Null));
        let tool = decode(&envelope("tool.result", json!({"call_id": "c1"})));
        let Payload::Tool(tool) = &tool.payload else {
            panic!()
        };
        assert_eq!(
            (
                tool.input.clone(),
                tool.output.clone().into_value(),
                tool.error.clone()
            ),
            (Value::Null, Value::Null, None)
        );
    }

    #[test]
    fn null_and_missing_payloads_are_none() {
        let with_null = envelope("run.completed", Value::Null);
        let mut without = with_null.clone();
        without.as_object_mut().unwrap().remove("payload");
        assert_eq!(decode(&with_null).payload, Payload::None);
        assert_eq!(decode(&without).payload, Payload::None);
        // A missing payload is written back as an explicit null.
        assert_eq!(encode(&decode(&without)), with_null);
        // Blocks: null means no blocks.
        let message = decode(&envelope(
            "message.assistant",
            json!({"role": "assistant", "blocks": null}),
        ));
        assert_eq!(message_blocks(&message), []);
    }

    #[test]
    fn empty_links_read_as_absent() {
        let mut wire = envelope("run.started", Value::Null);
        wire["parent_run_id"] = json!("");
        wire["child_run_id"] = Value::Null;
        let event = decode(&wire);
        assert_eq!((event.parent_run_id, event.child_run_id), (None, None));
    }

    #[test]
    fn stream_chunk_is_written_as_chunk_and_read_from_chunk_or_text() {
        let read = |block: Value| {
            message_blocks(&decode(&envelope(
                "message.assistant",
                json!({"role": "assistant", "blocks": [block]}),
            )))[0]
                .clone()
        };
        let expected = ContentBlock::stream(Fidelity::AgentEmitted, "par");
        assert_eq!(
            read(json!({"type": "stream", "fidelity": "agent_emitted", "chunk": "par"})),
            expected
        );
        assert_eq!(
            read(json!({"type": "stream", "fidelity": "agent_emitted", "text": "par"})),
            expected
        );
        assert_eq!(
            read(
                json!({"type": "stream", "fidelity": "agent_emitted", "chunk": "par", "text": "other"})
            ),
            expected
        );
        let written = encode(&decode(&envelope(
            "message.assistant",
            json!({"role": "assistant", "blocks": [
                {"type": "stream", "fidelity": "agent_emitted", "text": "par"}
            ]}),
        )));
        assert_eq!(
            written["payload"]["blocks"][0],
            json!({"type": "stream", "fidelity": "agent_emitted", "chunk": "par"})
        );
    }

    /// The schema's dispatch, key by key, including an object that fits nothing.
    #[rstest::rstest]
    #[case(json!([{"type": "text", "fidelity": "router", "text": "x"}]), PayloadKind::Blocks)]
    #[case(json!({"role": "user", "blocks": [], "call_id": "c", "kind": "k"}), PayloadKind::Message)]
    #[case(json!({"call_id": "c", "kind": "k"}), PayloadKind::Tool)]
    #[case(json!({"kind": "agent", "name": "a"}), PayloadKind::Step)]
    #[case(json!({"progress": 0.5}), PayloadKind::Raw)]
    #[case(json!("free text"), PayloadKind::Raw)]
    #[case(json!(42), PayloadKind::Raw)]
    #[case(Value::Null, PayloadKind::None)]
    fn payload_dispatch(#[case] payload: Value, #[case] kind: PayloadKind) {
        let event = decode(&envelope("run.paused", payload));
        assert_eq!(event.payload.kind(), kind);
        assert!(!matches!(event.payload, Payload::Malformed { .. }));
    }

    #[test]
    fn payload_that_selects_a_shape_it_does_not_fit_is_malformed_not_fatal() {
        let payload = json!({"role": 7, "blocks": []});
        let event = decode(&envelope("message.user", payload.clone()));
        assert_eq!(
            event.payload,
            Payload::Malformed {
                value: payload,
                expected: PayloadKind::Message,
                reason: "`role` must be a string".into()
            }
        );
        assert_eq!(warnings(&event).len(), 1);
        assert_snapshot!(warnings(&event)[0], @"malformed message payload: `role` must be a string");
        let error = encode_event(&event, &mut Vec::new()).unwrap_err();
        assert_snapshot!(error, @"a message.user event carries a message payload, not raw");
    }
}

mod bad_input {
    use super::*;

    fn fails(line: &[u8]) -> axt::model::DecodeError {
        decode_event(line).expect_err("must not decode")
    }

    #[test]
    fn truncated_json_is_truncated_with_its_position() {
        let line = br#"{"seq":1,"run_id":"r","type":"run.started","path":"","iter"#;
        let error = fails(line);
        assert_eq!(error.category(), DecodeCategory::Truncated);
        assert!(error.is_eof());
        assert_eq!((error.line(), error.column()), (1, line.len()));
        assert_snapshot!(error, @"truncated: EOF while parsing a string at line 1 column 58");
    }

    #[test]
    fn wrong_types_are_data_errors() {
        let error = fails(br#"{"seq":"1","run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"t"}"#);
        assert_eq!(error.category(), DecodeCategory::Data);
        assert_snapshot!(error, @r#"not-an-event: invalid type: string "1", expected u64 at line 1 column 10"#);
        let error = fails(br#"{"seq":-1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"t"}"#);
        assert_snapshot!(error, @"not-an-event: invalid value: integer `-1`, expected u64 at line 1 column 9");
        // serde would read a struct from a positional array; an event must be an object.
        let error = fails(br#"[1,"r","run.started","",0,"2026-06-08T08:14:42Z",null]"#);
        assert_snapshot!(error, @"not-an-event: invalid type: sequence, expected a transcript event object at line 1 column 0");
    }

    #[test]
    fn missing_required_field_is_named() {
        let error =
            fails(br#"{"seq":1,"type":"run.started","path":"","iteration":0,"timestamp":"t"}"#);
        assert_eq!(error.category(), DecodeCategory::Data);
        assert_snapshot!(error, @"not-an-event: missing field `run_id` at line 1 column 70");
    }

    #[test]
    fn not_json_and_trailing_garbage_are_syntax_errors() {
        let error = fails(b"[SandboxDebug] starting sandbox");
        assert_eq!(error.category(), DecodeCategory::Syntax);
        assert_snapshot!(error, @"invalid-json: expected value at line 1 column 2");
        let error = fails(br#"{"seq":1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"t"} x"#);
        assert_snapshot!(error, @"invalid-json: trailing characters at line 1 column 85");
    }

    #[test]
    fn invalid_utf8_names_the_byte() {
        let mut line = br#"{"seq":1,"run_id":"r"#.to_vec();
        line.extend_from_slice(&[0xE2, 0x86]); // the first two bytes of a three-byte arrow
        line.extend_from_slice(
            br#"","type":"run.started","path":"","iteration":0,"timestamp":"t"}"#,
        );
        let error = fails(&line);
        assert_eq!(error.category(), DecodeCategory::InvalidUtf8);
        assert_snapshot!(error, @"invalid-utf8: invalid UTF-8 at byte 20 at line 1 column 21");
    }

    #[test]
    fn one_hundred_thousand_levels_of_nesting_is_an_error_not_a_stack_overflow() {
        let depth = 100_000;
        for (open, close) in [("[", "]"), (r#"{"a":"#, "}")] {
            let mut line = String::from(
                r#"{"seq":1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"t","payload":"#,
            );
            line.push_str(&open.repeat(depth));
            line.push_str(&close.repeat(depth));
            line.push('}');
            let error = fails(line.as_bytes());
            assert_eq!(error.category(), DecodeCategory::TooDeep, "{error}");
        }
    }

    #[test]
    fn raw_control_characters_are_refused_and_escaped_ones_kept() {
        let error = fails(b"{\"seq\":1,\"run_id\":\"a\x00b\",\"type\":\"run.started\",\"path\":\"\",\"iteration\":0,\"timestamp\":\"t\"}");
        assert_eq!(error.category(), DecodeCategory::Syntax);
        let event = decode_event(
            br#"{"seq":1,"run_id":"a\u0000b","type":"run.started","path":"","iteration":0,"timestamp":"t"}"#,
        )
        .unwrap();
        assert_eq!(event.run_id, "a\0b");
    }
}

mod strict_writer {
    use super::*;

    fn event(event_type: EventType, payload: Payload) -> ExchangeEvent {
        let mut event = ExchangeEvent::new("run-1", event_type, "analyze", payload);
        event.seq = 1;
        event
    }

    fn refusal(event: &ExchangeEvent) -> String {
        let mut out = b"kept".to_vec();
        let error = encode_event(event, &mut out).expect_err("must be refused");
        assert_eq!(out, b"kept", "nothing is appended on error");
        // The reader's check, the writer's walk writing nothing, refuses it in the same words.
        let checked = check_encodable(event).expect_err("the check refuses what the writer does");
        assert_eq!(checked.to_string(), error.to_string());
        error.to_string()
    }

    fn step() -> Payload {
        Payload::Step(StepPayload::new("a", "agent".into()))
    }

    fn assistant(blocks: Vec<ContentBlock>) -> Payload {
        Payload::Message(MessagePayload::new(Role::Assistant, blocks))
    }

    #[test]
    fn refuses_what_the_vocabulary_does_not_allow() {
        let mut no_seq = event(EventType::RunStarted, Payload::None);
        no_seq.seq = 0;
        assert_snapshot!(refusal(&no_seq), @"seq must be at least 1 (the recorder assigns it)");

        let mut no_run = event(EventType::RunStarted, Payload::None);
        no_run.run_id.clear();
        assert_snapshot!(refusal(&no_run), @"run_id must not be empty");

        let mut bad_time = event(EventType::RunStarted, Payload::None);
        bad_time.timestamp = Timestamp::from_raw("yesterday");
        assert_snapshot!(refusal(&bad_time), @r#"invalid RFC 3339 timestamp "yesterday": expected a four-digit year"#);

        assert_snapshot!(
            refusal(&event(EventType::MessageAssistant, step())),
            @"a message.assistant event carries a message payload, not step"
        );
        assert_snapshot!(
            refusal(&event(EventType::StepStarted, Payload::None)),
            @"a step.started event carries a step payload, not none"
        );
        assert_snapshot!(
            refusal(&event(EventType::ToolCall, Payload::Raw(json!({"x": 1})))),
            @"a tool.call event carries a tool payload, not raw"
        );
        assert_snapshot!(
            refusal(&event(EventType::MessageUser, assistant(vec![]))),
            @r#"a message.user event carries role "assistant""#
        );
        assert_snapshot!(
            refusal(&event(EventType::CallWorkflowStarted, step())),
            @"child_run_id belongs on step.call_workflow.* events and only there (step.call_workflow.started)"
        );
        let mut stray_child = event(EventType::StepStarted, step());
        stray_child.child_run_id = Some("c".into());
        assert_snapshot!(
            refusal(&stray_child),
            @"child_run_id belongs on step.call_workflow.* events and only there (step.started)"
        );
        let mut empty_parent = event(EventType::RunStarted, Payload::None);
        empty_parent.parent_run_id = Some(String::new());
        assert_snapshot!(
            refusal(&empty_parent),
            @"optional field `parent_run_id` is present but empty; use None"
        );
        let unknown_fidelity = ContentBlock::text(Fidelity::Unknown("proxy".into()), "x");
        assert_snapshot!(
            refusal(&event(EventType::MessageAssistant, assistant(vec![unknown_fidelity]))),
            @r#"fidelity "proxy" is not in the vocabulary (router, agent_emitted)"#
        );
        let unsigned = ContentBlock::new(
            Fidelity::AgentEmitted,
            Block::Thinking {
                thinking: "x".into(),
                signature: Some(String::new()),
                redacted: false,
            },
        );
        assert_snapshot!(
            refusal(&event(EventType::MessageAssistant, assistant(vec![unsigned]))),
            @"optional field `signature` is present but empty; use None"
        );
        let untitled = ContentBlock::new(
            Fidelity::AgentEmitted,
            Block::Text {
                text: "x".into(),
                citations: vec![Citation {
                    kind: "url_citation".into(),
                    title: Some(String::new()),
                    ..Citation::default()
                }],
                system_prompt: false,
            },
        );
        assert_snapshot!(
            refusal(&event(EventType::MessageAssistant, assistant(vec![untitled]))),
            @"optional field `title` is present but empty; use None"
        );
    }

    #[test]
    fn extension_fields_are_written_only_when_set() {
        let blocks = vec![
            ContentBlock::new(
                Fidelity::AgentEmitted,
                Block::Thinking {
                    thinking: String::new(),
                    signature: Some("EqQB".into()),
                    redacted: true,
                },
            ),
            ContentBlock::new(
                Fidelity::AgentEmitted,
                Block::ToolUse {
                    tool_name: "web_search".into(),
                    tool_id: "srvtoolu_1".into(),
                    tool_input: json!({"query": "rust"}),
                    server: true,
                    incomplete: true,
                    permission: Some(
                        json!({"decision": "allowed", "option_id": "allow-once", "option_kind": "allow_once"}),
                    ),
                },
            ),
            ContentBlock::new(
                Fidelity::AgentEmitted,
                Block::ToolResult {
                    tool_id: "t".into(),
                    tool_content: json!("").into(),
                    is_error: true,
                    exit_code: Some(42),
                },
            ),
            ContentBlock::new(
                Fidelity::AgentEmitted,
                Block::Command {
                    command: "exit 42".into(),
                    tool_id: Some("t".into()),
                },
            ),
            ContentBlock::new(
                Fidelity::AgentEmitted,
                Block::Text {
                    text: "Rust 1.90 is out.".into(),
                    citations: vec![
                        Citation {
                            kind: "url_citation".into(),
                            url: Some("https://blog.rust-lang.org/".into()),
                            title: Some("Rust Blog".into()),
                            start_index: Some(0),
                            end_index: Some(17),
                            ..Citation::default()
                        },
                        Citation {
                            kind: "char_location".into(),
                            cited_text: Some("1.90 was released".into()),
                            extra: json!({"document_index": 0}).as_object().unwrap().clone(),
                            ..Citation::default()
                        },
                    ],
                    system_prompt: false,
                },
            ),
        ];
        let written = encode(&event(EventType::MessageAssistant, assistant(blocks)));
        assert_eq!(
            written["payload"]["blocks"],
            json!([
                {"type": "thinking", "fidelity": "agent_emitted", "thinking": "", "signature": "EqQB", "redacted": true},
                {"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "web_search", "tool_id": "srvtoolu_1",
                 "tool_input": {"query": "rust"}, "server": true, "incomplete": true,
                 "permission": {"decision": "allowed", "option_id": "allow-once", "option_kind": "allow_once"}},
                {"type": "tool_result", "fidelity": "agent_emitted", "tool_id": "t", "tool_content": "", "is_error": true, "exit_code": 42},
                {"type": "command", "fidelity": "agent_emitted", "command": "exit 42", "tool_id": "t"},
                {"type": "text", "fidelity": "agent_emitted", "text": "Rust 1.90 is out.", "citations": [
                    {"type": "url_citation", "url": "https://blog.rust-lang.org/", "title": "Rust Blog",
                     "start_index": 0, "end_index": 17},
                    {"type": "char_location", "cited_text": "1.90 was released", "extra": {"document_index": 0}},
                ]},
            ])
        );
    }

    #[test]
    fn envelope_fields_are_written_in_schema_order() {
        let mut call = event(EventType::CallWorkflowStarted, step());
        call.parent_run_id = Some("p".into());
        call.child_run_id = Some("c".into());
        call.timestamp = Timestamp::parse("2026-06-08T08:14:42.123Z").unwrap();
        let mut out = Vec::new();
        encode_event(&call, &mut out).unwrap();
        assert_snapshot!(
            String::from_utf8(out).unwrap(),
            @r#"{"seq":1,"run_id":"run-1","parent_run_id":"p","child_run_id":"c","type":"step.call_workflow.started","path":"analyze","iteration":0,"timestamp":"2026-06-08T08:14:42.123Z","payload":{"name":"a","kind":"agent"}}"#
        );
    }

    #[test]
    fn nul_and_other_control_characters_are_escaped_on_one_line() {
        let text = "Hello\0world\u{1b}[0m\r\n\u{2028}end";
        let written = {
            let mut out = Vec::new();
            let payload = assistant(vec![ContentBlock::text(Fidelity::AgentEmitted, text)]);
            encode_event(&event(EventType::MessageAssistant, payload), &mut out).unwrap();
            out
        };
        assert!(
            !written.iter().any(|b| *b < 0x20),
            "no raw control byte on the wire"
        );
        let back = decode_event(&written).unwrap();
        assert_eq!(
            message_blocks(&back),
            [ContentBlock::text(Fidelity::AgentEmitted, text)]
        );
    }
}

mod round_trip {
    use super::*;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("JSON numbers are finite", |f| f.is_finite())
                .prop_map(Value::from),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..6)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    fn non_empty() -> impl Strategy<Value = String> {
        any::<String>().prop_filter("non-empty", |s| !s.is_empty())
    }

    fn fidelity() -> impl Strategy<Value = Fidelity> {
        prop_oneof![Just(Fidelity::Router), Just(Fidelity::AgentEmitted)]
    }

    fn citation() -> impl Strategy<Value = Citation> {
        let text = || proptest::option::of(non_empty());
        (
            any::<String>(),
            (text(), text(), text(), text(), text()),
            any::<Option<u64>>(),
            any::<Option<u64>>(),
            prop::collection::btree_map(any::<String>(), json_value(), 0..3),
        )
            .prop_map(
                |(kind, (url, title, file_id, filename, cited_text), start, end, extra)| Citation {
                    kind,
                    url,
                    title,
                    file_id,
                    filename,
                    cited_text,
                    start_index: start,
                    end_index: end,
                    extra: extra.into_iter().collect(),
                },
            )
    }

    fn block() -> impl Strategy<Value = ContentBlock> {
        let body = prop_oneof![
            (
                any::<String>(),
                prop::collection::vec(citation(), 0..3),
                any::<bool>()
            )
                .prop_map(|(text, citations, system_prompt)| Block::Text {
                    text,
                    citations,
                    system_prompt
                }),
            (
                any::<String>(),
                proptest::option::of(non_empty()),
                any::<bool>()
            )
                .prop_map(|(thinking, signature, redacted)| Block::Thinking {
                    thinking,
                    signature,
                    redacted
                }),
            (
                any::<String>(),
                any::<String>(),
                json_value(),
                any::<bool>(),
                any::<bool>(),
                proptest::option::of(json_value().prop_map(|value| json!({"decision": value})))
            )
                .prop_map(
                    |(tool_name, tool_id, tool_input, server, incomplete, permission)| {
                        Block::ToolUse {
                            tool_name,
                            tool_id,
                            tool_input,
                            server,
                            incomplete,
                            permission,
                        }
                    }
                ),
            (
                any::<String>(),
                json_value(),
                any::<bool>(),
                any::<Option<i64>>()
            )
                .prop_map(|(tool_id, tool_content, is_error, exit_code)| {
                    Block::ToolResult {
                        tool_id,
                        tool_content: tool_content.into(),
                        is_error,
                        exit_code,
                    }
                }),
            (any::<String>(), proptest::option::of(non_empty()))
                .prop_map(|(command, tool_id)| Block::Command { command, tool_id }),
            any::<String>().prop_map(|chunk| Block::Stream { chunk }),
        ];
        (fidelity(), body).prop_map(|(fidelity, block)| ContentBlock { fidelity, block })
    }

    fn step() -> impl Strategy<Value = Payload> {
        (
            any::<String>(),
            non_empty(),
            proptest::option::of(non_empty()),
            json_value(),
            any::<Option<u64>>(),
        )
            .prop_map(|(name, kind, error, result, duration_ms)| {
                Payload::Step({
                    let mut step = StepPayload::new(name, StepKind::from_wire(&kind));
                    step.error = error;
                    step.result = result;
                    step.duration_ms = duration_ms;
                    step
                })
            })
    }

    /// Every event the strict writer accepts: a type with a payload that fits it.
    fn event() -> impl Strategy<Value = ExchangeEvent> {
        let typed = prop_oneof![
            prop_oneof![Just(EventType::RunStarted), Just(EventType::RunCompleted)]
                .prop_flat_map(|t| (Just(t), prop_oneof![Just(Payload::None), step()])),
            prop_oneof![Just(EventType::StepStarted), Just(EventType::StepCompleted)]
                .prop_flat_map(|t| (Just(t), step())),
            prop_oneof![
                Just(EventType::CallWorkflowStarted),
                Just(EventType::CallWorkflowCompleted)
            ]
            .prop_flat_map(|t| (Just(t), step())),
            (
                any::<bool>(),
                prop::collection::vec(block(), 0..5),
                proptest::option::of(non_empty()),
            )
                .prop_map(|(user, blocks, message_id)| {
                    let (event_type, role) = if user {
                        (EventType::MessageUser, Role::User)
                    } else {
                        (EventType::MessageAssistant, Role::Assistant)
                    };
                    (
                        event_type,
                        Payload::Message({
                            let mut message = MessagePayload::new(role, blocks);
                            message.message_id = message_id;
                            message
                        }),
                    )
                }),
            (
                prop_oneof![Just(EventType::ToolCall), Just(EventType::ToolResult)],
                any::<String>(),
                any::<String>(),
                json_value(),
                json_value(),
                proptest::option::of(non_empty()),
                fidelity(),
                any::<Option<i64>>(),
                any::<Option<u64>>(),
                proptest::option::of(non_empty()),
            )
                .prop_map(
                    |(
                        t,
                        name,
                        call_id,
                        input,
                        output,
                        error,
                        fidelity,
                        exit_code,
                        duration_ms,
                        agent_call_id,
                    )| {
                        (
                            t,
                            Payload::Tool({
                                let mut tool = ToolPayload::call(name, call_id, input, fidelity);
                                tool.output = output.into();
                                tool.error = error.map(Text::from);
                                tool.exit_code = exit_code;
                                tool.duration_ms = duration_ms;
                                tool.agent_call_id = agent_call_id;
                                tool
                            }),
                        )
                    }
                ),
        ];
        (
            1..u64::MAX,
            non_empty(),
            proptest::option::of(non_empty()),
            non_empty(),
            typed,
            any::<String>(),
            any::<u64>(),
            any::<i64>(),
        )
            .prop_map(
                |(
                    seq,
                    run_id,
                    parent_run_id,
                    child,
                    (event_type, payload),
                    path,
                    iteration,
                    nanos,
                )| {
                    let child_run_id = matches!(
                        event_type,
                        EventType::CallWorkflowStarted | EventType::CallWorkflowCompleted
                    )
                    .then_some(child);
                    {
                        let mut event = ExchangeEvent::new(run_id, event_type, path, payload);
                        event.seq = seq;
                        event.parent_run_id = parent_run_id;
                        event.child_run_id = child_run_id;
                        event.iteration = iteration;
                        event.timestamp = Timestamp::from_unix_nanos(i128::from(nanos));
                        event
                    }
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        #[test]
        fn every_accepted_event_decodes_to_an_equal_value(event in event()) {
            let mut line = Vec::new();
            encode_event(&event, &mut line).expect("generated events are valid");
            prop_assert!(check_encodable(&event).is_ok());
            prop_assert!(!line.contains(&b'\n'));
            let back = decode_event(&line).expect("what the writer writes, the reader reads");
            prop_assert!(warnings(&back).is_empty());
            prop_assert_eq!(back, event);
        }

        /// The writer emits its JSON directly for speed; the model's `Serialize` impls,
        /// through serde_json, are the reference it must equal byte for byte.
        #[test]
        fn the_fast_writer_writes_what_serde_json_writes(event in event()) {
            let mut line = Vec::new();
            encode_event(&event, &mut line).expect("generated events are valid");
            let reference = serde_json::to_vec(&event).expect("serde accepts them too");
            prop_assert_eq!(String::from_utf8(line).unwrap(), String::from_utf8(reference).unwrap());
        }
    }
}

#[test]
fn encode_error_is_usable_as_a_std_error() {
    let mut event = ExchangeEvent::new("r", EventType::RunStarted, "", Payload::None);
    event.seq = 0;
    let error: Box<dyn std::error::Error> =
        Box::new(encode_event(&event, &mut Vec::new()).unwrap_err());
    assert!(matches!(
        error.downcast_ref::<EncodeError>(),
        Some(EncodeError::NoSeq)
    ));
}

/// Timestamps the model made are known to be RFC 3339; one read from the wire is checked by
/// the writer like anything else it did not make.
#[test]
fn a_timestamp_read_from_the_wire_is_still_checked_by_the_writer() {
    let line = br#"{"seq":1,"run_id":"r","type":"run.started","path":"","iteration":0,"timestamp":"yesterday","payload":null}"#;
    let event = decode_event(line).expect("readers keep any timestamp text");
    assert_eq!(event.timestamp.as_str(), "yesterday");
    let error = encode_event(&event, &mut Vec::new()).unwrap_err();
    assert_snapshot!(error, @r#"invalid RFC 3339 timestamp "yesterday": expected a four-digit year"#);
    assert_eq!(event.timestamp, Timestamp::from_raw("yesterday"));
}
