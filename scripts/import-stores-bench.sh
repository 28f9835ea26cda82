#!/usr/bin/env bash
# Import speed (MB/s) and peak memory of every store's importer, on a large generated store
# of each kind of the same size, in one run: `axt import STORE DIR` under /usr/bin/time -v.
#
#   scripts/import-stores-bench.sh                 # 6 stores x ~40 MiB, 80 sessions each
#   AXT_BENCH_MB=100 AXT_BENCH_SESSIONS=200 scripts/import-stores-bench.sh
#
# Each store is written by the generator below in its agent's own layout and shapes (as the
# store corpora's make-fixtures.py write them): sessions of turns, each a prompt, a shell
# call, its ~4 KB output and an answer with its usage (Gemini's answers written twice, as the
# CLI rewrites a message as it grows; OpenCode's one SQLite database, a row per message and
# per part). Claude Code's importer is the baseline: every store's
# MB/s is also given as a ratio to it, measured in the same run. Needs GNU time, python3.
set -euo pipefail
cd "$(dirname "$0")/.."

MB=${AXT_BENCH_MB:-40}
SESSIONS=${AXT_BENCH_SESSIONS:-80}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axt-stores-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# AXT names another binary to measure (then nothing is built).
if [ -z "${AXT:-}" ]; then
  cargo build --release --locked --quiet
  AXT=target/release/axt
fi

python3 - "$TMP" "$MB" "$SESSIONS" <<'PY'
import json, os, sys
root, mb, sessions = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
per_session = (mb << 20) // sessions
TURN = 4600  # about the bytes one turn takes, its ~4 KB output included
turns = max(1, per_session // TURN)
def dump(d):
    return json.dumps(d, separators=(",", ":")) + "\n"
def sid(store, s):
    return "%08x-0000-4000-8000-%012x" % (sum(map(ord, store)), s)
def ts(i):
    return "2026-03-14T%02d:%02d:%02d.%03dZ" % (9 + i // 3600 % 12, i // 60 % 60, i % 60, i % 1000)
def output(s, t):
    return ("src/mod%d_%d.py: def handler(request): return serve(request)\n" % (s, t)) * 64

def claude(s, f):
    session, last, n = sid("claude", s), None, 0
    for t in range(turns):
        for kind, message in (
            ("user", {"role": "user", "content": "Look at module %d." % t}),
            ("assistant", {"id": "msg_%d_%d_a" % (s, t), "type": "message", "role": "assistant",
                           "model": "claude-sonnet-4-5", "content": [{"type": "tool_use", "id": "toolu_%d_%d" % (s, t),
                           "name": "Bash", "input": {"command": "cat src/mod%d.py" % t}}], "stop_reason": "tool_use",
                           "usage": {"input_tokens": 4, "cache_read_input_tokens": 1000, "output_tokens": 40}}),
            ("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_%d_%d" % (s, t),
                                                   "content": output(s, t)}]}),
            ("assistant", {"id": "msg_%d_%d_b" % (s, t), "type": "message", "role": "assistant",
                           "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "Module %d serves requests." % t}],
                           "stop_reason": "end_turn", "usage": {"input_tokens": 4, "output_tokens": 12}})):
            n += 1
            uuid = "%s%08d" % (session[:28], n)
            f.write(dump({"parentUuid": last, "isSidechain": False, "userType": "external", "cwd": "/home/dev/shop",
                          "sessionId": session, "version": "2.1.19", "type": kind, "message": message,
                          "uuid": uuid, "timestamp": ts(n)}))
            last = uuid

def codex(s, f):
    def put(i, kind, payload):
        f.write(dump({"timestamp": ts(i), "type": kind, "payload": payload}))
    put(0, "session_meta", {"id": sid("codex", s), "timestamp": ts(0), "cwd": "/home/dev/shop",
                            "originator": "codex_cli_rs", "cli_version": "0.66.0", "source": "cli", "model_provider": "openai"})
    put(0, "turn_context", {"cwd": "/home/dev/shop", "model": "gpt-5.1-codex"})
    for t in range(turns):
        i = 4 * t + 1
        put(i, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Look at module %d." % t}]})
        put(i, "response_item", {"type": "function_call", "name": "shell_command", "call_id": "call_%d" % t,
                                 "arguments": json.dumps({"command": "cat src/mod%d.py" % t})})
        put(i + 1, "response_item", {"type": "function_call_output", "call_id": "call_%d" % t, "output": output(s, t)})
        put(i + 2, "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Module %d serves requests." % t}]})
        total = 1000 * (t + 1)
        put(i + 2, "event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": total,
            "cached_input_tokens": total // 2, "output_tokens": 52 * (t + 1), "reasoning_output_tokens": 0,
            "total_tokens": total + 52 * (t + 1)}}})

