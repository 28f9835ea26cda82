#!/usr/bin/env python3
"""Writes the Copilot CLI session-log corpus: invented sessions in the shape of real
`~/.copilot/session-state/<session id>/events.jsonl` files.

Shapes: the session events of Copilot CLI 1.0.63 (`session.start` with `copilotVersion` and
`context.cwd`, `session.model_change`, `user.message`, `assistant.turn_start|turn_end`,
`assistant.message` with `toolRequests`, `tool.execution_start|complete`,
`subagent.started|completed`, the envelope's `agentId` on a sub-agent's events,
`session.resume`, `session.shutdown` with `modelMetrics`), as the normalize corpus's
session-log fixtures have them (corpus/normalize/copilot/README.md); the older bare
`<session id>.jsonl` layout as wesm/agentsview's discovery reads it. No capture is copied.
Each fixture is a directory laid out as `~/.copilot/` is. Re-run to regenerate byte for byte.
"""

import json
import os
import shutil
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
NS = uuid.UUID("2b0f7a3c-9e51-4c8d-b6a2-1f3e5d7c9a0b")


def uid(name):
    return str(uuid.uuid5(NS, name))


class Log:
    def __init__(self, session):
        self.session = session
        self.lines = []
        self.parent = None
        self.n = 0

    def ev(self, ts, kind, data, agent=None, ephemeral=False):
        self.n += 1
        event = {"type": kind, "data": data, "id": uid(f"{self.session}-{self.n}"), "timestamp": ts,
                 "parentId": self.parent}
        if ephemeral:
            event["ephemeral"] = True
        if agent:
            event["agentId"] = agent
        self.parent = event["id"]
        self.lines.append(json.dumps(event, separators=(",", ":")))

    def write(self, path, tail=""):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write("".join(l + "\n" for l in self.lines) + tail)


def start(log, ts, version="1.0.63"):
    log.ev(ts, "session.start", {"sessionId": log.session, "version": 1, "producer": "copilot-agent",
                                 "copilotVersion": version, "startTime": ts, "context": {"cwd": "/home/dev/shop"},
                                 "alreadyInUse": False})


def shutdown(log, ts, inp, read, written, out, reqs=1, kind="routine"):
    log.ev(ts, "session.shutdown", {"shutdownType": kind, "totalPremiumRequests": reqs,
                                    "totalApiDurationMs": 5200, "sessionStartTime": 1781896421572,
                                    "codeChanges": {"linesAdded": 0, "linesRemoved": 0, "filesModified": []},
                                    "modelMetrics": {"claude-sonnet-4.5": {
                                        "requests": {"count": reqs, "cost": reqs},
                                        "usage": {"inputTokens": inp, "outputTokens": out, "cacheReadTokens": read,
                                                  "cacheWriteTokens": written}}},
                                    "currentModel": "claude-sonnet-4.5"})


