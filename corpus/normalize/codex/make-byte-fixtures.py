#!/usr/bin/env python3
"""Writes the Codex corpus files whose point is in the raw bytes, which an editor would
silently damage. Deterministic: run it from anywhere, commit what it writes."""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def line(record):
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def write(name, text, newline_at_end=True):
    data = text.encode("utf-8")
    (HERE / name).write_bytes(data if not newline_at_end else data + b"\n")


def command(item_id, cmd, output="", exit_code=None, status="in_progress"):
    return {"id": item_id, "type": "command_execution", "command": cmd,
            "aggregated_output": output, "exit_code": exit_code, "status": status}


# Raw NUL bytes (0x00) inside JSON strings: in a command's output and in the agent's
# message. json.dumps escapes control characters, so the NULs are put in after dumping.
thread = {"type": "thread.started", "thread_id": "019c9a1e-1d2c-7b3a-8f49-0e5d6c7b8a92"}
cmd = "/bin/bash -lc 'printf \"a\\\\0b\\\\0c\" | od -c'"
started = {"type": "item.started", "item": command("item_0", cmd)}
done = {"type": "item.completed",
        "item": command("item_0", cmd, "RAWNULa NUL b RAWNULc", 0, "completed")}
message = {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message",
           "text": "The output holds NULs: RAWNUL and an escaped \u0000 too."}}
usage = {"type": "turn.completed",
         "usage": {"input_tokens": 5000, "cached_input_tokens": 4096, "output_tokens": 30}}
records = [line(thread), line({"type": "turn.started"}), line(started), line(done),
           line(message), line(usage)]
write("ok/nul-bytes-in-output-and-message.jsonl",
      "\n".join(records).replace("RAWNUL", "\x00"))

# A bracketed-paste escape leaking into stdout between records (openai/codex-plugin-cc#310).
records = [
    line({"type": "thread.started", "thread_id": "019c9a1f-6a5b-7c4d-9e3f-2a1b0c9d8e7f"}),
    line({"type": "turn.started"}),
    "\x1b[?2004h",
    line({"type": "item.completed", "item": {"id": "item_0", "type": "agent_message",
                                             "text": "Ready."}}),
    line({"type": "turn.completed", "usage": {"input_tokens": 3000,
          "cached_input_tokens": 0, "output_tokens": 4}}),
]
write("err/bracketed-paste-escape-on-stdout.jsonl", "\n".join(records))

# The last record cut mid-JSON, no final LF (the process was killed while writing).
records = [
    line({"type": "thread.started", "thread_id": "019c9a20-3e4f-7a5b-8c6d-7e8f9a0b1c2d"}),
    line({"type": "turn.started"}),
    line({"type": "item.completed", "item": {"id": "item_0", "type": "agent_message",
                                             "text": "Starting the migration."}}),
    line({"type": "item.started", "item": command("item_1", "/bin/bash -lc 'make migrate'")}),
]
cut = line({"type": "item.completed",
            "item": command("item_1", "/bin/bash -lc 'make migrate'",
                            "applied 0001_init\napplied 0002_users\n", 0, "completed")})
write("err/truncated-last-line.jsonl", "\n".join(records) + "\n" + cut[:97],
      newline_at_end=False)

# A record over the harness's 64 KiB cap: a command output of 70,000 bytes.
big = "".join(f"line {n:05}: {'x' * 48}\n" for n in range(1, 1210))[:70000]
records = [
    line({"type": "thread.started", "thread_id": "019c9a21-9f8e-7d6c-a5b4-3c2d1e0f9a8b"}),
    line({"type": "turn.started"}),
    line({"type": "item.started", "item": command("item_0", "/bin/bash -lc 'cat big.log'")}),
    line({"type": "item.completed",
          "item": command("item_0", "/bin/bash -lc 'cat big.log'", big, 0, "completed")}),
    line({"type": "item.completed", "item": {"id": "item_1", "type": "agent_message",
                                             "text": "The log is long; it ends at line 1209."}}),
    line({"type": "turn.completed", "usage": {"input_tokens": 52000,
          "cached_input_tokens": 4096, "output_tokens": 21}}),
]
write("err/record-over-64kib.jsonl", "\n".join(records))
