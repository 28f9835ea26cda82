#!/usr/bin/env python3
"""Writes the Codex rollout corpus: invented sessions in the shape of real rollout files.

Shapes: Codex 0.66.0 (../shared/captures/codex-rollout/, lanegrid/agtrace's test sample:
session_meta, turn_context, response_item, event_msg, token_count, ghost_snapshot) and
0.142.5 for sub-agent threads (session_meta with session_id, parent_thread_id,
source.subagent.thread_spawn, subagent_history_start_ordinal, as peers' tests of 0.142.x
rollouts show them). No capture is copied. Each fixture is a directory laid out as
~/.codex/ is: sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl. Re-run to regenerate
byte for byte.
"""

import json
import os
import shutil
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
NS = uuid.UUID("6f1c5f0e-0d5b-4a4e-9a53-6b1d0c2a7e11")


def tid(name):
    """A thread id: deterministic, UUID-shaped."""
    return str(uuid.uuid5(NS, name))


def line(ts, kind, payload):
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload}, separators=(",", ":"))


def write(path, lines, tail=""):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write("".join(l + "\n" for l in lines) + tail)


def rollout(root, day, clock, thread):
    y, m, d = day
    return os.path.join(root, "sessions", y, m, d, f"rollout-{y}-{m}-{d}T{clock}-{thread}.jsonl")


def meta(ts, thread, version, extra=None):
    payload = {
        "id": thread,
        "timestamp": ts,
        "cwd": "/home/dev/shop",
        "originator": "codex_cli_rs",
        "cli_version": version,
        "instructions": None,
        "source": "cli",
        "model_provider": "openai",
        "git": {"commit_hash": "4f1c2a9", "branch": "main", "repository_url": "git@example.com:dev/shop.git"},
    }
    payload.update(extra or {})
    return payload


def user(ts, text):
    return [
        line(ts, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}),
        line(ts, "event_msg", {"type": "user_message", "message": text, "images": []}),
    ]


def context(ts, model="gpt-5.1-codex-max"):
    return line(ts, "turn_context", {
        "cwd": "/home/dev/shop", "approval_policy": "on-request",
        "sandbox_policy": {"type": "workspace-write", "network_access": False},
        "model": model, "effort": "medium", "summary": "auto"})


def tokens(ts, inp, cached, out, reasoning, last=None):
    total = {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out,
             "reasoning_output_tokens": reasoning, "total_tokens": inp + out}
    return line(ts, "event_msg", {"type": "token_count", "info": {
        "total_token_usage": total, "last_token_usage": last or total,
        "model_context_window": 258400}, "rate_limits": {"primary": {"used_percent": 1.0, "window_minutes": 300}}})


def reasoning(ts, text):
    return [
        line(ts, "event_msg", {"type": "agent_reasoning", "text": text}),
        line(ts, "response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}],
                                   "content": None, "encrypted_content": "gAAAAABmZW5jcnlwdGVkLXJlYXNvbmluZw=="}),
    ]