def copilot(s, f):
    n = [0]
    def ev(i, kind, data):
        n[0] += 1
        f.write(dump({"type": kind, "data": data, "id": "%s-%d" % (sid("copilot", s), n[0]), "timestamp": ts(i)}))
    ev(0, "session.start", {"sessionId": sid("copilot", s), "copilotVersion": "1.0.63", "startTime": ts(0),
                            "context": {"cwd": "/home/dev/shop"}})
    for t in range(turns):
        i = 4 * t + 1
        ev(i, "user.message", {"content": "Look at module %d." % t, "attachments": []})
        ev(i, "assistant.message", {"messageId": "m%d" % t, "content": "", "outputTokens": 40, "toolRequests": [
            {"toolCallId": "call_%d" % t, "name": "bash", "arguments": {"command": "cat src/mod%d.py" % t}, "type": "function"}]})
        ev(i + 1, "tool.execution_start", {"toolCallId": "call_%d" % t, "toolName": "bash", "arguments": {"command": "cat src/mod%d.py" % t}})
        ev(i + 1, "tool.execution_complete", {"toolCallId": "call_%d" % t, "success": True, "result": {"content": output(s, t)}})
        ev(i + 2, "assistant.message", {"messageId": "n%d" % t, "content": "Module %d serves requests." % t,
                                        "toolRequests": [], "outputTokens": 12})
    ev(4 * turns + 1, "session.shutdown", {"shutdownType": "routine", "modelMetrics": {"claude-sonnet-4.5": {
        "requests": {"count": turns, "cost": turns}, "usage": {"inputTokens": 1000 * turns, "outputTokens": 52 * turns,
        "cacheReadTokens": 500 * turns, "cacheWriteTokens": 0}}}})

def gemini(s, f):
    f.write(dump({"sessionId": sid("gemini", s), "projectHash": "ab" * 32, "startTime": ts(0), "lastUpdated": ts(0), "kind": "main"}))
    for t in range(turns):
        i = 4 * t + 1
        f.write(dump({"id": "u%d" % t, "timestamp": ts(i), "type": "user", "content": [{"text": "Look at module %d." % t}]}))
        call = {"id": "run_shell_command-%d" % t, "name": "run_shell_command", "args": {"command": "cat src/mod%d.py" % t},
                "status": "scheduled", "timestamp": ts(i)}
        f.write(dump({"id": "g%d" % t, "timestamp": ts(i), "type": "gemini", "content": "", "model": "gemini-2.5-pro", "toolCalls": [call]}))
        call = dict(call, status="success", result=[{"functionResponse": {"id": call["id"], "name": call["name"],
                                                                          "response": {"output": output(s, t)}}}])
        f.write(dump({"id": "g%d" % t, "timestamp": ts(i), "type": "gemini", "content": "", "model": "gemini-2.5-pro",
                      "toolCalls": [call], "tokens": {"input": 1000, "output": 40, "cached": 500, "thoughts": 0, "tool": 0}}))
        f.write(dump({"id": "h%d" % t, "timestamp": ts(i + 2), "type": "gemini", "content": "Module %d serves requests." % t,
                      "model": "gemini-2.5-pro", "tokens": {"input": 1100, "output": 12, "cached": 900, "thoughts": 0, "tool": 0}}))

def qwen(s, f):
    session, n = sid("qwen", s), [0]
    def put(i, kind, message, **extra):
        n[0] += 1
        record = {"uuid": "%s%08d" % (session[:28], n[0]), "parentUuid": None, "sessionId": session,
                  "timestamp": ts(i), "type": kind, "cwd": "/home/dev/shop", "version": "0.13.2", "message": message}
        record.update(extra)
        f.write(dump(record))
    for t in range(turns):
        i = 4 * t + 1
        put(i, "user", {"role": "user", "parts": [{"text": "Look at module %d." % t}]})
        put(i, "assistant", {"role": "model", "parts": [{"functionCall": {"id": "call_%d" % t, "name": "run_shell_command",
            "args": {"command": "cat src/mod%d.py" % t}}}]}, model="qwen3-coder-plus",
            usageMetadata={"promptTokenCount": 1000, "candidatesTokenCount": 40, "cachedContentTokenCount": 500})
        put(i + 1, "tool_result", {"role": "user", "parts": [{"functionResponse": {"id": "call_%d" % t,
            "name": "run_shell_command", "response": {"output": output(s, t)}}}]})
        put(i + 2, "assistant", {"role": "model", "parts": [{"text": "Module %d serves requests." % t}]},
            model="qwen3-coder-plus", usageMetadata={"promptTokenCount": 1100, "candidatesTokenCount": 12})

