#!/usr/bin/env python3
"""Writes every fixture of corpus/normalize/gemini-api/ (deterministic). SSE and the JSON array
stream are byte-exact (CRLF between array elements, a missing final LF, a torn last record),
which editors damage, so the files are generated; edit here and re-run
`python3 corpus/normalize/gemini-api/make-fixtures.py`.

The shapes are those of the Gemini API reference (GenerateContentResponse, Candidate, Part,
UsageMetadata) and google-genai's types, Vertex AI's additions (createTime, trafficType,
severity scores) from its reference; the content is invented. The two streams of
../../../../shared/captures/gemini-api/ (charmbracelet/fantasy cassettes, gemini-2.5-flash and
gemini-3-pro-preview, 2025) were read to learn the framing and where thoughtSignature sits,
never copied."""
import json, os

ROOT = os.path.dirname(os.path.abspath(__file__))
FLASH = "gemini-2.5-flash"
PRO = "gemini-3-pro-preview"


def c(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def spaced(obj):
    """As the API writes a chunk on one line: `", "` and `": "`."""
    return json.dumps(obj, ensure_ascii=False)


def pretty(obj):
    return json.dumps(obj, indent=2, ensure_ascii=False)


def write(name, text):
    with open(os.path.join(ROOT, name), "wb") as f:
        f.write(text.encode("utf-8") if isinstance(text, str) else text)


def sse(chunks, end="\n"):
    """`data: {...}` per chunk, CRLF-terminated events as the API streams them (alt=sse)."""
    return "".join(f"data: {spaced(k)}\r\n\r\n" for k in chunks)[:-2] + end


def array(chunks, close=True):
    """The API's default stream: one JSON array, each element pretty-printed, `\\n,\\r\\n`
    between elements, `]` at the end."""
    body = "[" + "\n,\r\n".join(pretty(k) for k in chunks)
    return body + ("\n]" if close else "")


def usage(prompt, candidates=None, thoughts=None, cached=None, tool=None, **extra):
    u = {"promptTokenCount": prompt}
    if candidates is not None:
        u["candidatesTokenCount"] = candidates
    total = prompt + (candidates or 0) + (thoughts or 0) + (tool or 0)
    u["totalTokenCount"] = total
    if cached is not None:
        u["cachedContentTokenCount"] = cached
    if tool is not None:
        u["toolUsePromptTokenCount"] = tool
    u["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
    if thoughts is not None:
        u["thoughtsTokenCount"] = thoughts
    u.update(extra)
    return u


def chunk(parts, rid, model=FLASH, finish=None, u=None, **candidate):
    cand = {"content": {"parts": parts, "role": "model"}}
    if finish:
        cand["finishReason"] = finish
    cand.update(candidate)
    cand["index"] = 0
    k = {"candidates": [cand]}
    if u:
        k["usageMetadata"] = u
    k["modelVersion"] = model
    k["responseId"] = rid
    return k


SIG1 = "CiQBjz1rX2h7q0VYc3JjZXRzaWduYXR1cmUtb25lLWFiY2RlZmdoaWprbG1ub3A="
SIG2 = "EsIDCr8DAY89a1+c2lnbmF0dXJlLXR3by1mb3ItYS1mdW5jdGlvbi1jYWxsLXBhcnQ="
SIG3 = "Ep0BCpoBAY89a1/dGhpcmQtc2lnbmF0dXJlLW9uLWFuLWVtcHR5LXRleHQtcGFydA=="

SAFETY = [{"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE"},
          {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "NEGLIGIBLE"}]

BASH = {"functionDeclarations": [{"name": "bash", "description": "Run a shell command in the repository",
                                  "parameters": {"type": "OBJECT", "properties": {"command": {"type": "STRING"}},
                                                 "required": ["command"]}}]}
WEATHER = {"functionDeclarations": [
    {"name": "weather", "description": "Current weather", "parameters": {
        "type": "OBJECT", "properties": {"location": {"type": "STRING"}}}},
    {"name": "time", "description": "Local time", "parameters": {
        "type": "OBJECT", "properties": {"city": {"type": "STRING"}}}}]}

# ---------------------------------------------------------------------------------------------
# ok/

# The cross-provider scenario: the final request (the whole history) and the final response.
request = {
    "contents": [
        {"role": "user", "parts": [{"text": "How many Rust files are in src?"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "call_7f3k2p9x", "name": "bash",
                                                      "args": {"command": "find src -name '*.rs' | wc -l"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "call_7f3k2p9x", "name": "bash",
                                                         "response": {"output": "12\n"}}}]},
    ],
    "systemInstruction": {"parts": [{"text": "You are a coding agent working in the user's repository."}]},
    "tools": [BASH],
    "generationConfig": {"temperature": 0},
}
response = chunk([{"text": "There are 12 Rust files in src."}], "rsp-shared-1", finish="STOP",
                 u=usage(1480, 9, cached=1024))
write("ok/shared-scenario-shell-command.jsonl", c(request) + "\n" + c(response) + "\n")

# Thought summaries streamed, then a call whose part carries the signature (gemini-2.5-flash,
# includeThoughts): the capture's shape, with invented content.
rid = "q0NzaZ2fBbnoz7IPmc_thinking"
write("ok/sse-thought-summary-then-signed-function-call.sse", sse([
    chunk([{"text": "**Reading the request**\n\nThe user wants the weather in ", "thought": True}], rid,
          u=usage(54, thoughts=40)),
    chunk([{"text": "Porto; the `weather` tool answers that.\n\n", "thought": True}], rid,
          u=usage(54, thoughts=62)),
    chunk([{"functionCall": {"name": "weather", "args": {"location": "Porto, PT"}}, "thoughtSignature": SIG1}], rid,
          finish="STOP", u=usage(54, 14, thoughts=62), finishMessage="Model generated function call(s)."),
]))

# Gemini 3: two calls with ids in one chunk, the first signed; a third call in the next chunk;
# the stream's last chunk an empty text part with STOP.
rid = "UwCzaaGdI_parallel"
write("ok/sse-parallel-function-calls-in-one-chunk.sse", sse([
    chunk([{"functionCall": {"name": "weather", "args": {"location": "Porto, PT"}, "id": "fc_1a2b"},
            "thoughtSignature": SIG2},
           {"functionCall": {"name": "time", "args": {"city": "Porto"}, "id": "fc_3c4d"}}], rid, model=PRO,
          u=usage(157, 16, thoughts=438)),
    chunk([{"functionCall": {"name": "weather", "args": {"location": "Lisbon, PT"}, "id": "fc_5e6f"}}], rid,
          model=PRO, u=usage(157, 32, thoughts=438)),
    chunk([{"text": ""}], rid, model=PRO, finish="STOP", u=usage(157, 32, thoughts=438)),
]))

# Gemini 3 text: the signature on an empty text part at the end of the stream.
rid = "sig-on-last-part"
write("ok/sse-text-signature-on-empty-last-part.sse", sse([
    chunk([{"text": "Porto is "}], rid, model=PRO, u=usage(20, 3, thoughts=30)),
    chunk([{"text": "sunny, 24 °C."}], rid, model=PRO, u=usage(20, 9, thoughts=30)),
    chunk([{"text": "", "thoughtSignature": SIG3}], rid, model=PRO, finish="STOP", u=usage(20, 9, thoughts=30)),
]))

# The default stream: a JSON array, pretty-printed elements, CRLF between them.
rid = "array-text-1"
write("ok/array-stream-text-and-usage.json", array([
    chunk([{"text": "Three files changed:"}], rid, u=usage(31, 4)),
    chunk([{"text": " main.rs, lib.rs and cli.rs."}], rid, u=usage(31, 12)),
    chunk([{"text": ""}], rid, finish="STOP", u=usage(31, 12), safetyRatings=SAFETY),
]) + "\n")

# Vertex AI through a GAPIC REST client: `$alt=json;enum-encoding=int`, every enum a number
# (finishReason 1 = STOP, safety categories and probabilities, modalities), createTime.
vertex = {"createTime": "2026-03-02T10:15:04.512Z", "responseId": "vtx-int-enums", "modelVersion": "gemini-2.5-pro"}
rid = "vtx-int-enums"
k1 = chunk([{"text": "The build "}], rid, model="gemini-2.5-pro",
           u={"promptTokenCount": 40, "candidatesTokenCount": 2, "totalTokenCount": 42,
              "trafficType": 1, "promptTokensDetails": [{"modality": 1, "tokenCount": 40}]})
k1["createTime"] = vertex["createTime"]
k2 = chunk([{"text": "passed."}], rid, model="gemini-2.5-pro", finish=1,
           u={"promptTokenCount": 40, "candidatesTokenCount": 4, "totalTokenCount": 44,
              "trafficType": 1, "promptTokensDetails": [{"modality": 1, "tokenCount": 40}]},
           safetyRatings=[{"category": 8, "probability": 1, "probabilityScore": 0.02, "severity": 1,
                           "severityScore": 0.01}])
k2["createTime"] = vertex["createTime"]
write("ok/vertex-array-stream-enum-encoding-int.json", array([k1, k2]) + "\n")

# Vertex AI over SSE: grounding with Google Search, citations, safety ratings, every usage
# field (cached, thoughts, tool-use prompt), createTime.
rid = "vtx-grounded"
grounding = {"webSearchQueries": ["porto weather today"],
             "groundingChunks": [{"web": {"uri": "https://example.org/porto", "title": "example.org"}}],
             "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 21, "text": "Porto is sunny today."},
                                    "groundingChunkIndices": [0], "confidenceScores": [0.93]}],
             "searchEntryPoint": {"renderedContent": "<div>porto weather today</div>"}}
