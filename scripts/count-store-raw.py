#!/usr/bin/env python3
"""Counts, straight from the agents' own files under a home directory, what a session
spent and called: prompt tokens (all input, cached or not), output tokens (reasoning
included) and tool calls, summed over every store. Independent of axt (it shares no code
with it): the test of `axt import`'s discovery compares these with `axt stats --json`.

Each store's rule is the agent's own meaning of its files:
- Claude Code (~/.claude/projects/**.jsonl): an assistant message is logged once per
  content block, each entry repeating its usage: the last usage per message id counts;
  prompt = input + cache_read_input + cache_creation_input. Calls: distinct tool_use ids.
- Codex (~/.codex/sessions/**/rollout-*.jsonl): token_count's total_token_usage is a
  running total (a total that goes down starts a new process's): the last of each run of
  totals counts; prompt = input_tokens (cached included). Calls: function_call,
  custom_tool_call and local_shell_call items.
- Copilot CLI (~/.copilot/session-state/**.jsonl): session.shutdown's modelMetrics is the
  session's running total over every agent: the last counts; prompt = inputTokens (cache
  included). Calls: toolRequests of assistant.message events.
- Gemini CLI (~/.gemini/tmp/*/chats/**.jsonl): a message is written again whole as it
  grows: the last version per id counts, unless a $rewindTo took it back;
  prompt = input + tool (cached included), output = output + thoughts. Calls: toolCalls.
- Qwen Code (~/.qwen/projects/*/chats/*.jsonl): each assistant record's usageMetadata is
  one response's; prompt = promptTokenCount (cached included) + toolUsePromptTokenCount,
  output = candidatesTokenCount + thoughtsTokenCount. Calls: functionCall parts of
  assistant records.
- OpenCode (~/.local/share/opencode: opencode.db's message and part tables, and the JSON
  files under storage/ of sessions the database does not hold): each step-finish part
  holds its step's tokens; an assistant message without one, its own `tokens`;
  prompt = input + cache.read + cache.write, output = output + reasoning. Calls: tool parts.

Usage: count-store-raw.py HOME  (prints {"prompt": N, "output": N, "tool_calls": N})
"""

import json
import os
import sys


