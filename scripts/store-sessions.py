"""Writes a generated store of one agent's sessions, in the agent's own layout under a home
directory, for the peer benchmark (scripts/bench-cli.py peers): the same files for
`axt import STORE` and for the tools that read that store.

    python3 scripts/store-sessions.py STORE HOME SESSIONS MIB [--seed N]

STORE is codex, copilot, gemini, qwen or opencode. Writes SESSIONS sessions of about MIB
MiB each where the agent keeps them under HOME (so HOME=HOME points a peer at them, and
`axt import STORE HOME/<root>` reads them; ROOTS below): ~/.codex/sessions/YYYY/MM/DD/
rollout-*.jsonl, ~/.copilot/session-state/<id>/events.jsonl, ~/.gemini/tmp/<project>/
chats/session-*.jsonl, ~/.qwen/projects/<project>/chats/<id>.jsonl, and OpenCode 1.2+'s one
database ~/.local/share/opencode/opencode.db. Each session is turns as the store corpora's
make-fixtures.py write them (corpus/import/<store>/, the agents' versions named there): a
prompt, one to four shell calls each with its output (200 B to 24 KB of code and log lines,
the text scripts/claude-code-sessions.py writes), reasoning where the agent logs it, and an
answer, with the usage each agent records where it records it (Codex's running totals,
Gemini's message written again as it grows, Copilot's totals at shutdown, OpenCode's tokens
on each assistant message and step). Deterministic for a seed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import sqlite3
import sys
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # the scripts below are loaded, not cached beside them


def _load(name: str, path: Path):
    """Another script of the project, as a module (its `main` guarded, so nothing runs)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LINES = _load("claude_code_sessions", HERE / "claude-code-sessions.py").LINES
# OpenCode's database schema and project id, as the store corpus's fixtures write them: one
# copy of the schema, kept where the corpus's sources are cited.
_opencode = _load("opencode_fixtures",
                  HERE.parent / "corpus" / "import" / "opencode" / "make-fixtures.py")
OPENCODE_SCHEMA = _opencode.SCHEMA
OPENCODE_PROJECT = _opencode.PROJECT

# Where each store lives under the home directory: the argument `axt import STORE` takes.
ROOTS = {
    "codex": ".codex",
    "copilot": ".copilot",
    "gemini": ".gemini",
    "qwen": ".qwen",
    "opencode": ".local/share/opencode",
}
CWD = "/home/dev/shop"
PROJECT_HASH = "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d0f"
T0 = 1773478800000  # 2026-03-14T09:00:00Z in ms


def dump(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


class Session:
    """One session's clock, sizes and generated text."""

    def __init__(self, store: str, n: int, seed: int, size: int, rng: random.Random):
        self.seed, self.n, self.code = seed, n, sum(map(ord, store)) & 0xFFF
        self.id = "%08x-0000-4%03x-8000-%012x" % (seed, self.code, n)
        self.size, self.rng, self.clock, self.written, self.turn = size, rng, 0, 0, 0

    def uid(self, k: int) -> str:
        """An id shaped as a UUID, unique to this session and k."""
        return "%08x-%04x-4%03x-9000-%012x" % (self.seed, self.n & 0xFFFF, self.code, k)

    def tick(self) -> int:
        self.clock += self.rng.randint(1, 4) * 1000 + self.rng.randint(0, 999)
        return T0 + self.clock

    def ts(self, ms: int | None = None) -> str:
        ms = self.tick() if ms is None else ms
        at = datetime.fromtimestamp(ms / 1000, timezone.utc)
        return at.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)

    def text(self, lo: int, hi: int) -> str:
        want = self.rng.randint(lo, hi)
        parts, length = [], 0
        while length < want:
            part = self.rng.choice(LINES)
            parts.append(part)
            length += len(part) + 1
        return "\n".join(parts)[:want]

    def command(self) -> str:
        return self.rng.choice(["pytest -q tests/test_cart.py", "cargo test --lib cart",
                                "rg -n 'def total' src", "cat src/cart.py", "git diff --stat"])

    def calls(self) -> range:
        return range(self.rng.randint(1, 4))

    def more(self) -> bool:
        self.turn += 1
        return self.written < self.size


