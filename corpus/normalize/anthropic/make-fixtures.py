#!/usr/bin/env python3
"""Writes every fixture of corpus/normalize/anthropic/ (deterministic). SSE framing is byte-exact
(blank lines, a missing final LF, a torn last record), which editors damage, so the files are
generated; edit here and re-run `python3 corpus/normalize/anthropic/make-fixtures.py`.

The shapes are those of the Messages API reference and anthropic-sdk-python's generated types;
the content is invented. ../../../../shared/captures/anthropic-messages/ (charmbracelet/fantasy
cassettes, claude-sonnet-4) and the decoded Bedrock events of
../../../../shared/captures/bedrock/ were read to learn the framing, never copied."""
import json, os

ROOT = os.path.dirname(os.path.abspath(__file__))
MODEL = "claude-sonnet-4-5-20250929"


def c(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def write(name, text):
    with open(os.path.join(ROOT, name), "wb") as f:
        f.write(text.encode("utf-8") if isinstance(text, str) else text)


def sse(events, end="\n"):
    """`event: <type>` + `data: {...}` per event, as the API streams them."""
    return "".join(f"event: {e['type']}\ndata: {c(e)}\n\n" for e in events)[: -1] + end


def usage(input_tokens, output_tokens, read=0, write_=0, **extra):
    u = {"input_tokens": input_tokens, "cache_creation_input_tokens": write_,
         "cache_read_input_tokens": read,
         "cache_creation": {"ephemeral_5m_input_tokens": write_, "ephemeral_1h_input_tokens": 0},
         "output_tokens": output_tokens, "service_tier": "standard"}
    u.update(extra)
    return u


def start(mid, u, model=MODEL):
    return {"type": "message_start", "message": {
        "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": u}}


def block(index, content_block):
    return {"type": "content_block_start", "index": index, "content_block": content_block}


def delta(index, d):
    return {"type": "content_block_delta", "index": index, "delta": d}


def stop(index):
    return {"type": "content_block_stop", "index": index}


def text_deltas(index, pieces):
    return [delta(index, {"type": "text_delta", "text": p}) for p in pieces]


def json_deltas(index, pieces):
    return [delta(index, {"type": "input_json_delta", "partial_json": p}) for p in pieces]


def message_delta(reason, u):
    return {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": u}


PING = {"type": "ping"}
MESSAGE_STOP = {"type": "message_stop"}


def body(mid, content, reason, u, model=MODEL):
    return {"id": mid, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": reason, "stop_sequence": None, "usage": u}


BASH = {"name": "bash", "description": "Run a shell command in the repository",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}},
                         "required": ["command"]}}


def request(messages, system="You are a coding agent working in the user's repository.", **extra):
    r = {"model": MODEL, "max_tokens": 4096, "system": system, "tools": [BASH],
         "messages": messages}
    r.update(extra)
    return r


def text_block(index, pieces):
    return ([block(index, {"type": "text", "text": ""})] + text_deltas(index, pieces)
            + [stop(index)])


# ok/ -----------------------------------------------------------------------------------------

# The cross-provider scenario: the final request (the whole history: the prompt, the bash
# call, its result) and the final response.
write("ok/shared-scenario-shell-command.jsonl", "".join(c(r) + "\n" for r in [
    request([
        {"role": "user", "content": "How many Rust files are in src?"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01A7bQfSj3kYx9TnLm2Pq8Rw", "name": "bash",
             "input": {"command": "find src -name '*.rs' | wc -l"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A7bQfSj3kYx9TnLm2Pq8Rw",
             "content": "12\n"}]},
    ]),
    body("msg_01Wq5Tz9Xc3Vb7Nm1Lk8Jh2G", [{"type": "text", "text": "There are 12 Rust files in src."}],
         "end_turn", usage(1480, 14, read=1024)),
]))

