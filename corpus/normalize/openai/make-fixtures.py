#!/usr/bin/env python3
"""Writes every fixture of corpus/normalize/openai/ (deterministic). SSE framing is byte-exact (blank
lines, CR LF, missing final LF), which editors damage, so the files are generated; edit here
and re-run `python3 corpus/normalize/openai/make-fixtures.py`."""
import json, os

ROOT = os.path.dirname(os.path.abspath(__file__))
MODEL = "gpt-4.1-2025-04-14"


def c(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def write(name, text):
    with open(os.path.join(ROOT, name), "wb") as f:
        f.write(text.encode("utf-8") if isinstance(text, str) else text)


def sse(records, done=True, nl="\n"):
    out = []
    for r in records:
        if isinstance(r, str):
            out.append(r + nl)  # a raw line (comment, keep-alive, ...)
        else:
            out.append("data: " + c(r) + nl + nl)
    if done:
        out.append("data: [DONE]" + nl + nl)
    return "".join(out)


def events(records):
    """Responses API: `event: <type>` + `data: {...}` per event."""
    return "".join(f"event: {r['type']}\ndata: {c(r)}\n\n" for r in records)


def chunk(cid, delta, finish=None, index=0, model=MODEL, usage="absent", **extra):
    r = {"id": cid, "object": "chat.completion.chunk", "created": 1767225600, "model": model,
         "system_fingerprint": "fp_b3f1157249",
         "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}]}
    if usage != "absent":
        r["usage"] = usage
    r.update(extra)
    return r


def usage_chunk(cid, usage, model=MODEL):
    return {"id": cid, "object": "chat.completion.chunk", "created": 1767225600, "model": model,
            "system_fingerprint": "fp_b3f1157249", "choices": [], "usage": usage}


def u(prompt, completion, cached=0, reasoning=0):
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": reasoning, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0,
                                          "rejected_prediction_tokens": 0}}


def text_deltas(cid, text, size=9, **kw):
    return [chunk(cid, {"content": text[i:i + size]}, **kw) for i in range(0, len(text), size)]