def subagents(root):
    s = uid("subagents")
    log = Log(s)
    start(log, "2026-06-18T19:13:41.577Z")
    log.ev("2026-06-18T19:13:43.070Z", "session.model_change", {"newModel": "claude-sonnet-4.5"})
    log.ev("2026-06-18T19:13:43.882Z", "user.message", {"content": "Where is the greeting defined? Use an explore agent.",
                                                       "transformedContent": "Where is the greeting defined? Use an explore agent.",
                                                       "attachments": [], "agentMode": "interactive"})
    log.ev("2026-06-18T19:13:43.912Z", "assistant.turn_start", {"turnId": "0"})
    task = {"agent_type": "explore", "description": "Find the greeting", "prompt": "Find where the greeting string is defined."}
    log.ev("2026-06-18T19:13:45.100Z", "assistant.message", {"messageId": uid("m1"), "content": "",
           "toolRequests": [{"toolCallId": "toolu_01TaskA", "name": "task", "arguments": task, "type": "function"}], "outputTokens": 60})
    log.ev("2026-06-18T19:13:45.140Z", "tool.execution_start", {"toolCallId": "toolu_01TaskA", "toolName": "task", "arguments": task})
    log.ev("2026-06-18T19:13:45.180Z", "subagent.started", {"toolCallId": "toolu_01TaskA", "agentName": "explore",
                                                           "agentDisplayName": "Explore Agent", "agentDescription": "Fast codebase exploration"})
    a = "explore-ea7abf98"
    log.ev("2026-06-18T19:13:46.200Z", "assistant.message", {"messageId": uid("m2"), "content": "",
           "toolRequests": [{"toolCallId": "toolu_01GrepB", "name": "grep", "arguments": {"pattern": "hello", "path": "/home/dev/shop"}, "type": "function"}],
           "outputTokens": 35}, agent=a)
    log.ev("2026-06-18T19:13:46.240Z", "tool.execution_start", {"toolCallId": "toolu_01GrepB", "toolName": "grep",
                                                               "arguments": {"pattern": "hello", "path": "/home/dev/shop"}}, agent=a)
    log.ev("2026-06-18T19:13:46.400Z", "tool.execution_complete", {"toolCallId": "toolu_01GrepB", "model": "claude-haiku-4.5", "success": True,
                                                                  "result": {"content": "/home/dev/shop/greet/hello.py:1:print('hello')"}}, agent=a)
    log.ev("2026-06-18T19:13:47.000Z", "assistant.message", {"messageId": uid("m3"), "content": "greet/hello.py, line 1.",
                                                            "toolRequests": [], "outputTokens": 12}, agent=a)
    log.ev("2026-06-18T19:13:47.040Z", "subagent.completed", {"toolCallId": "toolu_01TaskA", "agentName": "explore"})
    log.ev("2026-06-18T19:13:47.080Z", "tool.execution_complete", {"toolCallId": "toolu_01TaskA", "model": "claude-sonnet-4.5", "success": True,
                                                                  "result": {"content": "greet/hello.py, line 1."}})
    log.ev("2026-06-18T19:13:48.500Z", "assistant.message", {"messageId": uid("m4"), "content": "It is in greet/hello.py, line 1.",
                                                            "toolRequests": [], "outputTokens": 14})
    log.ev("2026-06-18T19:13:48.540Z", "assistant.turn_end", {"turnId": "0"})
    shutdown(log, "2026-06-18T19:14:02.000Z", 30412, 24576, 5791, 121, reqs=2)
    log.write(os.path.join(root, "session-state", s, "events.jsonl"))


def resumed(root):
    s = uid("resumed")
    log = Log(s)
    start(log, "2026-06-19T08:00:00.000Z")
    log.ev("2026-06-19T08:00:01.000Z", "user.message", {"content": "What does make test run?", "attachments": []})
    log.ev("2026-06-19T08:00:01.020Z", "assistant.turn_start", {"turnId": "0"})
    log.ev("2026-06-19T08:00:04.000Z", "assistant.message", {"messageId": uid("r1"), "content": "Every test, with insta in check mode.",
                                                            "toolRequests": [], "outputTokens": 20})
    log.ev("2026-06-19T08:00:04.020Z", "assistant.turn_end", {"turnId": "0"})
    shutdown(log, "2026-06-19T08:00:10.000Z", 12100, 12000, 0, 20)
    log.ev("2026-06-20T09:00:00.000Z", "session.resume", {"resumeTime": "2026-06-20T09:00:00.000Z", "eventCount": 6})
    log.ev("2026-06-20T09:00:01.000Z", "user.message", {"content": "And make ready?", "attachments": []})
    log.ev("2026-06-20T09:00:01.020Z", "assistant.turn_start", {"turnId": "1"})
    log.ev("2026-06-20T09:00:03.000Z", "assistant.message", {"messageId": uid("r2"), "content": "What CI runs.",
                                                            "toolRequests": [], "outputTokens": 8})
    log.ev("2026-06-20T09:00:03.020Z", "assistant.turn_end", {"turnId": "1"})
    # A running total: the second shutdown counts both processes.
    shutdown(log, "2026-06-20T09:00:09.000Z", 24350, 24000, 100, 28, reqs=2)
    log.write(os.path.join(root, "session-state", s, "events.jsonl"))