class Lines:
    """A JSON Lines file that counts what it wrote."""

    def __init__(self, path: Path, session: Session):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f, self.session = open(path, "w", encoding="utf-8"), session

    def put(self, record: dict) -> None:
        line = dump(record)
        self.f.write(line)
        self.session.written += len(line.encode())

    def close(self) -> None:
        self.f.close()


def codex(home: Path, s: Session) -> None:
    """Codex 0.66.0 rollouts (corpus/import/codex)."""
    out = Lines(home / ROOTS["codex"] / "sessions/2026/03/14" /
                f"rollout-2026-03-14T09-00-00-{s.id}.jsonl", s)

    def put(kind: str, payload: dict) -> None:
        out.put({"timestamp": s.ts(), "type": kind, "payload": payload})

    put("session_meta", {"id": s.id, "timestamp": s.ts(T0), "cwd": CWD,
                         "originator": "codex_cli_rs", "cli_version": "0.66.0",
                         "instructions": None, "source": "cli", "model_provider": "openai",
                         "git": {"commit_hash": "4f1c2a9", "branch": "main"}})
    total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0,
             "reasoning_output_tokens": 0, "total_tokens": 0}
    context = {"cwd": CWD, "approval_policy": "on-request",
               "sandbox_policy": {"type": "workspace-write", "network_access": False},
               "model": "gpt-5.1-codex-max", "effort": "medium", "summary": "auto"}

    def count() -> None:
        last = {"input_tokens": s.rng.randint(3000, 90000), "output_tokens": s.rng.randint(20, 900),
                "reasoning_output_tokens": s.rng.randint(0, 400)}
        last["cached_input_tokens"] = last["input_tokens"] * 9 // 10
        last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
        for key, value in last.items():
            total[key] += value
        put("event_msg", {"type": "token_count", "info": {
            "total_token_usage": dict(total), "last_token_usage": last,
            "model_context_window": 258400}, "rate_limits": None})

    while s.more():
        prompt = f"Step {s.turn}: fix the failing test in cart.py."
        put("response_item", {"type": "message", "role": "user",
                              "content": [{"type": "input_text", "text": prompt}]})
        put("event_msg", {"type": "user_message", "message": prompt, "images": []})
        put("turn_context", context)
        for call in s.calls():
            if s.rng.random() < 0.5:
                summary = s.text(40, 300)
                put("event_msg", {"type": "agent_reasoning", "text": summary})
                put("response_item", {"type": "reasoning", "summary": [
                    {"type": "summary_text", "text": summary}], "content": None,
                    "encrypted_content": "gAAAA" + "x" * s.rng.randint(200, 800)})
            cid = f"call_{s.turn}_{call}"
            put("response_item", {"type": "function_call", "name": "shell_command",
                                  "arguments": json.dumps({"command": s.command(), "workdir": CWD}),
                                  "call_id": cid})
            count()
            put("response_item", {"type": "function_call_output", "call_id": cid,
                                  "output": "Exit code: 0\nWall time: 0.4 seconds\nOutput:\n"
                                  + s.text(200, 24000)})
        answer = s.text(40, 1200)
        put("event_msg", {"type": "agent_message", "message": answer})
        put("response_item", {"type": "message", "role": "assistant",
                              "content": [{"type": "output_text", "text": answer}]})
        count()
    out.close()