def say(ts, text):
    return [
        line(ts, "event_msg", {"type": "agent_message", "message": text}),
        line(ts, "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}),
    ]


def call(ts, name, arguments, call_id):
    return line(ts, "response_item", {"type": "function_call", "name": name,
                                      "arguments": json.dumps(arguments, separators=(",", ":")), "call_id": call_id})


def output(ts, call_id, text):
    return line(ts, "response_item", {"type": "function_call_output", "call_id": call_id, "output": text})


def shell_patch(root):
    """0.66.0: a shell_command call, an apply_patch custom tool call, reasoning, ghost snapshots."""
    t = tid("shell-patch")
    lines = [
        line("2025-12-09T19:55:16.336Z", "session_meta", meta("2025-12-09T19:55:16.295Z", t, "0.66.0")),
        line("2025-12-09T19:55:16.336Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>\n  <cwd>/home/dev/shop</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>"}]}),
        *user("2025-12-09T19:55:18.143Z", "Add a greeting module that prints hello."),
        context("2025-12-09T19:55:18.161Z"),
        line("2025-12-09T19:55:18.278Z", "response_item", {"type": "ghost_snapshot", "ghost_commit": {
            "id": "2b41b8fe6963ea7c75ede66991c20fa20ead1838", "parent": "1cea5ec49574a868eb98893e46bcb775539f798e",
            "preexisting_untracked_files": [], "preexisting_untracked_dirs": []}}),
        line("2025-12-09T19:55:24.726Z", "event_msg", {"type": "token_count", "info": None, "rate_limits": None}),
        *reasoning("2025-12-09T19:55:28.079Z", "**Creating the module directory first**"),
        call("2025-12-09T19:55:30.116Z", "shell_command", {"command": "mkdir -p greet", "workdir": "/home/dev/shop"}, "call_Sh1"),
        tokens("2025-12-09T19:55:30.125Z", 3505, 3072, 101, 64),
        output("2025-12-09T19:55:30.257Z", "call_Sh1", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"),
        context("2025-12-09T19:55:30.257Z"),
        *reasoning("2025-12-09T19:55:33.501Z", "**Writing the file with a patch**"),
        line("2025-12-09T19:55:34.147Z", "response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "call_Pt1",
              "name": "apply_patch", "input": "*** Begin Patch\n*** Add File: greet/hello.py\n+print('hello')\n*** End Patch"}),
        tokens("2025-12-09T19:55:34.147Z", 7216, 6144, 141, 64, {"input_tokens": 3711, "cached_input_tokens": 3072, "output_tokens": 40, "reasoning_output_tokens": 0, "total_tokens": 3751}),
        line("2025-12-09T19:55:35.204Z", "response_item", {"type": "custom_tool_call_output", "call_id": "call_Pt1",
              "output": json.dumps({"output": "Success. Updated the following files:\nA greet/hello.py\n", "metadata": {"exit_code": 0, "duration_seconds": 0.9}})}),
        *say("2025-12-09T19:55:37.424Z", "Added `greet/hello.py`, which prints hello."),
        tokens("2025-12-09T19:55:37.981Z", 11031, 9728, 167, 64),
    ]
    write(rollout(root, ("2025", "12", "09"), "19-55-16", t), lines)