# Text, then two tool calls streamed in parallel by index, with a ping among the events.
write("ok/stream-text-and-parallel-tool-calls.sse", sse(
    [start("msg_01Hc4Rk2Wn8Ys5Td1Qf7Vb3M", usage(512, 3)), block(0, {"type": "text", "text": ""}),
     PING]
    + text_deltas(0, ["I'll add and", " multiply the numbers", " 7 and 6."]) + [stop(0)]
    + [block(1, {"type": "tool_use", "id": "toolu_01Ga8Lm3Xv6Qw2Ze9Kr5Tn1Y", "name": "add",
                 "input": {}, "caller": {"type": "direct"}})]
    + json_deltas(1, ["", "{\"a\": 7", ", \"b\"", ": 6}"]) + [stop(1)]
    + [block(2, {"type": "tool_use", "id": "toolu_01Pd6Vh1Mc9Rb4Wx7Sj2Kz5Q", "name": "multiply",
                 "input": {}, "caller": {"type": "direct"}})]
    + json_deltas(2, ["", "{\"a\": 7", ", \"b\":", " 6}"]) + [stop(2)]
    + [message_delta("tool_use", {"input_tokens": 512, "cache_creation_input_tokens": 0,
                                  "cache_read_input_tokens": 0, "output_tokens": 121}),
       MESSAGE_STOP]))

# Extended thinking: thinking deltas, the signature delta, then a tool call.
write("ok/stream-thinking-signature-then-tool-call.sse", sse(
    [start("msg_01Tk9Fz4Qm2Xw7Hb5Ns8Lc3D", usage(431, 4)),
     block(0, {"type": "thinking", "thinking": "", "signature": ""}), PING]
    + [delta(0, {"type": "thinking_delta", "thinking": t}) for t in
       ["The user wants the weather", " in Lisbon. I have a weather", " tool; I'll call it."]]
    + [delta(0, {"type": "signature_delta",
                 "signature": "EuYBCkQYAiJAq7Zp3nQ8Lw1Vc6Rt2Ks9Jm4Hx0Bd5Gf7Yu1Ie3Wo8Pa6Sl2Dk9Fj4Gh5Zx7Cv1Bn3Mq=="}),
       stop(0),
       block(1, {"type": "tool_use", "id": "toolu_01Rn5Kx8Vb2Mz6Qw3Ht9Ls4Jd", "name": "weather",
                 "input": {}})]
    + json_deltas(1, ["", "{\"location\":", " \"Lisbon, PT\"}"]) + [stop(1)]
    + [message_delta("tool_use", {"output_tokens": 96}), MESSAGE_STOP]))

# A non-streamed body, pretty-printed as an HTTP client saves it.
write("ok/body-text-and-tool-use.json", json.dumps(body(
    "msg_01Pgx2ep9weiiD4acPmkJCeQ",
    [{"type": "text", "text": "I'll check the weather in Porto for you."},
     {"type": "tool_use", "id": "toolu_01XLb9pzgfLa2EMyqWot6Ezz", "name": "weather",
      "input": {"location": "Porto, PT"}, "caller": {"type": "direct"}}],
    "tool_use", usage(394, 66)), indent=2) + "\n")