layout = {
    "claude-code": (claude, lambda s: "projects/-home-dev-shop/%s.jsonl" % sid("claude", s)),
    "codex": (codex, lambda s: "sessions/2026/03/14/rollout-2026-03-14T09-00-00-%s.jsonl" % sid("codex", s)),
    "copilot": (copilot, lambda s: "session-state/%s/events.jsonl" % sid("copilot", s)),
    "gemini": (gemini, lambda s: "tmp/%s/chats/session-2026-03-14T09-00-%08d.jsonl" % ("ab" * 32, s)),
    "qwen": (qwen, lambda s: "projects/-home-dev-shop/chats/%s.jsonl" % sid("qwen", s)),
}
for store, (write, name) in layout.items():
    for s in range(sessions):
        path = os.path.join(root, store, name(s))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            write(s, f)

# OpenCode 1.2+: one SQLite database (opencode.db), the message and part rows of every
# session, as corpus/import/opencode/make-fixtures.py writes them.
import sqlite3
os.makedirs(os.path.join(root, "opencode"), exist_ok=True)
db = sqlite3.connect(os.path.join(root, "opencode", "opencode.db"))
db.executescript("""
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL,
  directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
""")
t0 = 1767261600000
for s in range(sessions):
    session = "ses_%012d" % s
    db.execute("INSERT INTO session VALUES (?, 'global', NULL, ?, '/home/dev/shop', 'bench', '1.18.34', ?, ?)",
               (session, session, t0, t0))
    n = 0
    def message(ms, info, parts):
        global n
        n += 1
        mid = "msg_%06d_%06d" % (s, n)
        db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, session, t0 + ms, t0 + ms, json.dumps(info)))
        for k, part in enumerate(parts):
            db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                       ("prt_%06d_%06d_%d" % (s, n, k), mid, session, t0 + ms, t0 + ms, json.dumps(part)))
    for t in range(turns):
        ms = 4000 * t
        tokens = lambda i, o: {"input": i, "output": o, "reasoning": 0, "cache": {"read": 1000, "write": 0}}
        message(ms, {"role": "user", "time": {"created": t0 + ms}}, [{"type": "text", "text": "Look at module %d." % t}])
        message(ms + 1, {"role": "assistant", "time": {"created": t0 + ms + 1, "completed": t0 + ms + 3},
                         "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "finish": "stop"}, [
            {"type": "step-start"},
            {"type": "tool", "callID": "call_%d" % t, "tool": "bash", "state": {"status": "completed",
             "input": {"command": "cat src/mod%d.py" % t}, "output": output(s, t), "metadata": {"exit": 0}}},
            {"type": "step-finish", "reason": "tool-calls", "cost": 0.001, "tokens": tokens(4, 40)},
            {"type": "step-start"},
            {"type": "text", "text": "Module %d serves requests." % t},
            {"type": "step-finish", "reason": "stop", "cost": 0.001, "tokens": tokens(4, 12)}])
db.commit()
db.close()
PY

printf '%-12s %9s %9s %9s %10s %8s\n' store MiB seconds MB/s "max RSS" "vs Claude"
base=""
# The stores are the store corpora's folders (claude-code first: the baseline).
for store in $(cd corpus/import && ls -d */ | tr -d /); do
  DIR="$TMP/$store"
  SIZE=$(du -sb "$DIR" | cut -f1)
  /usr/bin/time -v "$AXT" import "$store" "$DIR" --out "$TMP/out-$store" > "$TMP/$store.out" 2> "$TMP/$store.time" || {
    echo "axt import $store failed:"; tail -n 5 "$TMP/$store.time"; exit 1; }
  rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/$store.time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$TMP/$store.time")
  seconds=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  rate=$(echo "$SIZE / 1000000 / $seconds" | bc -l)
  [ -z "$base" ] && base=$rate
  printf '%-12s %9.1f %9.2f %9.1f %7.1f MiB %7.2fx\n' "$store" "$(echo "$SIZE / 1048576" | bc -l)" "$seconds" \
    "$rate" "$(echo "$rss_kb / 1024" | bc -l)" "$(echo "$rate / $base" | bc -l)"
  grep '^axt: ' "$TMP/$store.time" | tail -n 1 | sed 's/^/             /'
done