def copilot(home: Path, s: Session) -> None:
    """Copilot CLI 1.0.63 session logs (corpus/import/copilot)."""
    out = Lines(home / ROOTS["copilot"] / "session-state" / s.id / "events.jsonl", s)
    n, parent = [0], [None]

    def ev(kind: str, data: dict) -> None:
        n[0] += 1
        eid = s.uid(n[0])
        out.put({"type": kind, "data": data, "id": eid, "timestamp": s.ts(),
                 "parentId": parent[0]})
        parent[0] = eid

    ev("session.start", {"sessionId": s.id, "version": 1, "producer": "copilot-agent",
                         "copilotVersion": "1.0.63", "startTime": s.ts(T0),
                         "context": {"cwd": CWD}, "alreadyInUse": False})
    usage = {"inputTokens": 0, "outputTokens": 0, "cacheReadTokens": 0, "cacheWriteTokens": 0}
    requests = 0
    while s.more():
        ev("user.message", {"content": f"Step {s.turn}: fix the failing test in cart.py.",
                            "attachments": []})
        ev("assistant.turn_start", {"turnId": str(s.turn)})
        for call in s.calls():
            cid = f"toolu_{s.turn}_{call}"
            args = {"command": s.command(), "description": "Runs the tests"}
            out_tokens = s.rng.randint(20, 900)
            ev("assistant.message", {"messageId": s.uid(1 << 40 | s.turn << 4 | call),
                                     "content": s.text(40, 800), "toolRequests": [
                                         {"toolCallId": cid, "name": "bash", "arguments": args,
                                          "type": "function"}], "outputTokens": out_tokens})
            ev("tool.execution_start", {"toolCallId": cid, "toolName": "bash", "arguments": args})
            ev("tool.execution_complete", {"toolCallId": cid, "success": True,
                                           "result": {"content": s.text(200, 24000)}})
            inp = s.rng.randint(3000, 90000)
            usage["inputTokens"] += inp
            usage["cacheReadTokens"] += inp * 9 // 10
            usage["outputTokens"] += out_tokens
            requests += 1
        ev("assistant.message", {"messageId": s.uid(1 << 40 | s.turn << 4 | 15),
                                 "content": s.text(40, 1200), "toolRequests": [],
                                 "outputTokens": s.rng.randint(20, 600)})
        ev("assistant.turn_end", {"turnId": str(s.turn)})
    ev("session.shutdown", {"shutdownType": "routine", "totalPremiumRequests": requests,
                            "totalApiDurationMs": 1000 * requests, "sessionStartTime": T0,
                            "codeChanges": {"linesAdded": 0, "linesRemoved": 0,
                                            "filesModified": []},
                            "modelMetrics": {"claude-sonnet-4.5": {
                                "requests": {"count": requests, "cost": requests},
                                "usage": usage}},
                            "currentModel": "claude-sonnet-4.5"})
    out.close()


def gemini(home: Path, s: Session) -> None:
    """Gemini CLI 0.46.0 saved sessions (corpus/import/gemini): a message with a call is
    written when the call is scheduled, again with its result, and again with its tokens."""
    out = Lines(home / ROOTS["gemini"] / "tmp" / PROJECT_HASH / "chats" /
                f"session-2026-03-14T09-00-{s.id[-8:]}.jsonl", s)
    out.put({"sessionId": s.id, "projectHash": PROJECT_HASH, "startTime": s.ts(T0),
             "lastUpdated": s.ts(T0), "kind": "main", "directories": [CWD]})
    n = 0

    def tokens(out_tokens: int) -> dict:
        inp = s.rng.randint(3000, 90000)
        thoughts = s.rng.randint(0, 400)
        return {"input": inp, "output": out_tokens, "cached": inp * 9 // 10,
                "thoughts": thoughts, "tool": 0, "total": inp + out_tokens + thoughts}

    while s.more():
        n += 1
        out.put({"id": f"u{n}", "timestamp": s.ts(), "type": "user",
                 "content": [{"text": f"Step {s.turn}: fix the failing test in cart.py."}]})
        for call in s.calls():
            n += 1
            at = s.ts()
            thoughts = [{"subject": "Running the tests", "description": s.text(40, 600),
                         "timestamp": at}] if s.rng.random() < 0.5 else []
            cid = f"run_shell_command-{s.turn}-{call}"
            scheduled = {"id": cid, "name": "run_shell_command",
                         "args": {"command": s.command(), "description": "run the tests"},
                         "status": "scheduled", "timestamp": at,
                         "displayName": "run_shell_command", "description": "",
                         "renderOutputAsMarkdown": False}
            message = {"id": f"g{n}", "timestamp": at, "type": "gemini", "content": "",
                       "thoughts": thoughts, "model": "gemini-2.5-pro", "toolCalls": [scheduled]}
            out.put(message)
            done = dict(scheduled, status="success", result=[{"functionResponse": {
                "id": cid, "name": "run_shell_command",
                "response": {"output": s.text(200, 24000)}}}])
            message = dict(message, toolCalls=[done])
            out.put(message)
            out.put(dict(message, tokens=tokens(s.rng.randint(20, 900))))
        n += 1
        out.put({"id": f"g{n}", "timestamp": s.ts(), "type": "gemini",
                 "content": s.text(40, 1200), "thoughts": [], "model": "gemini-2.5-pro",
                 "tokens": tokens(s.rng.randint(20, 600))})
        out.put({"$set": {"lastUpdated": s.ts(T0 + s.clock)}})
    out.close()