g1 = chunk([{"text": "Porto is sunny today."}], rid, model="gemini-2.5-flash",
           u=usage(812, 6, thoughts=120, cached=512, tool=95, trafficType="ON_DEMAND"))
g1["createTime"] = "2026-03-02T10:20:00.100Z"
g2 = chunk([{"text": " Expect 24 °C."}], rid, model="gemini-2.5-flash", finish="STOP",
           u=usage(812, 12, thoughts=120, cached=512, tool=95, trafficType="ON_DEMAND"),
           safetyRatings=[{"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE",
                           "probabilityScore": 0.03, "severity": "HARM_SEVERITY_NEGLIGIBLE",
                           "severityScore": 0.02}],
           citationMetadata={"citations": [{"startIndex": 0, "endIndex": 21, "uri": "https://example.org/porto"}]},
           groundingMetadata=grounding)
g2["createTime"] = "2026-03-02T10:20:01.250Z"
write("ok/vertex-sse-grounding-citations-and-usage.sse", sse([g1, g2]))

# generateContent bodies: compact on one line, and pretty-printed.
write("ok/body-compact-text-and-function-call.jsonl", c(chunk(
    [{"text": "Checking both."}, {"functionCall": {"name": "weather", "args": {"location": "Porto, PT"}}},
     {"functionCall": {"name": "time", "args": {"city": "Porto"}}}], "body-compact", finish="STOP",
    u=usage(60, 25))) + "\n")
