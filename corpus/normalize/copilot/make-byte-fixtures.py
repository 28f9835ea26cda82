#!/usr/bin/env python3
"""Writes the Copilot fixtures whose point is in the raw bytes (an editor would damage them):
err/truncated-last-line.jsonl (no final LF, cut mid-JSON) and err/record-over-64kib.jsonl
(one line over the harness's 64 KiB record limit). Deterministic; run from anywhere."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CALL = "toolu_vrtx_01Q8mW3nR5tY7uI9oP2aS4dF"


def line(record):
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def event(n, kind, data, ephemeral=False):
    record = {"type": kind, "data": data, "id": "0b5c7d9e-1f20-4a3b-8c4d-%012d" % n,
              "timestamp": "2026-04-02T16:00:0%d.%03dZ" % (n // 10, n * 37 % 1000),
              "parentId": None if n == 1 else "0b5c7d9e-1f20-4a3b-8c4d-%012d" % (n - 1)}
    if ephemeral:
        record["ephemeral"] = True
    return line(record)


def write(name, text):
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="") as f:
        f.write(text)


def session(output):
    return [
        event(1, "user.message", {"content": "Show the build log.", "attachments": [],
                                  "agentMode": "interactive"}),
        event(2, "assistant.message", {"messageId": "6a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d", "content": "",
                                       "toolRequests": [{"toolCallId": CALL, "name": "bash",
                                                         "arguments": {"command": "cat build.log", "description": "Show the build log"},
                                                         "type": "function"}],
                                       "outputTokens": 41}),
        event(3, "tool.execution_start", {"toolCallId": CALL, "toolName": "bash",
                                          "arguments": {"command": "cat build.log", "description": "Show the build log"}}),
        event(4, "tool.execution_complete", {"toolCallId": CALL, "success": True,
                                             "result": {"content": output}}),
        event(5, "assistant.message", {"messageId": "7b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e",
                                       "content": "The build log ends with a successful link step.",
                                       "toolRequests": [], "outputTokens": 12}),
    ]


result = line({"type": "result", "timestamp": "2026-04-02T16:00:09.500Z",
               "sessionId": "c5d6e7f8-a9b0-4c1d-8e2f-3a4b5c6d7e8f", "exitCode": 0,
               "usage": {"premiumRequests": 1, "totalApiDurationMs": 2900, "sessionDurationMs": 4700,
                         "codeChanges": {"linesAdded": 0, "linesRemoved": 0, "filesModified": []}}})

write("err/truncated-last-line.jsonl",
      "\n".join(session("go build ./...\nok\n<exited with exit code 0>")) + "\n" + result[:70])

log = "".join("# example.com/dep%04d\ncompile: ok\n" % i for i in range(2400))[:70000]
write("err/record-over-64kib.jsonl", "\n".join(session(log)) + "\n" + result + "\n")
