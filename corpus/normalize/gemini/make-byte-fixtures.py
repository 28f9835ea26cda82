#!/usr/bin/env python3
"""Writes the Gemini fixtures whose point is in the raw bytes (an editor would damage them):
err/truncated-last-line.jsonl (no final LF, cut mid-JSON) and err/record-over-64kib.jsonl
(one line over the harness's 64 KiB record limit). Deterministic; run from anywhere."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def line(record):
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def write(name, text):
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="") as f:
        f.write(text)


SID = "7e0d5c3b-9a18-4f26-b4e7-1c8d2f6a0b95"
head = [
    {"type": "init", "timestamp": "2026-05-14T12:00:00.010Z", "session_id": SID, "model": "gemini-2.5-flash"},
    {"type": "message", "timestamp": "2026-05-14T12:00:00.011Z", "role": "user", "content": "Print the build log."},
    {"type": "tool_use", "timestamp": "2026-05-14T12:00:01.300Z", "tool_name": "run_shell_command",
     "tool_id": "run_shell_command-1778760001299-0b1c2d3e4f5a6",
     "parameters": {"command": "cat target/build.log", "description": "Show the build log"}},
]
result = {"type": "result", "timestamp": "2026-05-14T12:00:04.800Z", "status": "success",
          "stats": {"total_tokens": 4410, "input_tokens": 4380, "output_tokens": 12, "cached": 0,
                    "input": 4380, "duration_ms": 4790, "tool_calls": 1}}

# The final result line is cut after 60 bytes, with no LF: a torn write.
records = [line(r) for r in head] + [
    line({"type": "tool_result", "timestamp": "2026-05-14T12:00:01.420Z",
          "tool_id": "run_shell_command-1778760001299-0b1c2d3e4f5a6", "status": "success",
          "output": "   Compiling cfgtool v0.3.2\n    Finished `dev` profile in 3.10s\n"}),
    line({"type": "message", "timestamp": "2026-05-14T12:00:03.100Z", "role": "assistant",
          "content": "The build finished cleanly in 3.1 s.", "delta": True}),
]
write("err/truncated-last-line.jsonl", "\n".join(records) + "\n" + line(result)[:60])

# A tool_result whose output alone is 70,000 bytes: over the 64 KiB limit, skipped.
build_log = "".join("   Compiling dep-%04d v1.0.0\n" % i for i in range(2500))[:70000]
records = [line(r) for r in head] + [
    line({"type": "tool_result", "timestamp": "2026-05-14T12:00:01.420Z",
          "tool_id": "run_shell_command-1778760001299-0b1c2d3e4f5a6", "status": "success",
          "output": build_log}),
    line({"type": "message", "timestamp": "2026-05-14T12:00:03.100Z", "role": "assistant",
          "content": "The log is long; the build compiled 2,500 crates.", "delta": True}),
    line(result),
]
write("err/record-over-64kib.jsonl", "\n".join(records) + "\n")
