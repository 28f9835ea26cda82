#!/usr/bin/env python3
"""Writes a transcript of about MB mebibytes: one run of one agent step repeated (user
message, assistant message with thinking and tool_use, tool.call, tool.result; ~1.3 KB
lines), written directly, for the memory scripts (read-memory.sh, memory-bounds.sh).

    scripts/make-agent-run.py PATH MB [RUN_ID]
"""
import json
import sys

path, mb = sys.argv[1], int(sys.argv[2])
run_id = sys.argv[3] if len(sys.argv) > 3 else "mem-run"
target = mb << 20
pad = "x" * 700


def line(seq, type_, step_path, payload):
    return json.dumps({"seq": seq, "run_id": run_id, "type": type_, "path": step_path, "iteration": 0,
                       "timestamp": "2026-06-08T08:14:42.123456Z", "payload": payload},
                      separators=(",", ":")) + "\n"


with open(path, "w") as f:
    seq, size, n = 1, 0, 0

    def put(type_, p, payload):
        global seq, size
        text = line(seq, type_, p, payload)
        f.write(text)
        seq += 1
        size += len(text)

    put("run.started", "", {"name": "mem", "kind": "workflow"})
    while size < target:
        n += 1
        put("step.started", "agent", {"name": "agent", "kind": "agent"})
        put("message.user", "agent", {"role": "user", "blocks": [{"type": "text", "fidelity": "router", "text": "step %d %s" % (n, pad)}]})
        put("message.assistant", "agent", {"role": "assistant", "blocks": [
            {"type": "thinking", "fidelity": "agent_emitted", "thinking": pad},
            {"type": "tool_use", "fidelity": "agent_emitted", "tool_name": "Bash", "tool_id": "t%d" % n, "tool_input": {"command": "ls"}}]})
        put("tool.call", "agent", {"name": "Bash", "call_id": "t%d" % n, "input": {"command": "ls"}, "output": None, "fidelity": "agent_emitted"})
        put("tool.result", "agent", {"name": "Bash", "call_id": "t%d" % n, "input": None, "output": pad, "fidelity": "agent_emitted"})
        put("step.completed", "agent", {"name": "agent", "kind": "agent"})
    put("run.completed", "", {"name": "mem", "kind": "workflow", "result": {"status": "completed", "duration_ms": 1000}})