def bare(root):
    s = uid("bare")
    log = Log(s)
    start(log, "2026-03-02T10:00:00.000Z", "1.0.13")
    log.ev("2026-03-02T10:00:01.000Z", "user.message", {"content": "List the files.", "attachments": []})
    log.ev("2026-03-02T10:00:02.000Z", "assistant.message", {"messageId": uid("b1"), "content": "",
           "toolRequests": [{"toolCallId": "call_Ls1", "name": "bash", "arguments": {"command": "ls", "description": "list"}, "type": "function"}],
           "outputTokens": 18})
    log.ev("2026-03-02T10:00:02.100Z", "tool.execution_start", {"toolCallId": "call_Ls1", "toolName": "bash", "arguments": {"command": "ls", "description": "list"}})
    log.ev("2026-03-02T10:00:02.400Z", "tool.execution_complete", {"toolCallId": "call_Ls1", "success": True, "result": {"content": "README.md\nsrc"}})
    log.ev("2026-03-02T10:00:03.000Z", "assistant.message", {"messageId": uid("b2"), "content": "README.md and src.",
                                                            "toolRequests": [], "outputTokens": 7})
    shutdown(log, "2026-03-02T10:00:09.000Z", 9000, 8800, 0, 25)
    log.write(os.path.join(root, "session-state", f"{s}.jsonl"))


def torn(root):
    s = uid("torn")
    log = Log(s)
    start(log, "2026-06-21T11:00:00.000Z")
    log.ev("2026-06-21T11:00:01.000Z", "user.message", {"content": "Run the linter.", "attachments": []})
    log.ev("2026-06-21T11:00:02.000Z", "assistant.message", {"messageId": uid("t1"), "content": "",
           "toolRequests": [{"toolCallId": "call_Lt1", "name": "bash", "arguments": {"command": "make lint"}, "type": "function"}],
           "outputTokens": 16})
    log.ev("2026-06-21T11:00:02.100Z", "tool.execution_start", {"toolCallId": "call_Lt1", "toolName": "bash", "arguments": {"command": "make lint"}})
    cut = json.dumps({"type": "tool.execution_complete", "data": {"toolCallId": "call_Lt1", "success": True,
                      "result": {"content": "cargo clippy ... ok"}}, "id": uid("torn-last"),
                      "timestamp": "2026-06-21T11:00:09.000Z", "parentId": log.parent}, separators=(",", ":"))
    log.write(os.path.join(root, "session-state", s, "events.jsonl"), tail=cut[:90])


def empty(root):
    path = os.path.join(root, "session-state", uid("empty"), "events.jsonl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").close()


def unstarted(root):
    s = uid("unstarted")
    log = Log(s)
    start(log, "2026-06-22T12:00:00.000Z")
    log.ev("2026-06-22T12:00:01.000Z", "user.message", {"content": "Summarize the README.", "attachments": []})
    log.ev("2026-06-22T12:00:02.000Z", "assistant.message", {"messageId": uid("u1"), "content": "Reading it.",
                                                            "toolRequests": [], "outputTokens": 4})
    log.ev("2026-06-22T12:00:03.000Z", "assistant.message", {"messageId": uid("u2"), "content": "A shop backend.",
                                                            "toolRequests": [], "outputTokens": 5}, agent="summarizer-1f2e")
    log.ev("2026-06-22T12:00:04.000Z", "assistant.message", {"messageId": uid("u3"), "content": "It is a shop backend.",
                                                            "toolRequests": [], "outputTokens": 6})
    shutdown(log, "2026-06-22T12:00:09.000Z", 7000, 6900, 0, 15)
    log.write(os.path.join(root, "session-state", s, "events.jsonl"))


def main():
    for outcome in ("ok", "err"):
        shutil.rmtree(os.path.join(HERE, outcome), ignore_errors=True)
    subagents(os.path.join(HERE, "ok", "subagent-events-split-shutdown-totals-1.0.63"))
    resumed(os.path.join(HERE, "ok", "resumed-two-processes-running-total-1.0.63"))
    bare(os.path.join(HERE, "ok", "bare-session-file-layout-1.0.13"))
    torn(os.path.join(HERE, "err", "last-line-cut-mid-write-1.0.63"))
    empty(os.path.join(HERE, "err", "empty-events-file-1.0.63"))
    unstarted(os.path.join(HERE, "err", "subagent-events-without-subagent-started-1.0.63"))


if __name__ == "__main__":
    main()
