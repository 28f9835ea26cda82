"""Writes generated Claude Code session logs (the shape of ~/.claude/projects), for the
peer and batch benchmarks: the same files for axt and for the tools compared with it.

    python3 scripts/claude-code-sessions.py DIR SESSIONS MIB [--seed N]

Writes DIR/projects/-home-dev-shop/<session-id>.jsonl, SESSIONS files of about MIB MiB
each (so CLAUDE_CONFIG_DIR=DIR points ccusage at them, and `axt import claude-code
DIR/projects` reads them). Each session is a main thread of turns as Claude Code 2.0 logs
them: a user prompt; assistant entries, one content block each (thinking, text, tool_use),
carrying the message's id, model and usage; a user entry with the tool_result and Claude
Code's `toolUseResult` copy. Tool outputs are 200 B to 24 KB of code and log lines.
Deterministic for a seed.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

LINES = [
    'fn main() {\n    println!("hello, {}", name);\n}',
    "error[E0308]: mismatched types\n  --> src/lib.rs:42:17",
    "\tat com.example.Service.handle(Service.java:118)",
    "C:\\Users\\dev\\shop\\src\\cart.py:12: DeprecationWarning",
    "\u001b[32mPASS\u001b[0m tests/cart.test.ts (3.2 s)",
    "    return re.match(r\"^\\d{3}-\\d{4}$\", value) is not None",
    "Résumé: the café's menu → 3 items ✓ 日本語",
    "test result: ok. 118 passed; 0 failed; 0 ignored",
]
TOOLS = ["Bash", "Read", "Grep", "Edit", "Glob"]


def main() -> int:
    args = sys.argv[1:]
    seed = 2026
    if "--seed" in args:
        at = args.index("--seed")
        seed = int(args[at + 1])
        del args[at:at + 2]
    out, sessions, mib = Path(args[0]), int(args[1]), float(args[2])
    rng = random.Random(seed)
    project = out / "projects" / "-home-dev-shop"
    project.mkdir(parents=True, exist_ok=True)
    for s in range(sessions):
        sid = "%08x-0000-4000-8000-%012x" % (seed, s)
        write_session(project / f"{sid}.jsonl", sid, int(mib * (1 << 20)), rng)
    return 0


def write_session(path: Path, sid: str, size: int, rng: random.Random) -> None:
    n = 0
    clock = 0
    parent = None
    written = 0

    def put(entry: dict) -> None:
        nonlocal n, clock, parent, written
        n += 1
        clock += rng.randint(1, 4)
        entry["parentUuid"] = parent
        entry["isSidechain"] = False
        entry["userType"] = "external"
        entry["cwd"] = "/home/dev/shop"
        entry["sessionId"] = sid
        entry["version"] = "2.0.46"
        entry["gitBranch"] = "main"
        entry["uuid"] = "%s%012x" % (sid[:24], n)
        entry["timestamp"] = "2026-03-14T%02d:%02d:%02d.%03dZ" % (
            9 + clock // 3600 % 12, clock // 60 % 60, clock % 60, n % 1000)
        parent = entry["uuid"]
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
        f.write(line)
        written += len(line.encode())

    def assistant(mid: str, block: dict, out_tokens: int) -> dict:
        return {"type": "assistant", "requestId": "req_" + mid[4:], "message": {
            "id": mid, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929", "content": [block],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": rng.randint(3, 40),
                      "cache_creation_input_tokens": rng.randint(0, 4000),
                      "cache_read_input_tokens": rng.randint(1000, 90000),
                      "output_tokens": out_tokens,
                      "service_tier": "standard"}}}

    def text(lo: int, hi: int) -> str:
        want = rng.randint(lo, hi)
        parts, length = [], 0
        while length < want:
            part = rng.choice(LINES)
            parts.append(part)
            length += len(part) + 1
        return "\n".join(parts)[:want]

    with open(path, "w", encoding="utf-8") as f:
        turn = 0
        while written < size:
            turn += 1
            put({"type": "user", "message": {"role": "user", "content": f"Step {turn}: fix the failing test in cart.py."}})
            for call in range(rng.randint(1, 4)):
                mid = "msg_%s_%d_%d" % (sid[:8], turn, call)
                if rng.random() < 0.5:
                    put(assistant(mid, {"type": "thinking", "thinking": text(100, 1500),
                                        "signature": "Eq" + "x" * rng.randint(200, 800)}, 0))
                put(assistant(mid, {"type": "text", "text": text(40, 800)}, 0))
                tool = rng.choice(TOOLS)
                tid = "toolu_%s_%d_%d" % (sid[:8], turn, call)
                put(assistant(mid, {"type": "tool_use", "id": tid, "name": tool,
                                    "input": {"command": "pytest -q tests/test_cart.py"}},
                              rng.randint(20, 900)))
                output = text(200, 24000)
                put({"type": "user",
                     "message": {"role": "user", "content": [
                         {"tool_use_id": tid, "type": "tool_result", "content": output,
                          "is_error": rng.random() < 0.1}]},
                     "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False,
                                       "isImage": False}})
            mid = "msg_%s_%d_end" % (sid[:8], turn)
            put(assistant(mid, {"type": "text", "text": text(40, 1200)}, rng.randint(20, 600)))


if __name__ == "__main__":
    sys.exit(main())
