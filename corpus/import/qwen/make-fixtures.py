#!/usr/bin/env python3
"""Writes the Qwen Code session corpus: invented sessions in the shape of real
`~/.qwen/projects/<project>/chats/<session id>.jsonl` files.

Shapes: Qwen Code 0.13.2's ChatRecord (packages/core/src/services/chatRecordingService.ts):
`{uuid, parentUuid, sessionId, timestamp, type: user|assistant|tool_result|system, subtype,
cwd, version, gitBranch, message: Content, usageMetadata, model, toolCallResult,
systemPayload, agentId, isSidechain}`. No capture is copied. Each fixture is a directory
laid out as `~/.qwen/` is. Re-run to regenerate byte for byte.
"""

import json
import os
import shutil
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
NS = uuid.UUID("0d4f6a8c-1e3b-4c5d-8e7f-9a1b2c3d4e5f")
PROJECT = "-home-dev-shop"


def uid(name):
    return str(uuid.uuid5(NS, name))


class Session:
    def __init__(self, name):
        self.session = uid(name)
        self.lines = []
        self.parent = None

    def add(self, ts, kind, message=None, **extra):
        record = {"uuid": uid(f"{self.session}-{len(self.lines)}"), "parentUuid": self.parent,
                  "sessionId": self.session, "timestamp": ts, "type": kind, "cwd": "/home/dev/shop",
                  "version": "0.13.2", "gitBranch": "main"}
        if message is not None:
            record["message"] = message
        record.update(extra)
        if not record.get("isSidechain"):
            self.parent = record["uuid"]
        self.lines.append(json.dumps(record, separators=(",", ":")))

    def write(self, root, tail=""):
        path = os.path.join(root, "projects", PROJECT, "chats", f"{self.session}.jsonl")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write("".join(l + "\n" for l in self.lines) + tail)


def usage(prompt, out, cached=0, thoughts=0):
    u = {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out + thoughts}
    if cached:
        u["cachedContentTokenCount"] = cached
    if thoughts:
        u["thoughtsTokenCount"] = thoughts
    return u


def tools(root):
    s = Session("tools")
    s.add("2026-08-01T09:00:00.000Z", "system", subtype="session_model",
          systemPayload={"modelId": "qwen3-coder-plus", "authType": "qwen-oauth"})
    s.add("2026-08-01T09:00:01.000Z", "user", {"role": "user", "parts": [{"text": "Why is the build red?"}]})
    s.add("2026-08-01T09:00:03.000Z", "assistant",
          {"role": "model", "parts": [{"text": "Checking the build first.", "thought": True},
                                      {"functionCall": {"id": "call_b1", "name": "run_shell_command",
                                                        "args": {"command": "make build"}}}]},
          model="qwen3-coder-plus", usageMetadata=usage(4200, 30, cached=3000, thoughts=12))
    s.add("2026-08-01T09:00:05.000Z", "tool_result",
          {"role": "user", "parts": [{"functionResponse": {"id": "call_b1", "name": "run_shell_command",
                                                            "response": {"output": "error: unused import `Foo`"}}}]},
          toolCallResult={"callId": "call_b1", "status": "success", "resultDisplay": "error: unused import `Foo`"})
    s.add("2026-08-01T09:00:07.000Z", "assistant",
          {"role": "model", "parts": [{"text": "An unused import of `Foo` fails the build."}]},
          model="qwen3-coder-plus", usageMetadata=usage(4300, 14, cached=4100))
    s.add("2026-08-01T09:00:20.000Z", "system", subtype="chat_compression",
          systemPayload={"info": {"originalTokenCount": 8500, "newTokenCount": 900},
                         "compressedHistory": [{"role": "user", "parts": [{"text": "Summary: the build fails on an unused import."}]}]})
    s.add("2026-08-01T09:00:30.000Z", "user", {"role": "user", "parts": [{"text": "Fix it."}]})
    s.add("2026-08-01T09:00:33.000Z", "assistant", {"role": "model", "parts": [{"text": "Removed the import."}]},
          model="qwen3-coder-plus", usageMetadata=usage(1200, 6))
    s.write(root)


def sidechain(root):
    s = Session("sidechain")
    s.add("2026-08-02T10:00:01.000Z", "user", {"role": "user", "parts": [{"text": "Explore the payments module in the background."}]})
    s.add("2026-08-02T10:00:02.000Z", "assistant",
          {"role": "model", "parts": [{"functionCall": {"id": "call_a1", "name": "agent",
                                                        "args": {"subagent_type": "Explore", "prompt": "Map the payments module."}}}]},
          model="qwen3-coder-plus", usageMetadata=usage(3000, 25))
    s.add("2026-08-02T10:00:02.100Z", "user", {"role": "user", "parts": [{"text": "Map the payments module."}]},
          isSidechain=True, agentId="explore-7f3c", agentName="Explore")
    s.add("2026-08-02T10:00:04.000Z", "assistant", {"role": "model", "parts": [{"text": "payments/: gateway.py, refunds.py."}]},
          model="qwen3-coder-flash", usageMetadata=usage(1500, 11), isSidechain=True, agentId="explore-7f3c", agentName="Explore")
    s.add("2026-08-02T10:00:05.000Z", "tool_result",
          {"role": "user", "parts": [{"functionResponse": {"id": "call_a1", "name": "agent",
                                                            "response": {"output": "payments/: gateway.py, refunds.py."}}}]})
    s.add("2026-08-02T10:00:06.000Z", "assistant", {"role": "model", "parts": [{"text": "Two files: gateway.py and refunds.py."}]},
          model="qwen3-coder-plus", usageMetadata=usage(3100, 12, cached=2900))
    s.write(root)


def torn(root):
    s = Session("torn")
    s.add("2026-08-03T11:00:01.000Z", "user", {"role": "user", "parts": [{"text": "Run the tests."}]})
    s.add("2026-08-03T11:00:02.000Z", "assistant",
          {"role": "model", "parts": [{"functionCall": {"id": "call_t1", "name": "run_shell_command", "args": {"command": "make test"}}}]},
          model="qwen3-coder-plus", usageMetadata=usage(2000, 20))
    cut = json.dumps({"uuid": uid("torn-last"), "parentUuid": s.parent, "sessionId": s.session,
                      "timestamp": "2026-08-03T11:00:09.000Z", "type": "tool_result",
                      "message": {"role": "user", "parts": [{"functionResponse": {"id": "call_t1", "name": "run_shell_command",
                                                                                   "response": {"output": "ok"}}}]}},
                     separators=(",", ":"))
    s.write(root, tail=cut[:150])


def empty(root):
    path = os.path.join(root, "projects", PROJECT, "chats", f"{uid('empty')}.jsonl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").close()


def main():
    for outcome in ("ok", "err"):
        shutil.rmtree(os.path.join(HERE, outcome), ignore_errors=True)
    tools(os.path.join(HERE, "ok", "shell-call-thought-compression-0.13.2"))
    sidechain(os.path.join(HERE, "ok", "background-subagent-sidechain-0.13.2"))
    torn(os.path.join(HERE, "err", "last-line-cut-mid-write-0.13.2"))
    empty(os.path.join(HERE, "err", "empty-session-file-0.13.2"))


if __name__ == "__main__":
    main()