def call_deltas(cid, index, call_id, name, args, size=7, first_id_only=True):
    out = [chunk(cid, {"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                        "function": {"name": name, "arguments": ""}}]})]
    for i in range(0, len(args), size):
        tc = {"index": index, "function": {"arguments": args[i:i + size]}}
        if not first_id_only:
            tc["id"] = call_id
        out.append(chunk(cid, {"tool_calls": [tc]}))
    return out


SHELL_ARGS = c({"command": "find src -name '*.rs' | wc -l"})

# --- the shared scenario: the final request (whole history) + the final response ---------
request = {"model": MODEL, "messages": [
    {"role": "system", "content": "You are a coding agent. Use the shell tool to inspect the repository."},
    {"role": "user", "content": "How many Rust files are in src?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_Vq3kTz8mN1pR6sWx2yLb4cDe", "type": "function",
         "function": {"name": "shell", "arguments": SHELL_ARGS}}]},
    {"role": "tool", "tool_call_id": "call_Vq3kTz8mN1pR6sWx2yLb4cDe", "content": "12\n"}],
    "tools": [{"type": "function", "function": {"name": "shell", "parameters": {
        "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}]}
response = {"id": "chatcmpl-C3xQ9aZr7bY2mK5nL8pT1vW4", "object": "chat.completion", "created": 1767225612,
            "model": MODEL, "choices": [{"index": 0, "message": {
                "role": "assistant", "content": "There are 12 Rust files in src.", "refusal": None,
                "annotations": []}, "logprobs": None, "finish_reason": "stop"}],
            "usage": u(412, 11, cached=256), "service_tier": "default",
            "system_fingerprint": "fp_b3f1157249"}
write("ok/shared-scenario-shell-command.jsonl", c(request) + "\n" + c(response) + "\n")

# --- a non-streaming body, pretty-printed, with cached and reasoning tokens ---------------
body = {"id": "chatcmpl-C3xR2bWq8cX3nL6oM9qU2wX5", "object": "chat.completion", "created": 1767225700,
        "model": "o4-mini-2025-04-16", "choices": [{"index": 0, "message": {
            "role": "assistant", "content": "I'll read both files.", "refusal": None,
            "tool_calls": [
                {"id": "call_A1", "type": "function", "function": {"name": "read_file", "arguments": c({"path": "src/lib.rs"})}},
                {"id": "call_B2", "type": "function", "function": {"name": "read_file", "arguments": c({"path": "src/main.rs"})}}]},
            "logprobs": None, "finish_reason": "tool_calls"}],
        "usage": u(5120, 230, cached=4096, reasoning=192), "service_tier": "default",
        "system_fingerprint": None}
write("ok/vercel-4335-cached-and-reasoning-tokens-in-usage.json", json.dumps(body, indent=2) + "\n")

# --- Ollama: finish_reason null on a complete body (pydantic-ai #6610) --------------------
write("ok/pydantic-6610-ollama-null-finish-reason.json", c({
    "id": "chatcmpl-417", "object": "chat.completion", "created": 1767225800, "model": "qwen3:8b",
    "system_fingerprint": "fp_ollama", "choices": [{"index": 0, "message": {
        "role": "assistant", "content": "Paris is the capital of France."}, "finish_reason": None}],
    "usage": {"prompt_tokens": 14, "completion_tokens": 8, "total_tokens": 22}}) + "\n")

# --- SSE framing: comments, keep-alives, multi-line data, id/retry, CRLF ------------------
cid = "chatcmpl-C3xS5cXr9dY4oM7pN0rV3xY6"
first = chunk(cid, {"role": "assistant", "content": "", "refusal": None})
second = chunk(cid, {"content": "Hello → wörld, "})
pretty = json.dumps(chunk(cid, {"content": "split across data lines."}), indent=1).split("\n")
framing = (": OPENROUTER PROCESSING\r\n\r\n" + "retry: 3000\r\n" + "id: 1\r\n"
           + "data: " + c(first) + "\r\n\r\n"
           + ": ping\r\n\r\n"
           + "data: :ping\r\n\r\n"
           + "data:\r\n\r\n"
           + "id: 2\r\ndata: " + c(second) + "\r\n\r\n"
           + "".join("data: " + line + "\r\n" for line in pretty) + "\r\n"
           + "data: " + c(chunk(cid, {}, finish="stop")) + "\r\n\r\n"
           + "data: " + c(usage_chunk(cid, u(21, 9))) + "\r\n\r\n"
           + "data: [DONE]\r\n\r\n")
write("ok/sse-framing-comments-keepalives-multiline-crlf.sse", framing)

# --- parallel calls interleaved by index, final usage-only chunk --------------------------
cid = "chatcmpl-C3xT7dYs0eZ5pN8qO1sW4yZ7"
a, b = c({"location": "Paris, France", "unit": "celsius"}), c({"location": "Tokyo, Japan", "unit": "celsius"})
recs = [chunk(cid, {"role": "assistant", "content": None})]
recs += [chunk(cid, {"tool_calls": [{"index": 0, "id": "call_P1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]})]
recs += [chunk(cid, {"tool_calls": [{"index": 1, "id": "call_T2", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]})]
for i in range(0, max(len(a), len(b)), 6):
    if a[i:i + 6]:
        recs.append(chunk(cid, {"tool_calls": [{"index": 0, "function": {"arguments": a[i:i + 6]}}]}))
    if b[i:i + 6]:
        recs.append(chunk(cid, {"tool_calls": [{"index": 1, "function": {"arguments": b[i:i + 6]}}]}))
recs += [chunk(cid, {}, finish="tool_calls"), usage_chunk(cid, u(88, 52))]
write("ok/parallel-tool-calls-interleaved-by-index.sse", sse(recs))

# --- litellm #2716: content deltas before the tool-call deltas ----------------------------
cid = "chatcmpl-2716"
recs = [chunk(cid, {"role": "assistant", "content": ""})]
recs += text_deltas(cid, "Let me look that up for you.")
recs += call_deltas(cid, 0, "call_2716a", "search_docs", c({"query": "stream_chunk_builder tool_calls"}))
recs += [chunk(cid, {}, finish="tool_calls"), usage_chunk(cid, u(120, 40))]
write("ok/litellm-2716-content-before-tool-calls.sse", sse(recs))

# --- litellm #7621: Groq sends each parallel call whole, every one at index 0 -------------
cid = "chatcmpl-7621"
recs = [chunk(cid, {"role": "assistant"}, model="llama-3.3-70b-versatile")]
for n, city in enumerate(["Paris", "Berlin", "Rome"]):
    recs.append(chunk(cid, {"tool_calls": [{"index": 0, "id": f"call_groq{n}", "type": "function",
                                             "function": {"name": "get_weather", "arguments": c({"city": city})}}]},
                      model="llama-3.3-70b-versatile"))
recs.append(chunk(cid, {}, finish="tool_calls", model="llama-3.3-70b-versatile",
                  x_groq={"id": "req_01k0", "usage": {"queue_time": 0.1, "prompt_tokens": 240, "completion_tokens": 60, "total_tokens": 300}}))
write("ok/litellm-7621-parallel-calls-one-chunk-each.sse", sse(recs))

# --- litellm #20711: only the first fragment of a call carries its id ---------------------
cid = "chatcmpl-20711"
args = c({"path": "src/normalize/openai.rs", "start_line": 1, "end_line": 400, "reason": "read the adapter before changing it"})
recs = [chunk(cid, {"role": "assistant", "content": None})]
recs += call_deltas(cid, 0, "call_20711", "read_file", args, size=4)
recs += [chunk(cid, {}, finish="tool_calls"), usage_chunk(cid, u(300, 70))]
write("ok/litellm-20711-id-only-on-first-fragment.sse", sse(recs))

# --- usage with cached tokens in the final streamed chunk (litellm #5364) -----------------
cid = "chatcmpl-5364"
recs = [chunk(cid, {"role": "assistant", "content": ""}, usage=None)]
recs += text_deltas(cid, "Cached prompts are cheaper.", usage=None)
recs += [chunk(cid, {}, finish="stop", usage=None), usage_chunk(cid, u(2006, 300, cached=1920))]
write("ok/litellm-5364-cached-tokens-in-streamed-usage.sse", sse(recs))

# --- no stream_options.include_usage: no usage chunk at all (litellm #23847) --------------
cid = "chatcmpl-23847"
recs = [chunk(cid, {"role": "assistant", "content": ""})] + text_deltas(cid, "No usage was asked for.") + [chunk(cid, {}, finish="stop")]
write("ok/litellm-23847-stream-without-usage-chunk.sse", sse(recs))

# --- DeepSeek reasoning_content (litellm #29518) ------------------------------------------
cid = "8d1f2a3b-29518"
M = "deepseek-reasoner"
recs = [chunk(cid, {"role": "assistant", "content": None, "reasoning_content": ""}, model=M)]
for piece in ["The user asks 2+2. ", "Basic arithmetic: ", "4."]:
    recs.append(chunk(cid, {"content": None, "reasoning_content": piece}, model=M))
for piece in ["2 + 2 ", "= 4."]:
    recs.append(chunk(cid, {"content": piece, "reasoning_content": None}, model=M))
recs.append(chunk(cid, {"content": "", "reasoning_content": None}, finish="stop", model=M,
                  usage={"prompt_tokens": 13, "completion_tokens": 40, "total_tokens": 53,
                         "prompt_tokens_details": {"cached_tokens": 0},
                         "completion_tokens_details": {"reasoning_tokens": 31},
                         "prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": 13}))
write("ok/litellm-29518-reasoning-content-to-thinking.sse", sse(recs))

# --- vLLM `reasoning`, with a chunk carrying both fields at the switch (litellm #15233) ----
cid = "chatcmpl-15233"
M = "Qwen/Qwen3-32B"
recs = [chunk(cid, {"role": "assistant", "content": ""}, model=M),
        chunk(cid, {"reasoning": "Need a short greeting"}, model=M),
        chunk(cid, {"reasoning": " in French."}, model=M),
        chunk(cid, {"reasoning": "", "content": "Bonjour"}, model=M),
        chunk(cid, {"content": " !"}, model=M),
        chunk(cid, {}, finish="stop", model=M)]
write("ok/litellm-15233-reasoning-stays-out-of-content.sse", sse(recs))

# --- Ollama `delta.reasoning` (rust-genai #106) -------------------------------------------
cid = "chatcmpl-106"
M = "gpt-oss:20b"
recs = [chunk(cid, {"role": "assistant", "content": "", "reasoning": "User wants a haiku."}, model=M),
        chunk(cid, {"role": "assistant", "content": "", "reasoning": " Five-seven-five."}, model=M),
        chunk(cid, {"role": "assistant", "content": "Autumn moonlight—\na worm digs silently\ninto the chestnut."}, model=M),
        chunk(cid, {"role": "assistant", "content": ""}, finish="stop", model=M)]
write("ok/rust-genai-106-ollama-delta-reasoning.sse", sse(recs))

# --- a whole tool call in one chunk, no `index` (rust-genai #46; bare JSONL of chunks) -----
cid = "chatcmpl-46"
M = "llama3.1:8b"
recs = [chunk(cid, {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_ollama46", "type": "function", "function": {"name": "get_time", "arguments": c({"timezone": "Europe/Paris"})}}]}, model=M),
        chunk(cid, {"role": "assistant", "content": ""}, finish="tool_calls", model=M)]
for r in recs:
    del r["system_fingerprint"]
write("ok/rust-genai-46-whole-tool-call-without-index.jsonl", "".join(c(r) + "\n" for r in recs))

# --- OpenRouter reasoning_details with a signature (OpenRouterTeam/ai-sdk-provider #423) ---
cid = "gen-1767225900-423"
M = "anthropic/claude-sonnet-4"
recs = [": OPENROUTER PROCESSING\n",
        chunk(cid, {"role": "assistant", "content": "", "reasoning": "Check the units first.",
                    "reasoning_details": [{"type": "reasoning.text", "text": "Check the units first.", "format": "anthropic-claude-v1", "index": 0}]}, model=M),
        chunk(cid, {"role": "assistant", "content": "", "reasoning": None,
                    "reasoning_details": [{"type": "reasoning.text", "signature": "EqQBCkYIBxgCKkDk4fS1g", "format": "anthropic-claude-v1", "index": 0}]}, model=M),
        chunk(cid, {"role": "assistant", "content": "It is 21 °C."}, model=M),
        chunk(cid, {"role": "assistant", "content": ""}, finish="stop", model=M, native_finish_reason="end_turn",
              usage={"prompt_tokens": 40, "completion_tokens": 25, "total_tokens": 65, "prompt_tokens_details": {"cached_tokens": 0}})]
write("ok/openrouter-423-reasoning-details-signature.sse", sse(recs))

# --- a tool call without arguments (vercel/ai #2103) --------------------------------------
cid = "chatcmpl-2103"
recs = [chunk(cid, {"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": "call_noargs", "type": "function", "function": {"name": "get_current_time", "arguments": ""}}]}),
        chunk(cid, {}, finish="tool_calls")]
write("ok/vercel-2103-no-argument-tool-call.sse", sse(recs))

# --- cut off after arguments that already parse (vercel/ai PR #13172) ---------------------
cid = "chatcmpl-13172"
recs = [chunk(cid, {"role": "assistant", "content": None})]
recs += call_deltas(cid, 0, "call_13172", "delete_path", c({"path": "build"}), size=5)
write("ok/vercel-13172-parsable-prefix-is-not-complete.sse", sse(recs, done=False))

# --- cut off mid-call: unparsable arguments ------------------------------------------------
cid = "chatcmpl-cut"
recs = [chunk(cid, {"role": "assistant", "content": ""})] + text_deltas(cid, "Writing the file now.")
recs += call_deltas(cid, 0, "call_cut", "write_file", c({"path": "notes.md", "content": "# Notes\n\nFirst line"})[:30], size=6)
write("ok/stream-cut-mid-tool-call.sse", sse(recs, done=False))

# --- final arguments that are not JSON ----------------------------------------------------
cid = "chatcmpl-badargs"
recs = [chunk(cid, {"role": "assistant", "content": None})]
recs += call_deltas(cid, 0, "call_badargs", "shell", '{"command": "ls -la", }', size=8)
recs += [chunk(cid, {}, finish="tool_calls")]
write("ok/tool-arguments-not-json.sse", sse(recs))

# --- an error object mid-stream with HTTP 200 (OpenRouter) --------------------------------
cid = "gen-1767226000-err"
recs = [chunk(cid, {"role": "assistant", "content": ""}, model="openai/gpt-4o")]
recs += text_deltas(cid, "The answer starts here and", model="openai/gpt-4o")
recs += [{"id": cid, "object": "chat.completion.chunk", "created": 1767226001, "model": "openai/gpt-4o",
          "provider": "OpenAI", "error": {"code": 502, "message": "Provider returned error", "metadata": {"provider_name": "OpenAI"}},
          "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]}]
write("ok/in-stream-error-object-http-200.sse", sse(recs))

# --- Mistral (magistral): reasoning as `thinking` parts inside `content` ------------------
# The stream sends `delta.content` as an array of chunks `{"type": "thinking", "thinking":
# [{"type": "text", "text": ...}]}`, then the answer as plain string deltas.
cid = "4b1d7c9e0f2a4e6b8c3d5f7a9b1c3e5d"
MM = "magistral-medium-2509"
recs = [chunk(cid, {"role": "assistant", "content": ""}, model=MM)]
for piece in ["The user wants 17 * 3.", " 17 * 3 = 51.", " Double-check: 50 + 1."]:
    recs.append(chunk(cid, {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": piece}]}]}, model=MM))
for piece in ["17 × 3 ", "= 51."]:
    recs.append(chunk(cid, {"content": piece}, model=MM))
recs.append(chunk(cid, {"content": ""}, finish="stop", model=MM,
                  usage={"prompt_tokens": 21, "total_tokens": 160, "completion_tokens": 139}))
for r in recs:
    del r["system_fingerprint"]
write("ok/mistral-magistral-thinking-parts-in-content.sse", sse(recs))
# A body: thinking, text and `reference` chunks (Mistral's citations of tool results).
write("ok/mistral-thinking-text-and-reference-chunks.json", c({
    "id": "7c2e9a1b3d5f4a6c8e0b2d4f6a8c0e2b", "object": "chat.completion", "created": 1767226600, "model": MM,
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "tool_calls": None, "content": [
        {"type": "thinking", "thinking": [{"type": "text", "text": "The search result 0 gives the date."}]},
        {"type": "text", "text": "Rust 1.0 was released on 15 May 2015"},
        {"type": "reference", "reference_ids": [0]},
        {"type": "text", "text": "."}]}}],
    "usage": {"prompt_tokens": 310, "total_tokens": 372, "completion_tokens": 62}}) + "\n")

# --- Perplexity Sonar --------------------------------------------------------------------
# Full stream mode (the default): every chunk is `"object": "chat.completion"` with the
# cumulative `message` next to the `delta`, and repeats `search_results`, `citations` and the
# usage so far (with its cost in dollars).
PX = "sonar-pro"
cid = "9c1f3e2a-7b4d-4e6f-8a0b-2c4d6e8f0a1b"
answer = "Rust 1.90 made LLD the default linker on x86_64 Linux[1]."
results = [{"title": "Announcing Rust 1.90.0", "url": "https://blog.rust-lang.org/2025/09/18/Rust-1.90.0/",
            "date": "2025-09-18", "last_updated": "2025-09-19", "snippet": "LLD is now the default linker", "source": "web"}]
urls = ["https://blog.rust-lang.org/2025/09/18/Rust-1.90.0/"]


def px_usage(completion):
    return {"prompt_tokens": 9, "completion_tokens": completion, "total_tokens": 9 + completion,
            "search_context_size": "low", "cost": {"input_tokens_cost": 0.0, "output_tokens_cost": 0.0002,
                                                   "request_cost": 0.006, "total_cost": 0.0062}}


recs, sofar = [], ""
pieces = ["Rust 1.90 made ", "LLD the default ", "linker on x86_64 ", "Linux[1]."]
for n, piece in enumerate(pieces):
    sofar += piece
    recs.append({"id": cid, "model": PX, "created": 1767226700, "usage": px_usage(n + 1), "citations": urls,
                 "search_results": results, "object": "chat.completion",
                 "choices": [{"index": 0, "finish_reason": None, "message": {"role": "assistant", "content": sofar},
                              "delta": {"role": "assistant", "content": piece}}]})
recs.append({"id": cid, "model": PX, "created": 1767226700, "usage": px_usage(14), "citations": urls,
             "search_results": results, "object": "chat.completion",
             "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": sofar},
                          "delta": {"role": "assistant", "content": ""}}]})
write("ok/perplexity-full-mode-cumulative-message-every-chunk.sse", sse(recs, done=False))

# Concise stream mode: `chat.reasoning` steps, `chat.reasoning.done` (the steps again, and
# the search results), `chat.completion.chunk` deltas, and `chat.completion.done` as the
# terminal record (the finish reason, the whole message again, sources, usage): no [DONE].
PX = "sonar-reasoning-pro"
cid = "0d2e4f6a-8b0c-4d2e-9f1a-3b5c7d9e1f3a"
steps = [{"thought": "Searching the web for the Rust 1.90 release notes.", "type": "web_search",
          "web_search": {"search_keywords": ["rust 1.90 release"], "search_results": results}},
         {"thought": "The blog post names LLD as the new default linker.", "type": "reasoning"}]


def px(obj, delta, message=None, finish=None, **extra):
    choice = {"index": 0, "finish_reason": finish, "delta": delta}
    if message is not None:
        choice["message"] = message
    r = {"id": cid, "model": PX, "created": 1767226800, "object": obj, "choices": [choice]}
    r.update(extra)
    return r


recs = [px("chat.reasoning", {"role": "assistant", "content": "", "reasoning_steps": [steps[0]]}, {"role": "assistant", "content": ""}),
        px("chat.reasoning", {"role": "assistant", "content": "", "reasoning_steps": [steps[1]]}, {"role": "assistant", "content": ""}),
        px("chat.reasoning.done", {"role": "assistant", "content": ""}, {"role": "assistant", "content": "", "reasoning_steps": steps},
           search_results=results)]
for piece in pieces:
    recs.append(px("chat.completion.chunk", {"role": "assistant", "content": piece}))
recs.append(px("chat.completion.done", {"role": "assistant", "content": ""}, {"role": "assistant", "content": answer},
               finish="stop", search_results=results, citations=urls, usage=px_usage(31)))
write("ok/perplexity-concise-reasoning-and-completion-done.sse", sse(recs, done=False))

# --- xAI: reasoning tokens counted beside completion_tokens --------------------------------
# (xAI's usage: total_tokens = prompt + completion + reasoning; grok-3-mini also returns its
# reasoning as `reasoning_content`)
write("ok/xai-grok-reasoning-tokens-beside-completion.json", json.dumps({
    "id": "0daf962f-a275-4a3c-839a-047854645532", "object": "chat.completion", "created": 1767226900,
    "model": "grok-3-mini", "system_fingerprint": "fp_6c3f4d8a2e",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": "101 is prime.", "refusal": None,
        "reasoning_content": "Check divisors up to 10: 2, 3, 5, 7 do not divide 101."}}],
    "usage": {"prompt_tokens": 32, "completion_tokens": 9, "total_tokens": 135,
              "prompt_tokens_details": {"text_tokens": 32, "audio_tokens": 0, "image_tokens": 0, "cached_tokens": 6},
              "completion_tokens_details": {"reasoning_tokens": 94, "audio_tokens": 0,
                                            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
              "num_sources_used": 0}}, indent=2) + "\n")

# --- n = 2: two completions of one prompt, streamed interleaved by choice index ------------
cid = "chatcmpl-C3xN2twoChoices"
recs = [chunk(cid, {"role": "assistant", "content": ""}, index=0), chunk(cid, {"role": "assistant", "content": ""}, index=1)]
for a, b in [("Use ", "Prefer "), ("a BTreeMap.", "a HashMap.")]:
    recs += [chunk(cid, {"content": a}, index=0), chunk(cid, {"content": b}, index=1)]
recs += [chunk(cid, {}, finish="stop", index=1), chunk(cid, {}, finish="stop", index=0), usage_chunk(cid, u(25, 12))]
write("ok/chat-n2-choices-streamed-interleaved.sse", sse(recs))

# --- Azure OpenAI: filter results, a first chunk without object, id or choices -------------
# (Azure's chat completions stream: `prompt_filter_results` in a chunk of its own with
# `"object": ""`, then `content_filter_results` on every choice, `{}` where nothing was rated)
SAFE = {"hate": {"filtered": False, "severity": "safe"}, "self_harm": {"filtered": False, "severity": "safe"},
        "sexual": {"filtered": False, "severity": "safe"}, "violence": {"filtered": False, "severity": "safe"}}
AZ = "gpt-4o-2024-11-20"
cid = "chatcmpl-AzF1lt3r"
prompt_filters = [{"prompt_index": 0, "content_filter_results": dict(SAFE, jailbreak={"filtered": False, "detected": False})}]
recs = [{"choices": [], "created": 0, "id": "", "model": "", "object": "", "prompt_filter_results": prompt_filters}]


def az(delta, results, finish=None):
    r = chunk(cid, delta, finish=finish, model=AZ)
    r["choices"][0]["content_filter_results"] = results
    r["system_fingerprint"] = "fp_ee1d74bde0"
    return r


recs += [az({"content": "", "refusal": None, "role": "assistant"}, {})]
for piece in ["The build ", "passes on ", "all three targets."]:
    recs.append(az({"content": piece}, SAFE))
recs += [az({}, {}, finish="stop")]
write("ok/azure-filter-results-first-chunk-without-object.sse", sse(recs))
write("ok/azure-content-filter-stop-body.json", json.dumps({
    "choices": [{"content_filter_results": dict(SAFE, violence={"filtered": True, "severity": "medium"}),
                 "finish_reason": "content_filter", "index": 0, "logprobs": None,
                 "message": {"content": "I can describe the", "refusal": None, "role": "assistant"}}],
    "created": 1767226500, "id": "chatcmpl-AzF1lt3rd", "model": AZ, "object": "chat.completion",
    "prompt_filter_results": prompt_filters, "system_fingerprint": "fp_ee1d74bde0",
    "usage": u(31, 4)}, indent=2) + "\n")

# --- Responses API ------------------------------------------------------------------------
RID = "resp_68af1c2e9f3481a2b7c4d5e6f7a8b9c0"
RM = "o4-mini-2025-04-16"
seq = [0]


def ev(kind, **fields):
    seq[0] += 1
    r = {"type": kind, "sequence_number": seq[0]}
    r.update(fields)
    return r


def resp(status, output, usage=None, model=None, **extra):
    r = {"id": RID, "object": "response", "created_at": 1767226100, "status": status, "error": None,
         "incomplete_details": None, "model": model or RM, "output": output, "parallel_tool_calls": True,
         "usage": usage}
    r.update(extra)
    return r


def ru(inp, out, cached=0, reasoning=0):
    return {"input_tokens": inp, "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": out, "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": inp + out}


rs = {"id": "rs_01", "type": "reasoning", "summary": [{"type": "summary_text", "text": "**Plan**\n\nList the files, then count."}], "encrypted_content": "gAAAAABo1aS-enc01"}
msg = {"id": "msg_02", "type": "message", "status": "completed", "role": "assistant",
       "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "I'll count them with find."}]}
fc = {"id": "fc_03", "type": "function_call", "status": "completed", "arguments": SHELL_ARGS,
      "call_id": "call_R3sp0nses", "name": "shell"}
seq[0] = -1
recs = [ev("response.created", response=resp("in_progress", [])),
        ev("response.in_progress", response=resp("in_progress", [])),
        ev("response.output_item.added", output_index=0, item={"id": "rs_01", "type": "reasoning", "summary": []}),
        ev("response.reasoning_summary_part.added", item_id="rs_01", output_index=0, summary_index=0, part={"type": "summary_text", "text": ""}),
        ev("response.reasoning_summary_text.delta", item_id="rs_01", output_index=0, summary_index=0, delta="**Plan**\n\n"),
        ev("response.reasoning_summary_text.delta", item_id="rs_01", output_index=0, summary_index=0, delta="List the files, then count."),
        ev("response.reasoning_summary_text.done", item_id="rs_01", output_index=0, summary_index=0, text="**Plan**\n\nList the files, then count."),
        ev("response.reasoning_summary_part.done", item_id="rs_01", output_index=0, summary_index=0, part={"type": "summary_text", "text": "**Plan**\n\nList the files, then count."}),
        ev("response.output_item.done", output_index=0, item=rs),
        ev("response.output_item.added", output_index=1, item={"id": "msg_02", "type": "message", "status": "in_progress", "role": "assistant", "content": []}),
        ev("response.content_part.added", item_id="msg_02", output_index=1, content_index=0, part={"type": "output_text", "annotations": [], "text": ""}),
        ev("response.output_text.delta", item_id="msg_02", output_index=1, content_index=0, delta="I'll count them", logprobs=[]),
        ev("response.output_text.delta", item_id="msg_02", output_index=1, content_index=0, delta=" with find.", logprobs=[]),
        ev("response.output_text.done", item_id="msg_02", output_index=1, content_index=0, text="I'll count them with find.", logprobs=[]),
        ev("response.content_part.done", item_id="msg_02", output_index=1, content_index=0, part={"type": "output_text", "annotations": [], "text": "I'll count them with find."}),
        ev("response.output_item.done", output_index=1, item=msg),
        ev("response.output_item.added", output_index=2, item={"id": "fc_03", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_R3sp0nses", "name": "shell"})]
for i in range(0, len(SHELL_ARGS), 8):
    recs.append(ev("response.function_call_arguments.delta", item_id="fc_03", output_index=2, delta=SHELL_ARGS[i:i + 8]))
recs += [ev("response.function_call_arguments.done", item_id="fc_03", output_index=2, arguments=SHELL_ARGS),
         ev("response.output_item.done", output_index=2, item=fc),
         ev("response.completed", response=resp("completed", [rs, msg, fc], ru(1200, 180, cached=1024, reasoning=128)))]
write("ok/responses-stream-reasoning-text-function-call.sse", events(recs))

# The same response as one body (non-streaming), for the streamed == non-streamed check.
write("ok/responses-object-reasoning-text-function-call.json",
      json.dumps(resp("completed", [rs, msg, fc], ru(1200, 180, cached=1024, reasoning=128)), indent=2) + "\n")

# --- litellm #27144: arguments only in function_call_arguments.done -----------------------
seq[0] = -1
RID = "resp_27144"
recs = [ev("response.created", response=resp("in_progress", [])),
        ev("response.output_item.added", output_index=0, item={"id": "fc_27144", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_27144", "name": "get_weather"}),
        ev("response.function_call_arguments.done", item_id="fc_27144", output_index=0, arguments=c({"city": "Lisbon"})),
        ev("response.completed", response=resp("completed", [], ru(90, 20)))]
write("ok/litellm-27144-arguments-only-in-done-event.sse", events(recs))

# --- litellm PR #38809: a reasoning item with a signature and no text ---------------------
seq[0] = -1
RID = "resp_38809"
enc = {"id": "rs_38809", "type": "reasoning", "summary": [], "encrypted_content": "gAAAAABo1aS-only-signature"}
answer = {"id": "msg_38809", "type": "message", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "annotations": [], "text": "Done."}]}
recs = [ev("response.created", response=resp("in_progress", [])),
        ev("response.output_item.added", output_index=0, item={"id": "rs_38809", "type": "reasoning", "summary": []}),
        ev("response.output_item.done", output_index=0, item=enc),
        ev("response.output_item.added", output_index=1, item={"id": "msg_38809", "type": "message", "status": "in_progress", "role": "assistant", "content": []}),
        ev("response.output_text.delta", item_id="msg_38809", output_index=1, content_index=0, delta="Done."),
        ev("response.output_item.done", output_index=1, item=answer),
        ev("response.completed", response=resp("completed", [enc, answer], ru(50, 70, reasoning=64)))]
write("ok/litellm-38809-signature-only-reasoning-kept.sse", events(recs))

# --- pydantic-ai #2149: two reasoning items stay two thinking blocks ----------------------
seq[0] = -1
RID = "resp_2149"
r1 = {"id": "rs_2149a", "type": "reasoning", "summary": [{"type": "summary_text", "text": "First idea."}, {"type": "summary_text", "text": "Second part."}]}
r2 = {"id": "rs_2149b", "type": "reasoning", "summary": [{"type": "summary_text", "text": "After the tool."}]}
recs = [ev("response.created", response=resp("in_progress", [])),
        ev("response.output_item.added", output_index=0, item={"id": "rs_2149a", "type": "reasoning", "summary": []}),
        ev("response.reasoning_summary_text.delta", item_id="rs_2149a", output_index=0, summary_index=0, delta="First idea."),
        ev("response.reasoning_summary_text.delta", item_id="rs_2149a", output_index=0, summary_index=1, delta="Second part."),
        ev("response.output_item.done", output_index=0, item=r1),
        ev("response.output_item.added", output_index=1, item={"id": "rs_2149b", "type": "reasoning", "summary": []}),
        ev("response.reasoning_summary_text.delta", item_id="rs_2149b", output_index=1, summary_index=0, delta="After the tool."),
        ev("response.output_item.done", output_index=1, item=r2),
        ev("response.completed", response=resp("completed", [r1, r2], ru(30, 90, reasoning=90)))]
write("ok/pydantic-2149-separate-reasoning-items.sse", events(recs))

# --- pydantic-ai #7911: response.incomplete (max_output_tokens) ---------------------------
seq[0] = -1
RID = "resp_7911"
part = {"id": "msg_7911", "type": "message", "status": "incomplete", "role": "assistant", "content": [{"type": "output_text", "annotations": [], "text": "The first three steps are"}]}
recs = [ev("response.created", response=resp("in_progress", [])),
        ev("response.output_item.added", output_index=0, item={"id": "msg_7911", "type": "message", "status": "in_progress", "role": "assistant", "content": []}),
        ev("response.output_text.delta", item_id="msg_7911", output_index=0, content_index=0, delta="The first three "),
        ev("response.output_text.delta", item_id="msg_7911", output_index=0, content_index=0, delta="steps are"),
        ev("response.output_item.done", output_index=0, item=part),
        ev("response.incomplete", response=resp("incomplete", [part], ru(60, 16), incomplete_details={"reason": "max_output_tokens"}))]
write("ok/pydantic-7911-responses-incomplete-max-output-tokens.sse", events(recs))

# --- a custom tool's free-form input streamed as deltas equal to the final copy ------------
# (openai/codex's apply_patch custom tool; openai-python ResponseCustomToolCallInputDeltaEvent)
seq[0] = -1
RID = "resp_custom_patch"
PATCH = "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+First line\n*** End Patch"
ct = {"type": "custom_tool_call", "id": "ctc_01", "status": "completed", "call_id": "call_patch01", "name": "apply_patch", "input": PATCH}
recs = [ev("response.created", response=resp("in_progress", [])),
        ev("response.output_item.added", output_index=0, item={"type": "custom_tool_call", "id": "ctc_01", "status": "in_progress", "call_id": "call_patch01", "name": "apply_patch", "input": ""})]
for i in range(0, len(PATCH), 11):
    recs.append(ev("response.custom_tool_call_input.delta", item_id="ctc_01", output_index=0, delta=PATCH[i:i + 11]))
recs += [ev("response.custom_tool_call_input.done", item_id="ctc_01", output_index=0, input=PATCH),
         ev("response.output_item.done", output_index=0, item=ct),
         ev("response.completed", response=resp("completed", [ct], ru(410, 38)))]
write("ok/custom-tool-input-deltas-equal-final-copy.sse", events(recs))

# --- Responses server tools: the provider runs them; each item carries its own result -----
# Shapes: openai-python ResponseFunctionWebSearch, ResponseFileSearchToolCall,
# ResponseCodeInterpreterToolCall, ImageGenerationCall (plus the fields the API sends beyond
# the type: action, revised_prompt, size, quality, background, output_format), McpListTools,
# McpCall; their progress events (response.<tool>.in_progress / searching / interpreting /
# generating / partial_image / completed) and argument / code deltas.
seq[0] = -1
RID = "resp_server_tools"
SM = "gpt-5.4-mini-2026-03-17"
ws = {"id": "ws_01", "type": "web_search_call", "status": "completed",
      "action": {"type": "search", "query": "rust 1.90 release notes",
                 "sources": [{"type": "url", "url": "https://blog.rust-lang.org/releases/1.90.0/"}]}}
fs = {"id": "fs_02", "type": "file_search_call", "status": "completed", "queries": ["MSRV policy"],
      "results": [{"file_id": "file-9Kq2", "filename": "CONTRIBUTING.md", "score": 0.91,
                   "text": "The minimum supported Rust version is the one in Cargo.toml.", "attributes": {}}]}
CODE = "import math\nprint(math.comb(10, 3))"
ci = {"id": "ci_03", "type": "code_interpreter_call", "status": "completed", "code": CODE,
      "container_id": "cntr_68b1a2", "outputs": [{"type": "logs", "logs": "120\n"}]}
ig = {"id": "ig_04", "type": "image_generation_call", "status": "completed", "action": "generate",
      "background": "opaque", "output_format": "png", "quality": "low", "size": "1024x1024",
      "revised_prompt": "A small crab logo, flat orange on white.", "result": "iVBORw0KGgoAAAANSUhEUg=="}
ml = {"id": "mcpl_05", "type": "mcp_list_tools", "server_label": "deepwiki",
      "tools": [{"name": "ask_question", "input_schema": {"type": "object", "properties": {"repoName": {"type": "string"}, "question": {"type": "string"}}},
                 "description": "Ask a question about a repository", "annotations": None}]}
MCP_ARGS = c({"repoName": "rust-lang/rust", "question": "Where is the MSRV documented?"})
mc = {"id": "mcp_06", "type": "mcp_call", "status": "completed", "approval_request_id": None,
      "arguments": MCP_ARGS, "error": None, "name": "ask_question", "server_label": "deepwiki",
      "output": "In src/doc/rustc/src/platform-support.md."}
answer = {"id": "msg_07", "type": "message", "status": "completed", "role": "assistant",
          "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "Rust 1.90 is out; comb(10, 3) is 120."}]}
output = [ws, fs, ci, ig, ml, mc, answer]
usage = ru(2210, 301, cached=1024, reasoning=64)


def added(item, **blank):
    r = dict(item)
    r.update(status="in_progress", **blank)
    return r


recs = [ev("response.created", response=resp("in_progress", [], model=SM)),
        ev("response.output_item.added", output_index=0, item=added(ws, action={"type": "search"})),
        ev("response.web_search_call.in_progress", output_index=0, item_id="ws_01"),
        ev("response.web_search_call.searching", output_index=0, item_id="ws_01"),
        ev("response.web_search_call.completed", output_index=0, item_id="ws_01"),
        ev("response.output_item.done", output_index=0, item=ws),
        ev("response.output_item.added", output_index=1, item=added(fs, results=None)),
        ev("response.file_search_call.in_progress", output_index=1, item_id="fs_02"),
        ev("response.file_search_call.searching", output_index=1, item_id="fs_02"),
        ev("response.file_search_call.completed", output_index=1, item_id="fs_02"),
        ev("response.output_item.done", output_index=1, item=fs),
        ev("response.output_item.added", output_index=2, item=added(ci, code="", outputs=None)),
        ev("response.code_interpreter_call.in_progress", output_index=2, item_id="ci_03")]
for i in range(0, len(CODE), 12):
    recs.append(ev("response.code_interpreter_call_code.delta", output_index=2, item_id="ci_03", delta=CODE[i:i + 12]))
recs += [ev("response.code_interpreter_call_code.done", output_index=2, item_id="ci_03", code=CODE),
         ev("response.code_interpreter_call.interpreting", output_index=2, item_id="ci_03"),
         ev("response.code_interpreter_call.completed", output_index=2, item_id="ci_03"),
         ev("response.output_item.done", output_index=2, item=ci),
         ev("response.output_item.added", output_index=3, item=added(ig, result=None)),
         ev("response.image_generation_call.in_progress", output_index=3, item_id="ig_04"),
         ev("response.image_generation_call.generating", output_index=3, item_id="ig_04"),
         ev("response.image_generation_call.partial_image", output_index=3, item_id="ig_04",
            partial_image_index=0, partial_image_b64="iVBORw0KGgo=", size="1024x1024", quality="low",
            background="opaque", output_format="png"),
         ev("response.image_generation_call.completed", output_index=3, item_id="ig_04"),
         ev("response.output_item.done", output_index=3, item=ig),
         ev("response.output_item.added", output_index=4, item={"id": "mcpl_05", "type": "mcp_list_tools", "server_label": "deepwiki", "tools": []}),
         ev("response.mcp_list_tools.in_progress", output_index=4, item_id="mcpl_05"),
         ev("response.mcp_list_tools.completed", output_index=4, item_id="mcpl_05"),
         ev("response.output_item.done", output_index=4, item=ml),
         ev("response.output_item.added", output_index=5, item=added(mc, arguments="", output=None)),
         ev("response.mcp_call.in_progress", output_index=5, item_id="mcp_06")]
for i in range(0, len(MCP_ARGS), 16):
    recs.append(ev("response.mcp_call_arguments.delta", output_index=5, item_id="mcp_06", delta=MCP_ARGS[i:i + 16]))
recs += [ev("response.mcp_call_arguments.done", output_index=5, item_id="mcp_06", arguments=MCP_ARGS),
         ev("response.mcp_call.completed", output_index=5, item_id="mcp_06"),
         ev("response.output_item.done", output_index=5, item=mc),
         ev("response.output_item.added", output_index=6, item={"id": "msg_07", "type": "message", "status": "in_progress", "role": "assistant", "content": []}),
         ev("response.output_text.delta", item_id="msg_07", output_index=6, content_index=0, delta="Rust 1.90 is out; "),
         ev("response.output_text.delta", item_id="msg_07", output_index=6, content_index=0, delta="comb(10, 3) is 120."),
         ev("response.output_item.done", output_index=6, item=answer),
         ev("response.completed", response=resp("completed", output, usage, model=SM))]
write("ok/responses-server-tools-stream.sse", events(recs))
# The same response as one body: the streamed and whole forms must agree.
write("ok/responses-server-tools-body.json", json.dumps(resp("completed", output, usage, model=SM), indent=2) + "\n")

# --- Responses tools the client runs: apply_patch, shell (local), computer, tool_search ----
# A response asks for four calls; the next request (previous_response_id, so only new items)
# carries their outputs; the last response answers. Shapes: openai-python
# ResponseApplyPatchToolCall / ResponseFunctionShellToolCall / ResponseComputerToolCall /
# ResponseToolSearchCall and the input items ApplyPatchCallOutput, ShellCallOutput,
# ComputerCallOutput, ToolSearchOutput.
RID = "resp_client_tools1"
ap = {"type": "apply_patch_call", "id": "apc_01", "call_id": "call_ap1", "status": "completed",
      "operation": {"type": "create_file", "path": "notes.md", "diff": "@@\n+# Notes\n"}}
sh = {"type": "shell_call", "id": "shc_02", "call_id": "call_sh1", "status": "completed",
      "action": {"commands": ["cargo fmt --check", "cargo test -q"], "timeout_ms": 120000, "max_output_length": 4096},
      "environment": {"type": "local"}}
cu = {"type": "computer_call", "id": "cu_03", "call_id": "call_cu1", "status": "completed",
      "action": {"type": "screenshot"}, "pending_safety_checks": []}
ts = {"type": "tool_search_call", "id": "tsc_04", "call_id": "call_ts1", "status": "completed",
      "execution": "client", "arguments": {"query": "issue tracker"}}
first = resp("completed", [ap, sh, cu, ts], ru(900, 140), model=SM)
RID = "resp_client_tools2"
followup = {"model": SM, "previous_response_id": "resp_client_tools1", "input": [
    {"type": "apply_patch_call_output", "call_id": "call_ap1", "status": "failed", "output": "notes.md already exists"},
    {"type": "shell_call_output", "call_id": "call_sh1", "max_output_length": 4096, "output": [
        {"stdout": "", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
        {"stdout": "running 3 tests\n", "stderr": "test parse ... FAILED\n", "outcome": {"type": "exit", "exit_code": 101}}]},
    {"type": "computer_call_output", "call_id": "call_cu1", "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBORw0KGgo="}},
    {"type": "tool_search_output", "call_id": "call_ts1", "execution": "client", "status": "completed",
     "tools": [{"type": "function", "name": "create_issue", "parameters": {"type": "object"}}]}]}
last = resp("completed", [{"id": "msg_ct", "type": "message", "status": "completed", "role": "assistant",
                           "content": [{"type": "output_text", "annotations": [], "text": "The patch failed and one test fails; I can file an issue."}]}],
            ru(1400, 22, cached=896), model=SM)
write("ok/responses-client-tools-apply-patch-shell-computer-search.jsonl",
      "".join(c(x) + "\n" for x in [first, followup, last]))

# --- MCP on the Responses API: listing, approval requests answered yes and no, a failed call
RID = "resp_mcp1"
ml2 = {"id": "mcpl_11", "type": "mcp_list_tools", "server_label": "gitmcp",
       "tools": [{"name": "search_code", "input_schema": {"type": "object"}}, {"name": "delete_branch", "input_schema": {"type": "object"}}]}
ar1 = {"id": "mcpr_12", "type": "mcp_approval_request", "server_label": "gitmcp", "name": "search_code", "arguments": c({"query": "fn main"})}
ar2 = {"id": "mcpr_13", "type": "mcp_approval_request", "server_label": "gitmcp", "name": "delete_branch", "arguments": c({"branch": "main"})}
asks = resp("completed", [ml2, ar1, ar2], ru(700, 60), model=SM)
RID = "resp_mcp2"
answers = {"model": SM, "previous_response_id": "resp_mcp1", "input": [
    {"type": "mcp_approval_response", "approval_request_id": "mcpr_12", "approve": True},
    {"type": "mcp_approval_response", "approval_request_id": "mcpr_13", "approve": False, "reason": "never delete main"}]}
failed_call = {"id": "mcp_14", "type": "mcp_call", "status": "failed", "approval_request_id": "mcpr_12",
               "server_label": "gitmcp", "name": "search_code", "arguments": c({"query": "fn main"}), "output": None,
               "error": {"type": "mcp_protocol_error", "code": -32603, "message": "index not ready"}}
after = resp("completed", [failed_call, {"id": "msg_15", "type": "message", "status": "completed", "role": "assistant",
                                         "content": [{"type": "output_text", "annotations": [], "text": "The code search failed: the index is not ready."}]}],
             ru(1100, 30), model=SM)
write("ok/responses-mcp-approvals-and-failed-call.jsonl", "".join(c(x) + "\n" for x in [asks, answers, after]))

# --- a shell in a hosted container and a server-side tool search: their outputs are items of
# the response itself (openai-python ResponseFunctionShellToolCallOutput, ResponseToolSearchOutputItem)
RID = "resp_hosted"
hosted = {"type": "shell_call", "id": "shc_21", "call_id": "call_sh21", "status": "completed",
          "action": {"commands": ["python3 --version"], "timeout_ms": 10000},
          "environment": {"type": "container_reference", "container_id": "cntr_68b1a2"}}
hosted_out = {"type": "shell_call_output", "id": "sho_22", "call_id": "call_sh21", "status": "completed",
              "output": [{"stdout": "Python 3.12.4\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]}
srv_ts = {"type": "tool_search_call", "id": "tsc_23", "call_id": "call_ts23", "status": "completed",
          "execution": "server", "arguments": {"query": "weather"}}
srv_out = {"type": "tool_search_output", "id": "tso_24", "call_id": "call_ts23", "status": "completed",
           "execution": "server", "tools": [{"type": "function", "name": "get_forecast", "parameters": {"type": "object"}}]}
done_msg = {"id": "msg_25", "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "annotations": [], "text": "Python 3.12.4 is installed."}]}
write("ok/responses-hosted-shell-and-server-tool-search-outputs.json",
      json.dumps(resp("completed", [hosted, hosted_out, srv_ts, srv_out, done_msg], ru(800, 45), model=SM), indent=2) + "\n")

# --- Responses url_citation annotations, streamed (annotation.added) and in the final copy --
# openai-python AnnotationURLCitation / ResponseOutputTextAnnotationAddedEvent; the offsets
# count characters of the part's text (the em dash is one character, three bytes).
seq[0] = -1
RID = "resp_cited"
CITED = ("Rust 1.90 — LLD is now the default linker on x86_64 Linux "
         "([blog.rust-lang.org](https://blog.rust-lang.org/2025/09/18/Rust-1.90.0/)), "
         "and `cargo publish --workspace` is stable ([doc.rust-lang.org](https://doc.rust-lang.org/cargo/)).")


def url_citation(link, url, title):
    start = CITED.index(link)
    return {"type": "url_citation", "start_index": start, "end_index": start + len(link), "url": url, "title": title}


notes = [url_citation("[blog.rust-lang.org](https://blog.rust-lang.org/2025/09/18/Rust-1.90.0/)",
                      "https://blog.rust-lang.org/2025/09/18/Rust-1.90.0/", "Announcing Rust 1.90.0"),
         url_citation("[doc.rust-lang.org](https://doc.rust-lang.org/cargo/)",
                      "https://doc.rust-lang.org/cargo/", "The Cargo Book")]
ws2 = {"id": "ws_c1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "rust 1.90 lld default linker"}}
cmsg = {"id": "msg_c2", "type": "message", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "annotations": notes, "logprobs": [], "text": CITED}]}
recs = [ev("response.created", response=resp("in_progress", [], model=SM)),
        ev("response.output_item.added", output_index=0, item=dict(ws2, status="in_progress")),
        ev("response.web_search_call.in_progress", output_index=0, item_id="ws_c1"),
        ev("response.web_search_call.searching", output_index=0, item_id="ws_c1"),
        ev("response.web_search_call.completed", output_index=0, item_id="ws_c1"),
        ev("response.output_item.done", output_index=0, item=ws2),
        ev("response.output_item.added", output_index=1, item={"id": "msg_c2", "type": "message", "status": "in_progress", "role": "assistant", "content": []}),
        ev("response.content_part.added", item_id="msg_c2", output_index=1, content_index=0, part={"type": "output_text", "annotations": [], "text": ""})]
for i in range(0, len(CITED), 24):
    recs.append(ev("response.output_text.delta", item_id="msg_c2", output_index=1, content_index=0, delta=CITED[i:i + 24], logprobs=[]))
for n, note in enumerate(notes):
    recs.append(ev("response.output_text.annotation.added", item_id="msg_c2", output_index=1, content_index=0, annotation_index=n, annotation=note))
recs += [ev("response.output_text.done", item_id="msg_c2", output_index=1, content_index=0, text=CITED, logprobs=[]),
         ev("response.content_part.done", item_id="msg_c2", output_index=1, content_index=0, part={"type": "output_text", "annotations": notes, "text": CITED}),
         ev("response.output_item.done", output_index=1, item=cmsg),
         ev("response.completed", response=resp("completed", [ws2, cmsg], ru(5200, 160), model=SM))]
write("ok/responses-url-citations-streamed-and-final.sse", events(recs))
write("ok/responses-url-citations-body.json", json.dumps(resp("completed", [ws2, cmsg], ru(5200, 160), model=SM), indent=2) + "\n")

# --- file citations in a body: file_citation, container_file_citation, file_path ----------
# (openai-python AnnotationFileCitation / AnnotationContainerFileCitation / AnnotationFilePath;
# a message of two output_text parts, so the second part's offsets move by the first's length)
RID = "resp_files"
P1 = "The contributing guide sets the MSRV. "
P2 = "I plotted the build times: see build_times.png."
fsc = {"id": "fs_f1", "type": "file_search_call", "status": "completed", "queries": ["MSRV"], "results": None}
cic = {"id": "ci_f2", "type": "code_interpreter_call", "status": "completed", "code": "plot()", "container_id": "cntr_f2",
       "outputs": [{"type": "logs", "logs": "saved build_times.png\n"}]}
fmsg = {"id": "msg_f3", "type": "message", "status": "completed", "role": "assistant", "content": [
    {"type": "output_text", "text": P1, "logprobs": [], "annotations": [
        {"type": "file_citation", "file_id": "file-9Kq2", "filename": "CONTRIBUTING.md", "index": 37}]},
    {"type": "output_text", "text": P2, "logprobs": [], "annotations": [
        {"type": "container_file_citation", "container_id": "cntr_f2", "file_id": "cfile_68b2", "filename": "build_times.png",
         "start_index": P2.index("build_times.png"), "end_index": P2.index("build_times.png") + len("build_times.png")},
        {"type": "file_path", "file_id": "cfile_68b2", "index": 0}]}]}
write("ok/responses-file-citations-two-text-parts.json",
      json.dumps(resp("completed", [fsc, cic, fmsg], ru(3100, 90), model=SM), indent=2) + "\n")

# --- Chat Completions annotations: nested url_citation (gpt-4o-search-preview body) --------
cited_chat = "The 2025 Rust survey had 7,156 responses ([blog.rust-lang.org](https://blog.rust-lang.org/2026/02/survey/))."
link = "[blog.rust-lang.org](https://blog.rust-lang.org/2026/02/survey/)"
write("ok/chat-search-preview-nested-url-citation.json", c({
    "id": "chatcmpl-search1", "object": "chat.completion", "created": 1767226300, "model": "gpt-4o-search-preview-2025-03-11",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": cited_chat, "refusal": None, "annotations": [
        {"type": "url_citation", "url_citation": {"start_index": cited_chat.index(link), "end_index": cited_chat.index(link) + len(link),
                                                  "title": "2025 State of Rust Survey Results", "url": "https://blog.rust-lang.org/2026/02/survey/"}}]},
                 "logprobs": None, "finish_reason": "stop"}],
    "usage": u(12, 48), "service_tier": "default", "system_fingerprint": ""}) + "\n")

# --- OpenRouter web search: annotations in a streamed delta (url_citation with `content`) ---
cid = "gen-1767226400-web"
OR = "openai/gpt-4.1-mini:online"
otext = "Tokio 1.48 is the latest release [tokio.rs](https://tokio.rs/blog)."
olink = "[tokio.rs](https://tokio.rs/blog)"
recs = [chunk(cid, {"role": "assistant", "content": ""}, model=OR)]
recs += text_deltas(cid, otext, size=10, model=OR)
recs += [chunk(cid, {"role": "assistant", "content": "", "annotations": [
    {"type": "url_citation", "url_citation": {"url": "https://tokio.rs/blog", "title": "Tokio blog", "content": "Tokio 1.48 released ...",
                                              "start_index": otext.index(olink), "end_index": otext.index(olink) + len(olink)}}]}, model=OR),
         chunk(cid, {"role": "assistant", "content": ""}, finish="stop", model=OR, native_finish_reason="stop",
               usage={"prompt_tokens": 1900, "completion_tokens": 20, "total_tokens": 1920})]
for r in recs:
    r["provider"] = "OpenAI"
    del r["system_fingerprint"]
write("ok/openrouter-online-annotations-in-delta.sse", sse(recs))

# --- Responses: a namespaced function call and messages with a `phase` -------------------
# (openai-python ResponseFunctionToolCall.namespace and `caller`; gpt-5.x messages say whether
# they are `commentary` or the `final_answer`)
RID = "resp_phase"
write("ok/responses-namespace-call-and-message-phase.json", json.dumps(resp("completed", [
    {"id": "msg_p1", "type": "message", "status": "completed", "role": "assistant", "phase": "commentary",
     "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "Looking up the customer first."}]},
    {"id": "fc_p2", "type": "function_call", "status": "completed", "namespace": "crm", "name": "lookup_customer",
     "call_id": "call_ns1", "arguments": c({"email": "ada@example.com"}), "caller": {"type": "direct"}},
], ru(640, 48), model=SM), indent=2) + "\n")

# --- a Responses request with `instructions` and an image part, then the answer ----------
RID = "resp_image"
req_img = {"model": SM, "instructions": "You are a terse UI reviewer.", "input": [
    {"role": "user", "content": [{"type": "input_text", "text": "What is wrong with this dialog?"},
                                 {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}]}]}
ans_img = resp("completed", [{"id": "msg_i1", "type": "message", "status": "completed", "role": "assistant", "phase": "final_answer",
                              "content": [{"type": "output_text", "annotations": [], "text": "The OK button is clipped."}]}],
               ru(120, 8), model=SM)
write("ok/responses-request-instructions-and-input-image.jsonl", c(req_img) + "\n" + c(ans_img) + "\n")

# --- Responses error event + response.failed ----------------------------------------------
seq[0] = -1
RID = "resp_failed"
recs = [ev("response.created", response=resp("in_progress", [])),
        ev("response.output_item.added", output_index=0, item={"id": "msg_f", "type": "message", "status": "in_progress", "role": "assistant", "content": []}),
        ev("response.output_text.delta", item_id="msg_f", output_index=0, content_index=0, delta="Partial answ"),
        ev("error", code="server_error", message="The server had an error while processing your request.", param=None),
        ev("response.failed", response=resp("failed", [], None, error={"code": "server_error", "message": "The server had an error while processing your request."}))]
write("ok/responses-error-event-and-failed.sse", events(recs))

# --- a proxy that gives the same item a new id on every event (recorded traffic) ----------
# Only `output_index` stays put; the item, its deltas and its final copy each name a
# different id.
seq[0] = -1
RID = "resp_reid"
final_text = "Same item, four ids."
recs = [ev("response.created", response=resp("in_progress", [])),
        ev("response.output_item.added", output_index=0, item={"id": "msg_r1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}),
        ev("response.output_text.delta", item_id="msg_r2", output_index=0, content_index=0, delta="Same item, "),
        ev("response.output_text.delta", item_id="msg_r3", output_index=0, content_index=0, delta="four ids."),
        ev("response.output_item.done", output_index=0, item={"id": "msg_r4", "type": "message", "status": "completed", "role": "assistant",
                                                              "content": [{"type": "output_text", "annotations": [], "text": final_text}]}),
        ev("response.output_item.added", output_index=1, item={"id": "fc_r5", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_reid", "name": "get_time"}),
        ev("response.function_call_arguments.delta", item_id="fc_r6", output_index=1, delta="{\"tz\":"),
        ev("response.function_call_arguments.delta", item_id="fc_r7", output_index=1, delta="\"UTC\"}"),
        ev("response.output_item.done", output_index=1, item={"id": "fc_r8", "type": "function_call", "status": "completed", "arguments": c({"tz": "UTC"}), "call_id": "call_reid", "name": "get_time"}),
        ev("response.completed", response=resp("completed", [], ru(40, 12)))]
write("ok/proxy-new-item-id-on-every-event.sse", events(recs))

# --- an error event with its details in an `error` object (can1357/oh-my-pi PR #2570) -----
seq[0] = -1
RID = "resp_nested_err"
recs = [ev("response.created", response=resp("in_progress", [])),
        ev("response.output_item.added", output_index=0, item={"id": "msg_ne", "type": "message", "status": "in_progress", "role": "assistant", "content": []}),
        ev("response.output_text.delta", item_id="msg_ne", output_index=0, content_index=0, delta="Reading the whole"),
        ev("error", error={"type": "invalid_request_error", "code": "context_length_exceeded",
                           "message": "Your input exceeds the context window of this model.", "param": "input"})]
write("ok/oh-my-pi-2570-error-event-nested-error-object.sse", events(recs))

# --- Responses request with function_call_output + the final response body ----------------
RID = "resp_req"
req = {"model": RM, "instructions": "You are a coding agent.", "input": [
    {"role": "user", "content": [{"type": "input_text", "text": "How many Rust files are in src?"}]},
    {"type": "reasoning", "id": "rs_01", "summary": [], "encrypted_content": "gAAAAABo1aS-enc01"},
    {"type": "function_call", "id": "fc_03", "call_id": "call_R3sp0nses", "name": "shell", "arguments": SHELL_ARGS},
    {"type": "function_call_output", "call_id": "call_R3sp0nses", "output": "12\n"}],
    "tools": [{"type": "function", "name": "shell", "parameters": {"type": "object"}}], "store": False,
    "include": ["reasoning.encrypted_content"]}
final = resp("completed", [{"id": "msg_04", "type": "message", "status": "completed", "role": "assistant",
                            "content": [{"type": "output_text", "annotations": [], "text": "There are 12 Rust files in src."}]}],
             ru(1500, 12, cached=1152))
write("ok/responses-request-function-call-output-and-body.jsonl", c(req) + "\n" + c(final) + "\n")

# --- a conversation of two exchanges: requests repeat the history -------------------------
q = {"role": "user", "content": "What is in Cargo.toml?"}
call = {"role": "assistant", "content": None, "tool_calls": [{"id": "call_conv1", "type": "function", "function": {"name": "read_file", "arguments": c({"path": "Cargo.toml"})}}]}
r1 = {"id": "chatcmpl-conv1", "object": "chat.completion", "created": 1767226200, "model": MODEL,
      "choices": [{"index": 0, "message": call, "finish_reason": "tool_calls"}], "usage": u(100, 20)}
r2 = {"id": "chatcmpl-conv2", "object": "chat.completion", "created": 1767226205, "model": MODEL,
      "choices": [{"index": 0, "message": {"role": "assistant", "content": "It declares the axt package."}, "finish_reason": "stop"}],
      "usage": u(160, 9, cached=100)}
lines = [{"model": MODEL, "messages": [q]}, r1,
         {"model": MODEL, "messages": [q, call, {"role": "tool", "tool_call_id": "call_conv1", "content": "[package]\nname = \"axt\"\n"}]}, r2]
write("ok/conversation-two-exchanges-history-repeated.jsonl", "".join(c(x) + "\n" for x in lines))

# --- error-only bodies: the shape of the error object says whose they are ----------------
# OpenAI's HTTP error body, pretty-printed as the API sends it: {message, type, param, code}.
write("ok/error-only-body-openai-shape.json", json.dumps({"error": {
    "message": "Incorrect API key provided: sk-proj-****************abcd. You can find your API key at https://platform.openai.com/account/api-keys.",
    "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}}, indent=2) + "\n")
# vLLM's (older) error response: the error fields at the top, `"object": "error"`.
write("ok/vllm-error-object-at-top-level.json", c({
    "object": "error", "message": "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.",
    "type": "BadRequestError", "param": None, "code": 400}) + "\n")

# --- hosted tool search: the call and its output both have `call_id: null` ---------------
# (gpt-5.4's hosted tool search as recorded in vercel/ai's openai-tool-search fixture and
# openai-python ResponseToolSearchCall / ResponseToolSearchOutputItem, `call_id: Optional`):
# the output answers the search before it. Two searches in one response, then the answer.
TS_MODEL = "gpt-5.4-2026-03-05"
RID = "resp_ts_null"
weather_tool = {"type": "function", "defer_loading": True, "description": "Get the current weather at a specific location",
                "name": "get_weather", "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                                                      "required": ["location"], "additionalProperties": False}, "strict": True}
mail_tool = {"type": "function", "defer_loading": True, "description": "Send an email to a recipient", "name": "send_email",
             "parameters": {"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
                            "required": ["to", "body"], "additionalProperties": False}, "strict": True}
tsc1 = {"id": "tsc_0a51", "type": "tool_search_call", "status": "completed", "arguments": {"paths": ["get_weather"]},
        "call_id": None, "execution": "server"}
tso1 = {"id": "tso_0a52", "type": "tool_search_output", "status": "completed", "call_id": None, "execution": "server",
        "tools": [weather_tool]}
tsc2 = {"id": "tsc_0a53", "type": "tool_search_call", "status": "completed", "arguments": {"paths": ["send_email"]},
        "call_id": None, "execution": "server"}
tso2 = {"id": "tso_0a54", "type": "tool_search_output", "status": "completed", "call_id": None, "execution": "server",
        "tools": [mail_tool]}
ts_answer = {"id": "msg_0a55", "type": "message", "status": "completed", "role": "assistant", "phase": "final_answer",
             "content": [{"type": "output_text", "annotations": [], "logprobs": [],
                          "text": "I can check the weather and send the email; which city and to whom?"}]}
ts_output = [tsc1, tso1, tsc2, tso2, ts_answer]
ts_usage = ru(640, 46, reasoning=20)
write("ok/responses-hosted-tool-search-call-id-null-body.json",
      json.dumps(resp("completed", ts_output, ts_usage, model=TS_MODEL), indent=2) + "\n")
seq[0] = -1
recs = [ev("response.created", response=resp("in_progress", [], model=TS_MODEL)),
        ev("response.in_progress", response=resp("in_progress", [], model=TS_MODEL))]
for at, (call, out) in enumerate([(tsc1, tso1), (tsc2, tso2)]):
    recs += [ev("response.output_item.added", output_index=2 * at, item=added(call, arguments={})),
             ev("response.output_item.done", output_index=2 * at, item=call),
             ev("response.output_item.added", output_index=2 * at + 1, item=added(out, tools=[])),
             ev("response.output_item.done", output_index=2 * at + 1, item=out)]
recs += [ev("response.output_item.added", output_index=4, item={"id": "msg_0a55", "type": "message", "status": "in_progress",
                                                               "role": "assistant", "phase": "final_answer", "content": []}),
         ev("response.output_text.delta", item_id="msg_0a55", output_index=4, content_index=0, delta="I can check the weather and send the email; "),
         ev("response.output_text.delta", item_id="msg_0a55", output_index=4, content_index=0, delta="which city and to whom?"),
         ev("response.output_item.done", output_index=4, item=ts_answer),
         ev("response.completed", response=resp("completed", ts_output, ts_usage, model=TS_MODEL))]
write("ok/responses-hosted-tool-search-call-id-null-stream.sse", events(recs))

# --- a function loaded by tool search: `namespace` is its own name -----------------------
# (the same recording: `{"type":"function_call","name":"get_weather","namespace":"get_weather"}`),
# beside a function of a real namespace loaded the same way.
RID = "resp_ts_ns"
crm_tools = {"type": "namespace", "name": "crm", "description": "Customer records",
             "tools": [{"type": "function", "name": "lookup_customer", "defer_loading": True,
                        "parameters": {"type": "object", "properties": {"email": {"type": "string"}}}}]}
ns_search = {"id": "tsc_0b61", "type": "tool_search_call", "status": "completed", "arguments": {"paths": ["get_weather", "crm"]},
             "call_id": None, "execution": "server"}
ns_loaded = {"id": "tso_0b62", "type": "tool_search_output", "status": "completed", "call_id": None, "execution": "server",
             "tools": [weather_tool, crm_tools]}
weather_args = c({"location": "San Francisco, CA"})
crm_args = c({"email": "ada@example.com"})
fc_weather = {"id": "fc_0b63", "type": "function_call", "status": "completed", "arguments": weather_args,
              "call_id": "call_ytq0b63", "name": "get_weather", "namespace": "get_weather"}
fc_crm = {"id": "fc_0b64", "type": "function_call", "status": "completed", "arguments": crm_args,
          "call_id": "call_lc0b64", "name": "lookup_customer", "namespace": "crm"}
ns_output = [ns_search, ns_loaded, fc_weather, fc_crm]
ns_usage = ru(702, 61, reasoning=22)
write("ok/responses-function-loaded-by-tool-search-namespace-is-its-name-body.json",
      json.dumps(resp("completed", ns_output, ns_usage, model=TS_MODEL), indent=2) + "\n")
seq[0] = -1
recs = [ev("response.created", response=resp("in_progress", [], model=TS_MODEL)),
        ev("response.output_item.added", output_index=0, item=added(ns_search, arguments={})),
        ev("response.output_item.done", output_index=0, item=ns_search),
        ev("response.output_item.added", output_index=1, item=added(ns_loaded, tools=[])),
        ev("response.output_item.done", output_index=1, item=ns_loaded)]
for at, (call, args) in enumerate([(fc_weather, weather_args), (fc_crm, crm_args)], start=2):
    recs += [ev("response.output_item.added", output_index=at, item=added(call, arguments="")),
             ev("response.function_call_arguments.delta", item_id=call["id"], output_index=at, delta=args[:12]),
             ev("response.function_call_arguments.delta", item_id=call["id"], output_index=at, delta=args[12:]),
             ev("response.function_call_arguments.done", item_id=call["id"], output_index=at, arguments=args),
             ev("response.output_item.done", output_index=at, item=call)]
recs.append(ev("response.completed", response=resp("completed", ns_output, ns_usage, model=TS_MODEL)))
write("ok/responses-function-loaded-by-tool-search-namespace-is-its-name-stream.sse", events(recs))

# --- programmatic tool calling: a `program` item and the calls its code makes --------------
# (gpt-5.6 as recorded in vercel/ai's programmatic-tool-calling fixtures; openai-python
# `Program`, `ProgramOutput`, `ResponseFunctionToolCall.caller` {type: program, caller_id}):
# the provider runs the program; each tool it calls comes back to the client as a
# function_call whose `caller` names the program; the client's output goes back (with the
# same caller) and the program goes on; its `program_output` comes responses later.
PM = "gpt-5.6-sol"
PROGRAM_CODE = ("const inventory = await tools.getInventory({sku: \"sku_123\"});\n"
                "const demand = await tools.getDemand({sku: \"sku_123\"});\n"
                "text(JSON.stringify({sku: \"sku_123\", availableUnits: inventory.availableUnits, "
                "requestedUnits: demand.requestedUnits}));\n")
caller = {"type": "program", "caller_id": "call_prog7"}
p_tools = [{"type": "programmatic_tool_calling"},
           {"type": "function", "name": "getInventory", "allowed_callers": ["programmatic"],
            "parameters": {"type": "object", "properties": {"sku": {"type": "string"}}}},
           {"type": "function", "name": "getDemand", "allowed_callers": ["programmatic"],
            "parameters": {"type": "object", "properties": {"sku": {"type": "string"}}}}]
p_reason = {"id": "rs_7p1", "type": "reasoning", "content": [], "encrypted_content": "gAAAAABqYUX_pr0gram-enc", "summary": []}
program = {"id": "cm_7p2", "type": "program", "call_id": "call_prog7", "code": PROGRAM_CODE, "fingerprint": "gAAAAABqYUXy-fingerprint-7p2"}
fc_inv = {"id": "fc_7p3", "type": "function_call", "status": "in_progress", "arguments": c({"sku": "sku_123"}),
          "call_id": "call_inv7", "caller": caller, "name": "getInventory"}
fc_dem = {"id": "fc_7p4", "type": "function_call", "status": "in_progress", "arguments": c({"sku": "sku_123"}),
          "call_id": "call_dem7", "caller": caller, "name": "getDemand"}
p_result = c({"sku": "sku_123", "availableUnits": 42, "requestedUnits": 31})
p_out = {"id": "cmo_7p5", "type": "program_output", "status": "completed", "call_id": "call_prog7", "result": p_result}
p_msg = {"id": "msg_7p6", "type": "message", "status": "completed", "role": "assistant", "phase": "final_answer",
         "content": [{"type": "output_text", "annotations": [], "logprobs": [],
                      "text": "Inventory is sufficient for sku_123: 42 units available against 31 requested."}]}
p_ask = {"model": PM, "tools": p_tools, "input": [{"role": "user", "content": "Is the inventory of sku_123 enough for its demand?"}]}
RID = "resp_prog1"
p_first = resp("completed", [p_reason, program, fc_inv], ru(410, 180, reasoning=96), model=PM, tools=p_tools)
p_inv_out = {"model": PM, "tools": p_tools, "previous_response_id": "resp_prog1", "input": [
    {"type": "function_call_output", "call_id": "call_inv7", "output": c({"availableUnits": 42}), "caller": caller}]}
RID = "resp_prog2"
p_second = resp("completed", [fc_dem], ru(640, 24), model=PM, tools=p_tools)
p_dem_out = {"model": PM, "tools": p_tools, "previous_response_id": "resp_prog2", "input": [
    {"type": "function_call_output", "call_id": "call_dem7", "output": c({"requestedUnits": 31}), "caller": caller}]}
RID = "resp_prog3"
p_third = resp("completed", [p_out, p_msg], ru(690, 38), model=PM, tools=p_tools)
write("ok/responses-programmatic-tool-calling-program-and-sub-calls-bodies.jsonl",
      "".join(c(x) + "\n" for x in [p_ask, p_first, p_inv_out, p_second, p_dem_out, p_third]))
# The same exchanges with each response streamed (the program's code comes only in its
# `output_item.done`; it is empty in `output_item.added`).
def streamed(rid, output, usage):
    global RID
    RID = rid
    seq[0] = -1
    recs = [ev("response.created", response=resp("in_progress", [], model=PM, tools=p_tools)),
            ev("response.in_progress", response=resp("in_progress", [], model=PM, tools=p_tools))]
    for at, item in enumerate(output):
        blank = {"program": {"code": ""}, "function_call": {"arguments": ""}, "message": {"content": []},
                 "reasoning": {}, "program_output": {}}[item["type"]]
        first = dict(item)
        first.update(blank)
        if "status" in item:
            first["status"] = "in_progress"
        recs.append(ev("response.output_item.added", output_index=at, item=first))
        if item["type"] == "function_call":
            recs += [ev("response.function_call_arguments.delta", item_id=item["id"], output_index=at, delta=item["arguments"]),
                     ev("response.function_call_arguments.done", item_id=item["id"], output_index=at, arguments=item["arguments"])]
        if item["type"] == "message":
            recs.append(ev("response.output_text.delta", item_id=item["id"], output_index=at, content_index=0,
                           delta=item["content"][0]["text"]))
        recs.append(ev("response.output_item.done", output_index=at, item=item))
    recs.append(ev("response.completed", response=resp("completed", output, usage, model=PM, tools=p_tools)))
    return events(recs)
write("ok/responses-programmatic-tool-calling-program-and-sub-calls-streamed.sse",
      c(p_ask) + "\n" + streamed("resp_prog1", [p_reason, program, fc_inv], ru(410, 180, reasoning=96))
      + c(p_inv_out) + "\n" + streamed("resp_prog2", [fc_dem], ru(640, 24))
      + c(p_dem_out) + "\n" + streamed("resp_prog3", [p_out, p_msg], ru(690, 38)))

# --- xAI's X search: an `x_search_call` server tool -----------------------------------------
# (grok-4-fast-reasoning's body as recorded in vercel/ai's xai-x-search-tool fixture: the item
# names the search it ran and its arguments, `call_id` empty; its stream events as the AI
# SDK's xAI schema names them, `response.x_search_call.in_progress/searching/completed`)
XM = "grok-4-fast-reasoning"
RID = "resp_0c8e1a9f-x-search"
xs_args = c({"query": "rust 2026 edition", "limit": 20, "from_date": "2026-01-01", "to_date": "2026-02-15", "min_score_threshold": 0.2})
xs_call = {"arguments": xs_args, "call_id": "", "name": "x_semantic_search", "type": "x_search_call",
           "id": "fc_0c8e1a9f-4b2d-4e7a-9c31-5d6e7f8a9b0c_us-east-1_0", "status": "completed"}
xs_text = "People on X mostly discuss the 2026 edition's new lint defaults and async closures."
xs_msg = {"content": [{"type": "output_text", "text": xs_text, "logprobs": [],
                       "annotations": [{"type": "url_citation", "url": "https://x.com/rustlang/status/1890000000000000001",
                                        "start_index": 0, "end_index": len(xs_text), "title": "1"}]}],
          "id": "msg_0c8e1a9f-4b2d-4e7a-9c31-5d6e7f8a9b0c_us-east-1", "role": "assistant", "type": "message", "status": "completed"}
xs_usage = {"input_tokens": 8397, "input_tokens_details": {"cached_tokens": 608}, "output_tokens": 1805,
            "output_tokens_details": {"reasoning_tokens": 580}, "total_tokens": 10202, "num_sources_used": 0,
            "num_server_side_tools_used": 1}
write("ok/xai-responses-x-search-call-body.json",
      json.dumps(resp("completed", [xs_call, xs_msg], xs_usage, model=XM), indent=2) + "\n")
seq[0] = -1
xs_msg_id = xs_msg["id"]
recs = [ev("response.created", response=resp("in_progress", [], model=XM)),
        ev("response.output_item.added", output_index=0, item=added(xs_call, arguments="")),
        ev("response.x_search_call.in_progress", output_index=0, item_id=xs_call["id"]),
        ev("response.x_search_call.searching", output_index=0, item_id=xs_call["id"]),
        ev("response.x_search_call.completed", output_index=0, item_id=xs_call["id"]),
        ev("response.output_item.done", output_index=0, item=xs_call),
        ev("response.output_item.added", output_index=1, item={"content": [], "id": xs_msg_id, "role": "assistant",
                                                               "type": "message", "status": "in_progress"}),
        ev("response.output_text.delta", item_id=xs_msg_id, output_index=1, content_index=0, delta=xs_text[:40]),
        ev("response.output_text.delta", item_id=xs_msg_id, output_index=1, content_index=0, delta=xs_text[40:]),
        ev("response.output_text.annotation.added", item_id=xs_msg_id, output_index=1, content_index=0, annotation_index=0,
           annotation=xs_msg["content"][0]["annotations"][0]),
        ev("response.output_item.done", output_index=1, item=xs_msg),
        ev("response.completed", response=resp("completed", [xs_call, xs_msg], xs_usage, model=XM))]
write("ok/xai-responses-x-search-call-stream.sse", events(recs))

# --- xAI's X search streamed as its sub-actions: `custom_tool_call` items xAI runs ----------
# (grok-4-1-fast streams as recorded in vercel/ai's xai-x-search-tool chunks: each search the
# tool ran is a `custom_tool_call` named by it, `call_id` `xs_call_<n>`, its input as
# `custom_tool_call_input` deltas, and no output item: xAI ran it)
XM2 = "grok-4-1-fast-reasoning"
RID = "resp_5e7d9c1b-x-actions"
seq[0] = -1
kw_input = c({"query": "from:rustlang filter:media", "limit": 20, "mode": "Latest"})
vid_input = c({"video_url": "https://video.twimg.com/amplify_video/1890000000000000002/vid/avc1/468x270/Rt7a.mp4"})
kw = {"call_id": "xs_call_24148162", "input": kw_input, "name": "x_keyword_search", "type": "custom_tool_call",
      "id": "ctc_5e7d9c1b-2a3b-4c5d-8e9f-0a1b2c3d4e5f_xs_call_24148162", "status": "completed"}
vid = {"call_id": "xs_call_14963218", "input": vid_input, "name": "view_x_video", "type": "custom_tool_call",
       "id": "ctc_5e7d9c1b-2a3b-4c5d-8e9f-0a1b2c3d4e5f_xs_call_14963218", "status": "completed"}
act_text = "The latest video from @rustlang shows the 2026 edition's migration tool."
act_msg = {"content": [{"type": "output_text", "text": act_text, "logprobs": [], "annotations": []}],
           "id": "msg_5e7d9c1b-2a3b-4c5d-8e9f-0a1b2c3d4e5f", "role": "assistant", "type": "message", "status": "completed"}
act_usage = {"input_tokens": 5120, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 240,
             "output_tokens_details": {"reasoning_tokens": 96}, "total_tokens": 5360, "num_sources_used": 0,
             "num_server_side_tools_used": 2}
recs = [ev("response.created", response=resp("in_progress", [], model=XM2))]
for at, call in enumerate([kw, vid]):
    recs += [ev("response.output_item.added", output_index=at, item=added(call, input="")),
             ev("response.custom_tool_call_input.delta", item_id=call["id"], output_index=at, delta=call["input"]),
             ev("response.custom_tool_call_input.done", item_id=call["id"], output_index=at, input=call["input"]),
             ev("response.output_item.done", output_index=at, item=call)]
recs += [ev("response.output_item.added", output_index=2, item={"content": [], "id": act_msg["id"], "role": "assistant",
                                                               "type": "message", "status": "in_progress"}),
         ev("response.output_text.delta", item_id=act_msg["id"], output_index=2, content_index=0, delta=act_text),
         ev("response.output_item.done", output_index=2, item=act_msg),
         ev("response.completed", response=resp("completed", [kw, vid, act_msg], act_usage, model=XM2))]
write("ok/xai-responses-x-search-sub-actions-as-custom-tool-calls.sse", events(recs))
RID = "resp_req"  # what the fixtures below were written with

# --- errors -------------------------------------------------------------------------------
cid = "chatcmpl-errs"
recs = [chunk(cid, {"role": "assistant", "content": ""}), "data: upstream connect error or disconnect/reset before headers\n"]
recs += text_deltas(cid, "Still here.") + [chunk(cid, {}, finish="stop")]
write("err/sse-data-not-json.sse", sse(recs))

recs = [chunk(cid, {"role": "assistant", "content": ""})] + text_deltas(cid, "Cut off")
text = sse(recs, done=False) + "data: " + c(chunk(cid, {"content": " mid-record"}))[:40]
write("err/truncated-last-event.sse", text)

big = "x" * 70000
recs = [chunk(cid, {"role": "assistant", "content": ""}), chunk(cid, {"content": big}), chunk(cid, {"content": "after"}), chunk(cid, {}, finish="stop")]
write("err/record-over-64kib.sse", sse(recs))

write("err/orphan-tool-result.jsonl", c({"model": MODEL, "messages": [
    {"role": "user", "content": "Run the tests."},
    {"role": "tool", "tool_call_id": "call_never_made", "content": "ok"}]}) + "\n" + c(response) + "\n")

# A Responses request answering a shell call no response made (the first exchange was not
# recorded): the result is delivered, and reported as an orphan.
write("err/orphan-shell-call-output.jsonl", c({"model": SM, "previous_response_id": "resp_unrecorded", "input": [
    {"type": "shell_call_output", "call_id": "call_sh_lost", "output": [
        {"stdout": "ok\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]}]}) + "\n"
      + c(resp("completed", [{"id": "msg_o1", "type": "message", "status": "completed", "role": "assistant",
                              "content": [{"type": "output_text", "annotations": [], "text": "It passed."}]}],
               ru(60, 4), model=SM)) + "\n")

good = [chunk(cid, {"role": "assistant", "content": ""}), chunk(cid, {"content": "Fine."}), chunk(cid, {}, finish="stop")]
write("err/corrupt-chunk-line.jsonl", c(good[0]) + "\n" + c(good[1])[:60] + "\n" + c(good[1]) + "\n" + c(good[2]) + "\n")
