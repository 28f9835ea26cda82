#!/usr/bin/env python3
"""Writes every fixture of corpus/normalize/bedrock/ (deterministic). The binary
`application/vnd.amazon.eventstream` framing (preludes, typed headers, both CRC32s, a corrupted
checksum, a message cut short) cannot be written by hand, so the files are generated; edit here
and re-run `python3 corpus/normalize/bedrock/make-fixtures.py`.

The shapes are those of the Bedrock Runtime API reference (ConverseResponse,
ConverseStreamOutput, ContentBlock, TokenUsage, ConverseStreamMetrics) and of boto3's decoded
events; the content is invented. The streams of ../../../../shared/captures/bedrock/
(pydantic/pydantic-ai and charmbracelet/fantasy cassettes: Nova Micro, Nova 2 Lite, 2025) were
read to learn the headers, the `p` padding field and where a server tool's result sits, never
copied."""
import base64, binascii, json, os, struct

ROOT = os.path.dirname(os.path.abspath(__file__))
NOVA = "amazon.nova-lite-v1:0"
CLAUDE = "anthropic.claude-sonnet-4-5-20250929-v1:0"


def c(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def pretty(obj):
    return json.dumps(obj, indent=2, ensure_ascii=False)


def write(name, data):
    path = os.path.join(ROOT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def message(headers, payload):
    """One event-stream message: prelude (total, headers length, CRC), string headers
    (type 7), payload, message CRC."""
    head = b""
    for name, value in headers:
        value = value.encode()
        head += bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(value)) + value
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", binascii.crc32(body))


PAD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def event(kind, payload, pad=0):
    """An `event` message of type `kind`; `pad` letters of the `p` padding field, as
    Bedrock adds to every event."""
    payload = dict(payload)
    payload["p"] = PAD[: 3 + pad % 50]
    return message(
        [(":event-type", kind), (":content-type", "application/json"), (":message-type", "event")],
        c(payload).encode(),
    )


def exception(kind, text):
    return message(
        [(":exception-type", kind), (":content-type", "application/json"), (":message-type", "exception")],
        c({"message": text}).encode(),
    )


def stream(events):
    return b"".join(event(k, p, n * 7) for n, (k, p) in enumerate(events))


def text_deltas(index, pieces):
    return [("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": t}}) for t in pieces]


def stop(index):
    return ("contentBlockStop", {"contentBlockIndex": index})


def metadata(inp, out, latency, **extra):
    usage = {"inputTokens": inp, "outputTokens": out, "totalTokens": inp + out + sum(extra.values())}
    usage.update(extra)
    return ("metadata", {"metrics": {"latencyMs": latency}, "usage": usage})


def tool_start(index, tool_id, name, kind=None):
    start = {"toolUseId": tool_id, "name": name}
    if kind:
        start["type"] = kind
    return ("contentBlockStart", {"contentBlockIndex": index, "start": {"toolUse": start}})


def tool_input(index, piece):
    return ("contentBlockDelta", {"contentBlockIndex": index, "delta": {"toolUse": {"input": piece}}})


# --- ok ---------------------------------------------------------------------------------

TEXT = [("messageStart", {"role": "assistant"})] + text_deltas(
    0, ["The", " build", " passed:", " 42 tests,", " 0 failures."]
) + [stop(0), ("messageStop", {"stopReason": "end_turn"}), metadata(18, 11, 412)]
write("ok/converse-stream-text-and-usage.eventstream", stream(TEXT))

REASONING = [
    ("messageStart", {"role": "assistant"}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "The user wants the "}}}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "failing test; run it."}}}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "EqQBCkYIBxgCKkDsig0reasoning+signature/for+replay=="}}}),
    stop(0),
    tool_start(1, "tooluse_kP3vR8sT1uW2xY4zA6bC8d", "bash"),
    tool_input(1, '{"command": "cargo test'),
    tool_input(1, ' parser::"}'),
    stop(1),
    ("messageStop", {"stopReason": "tool_use"}),
    metadata(1210, 96, 2210, cacheReadInputTokens=1024, cacheWriteInputTokens=0),
]
write("ok/converse-stream-reasoning-signature-then-tool-use.eventstream", stream(REASONING))