# Redacted thinking (its data the signature), a thinking block, and the answer.
write("ok/stream-redacted-thinking-and-text.sse", sse(
    [start("msg_01Ry7Dq3Lw9Kz2Xm5Nc8Vb4T", usage(210, 2)),
     block(0, {"type": "redacted_thinking",
               "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}),
     stop(0),
     block(1, {"type": "thinking", "thinking": "", "signature": ""}),
     delta(1, {"type": "thinking_delta", "thinking": "Answer plainly."}),
     delta(1, {"type": "signature_delta", "signature": "EqQBCgIYAhIMa1b2c3d4e5f6"}),
     stop(1)]
    + text_block(2, ["The test suite", " passes."])
    + [message_delta("end_turn", {"output_tokens": 58}), MESSAGE_STOP]))

# A server tool (web search): its call, its result in the same message, and text that cites
# the results through citations_delta events.
SEARCH_RESULTS = [
    {"type": "web_search_result", "url": "https://www.rust-lang.org/governance",
     "title": "Governance - Rust Programming Language", "encrypted_content": "EqgfCioIARgBIiQ3YTAw",
     "page_age": "June 2, 2026"},
    {"type": "web_search_result", "url": "https://blog.rust-lang.org/releases/",
     "title": "Rust Blog: releases", "encrypted_content": "EpwECioIARgBIiQ3YTAw",
     "page_age": None}]
write("ok/stream-web-search-with-citations.sse", sse(
    [start("msg_01Ws3Hv8Nq5Kx2Bz7Lm4Tc9F", usage(2087, 4))]
    + text_block(0, ["I'll search for that."])
    + [block(1, {"type": "server_tool_use", "id": "srvtoolu_01Mq8Kx3Vz5Hb2Nw7Ts4Lc9D",
                 "name": "web_search", "input": {}})]
    + json_deltas(1, ["", "{\"query\": \"rust release", " cadence\"}"]) + [stop(1)]
    + [block(2, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01Mq8Kx3Vz5Hb2Nw7Ts4Lc9D",
                 "content": SEARCH_RESULTS}), stop(2),
       block(3, {"type": "text", "text": ""}),
       delta(3, {"type": "citations_delta", "citation": {
           "type": "web_search_result_location", "url": "https://blog.rust-lang.org/releases/",
           "title": "Rust Blog: releases", "encrypted_index": "Eo8BCioIAhgBIiQyYjQ",
           "cited_text": "Rust ships a new stable release every six weeks."}}),
       delta(3, {"type": "text_delta", "text": "Rust releases a stable version every six weeks."}),
       stop(3),
       message_delta("end_turn", {"input_tokens": 2087, "cache_creation_input_tokens": 0,
                                  "cache_read_input_tokens": 0, "output_tokens": 163,
                                  "server_tool_use": {"web_search_requests": 1}}),
       MESSAGE_STOP]))

# Server tools whose results fail or exit non-zero: web fetch refused, a bash code
# execution exiting 1, a code execution that succeeds.
write("ok/stream-web-fetch-and-code-execution-results.sse", sse(
    [start("msg_01Ce5Xq9Lm2Vb7Nw4Kz8Ht3D", usage(3120, 6)),
     block(0, {"type": "server_tool_use", "id": "srvtoolu_01Fe4Kq8Wm2Xz6Lb9Nc3Vt7H",
               "name": "web_fetch", "input": {"url": "https://example.invalid/report.pdf"}}),
     stop(0),
     block(1, {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_01Fe4Kq8Wm2Xz6Lb9Nc3Vt7H",
               "content": {"type": "web_fetch_tool_result_error", "error_code": "url_not_accessible"}}),
     stop(1),
     block(2, {"type": "server_tool_use", "id": "srvtoolu_01Bx7Lm3Qw9Vz5Kt2Hn8Dc4R",
               "name": "bash_code_execution", "input": {}})]
    + json_deltas(2, ["{\"command\": \"python3 stats.py", " data.csv\"}"]) + [stop(2)]
    + [block(3, {"type": "bash_code_execution_tool_result",
                 "tool_use_id": "srvtoolu_01Bx7Lm3Qw9Vz5Kt2Hn8Dc4R",
                 "content": {"type": "bash_code_execution_result", "stdout": "",
                             "stderr": "FileNotFoundError: data.csv", "return_code": 1,
                             "content": []}}),
       stop(3),
       block(4, {"type": "server_tool_use", "id": "srvtoolu_01Ke2Wz8Nq5Xm3Lb7Vt9Hc4D",
                 "name": "code_execution", "input": {"code": "print(6 * 7)"}}),
       stop(4),
       block(5, {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_01Ke2Wz8Nq5Xm3Lb7Vt9Hc4D",
                 "content": {"type": "code_execution_result", "stdout": "42\n", "stderr": "",
                             "return_code": 0, "content": []}}),
       stop(5)]
    + text_block(6, ["The file is missing; the arithmetic gives 42."])
    + [message_delta("end_turn", {"output_tokens": 210,
                                  "server_tool_use": {"web_fetch_requests": 1}}),
       MESSAGE_STOP]))

# The MCP connector: a call to a remote MCP server's tool and its result, in one message.
write("ok/stream-mcp-connector-call-and-result.sse", sse(
    [start("msg_01Mc6Tz2Kq8Xw4Vb9Ln3Hd7R", usage(640, 5)),
     block(0, {"type": "mcp_tool_use", "id": "mcptoolu_01Lx4Qz8Wm2Kv6Bn3Tc9Hd5F",
               "name": "list_issues", "server_name": "tracker", "input": {"state": "open"}}),
     stop(0),
     block(1, {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01Lx4Qz8Wm2Kv6Bn3Tc9Hd5F",
               "is_error": False, "content": [{"type": "text", "text": "#12 flaky test; #15 docs"}]}),
     stop(1)]
    + text_block(2, ["Two issues are open: #12 and #15."])
    + [message_delta("end_turn", {"output_tokens": 44}), MESSAGE_STOP]))

# An `error` event mid-stream (overloaded): the text so far, marked incomplete; the run failed.
write("ok/stream-error-event-overloaded-mid-block.sse", sse(
    [start("msg_01Ov2Lq7Xz4Kw9Nb5Ht3Vc8D", usage(1200, 1))]
    + [block(0, {"type": "text", "text": ""})]
    + text_deltas(0, ["Looking at the failing", " test, the fixture"])
    + [{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}]))

# The body of an HTTP 529: an error-only body, pretty-printed.
write("ok/overloaded-error-body.json", json.dumps(
    {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"},
     "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}, indent=2) + "\n")

# A stream cut between events, inside a text block and a tool call's input: what arrived is
# kept, marked incomplete.
write("ok/stream-cut-between-events-mid-block.sse", sse(
    [start("msg_01Ct8Wq3Lz6Kx2Vb9Nm4Hd7R", usage(980, 3))]
    + text_block(0, ["Reading the config."])
    + [block(1, {"type": "tool_use", "id": "toolu_01Rd5Xq2Lm8Kz4Wv7Nb3Tc9H", "name": "bash",
                 "input": {}})]
    + json_deltas(1, ["{\"command\": \"cat conf"])))

# A conversation: a request, a response with two calls, the next request repeating the
# history with the two results (one a string, one blocks and an error), the final response.
CALL_1 = "toolu_01Qa2Wz8Lk5Xm3Vb9Nt4Hc7D"
CALL_2 = "toolu_01Jb6Tx3Lq9Kz2Wm7Vn4Hd8R"
FIRST = [{"role": "user", "content": "Run the linter and the tests."}]
ASSISTANT = {"role": "assistant", "content": [
    {"type": "text", "text": "Running both."},
    {"type": "tool_use", "id": CALL_1, "name": "bash", "input": {"command": "cargo clippy"}},
    {"type": "tool_use", "id": CALL_2, "name": "bash", "input": {"command": "cargo test"}}]}
RESULTS = {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": CALL_1, "content": "Finished `dev` profile"},
    {"type": "tool_result", "tool_use_id": CALL_2, "is_error": True,
     "content": [{"type": "text", "text": "test parse::empty ... FAILED"},
                 {"type": "text", "text": "exit status 101"}]},
    {"type": "text", "text": "Fix what failed."}]}
write("ok/conversation-tool-results-in-request.jsonl", "".join(c(r) + "\n" for r in [
    request(FIRST),
    body("msg_01Cv1Lz7Kq3Xw9Nb5Tm2Hd8F", ASSISTANT["content"], "tool_use", usage(820, 70)),
    request(FIRST + [ASSISTANT, RESULTS]),
    body("msg_01Cv2Xq8Lm4Kz6Wb3Nt9Hd5R",
         [{"type": "text", "text": "The empty-input test fails; I'll fix parse::empty."}],
         "end_turn", usage(40, 22, read=890)),
]))

# LibreChat-AI/agents PR #308 (and mnfst/llm-gateway PR #2057): gateways send cumulative
# input and cache counts on message_delta; parsers that read them only from message_start
# undercount. The last snapshot of each field counts.
write("ok/librechat-308-cumulative-usage-on-message-delta.sse", sse(
    [start("msg_01Us4Kq9Lx2Wz7Vb5Nm3Hd8T", {"input_tokens": 0, "output_tokens": 0})]
    + text_block(0, ["Done."])
    + [message_delta("end_turn", {"input_tokens": 42, "cache_creation_input_tokens": 1800,
                                  "cache_read_input_tokens": 12000, "output_tokens": 9}),
       MESSAGE_STOP]))

# LibreChat-AI/agents PR #407: a citation-only delta has no `text` key, and its citation
# belongs to the block all the same.
write("ok/librechat-407-citation-delta-without-text-key.sse", sse(
    [start("msg_01Ci7Wq2Lz5Kx9Vb3Nm8Hd4T", usage(5120, 2)),
     block(0, {"type": "text", "text": "", "citations": []}),
     delta(0, {"type": "citations_delta", "citation": {
         "type": "char_location", "cited_text": "The cache lives for five minutes.",
         "document_index": 0, "document_title": "Prompt caching",
         "start_char_index": 120, "end_char_index": 153}}),
     delta(0, {"type": "text_delta", "text": "Cached prompts expire after five minutes."}),
     stop(0),
     message_delta("end_turn", {"output_tokens": 17}), MESSAGE_STOP]))

# BerriAI/litellm#17254: a server tool's block starts with `input: {}` and its deltas give
# the whole input; joining the two made `{}{"query": ...}`.
write("ok/litellm-17254-server-tool-input-not-doubled.sse", sse(
    [start("msg_01Ld3Wq8Kx5Lz2Vb7Nm9Hc4T", usage(1500, 3)),
     block(0, {"type": "server_tool_use", "id": "srvtoolu_01Ls9Kq4Wx7Lz3Vb2Nm6Hd8T",
               "name": "web_search", "input": {}})]
    + json_deltas(0, ["{\"query\"", ": \"serde borrow lifetimes\"}"]) + [stop(0)]
    + [block(1, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01Ls9Kq4Wx7Lz3Vb2Nm6Hd8T",
                 "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}),
       stop(1)]
    + text_block(2, ["The search failed; from memory: use #[serde(borrow)]."])
    + [message_delta("end_turn", {"output_tokens": 61}), MESSAGE_STOP]))

# Vertex AI's streamRawPredict: the same events; the model named as Vertex names it.
write("ok/vertex-stream-raw-predict.sse", sse(
    [start("msg_vrtx_01Vx5Kq2Wz8Lm3Nb7Ht4Dc9R", usage(88, 1), model="claude-sonnet-4-5@20250929")]
    + text_block(0, ["Hello from", " Vertex."])
    + [message_delta("end_turn", {"output_tokens": 7}), MESSAGE_STOP]))

# Bedrock's InvokeModel: the request names `anthropic_version` (the model is in the URL);
# the response is the API's body, its id `msg_bdrk_`.
write("ok/bedrock-invoke-model-request-and-body.jsonl", "".join(c(r) + "\n" for r in [
    {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 512,
     "messages": [{"role": "user", "content": [{"type": "text", "text": "Name a prime."}]}]},
    body("msg_bdrk_01Bk4Wq9Lx2Kz7Vb5Nm3Hd8T", [{"type": "text", "text": "Seven."}], "end_turn",
         {"input_tokens": 12, "output_tokens": 5}, model="claude-sonnet-4-5-20250929"),
]))

# Bedrock's InvokeModelWithResponseStream, its chunks' events decoded one a line: the last
# one carries Bedrock's invocation metrics.
write("ok/bedrock-stream-decoded-events.jsonl", "".join(c(e) + "\n" for e in (
    [start("msg_bdrk_01Bs7Kq3Wx9Lz2Vb5Nm8Hd4T", usage(577, 1)),
     block(0, {"type": "tool_use", "id": "toolu_bdrk_01Bt5Wq2Lx8Kz3Vb9Nm4Hd7R", "name": "bash",
               "input": {}})]
    + json_deltas(0, ["", "{\"comma", "nd\": \"ls\"}"]) + [stop(0)]
    + [message_delta("tool_use", {"output_tokens": 53}),
       {"type": "message_stop", "amazon-bedrock-invocationMetrics": {
           "inputTokenCount": 577, "outputTokenCount": 53, "invocationLatency": 1967,
           "firstByteLatency": 1603}}])))

# The same stream as it comes over the wire: the binary application/vnd.amazon.eventstream
# framing, each message a `chunk` event whose payload's `bytes` is the event, base64-encoded
# (read through the event-stream framing, then this adapter).
def eventstream_chunk(event, pad):
    import base64, binascii, struct
    payload = c({"bytes": base64.b64encode(c(event).encode()).decode(), "p": "abcdefghij"[:pad]}).encode()
    head = b""
    for name, value in [(":event-type", "chunk"), (":content-type", "application/json"),
                        (":message-type", "event")]:
        head += bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(value)) + value.encode()
    prelude = struct.pack(">II", 12 + len(head) + len(payload) + 4, len(head))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    message = prelude + head + payload
    return message + struct.pack(">I", binascii.crc32(message))


write("ok/bedrock-invoke-stream-binary.eventstream", b"".join(
    eventstream_chunk(e, 1 + n % 9) for n, e in enumerate(
        [start("msg_bdrk_01Ht4Wq9Kx2Lz7Vb3Nm5Hd8B", usage(412, 1)),
         block(0, {"type": "text", "text": ""})]
        + text_deltas(0, ["Porto is", " sunny."]) + [stop(0)]
        + [message_delta("end_turn", {"output_tokens": 6}),
           {"type": "message_stop", "amazon-bedrock-invocationMetrics": {
               "inputTokenCount": 412, "outputTokenCount": 6, "invocationLatency": 702,
               "firstByteLatency": 388}}])))

# Stop reasons as the API gives them: `pause_turn` (a server tool loop paused, to be
# continued) has no canonical kind and keeps its word; `refusal` is one.
write("ok/stop-reasons-pause-turn-then-refusal.jsonl", "".join(c(r) + "\n" for r in [
    body("msg_01Pt3Wq8Kx5Lz2Vb7Nm9Hc4D", [{"type": "text", "text": "Still searching."}],
         "pause_turn", usage(300, 12)),
    body("msg_01Rf6Kq2Wx9Lz4Vb3Nm7Hd8T", [], "refusal", usage(310, 0)),
]))

# A tool call whose streamed input never closes its JSON, though its block stops.
write("ok/stream-tool-input-not-json.sse", sse(
    [start("msg_01Nj6Wq3Kx8Lz2Vb5Nm9Hd4T", usage(140, 2)),
     block(0, {"type": "tool_use", "id": "toolu_01Nj7Kq2Wx9Lz4Vb3Nm8Hd5T", "name": "read_file",
               "input": {}})]
    + json_deltas(0, ["{\"path\": ", "\"src/lib.rs\""]) + [stop(0)]
    + [message_delta("tool_use", {"output_tokens": 19}), MESSAGE_STOP]))

# err/ ----------------------------------------------------------------------------------------

# A stream cut mid-record: the last event's data is torn inside its JSON.
whole = sse([start("msg_01Tr2Wq7Kx4Lz9Vb3Nm5Hd8C", usage(300, 2))]
            + [block(0, {"type": "text", "text": ""})]
            + text_deltas(0, ["Half of the", " answer is"]))
torn = whole + "event: content_block_delta\n" + 'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_del'
write("err/stream-cut-mid-record.sse", torn)

# A delta and a stop of a block the stream never started.
write("err/delta-for-block-never-started.sse", sse(
    [start("msg_01Dn4Kq9Wx2Lz7Vb5Nm3Hd8T", usage(120, 1))]
    + text_block(0, ["Fine."])
    + [delta(1, {"type": "text_delta", "text": "lost"}), stop(1),
       message_delta("end_turn", {"output_tokens": 3}), MESSAGE_STOP]))

# A request whose tool result answers a call no message of the input made.
write("err/request-tool-result-without-call.jsonl", "".join(c(r) + "\n" for r in [
    request([{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01Nx7Kq3Wz9Lm2Vb5Ht8Dc4R", "content": "ok"}]}]),
    body("msg_01Or5Wq2Kx8Lz3Vb9Nm4Hd7T", [{"type": "text", "text": "Noted."}], "end_turn",
         usage(60, 3)),
]))

# A proxy's HTML error page in the middle of a stream, as an event's data.
write("err/sse-data-not-json.sse", sse(
    [start("msg_01Hx3Kq8Wz5Lm2Vb9Nt4Dc7R", usage(75, 1))]
    + text_block(0, ["Partial"]))
    + "event: content_block_delta\ndata: <html><body>502 Bad Gateway</body></html>\n\n"
    + sse([message_delta("end_turn", {"output_tokens": 2}), MESSAGE_STOP]))

# An event whose data is over the corpus harness's 64 KiB record limit.
write("err/record-over-64kib.sse", sse(
    [start("msg_01Lg8Kq2Wx5Lz9Vb3Nm7Hd4T", usage(50, 1)),
     block(0, {"type": "text", "text": ""}),
     delta(0, {"type": "text_delta", "text": "x" * (70 * 1024)}),
     stop(0), message_delta("end_turn", {"output_tokens": 2}), MESSAGE_STOP]))