write("ok/body-pretty-code-execution.json", pretty(chunk(
    [{"executableCode": {"language": "PYTHON", "code": "print(sum(range(101)))"}},
     {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "5050\n"}},
     {"executableCode": {"language": "PYTHON", "code": "1/0"}},
     {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "ZeroDivisionError: division by zero\n"}},
     {"text": "The sum is 5050."}], "body-code", finish="STOP", u=usage(70, 40))) + "\n")

# A conversation: calls without ids (gemini-2.x), their responses paired by name (one an
# error), the history read once, usage summed over both responses.
r1 = {"contents": [{"role": "user", "parts": [{"text": "Weather and time in Porto?"}]}], "tools": [WEATHER]}
a1 = chunk([{"functionCall": {"name": "weather", "args": {"location": "Porto, PT"}}},
            {"functionCall": {"name": "time", "args": {"city": "Porto"}}}], "conv-1", finish="STOP",
           u=usage(48, 20))
r2 = {"contents": r1["contents"] + [
    {"role": "model", "parts": a1["candidates"][0]["content"]["parts"]},
    {"role": "user", "parts": [
        {"functionResponse": {"name": "weather", "response": {"output": {"sky": "clear", "celsius": 24}}}},
        {"functionResponse": {"name": "time", "response": {"error": "the time service is down"}}}]},
    {"role": "user", "parts": [{"text": "Skip the time if it fails."}]}], "tools": [WEATHER]}