def resumed(root):
    """0.66.0: a session resumed (`codex resume`): the same file goes on; the new process's
    running total starts again below the first's, so the two legs add."""
    t = tid("resumed")
    first = [
        line("2025-12-10T08:00:00.010Z", "session_meta", meta("2025-12-10T08:00:00.000Z", t, "0.66.0")),
        *user("2025-12-10T08:00:02.000Z", "What does the build script do?"),
        context("2025-12-10T08:00:02.020Z"),
        *say("2025-12-10T08:00:05.000Z", "It compiles the crate and runs the tests."),
        tokens("2025-12-10T08:00:05.100Z", 2400, 2048, 60, 0),
    ]
    second = [
        *user("2025-12-11T09:30:00.000Z", "And the release script?"),
        context("2025-12-11T09:30:00.020Z", "gpt-5.2-codex"),
        *reasoning("2025-12-11T09:30:02.000Z", "**Reading scripts/release.sh**"),
        call("2025-12-11T09:30:03.000Z", "shell_command", {"command": "sed -n 1,40p scripts/release.sh", "workdir": "/home/dev/shop"}, "call_Rs1"),
        output("2025-12-11T09:30:03.300Z", "call_Rs1", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n#!/bin/sh\ncargo publish\n"),
        *say("2025-12-11T09:30:06.000Z", "It publishes the crate."),
        tokens("2025-12-11T09:30:06.100Z", 1900, 1024, 45, 12),
    ]
    write(rollout(root, ("2025", "12", "10"), "08-00-00", t), first + second)


def spawned(root, with_child=True, with_parent=True):
    """0.142.5: a thread spawns an explorer agent (spawn_agent, its output naming the child
    thread) and Codex starts a review thread. The child's file starts with a copy of the
    parent's session_meta and prompt (subagent_history_start_ordinal 3: its own records
    start at the fourth)."""
    r = tid("spawn-root")
    c = tid("spawn-child")
    v = tid("spawn-review")
    parent = [
        line("2026-07-02T06:13:41.386Z", "session_meta", meta("2026-07-02T06:13:41.380Z", r, "0.142.5", {"session_id": r})),
        *user("2026-07-02T06:13:42.000Z", "Find where the greeting is defined, with an explorer."),
        context("2026-07-02T06:13:42.010Z", "gpt-5.5"),
        call("2026-07-02T06:13:44.000Z", "spawn_agent", {"message": "Find where the greeting string is defined.", "agent_type": "explorer"}, "call_Sp1"),
        output("2026-07-02T06:13:44.200Z", "call_Sp1", json.dumps({"agent_id": c, "nickname": "Turing"})),
        call("2026-07-02T06:13:45.000Z", "wait", {"ids": [c], "timeout_ms": 30000}, "call_Wt1"),
        output("2026-07-02T06:14:10.000Z", "call_Wt1", json.dumps({"status": {c: {"completed": "greet/hello.py, line 1"}}})),
        *say("2026-07-02T06:14:12.000Z", "The greeting is in greet/hello.py, line 1."),
        tokens("2026-07-02T06:14:12.100Z", 5200, 4096, 120, 40),
    ]
    child = [
        line("2026-07-02T06:13:44.100Z", "session_meta", meta("2026-07-02T06:13:44.090Z", c, "0.142.5", {
            "session_id": r, "parent_thread_id": r, "subagent_history_start_ordinal": 3,
            "source": {"subagent": {"thread_spawn": {"parent_thread_id": r, "depth": 1, "agent_path": None,
                                                     "agent_nickname": "Turing", "agent_role": "explorer"}}},
            "agent_nickname": "Turing", "agent_role": "explorer", "thread_source": "subagent"})),
        # The copy of the parent's history the child starts with.
        line("2026-07-02T06:13:41.386Z", "session_meta", meta("2026-07-02T06:13:41.380Z", r, "0.142.5", {"session_id": r})),
        line("2026-07-02T06:13:42.000Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Find where the greeting is defined, with an explorer."}]}),
        # Its own records.
        line("2026-07-02T06:13:44.150Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Find where the greeting string is defined."}]}),
        context("2026-07-02T06:13:44.160Z", "gpt-5.5-mini"),
        call("2026-07-02T06:13:46.000Z", "exec_command", {"cmd": "rg -n hello greet"}, "call_Ex1"),
        output("2026-07-02T06:13:46.400Z", "call_Ex1", "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\ngreet/hello.py:1:print('hello')\n"),
        *say("2026-07-02T06:13:50.000Z", "greet/hello.py, line 1."),
        tokens("2026-07-02T06:13:50.100Z", 1800, 1024, 30, 8),
    ]
    review = [
        line("2026-07-02T06:15:00.100Z", "session_meta", meta("2026-07-02T06:15:00.090Z", v, "0.142.5", {
            "session_id": r, "parent_thread_id": r, "source": {"subagent": "review"}})),
        line("2026-07-02T06:15:00.200Z", "response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Review the current changes."}]}),
        context("2026-07-02T06:15:00.210Z", "gpt-5.5"),
        *say("2026-07-02T06:15:09.000Z", "No issues found."),
        tokens("2026-07-02T06:15:09.100Z", 900, 512, 20, 0),
    ]
    day = ("2026", "07", "02")
    if with_parent:
        write(rollout(root, day, "06-13-41", r), parent)
    if with_child:
        write(rollout(root, day, "06-13-44", c), child)
        write(rollout(root, day, "06-15-00", v), review)