def qwen(home: Path, s: Session) -> None:
    """Qwen Code 0.13.2 sessions (corpus/import/qwen)."""
    out = Lines(home / ROOTS["qwen"] / "projects" / "-home-dev-shop" / "chats" /
                f"{s.id}.jsonl", s)
    n, parent = [0], [None]

    def put(kind: str, **fields) -> None:
        n[0] += 1
        uuid = s.uid(n[0])
        record = {"uuid": uuid, "parentUuid": parent[0], "sessionId": s.id,
                  "timestamp": s.ts(), "type": kind, "cwd": CWD, "version": "0.13.2",
                  "gitBranch": "main"}
        record.update(fields)
        out.put(record)
        parent[0] = uuid

    def usage(out_tokens: int) -> dict:
        inp = s.rng.randint(3000, 90000)
        return {"promptTokenCount": inp, "candidatesTokenCount": out_tokens,
                "totalTokenCount": inp + out_tokens, "cachedContentTokenCount": inp * 9 // 10}

    put("system", subtype="session_model",
        systemPayload={"modelId": "qwen3-coder-plus", "authType": "qwen-oauth"})
    while s.more():
        put("user", message={"role": "user", "parts": [
            {"text": f"Step {s.turn}: fix the failing test in cart.py."}]})
        for call in s.calls():
            cid = f"call_{s.turn}_{call}"
            parts = [{"text": s.text(40, 600), "thought": True}] if s.rng.random() < 0.5 else []
            parts.append({"functionCall": {"id": cid, "name": "run_shell_command",
                                           "args": {"command": s.command()}}})
            put("assistant", message={"role": "model", "parts": parts},
                model="qwen3-coder-plus", usageMetadata=usage(s.rng.randint(20, 900)))
            output = s.text(200, 24000)
            put("tool_result", message={"role": "user", "parts": [{"functionResponse": {
                "id": cid, "name": "run_shell_command", "response": {"output": output}}}]},
                toolCallResult={"callId": cid, "status": "success", "resultDisplay": output})
        put("assistant", message={"role": "model", "parts": [{"text": s.text(40, 1200)}]},
            model="qwen3-coder-plus", usageMetadata=usage(s.rng.randint(20, 600)))
    out.close()


def opencode(db: sqlite3.Connection, s: Session) -> None:
    """OpenCode 1.18.34's database rows (corpus/import/opencode): a message and its parts."""
    sid = "ses_" + s.id.replace("-", "")[-26:]
    db.execute("INSERT INTO session (id, project_id, slug, directory, title, version, "
               "time_created, time_updated) VALUES (?, ?, ?, ?, 'bench', '1.18.34', ?, ?)",
               (sid, OPENCODE_PROJECT, sid[-8:], CWD, T0, T0))
    n = [0]

    def new_id(kind: str) -> str:
        n[0] += 1
        return "%s_%s%06d" % (kind, sid[-14:], n[0])

    def message(info: dict, parts: list[dict]) -> str:
        mid = new_id("msg")
        created = info["time"]["created"]
        data = json.dumps(info, separators=(",", ":"))
        db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, sid, created, created, data))
        s.written += len(data)
        for part in parts:
            data = json.dumps(part, separators=(",", ":"))
            db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                       (new_id("prt"), mid, sid, created, created, data))
            s.written += len(data)
        return mid

    def tokens(out_tokens: int) -> dict:
        inp = s.rng.randint(3000, 90000)
        return {"input": inp // 10, "output": out_tokens, "reasoning": 0,
                "cache": {"read": inp - inp // 10, "write": s.rng.randint(0, 4000)}}

    last = None
    while s.more():
        at = s.tick()
        last = message({"role": "user", "time": {"created": at}, "agent": "build",
                        "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}},
                       [{"type": "text",
                         "text": f"Step {s.turn}: fix the failing test in cart.py."}])
        parts, cost, total = [], 0.0, None
        for call in s.calls():
            parts.append({"type": "step-start"})
            if s.rng.random() < 0.5:
                parts.append({"type": "reasoning", "text": s.text(40, 600),
                              "time": {"start": at, "end": at + 1}})
            command = s.command()
            parts.append({"type": "tool", "callID": f"toolu_{s.turn}_{call}", "tool": "bash",
                          "state": {"status": "completed",
                                    "input": {"command": command, "description": "Runs the tests"},
                                    "output": s.text(200, 24000), "title": command,
                                    "metadata": {"exit": 0},
                                    "time": {"start": at, "end": at + 900}}})
            total = tokens(s.rng.randint(20, 900))
            parts.append({"type": "step-finish", "reason": "tool-calls", "cost": 0.004,
                          "tokens": total})
            cost += 0.004
        parts.append({"type": "step-start"})
        parts.append({"type": "text", "text": s.text(40, 1200)})
        total = tokens(s.rng.randint(20, 600))
        parts.append({"type": "step-finish", "reason": "stop", "cost": 0.002, "tokens": total})
        cost += 0.002
        end = s.tick()
        last = message({"role": "assistant", "time": {"created": at + 1, "completed": end},
                        "parentID": last, "modelID": "claude-sonnet-4-5", "providerID": "anthropic",
                        "mode": "build", "agent": "build", "path": {"cwd": CWD, "root": CWD},
                        "cost": round(cost, 6), "tokens": total, "finish": "stop"}, parts)
    db.execute("UPDATE session SET time_updated = ? WHERE id = ?", (T0 + s.clock, sid))


def main() -> int:
    args = sys.argv[1:]
    seed = 2026
    if "--seed" in args:
        at = args.index("--seed")
        seed = int(args[at + 1])
        del args[at:at + 2]
    if len(args) != 4 or args[0] not in ROOTS:
        sys.exit(__doc__)
    store, home, sessions, mib = args[0], Path(args[1]), int(args[2]), float(args[3])
    rng = random.Random(seed)
    size = int(mib * (1 << 20))
    if store == "opencode":
        root = home / ROOTS[store]
        root.mkdir(parents=True, exist_ok=True)
        path = root / "opencode.db"
        if path.exists():
            path.unlink()
        db = sqlite3.connect(path)
        db.executescript(OPENCODE_SCHEMA)
        db.execute("INSERT INTO project VALUES (?, ?, 'git', NULL, ?, ?, '[]')",
                   (OPENCODE_PROJECT, CWD, T0, T0))
        for n in range(sessions):
            opencode(db, Session(store, n, seed, size, rng))
        db.commit()
        db.close()
        return 0
    write = {"codex": codex, "copilot": copilot, "gemini": gemini, "qwen": qwen}[store]
    for n in range(sessions):
        write(home, Session(store, n, seed, size, rng))
    return 0


if __name__ == "__main__":
    sys.exit(main())
