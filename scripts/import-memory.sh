#!/usr/bin/env bash
# Imports one large Claude Code session (an in-file sidechain per Task call) with
# `axt import claude-code` under /usr/bin/time -v and prints the wall time and the maximum
# resident set size; fails if the RSS exceeds the limit.
#
#   scripts/import-memory.sh                      # ~50 MiB, 4000 sidechains, limit 100 MiB
#   AXT_IMPORT_MB=200 AXT_IMPORT_AGENTS=16000 scripts/import-memory.sh
#   AXT_IMPORT_KEEP=/tmp/out scripts/import-memory.sh   # keep the session and the runs
#
# The session is written by a small generator (the shape of Claude Code 2.0 logs, as in
# corpus/import/claude-code/make-fixtures.py): a main thread of Task calls, each answered by a
# sidechain of a prompt, a Read call, its ~8 KB result and a reply; every other Task result
# names its agent (`agentId`), the others are linked by their prompt. Needs GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."

MB=${AXT_IMPORT_MB:-50}
AGENTS=${AXT_IMPORT_AGENTS:-4000}
LIMIT_MB=${AXT_IMPORT_LIMIT_MB:-100}
if [ -n "${AXT_IMPORT_KEEP:-}" ]; then
  TMP=$AXT_IMPORT_KEEP
  rm -rf "$TMP" && mkdir -p "$TMP"
else
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/axt-import-memory.XXXXXX")
  trap 'rm -rf "$TMP"' EXIT
fi
FILE="$TMP/00000000-0000-4000-8000-000000000001.jsonl"

# The distribution build (fat LTO), the one the README's figures were measured with.
cargo build --profile dist --locked --quiet
AXT=${AXT:-target/dist/axt}

python3 - "$FILE" "$MB" "$AGENTS" <<'PY'
import json, sys
path, mb, agents = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sid = "00000000-0000-4000-8000-000000000001"
# Per sidechain: ~1.5 KB of entries around the Read result, which fills the rest.
pad_len = max(64, (mb << 20) // agents - 4200)
n = 0
def uid():
    global n
    n += 1
    return "00000000-0000-5000-8000-%012x" % n
def ts(i):
    s = i
    return "2026-03-14T%02d:%02d:%02d.%03dZ" % (9 + s // 3600 % 12, s // 60 % 60, s % 60, s % 1000)
def base(parent, typ, i, sidechain=False, agent=None):
    d = {"parentUuid": parent, "isSidechain": sidechain, "userType": "external",
         "cwd": "/home/dev/shop", "sessionId": sid, "version": "2.0.46", "gitBranch": "main"}
    if agent:
        d["agentId"] = agent
    d["type"] = typ
    return d
def msg(mid, content, usage_out):
    return {"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "content": [content], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 4, "cache_creation_input_tokens": 100,
                      "cache_read_input_tokens": 1000, "output_tokens": usage_out}}
with open(path, "w") as f:
    clock = 0
    def put(d):
        global clock
        clock += 1
        d["uuid"] = uid()
        d["timestamp"] = ts(clock)
        f.write(json.dumps(d, separators=(",", ":")) + "\n")
        return d["uuid"]
    e = base(None, "user", 0)
    e["message"] = {"role": "user", "content": "Survey every module of the shop, one explorer each."}
    last = put(e)
    for a in range(agents):
        agent = "a%07x" % a
        prompt = "Explore module %d of the shop and report its entry points." % a
        e = base(last, "assistant", a)
        e["message"] = msg("msg_main_%d" % a, {"type": "tool_use", "id": "toolu_task_%d" % a, "name": "Task",
                           "input": {"subagent_type": "Explore", "description": "Module %d" % a, "prompt": prompt}}, 90)
        call = put(e)
        e = base(None, "user", a, True, agent)
        e["message"] = {"role": "user", "content": prompt}
        s = put(e)
        e = base(s, "assistant", a, True, agent)
        e["message"] = msg("msg_sub_%d_1" % a, {"type": "tool_use", "id": "toolu_read_%d" % a, "name": "Read",
                           "input": {"file_path": "/home/dev/shop/src/mod%d.py" % a}}, 40)
        s = put(e)
        body = ("def handler_%d(request):\n    return serve(request)\n" % a) * (pad_len // 50 + 1)
        e = base(s, "user", a, True, agent)
        e["message"] = {"role": "user", "content": [{"tool_use_id": "toolu_read_%d" % a, "type": "tool_result",
                        "content": body[:pad_len]}]}
        e["toolUseResult"] = {"type": "text", "file": {"filePath": "/home/dev/shop/src/mod%d.py" % a}}
        s = put(e)
        e = base(s, "assistant", a, True, agent)
        e["message"] = msg("msg_sub_%d_2" % a, {"type": "text", "text": "Module %d: handler_%d is the entry point." % (a, a)}, 30)
        put(e)
        e = base(call, "user", a, False, agent if a % 2 == 0 else None)
        e["message"] = {"role": "user", "content": [{"tool_use_id": "toolu_task_%d" % a, "type": "tool_result",
                        "content": [{"type": "text", "text": "Module %d: handler_%d is the entry point." % (a, a)}]}]}
        e["toolUseResult"] = {"status": "completed", "prompt": prompt, "totalDurationMs": 4100, "totalTokens": 1891}
        last = put(e)
    e = base(last, "assistant", agents)
    e["message"] = msg("msg_main_end", {"type": "text", "text": "Every module surveyed."}, 20)
    put(e)
PY

SIZE=$(stat -c %s "$FILE")
printf 'session: %s bytes (%d MiB), %s lines, %s sidechains\n' "$SIZE" $((SIZE >> 20)) \
  "$(wc -l < "$FILE")" "$AGENTS"

OUT="$TMP/out"
/usr/bin/time -v "$AXT" import claude-code "$FILE" --out "$OUT" > "$TMP/import.out" 2> "$TMP/import.time" || {
  echo "axt import failed:"; cat "$TMP/import.out" "$TMP/import.time"; exit 1; }
rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/import.time")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$TMP/import.time")
printf 'axt import max RSS %.1f MiB (%.2fx the session), wall %s\n' "$(echo "$rss_kb / 1024" | bc -l)" \
  "$(echo "$rss_kb * 1024 / $SIZE" | bc -l)" "$wall"
grep '^axt: ' "$TMP/import.time" | tail -n 1
if [ "$rss_kb" -gt $((LIMIT_MB * 1024)) ]; then
  echo "over the limit of $LIMIT_MB MiB"; exit 1
fi