def records(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                yield json.loads(line)
            except ValueError:
                continue


def files(root, suffix=".jsonl"):
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            if name.endswith(suffix):
                yield os.path.join(dirpath, name)


def claude(root, total):
    usage, calls = {}, set()
    for path in files(root):
        for r in records(path):
            message = r.get("message") or {}
            if r.get("type") != "assistant" or not isinstance(message, dict):
                continue
            if message.get("usage") and message.get("id"):
                usage[message["id"]] = message["usage"]
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    calls.add(block["id"])
    for u in usage.values():
        total["prompt"] += u.get("input_tokens", 0) + u.get("cache_read_input_tokens", 0) \
            + u.get("cache_creation_input_tokens", 0)
        total["output"] += u.get("output_tokens", 0)
    total["tool_calls"] += len(calls)


def codex(root, total):
    for path in files(root):
        legs, last = [], None
        for r in records(path):
            p = r.get("payload") or {}
            if r.get("type") == "response_item" and p.get("type") in (
                    "function_call", "custom_tool_call", "local_shell_call"):
                total["tool_calls"] += 1
            info = p.get("info") if p.get("type") == "token_count" else None
            if info and info.get("total_token_usage"):
                usage = info["total_token_usage"]
                if last is not None and usage["total_tokens"] < last["total_tokens"]:
                    legs.append(last)
                last = usage
        legs += [last] if last else []
        for usage in legs:
            total["prompt"] += usage["input_tokens"]
            total["output"] += usage["output_tokens"]


def copilot(root, total):
    for path in files(root):
        metrics = None
        for r in records(path):
            data = r.get("data") or {}
            if r.get("type") == "assistant.message":
                total["tool_calls"] += len(data.get("toolRequests") or [])
            if r.get("type") == "session.shutdown" and data.get("modelMetrics"):
                metrics = data["modelMetrics"]
        for model in (metrics or {}).values():
            total["prompt"] += model["usage"]["inputTokens"]
            total["output"] += model["usage"]["outputTokens"]


def gemini(root, total):
    for path in files(root):
        messages = {}
        for r in records(path):
            if "$rewindTo" in r:
                ids = list(messages)
                at = ids.index(r["$rewindTo"]) if r["$rewindTo"] in ids else len(ids)
                for gone in ids[at:]:
                    del messages[gone]
            elif "id" in r and "content" in r:
                messages[r["id"]] = r
        for m in messages.values():
            t = m.get("tokens") or {}
            total["prompt"] += t.get("input", 0) + t.get("tool", 0)
            total["output"] += t.get("output", 0) + t.get("thoughts", 0)
            total["tool_calls"] += len(m.get("toolCalls") or [])


def qwen(root, total):
    for path in files(root):
        for r in records(path):
            if r.get("type") != "assistant":
                continue
            u = r.get("usageMetadata") or {}
            total["prompt"] += u.get("promptTokenCount", 0) + u.get("toolUsePromptTokenCount", 0)
            total["output"] += u.get("candidatesTokenCount", 0) + u.get("thoughtsTokenCount", 0)
            parts = (r.get("message") or {}).get("parts") or []
            total["tool_calls"] += sum(1 for p in parts if isinstance(p, dict) and "functionCall" in p)


def opencode(root, total):
    def add(tokens):
        cache = tokens.get("cache") or {}
        total["prompt"] += tokens.get("input", 0) + cache.get("read", 0) + cache.get("write", 0)
        total["output"] += tokens.get("output", 0) + tokens.get("reasoning", 0)

    def count(messages):
        # messages: [(info, [parts])]
        for info, parts in messages:
            total["tool_calls"] += sum(1 for p in parts if p.get("type") == "tool")
            steps = [p for p in parts if p.get("type") == "step-finish"]
            for step in steps:
                add(step.get("tokens") or {})
            if info.get("role") == "assistant" and not steps:
                add(info.get("tokens") or {})

    in_db = set()
    for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        if not (name.startswith("opencode") and name.endswith(".db")):
            continue
        import sqlite3
        db = sqlite3.connect(f"file:{os.path.join(root, name)}?mode=ro", uri=True)
        in_db.update(r[0] for r in db.execute("SELECT id FROM session"))
        parts = {}
        for message, data in db.execute("SELECT message_id, data FROM part ORDER BY id"):
            parts.setdefault(message, []).append(json.loads(data))
        count([(json.loads(data), parts.get(mid, []))
               for mid, data in db.execute("SELECT id, data FROM message")])
        db.close()
    storage = os.path.join(root, "storage")
    sessions = os.path.join(storage, "session")
    for path in files(sessions, ".json"):
        sid = os.path.basename(path)[:-5]
        if sid in in_db:
            continue
        messages = []
        for mpath in files(os.path.join(storage, "message", sid), ".json"):
            mid = os.path.basename(mpath)[:-5]
            with open(mpath, encoding="utf-8") as f:
                info = json.load(f)
            parts = []
            for ppath in files(os.path.join(storage, "part", mid), ".json"):
                with open(ppath, encoding="utf-8") as f:
                    parts.append(json.load(f))
            messages.append((info, parts))
        count(messages)


def main():
    home = sys.argv[1]
    total = {"prompt": 0, "output": 0, "tool_calls": 0}
    claude(os.path.join(home, ".claude", "projects"), total)
    codex(os.path.join(home, ".codex", "sessions"), total)
    copilot(os.path.join(home, ".copilot", "session-state"), total)
    gemini(os.path.join(home, ".gemini", "tmp"), total)
    qwen(os.path.join(home, ".qwen", "projects"), total)
    opencode(os.path.join(home, ".local", "share", "opencode"), total)
    print(json.dumps(total, sort_keys=True))


if __name__ == "__main__":
    main()