SERVER = [
    ("messageStart", {"role": "assistant"}),
    tool_start(0, "tooluse_srv_Q1w2E3r4T5y6U7i8", "nova_code_interpreter", "server_tool_use"),
    tool_input(0, '{"snippet":"sum(range(101))"}'),
    stop(0),
    ("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolResult": {"status": "success", "toolUseId": "tooluse_srv_Q1w2E3r4T5y6U7i8", "type": "nova_code_interpreter_result"}}}),
    ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolResult": [{"json": {"stdOut": "5050", "stdErr": "", "exitCode": 0, "isError": False}}]}}),
    stop(1),
    ] + text_deltas(2, ["The sum is ", "5050."]) + [
    stop(2),
    ("messageStop", {"stopReason": "end_turn"}),
    ("metadata", {"metrics": {"latencyMs": 1830}, "usage": {"inputTokens": 880, "outputTokens": 40, "serverToolUsage": {}, "totalTokens": 920}}),
]
write("ok/converse-stream-server-tool-code-interpreter.eventstream", stream(SERVER))

# boto3's converse_stream events, each saved as a JSON line: two calls in one message.
PARALLEL = [
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Checking both."}}},
    {"contentBlockStop": {"contentBlockIndex": 0}},
    {"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tooluse_weather_1", "name": "weather"}}}},
    {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{\"city\": \"Porto\"}"}}}},
    {"contentBlockStop": {"contentBlockIndex": 1}},
    {"contentBlockStart": {"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tooluse_time_2", "name": "time"}}}},
    {"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"toolUse": {"input": "{\"city\": \"Porto\"}"}}}},
    {"contentBlockStop": {"contentBlockIndex": 2}},
    {"messageStop": {"stopReason": "tool_use"}},
    {"metadata": {"usage": {"inputTokens": 310, "outputTokens": 58, "totalTokens": 368}, "metrics": {"latencyMs": 940}}},
]
write("ok/converse-stream-decoded-parallel-tool-calls.jsonl", "".join(c(e) + "\n" for e in PARALLEL))

BODY = {
    "output": {"message": {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "List the directory first.", "signature": "EqQBCkYIBxgCKkBbodysignature=="}}},
        {"text": "Let me look."},
        {"toolUse": {"toolUseId": "tooluse_ls_01", "name": "bash", "input": {"command": "ls src"}}},
    ]}},
    "stopReason": "tool_use",
    "usage": {"inputTokens": 402, "outputTokens": 61, "totalTokens": 463},
    "metrics": {"latencyMs": 1204},
}
write("ok/converse-body-reasoning-text-and-tool-use.json", pretty(BODY) + "\n")

EXC = [("messageStart", {"role": "assistant"})] + text_deltas(0, ["Summarising", " the three"])
write(
    "ok/converse-stream-throttling-exception-mid-text.eventstream",
    stream(EXC) + exception("throttlingException", "Too many tokens, please wait before trying again."),
)

write(
    "ok/converse-body-guardrail-intervened.json",
    pretty({
        "output": {"message": {"role": "assistant", "content": [{"text": "Sorry, I can't help with that."}]}},
        "stopReason": "guardrail_intervened",
        "usage": {"inputTokens": 25, "outputTokens": 9, "totalTokens": 34},
        "metrics": {"latencyMs": 311},
        "trace": {"guardrail": {"inputAssessment": {"g1": {"contentPolicy": {"filters": [{"type": "VIOLENCE", "confidence": "HIGH", "action": "BLOCKED"}]}}}}},
    }) + "\n",
)