def compacted(root):
    """0.142.5: a compaction (compacted record, context_compacted event), a local_shell_call
    and a web_search_call."""
    t = tid("compacted")
    lines = [
        line("2026-07-03T10:00:00.010Z", "session_meta", meta("2026-07-03T10:00:00.000Z", t, "0.142.5", {"session_id": t})),
        *user("2026-07-03T10:00:01.000Z", "Check the test count, then look up the release notes."),
        context("2026-07-03T10:00:01.010Z", "gpt-5.5"),
        line("2026-07-03T10:00:03.000Z", "response_item", {"type": "local_shell_call", "call_id": "call_Ls1", "status": "completed",
              "action": {"type": "exec", "command": ["bash", "-lc", "cargo test 2>&1 | tail -1"], "timeout_ms": 60000}}),
        output("2026-07-03T10:00:09.000Z", "call_Ls1", "test result: ok. 42 passed"),
        tokens("2026-07-03T10:00:09.100Z", 4100, 2048, 80, 20),
        line("2026-07-03T10:05:00.000Z", "compacted", {"message": "The user asked for the test count (42 pass) and the release notes.",
              "replacement_history": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "(summary)"}]}]}),
        line("2026-07-03T10:05:00.010Z", "event_msg", {"type": "context_compacted"}),
        line("2026-07-03T10:05:02.000Z", "response_item", {"type": "web_search_call", "id": "ws_1", "status": "completed",
              "action": {"type": "search", "query": "shop release notes 2026"}}),
        *say("2026-07-03T10:05:05.000Z", "42 tests pass; the release notes are on the wiki."),
        tokens("2026-07-03T10:05:05.100Z", 6100, 3072, 140, 30),
    ]
    write(rollout(root, ("2026", "07", "03"), "10-00-00", t), lines)


def torn(root):
    """0.66.0: a session still being written: its last line cut mid-record."""
    t = tid("torn")
    lines = [
        line("2025-12-12T12:00:00.010Z", "session_meta", meta("2025-12-12T12:00:00.000Z", t, "0.66.0")),
        *user("2025-12-12T12:00:01.000Z", "List the modules."),
        context("2025-12-12T12:00:01.010Z"),
        call("2025-12-12T12:00:02.000Z", "shell_command", {"command": "ls src", "workdir": "/home/dev/shop"}, "call_Ls2"),
    ]
    cut = line("2025-12-12T12:00:02.300Z", "response_item", {"type": "function_call_output", "call_id": "call_Ls2",
               "output": "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nlib.rs\nmain.rs\n"})
    write(rollout(root, ("2025", "12", "12"), "12-00-00", t), lines, tail=cut[:70])


def empty(root):
    """A 0-byte rollout (a session Codex created and never wrote)."""
    write(rollout(root, ("2025", "12", "13"), "07-00-00", tid("empty")), [])


def main():
    for outcome in ("ok", "err"):
        shutil.rmtree(os.path.join(HERE, outcome), ignore_errors=True)
    shell_patch(os.path.join(HERE, "ok", "shell-command-apply-patch-reasoning-0.66.0"))
    resumed(os.path.join(HERE, "ok", "resumed-token-total-restarts-0.66.0"))
    spawned(os.path.join(HERE, "ok", "spawned-explorer-and-review-inherited-history-0.142.5"))
    compacted(os.path.join(HERE, "ok", "compacted-local-shell-web-search-0.142.5"))
    torn(os.path.join(HERE, "err", "last-line-cut-mid-write-0.66.0"))
    spawned(os.path.join(HERE, "err", "spawned-agent-file-missing-0.142.5"), with_child=False)
    spawned(os.path.join(HERE, "err", "sub-agents-without-their-parent-0.142.5"), with_parent=False)
    empty(os.path.join(HERE, "err", "empty-rollout-0.66.0"))


if __name__ == "__main__":
    main()