a2 = chunk([{"text": "Porto: clear, 24 °C. The time service is down."}], "conv-2", finish="STOP",
           u=usage(120, 16, cached=64))
write("ok/conversation-function-responses-in-request.jsonl", "\n".join(c(x) for x in [r1, a1, r2, a2]) + "\n")

# A prompt blocked before any candidate.
write("ok/prompt-blocked-safety.json", pretty({
    "promptFeedback": {"blockReason": "SAFETY", "safetyRatings": [
        {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True}]},
    "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12},
    "modelVersion": FLASH, "responseId": "blocked-1"}) + "\n")

# An error body (HTTP 429), pretty-printed as the API sends it.
write("ok/error-body-resource-exhausted.json", pretty({"error": {
    "code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED",
    "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "27s"}]}}) + "\n")

# An error chunk mid-stream, text open: failed, the text handed out as far as it came.
rid = "err-mid"
write("ok/sse-error-chunk-mid-text.sse", sse([
    chunk([{"text": "Summarising the "}], rid, u=usage(300, 4)),
    chunk([{"text": "three modules"}], rid, u=usage(300, 7)),
    {"error": {"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}},
]))

# A stream cut between chunks, no finishReason: text kept, missing terminal.
rid = "cut-between"
write("ok/sse-stream-cut-between-chunks.sse", sse([
    chunk([{"text": "First, "}], rid, u=usage(10, 2)),
    chunk([{"functionCall": {"name": "bash", "args": {"command": "ls"}, "id": "fc_ls"}}], rid, u=usage(10, 8)),
    chunk([{"text": "then I will"}], rid, u=usage(10, 11)),
]))

# google-genai's chunks saved with model_dump(mode="json", exclude_none=True): snake_case.
rid = "sdk-dump"
write("ok/sdk-chunks-snake-case.jsonl", "\n".join(c(x) for x in [
    {"candidates": [{"content": {"parts": [{"text": "Looking at", "thought": True}], "role": "model"}, "index": 0}],
     "usage_metadata": {"prompt_token_count": 25, "thoughts_token_count": 8, "total_token_count": 33},
     "model_version": FLASH, "response_id": rid},
    {"candidates": [{"content": {"parts": [{"function_call": {"name": "bash", "args": {"command": "git status"}},
                                            "thought_signature": SIG1}], "role": "model"},
                     "finish_reason": "STOP", "index": 0}],
     "usage_metadata": {"prompt_token_count": 25, "candidates_token_count": 6, "thoughts_token_count": 8,
                        "total_token_count": 39},
     "model_version": FLASH, "response_id": rid},
]) + "\n")

# ---------------------------------------------------------------------------------------------
# err/

rid = "cut-mid-record"
whole = sse([chunk([{"text": "Hello, "}], rid, u=usage(5, 2)),
             chunk([{"text": "world, and more"}], rid, finish="STOP", u=usage(5, 6))])
write("err/sse-stream-cut-mid-record.sse", whole[: whole.rindex("world") + 3])

rid = "array-cut"
whole = array([chunk([{"text": "Step one"}], rid, u=usage(5, 2)),
               chunk([{"text": " and two."}], rid, finish="STOP", u=usage(5, 5))])
write("err/array-stream-cut-mid-element.json", whole[: whole.rindex("and two") + 4])

write("err/request-function-response-without-call.jsonl", c({"contents": [
    {"role": "user", "parts": [{"text": "Here is what the tool said."}]},
    {"role": "user", "parts": [{"functionResponse": {"id": "fc_never", "name": "bash",
                                                     "response": {"output": "ok"}}}]}]}) + "\n")

write("err/sse-data-not-json.sse", sse([chunk([{"text": "Before the proxy broke."}], "proxy", u=usage(3, 5))])
      + "\r\n\r\ndata: <html><body>502 Bad Gateway</body></html>\r\n\r\n"
      + sse([chunk([{"text": ""}], "proxy", finish="STOP", u=usage(3, 5))]))

big = "x" * (70 * 1024)
write("err/record-over-64kib.sse", sse([
    chunk([{"text": "Short, "}], "big", u=usage(3, 1)),
    chunk([{"text": big}], "big", u=usage(3, 9000)),
    chunk([{"text": "and done."}], "big", finish="STOP", u=usage(3, 9004)),
]))