# A conversation: request, body with two calls, the next request repeating the history with
# both results (one an error), the final body.
TOOLS = {"tools": [
    {"toolSpec": {"name": "weather", "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}}}}},
    {"toolSpec": {"name": "time", "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}}}}},
]}
ASK = {"role": "user", "content": [{"text": "Weather and time in Porto?"}]}
CALLS = {"role": "assistant", "content": [
    {"toolUse": {"toolUseId": "tooluse_w1", "name": "weather", "input": {"city": "Porto"}}},
    {"toolUse": {"toolUseId": "tooluse_t2", "name": "time", "input": {"city": "Porto"}}},
]}
RESULTS = {"role": "user", "content": [
    {"toolResult": {"toolUseId": "tooluse_w1", "content": [{"json": {"sky": "clear", "celsius": 24}}], "status": "success"}},
    {"toolResult": {"toolUseId": "tooluse_t2", "content": [{"text": "the time service is down"}], "status": "error"}},
]}
write("ok/conversation-tool-results-in-request.jsonl", "".join(c(x) + "\n" for x in [
    {"modelId": NOVA, "messages": [ASK], "system": [{"text": "Be brief."}], "toolConfig": TOOLS},
    {"output": {"message": CALLS}, "stopReason": "tool_use", "usage": {"inputTokens": 120, "outputTokens": 30, "totalTokens": 150}, "metrics": {"latencyMs": 800}},
    {"modelId": NOVA, "messages": [ASK, CALLS, RESULTS], "system": [{"text": "Be brief."}], "toolConfig": TOOLS},
    {"output": {"message": {"role": "assistant", "content": [{"text": "Porto: clear, 24 °C. The time service is down."}]}}, "stopReason": "end_turn", "usage": {"inputTokens": 190, "outputTokens": 16, "totalTokens": 206}, "metrics": {"latencyMs": 650}},
]))

SHARED_TOOLS = {"tools": [{"toolSpec": {"name": "bash", "description": "Run a shell command in the repository", "inputSchema": {"json": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}}]}
write("ok/shared-scenario-shell-command.jsonl", "".join(c(x) + "\n" for x in [
    {"modelId": CLAUDE, "messages": [
        {"role": "user", "content": [{"text": "How many Rust files are in src?"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_7f3k2p9x", "name": "bash", "input": {"command": "find src -name '*.rs' | wc -l"}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_7f3k2p9x", "content": [{"text": "12\n"}], "status": "success"}}]},
    ], "system": [{"text": "You are a coding agent working in the user's repository."}], "toolConfig": SHARED_TOOLS},
    {"output": {"message": {"role": "assistant", "content": [{"text": "There are 12 Rust files in src."}]}}, "stopReason": "end_turn", "usage": {"inputTokens": 1480, "outputTokens": 9, "totalTokens": 1489}, "metrics": {"latencyMs": 702}},
]))

REDACTED = [
    ("messageStart", {"role": "assistant"}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": "RWFybGllciByZWFzb25pbmcsIHJlZGFjdGVk"}}}),
    stop(0),
    ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "Porto is the second city of Portugal."}}),
    ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"citation": {"title": "Porto", "sourceContent": [{"text": "Porto is the second-largest city in Portugal."}], "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 44}}}}}),
    stop(1),
    ("messageStop", {"stopReason": "end_turn"}),
    metadata(520, 30, 900),
]
write("ok/converse-stream-redacted-reasoning-and-citation.eventstream", stream(REDACTED))

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n-not-a-real-image").decode()
write("ok/converse-request-image-and-cache-point.jsonl", "".join(c(x) + "\n" for x in [
    {"modelId": NOVA, "messages": [{"role": "user", "content": [
        {"text": "What does this screenshot show?"},
        {"image": {"format": "png", "source": {"bytes": PNG}}},
        {"cachePoint": {"type": "default"}},
    ]}]},
    {"output": {"message": {"role": "assistant", "content": [{"text": "A terminal with a failing test."}]}}, "stopReason": "end_turn", "usage": {"inputTokens": 1650, "outputTokens": 8, "totalTokens": 1658}, "metrics": {"latencyMs": 990}},
]))

# --- err --------------------------------------------------------------------------------

# The third message's CRC corrupted: it is skipped and reported, the rest read.
BAD = [event(k, p, n * 7) for n, (k, p) in enumerate(TEXT)]
third = bytearray(BAD[2])
third[-1] ^= 0xFF
BAD[2] = bytes(third)
write("err/converse-stream-bad-message-crc.eventstream", b"".join(BAD))

# Valid checksums around a payload that is not JSON: reported, the stream read on.
NOT_JSON = [event(k, p, n * 7) for n, (k, p) in enumerate(TEXT)]
html = message([(":event-type", "contentBlockDelta"), (":content-type", "application/json"), (":message-type", "event")], b"<html><body>502 Bad Gateway</body></html>")
write("err/converse-stream-payload-not-json.eventstream", b"".join(NOT_JSON[:3] + [html] + NOT_JSON[3:]))

# A prelude whose own CRC does not match: its lengths are not trusted, the next valid
# prelude is searched for.
BAD = [event(k, p, n * 7) for n, (k, p) in enumerate(TEXT)]
second = bytearray(BAD[1])
second[9] ^= 0xFF
BAD[1] = bytes(second)
write("err/converse-stream-bad-prelude-crc.eventstream", b"".join(BAD))

# Cut inside a toolUse block's second input delta message.
CUT = stream(REASONING[:8])
write("err/converse-stream-cut-mid-block.eventstream", CUT[:-25])

write("err/request-tool-result-without-call.jsonl", c({"modelId": NOVA, "messages": [
    {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_never", "content": [{"text": "ok"}], "status": "success"}}]},
]}) + "\n")
