#!/usr/bin/env bash
# Peak memory of the three paths issue 23 found unbounded, each under /usr/bin/time -v:
#
#   tree      `axt tree` on a large transcript (a run of many small agent steps)
#   kept      `axt normalize` of a Claude stream whose records are mostly of an unknown
#             type (kept as passthrough in the run's metadata), 600 KB each
#   redact    `axt exec --redact` around an agent that writes one line without a line feed
#
# and fails when one exceeds its limit. What each keeps is bounded by the transcript's line
# limit (16 MiB), not by its input; the limits leave room for the process itself.
#
#   scripts/memory-bounds.sh                        # release build, the sizes below
#   AXT=/path/to/axt scripts/memory-bounds.sh       # another binary (a before/after run)
#   AXT_TREE_MB=2048 AXT_KEPT_MB=600 AXT_LINE_MB=512 scripts/memory-bounds.sh
#
# Inputs are written into a temporary directory, removed on exit. Needs GNU time and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

TREE_MB=${AXT_TREE_MB:-512}
KEPT_MB=${AXT_KEPT_MB:-600}
LINE_MB=${AXT_LINE_MB:-512}
LIMIT_MB=${AXT_MEMORY_LIMIT_MB:-160}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axt-memory-bounds.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

if [ -z "${AXT:-}" ]; then
  cargo build --release --locked --quiet
  AXT=target/release/axt
fi

# tree: the same run scripts/read-memory.sh reads (one agent step repeated), TREE_MB big.
python3 scripts/make-agent-run.py "$TMP/tree-run.jsonl" "$TREE_MB" tree-run

# kept: KEPT_MB of records of a type the Claude adapter does not know, 600 KB each.
python3 - "$TMP/kept.jsonl" "$KEPT_MB" <<'PY'
import json, sys
path, mb = sys.argv[1], int(sys.argv[2])
blob = "u" * (600 << 10)
with open(path, "w") as f:
    f.write(json.dumps({"type": "system", "subtype": "init", "session_id": "s1", "model": "m", "tools": []}) + "\n")
    for n in range((mb << 20) // len(blob)):
        f.write(json.dumps({"type": "mystery_event", "session_id": "s1", "n": n, "blob": blob}) + "\n")
    f.write(json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "done",
                        "session_id": "s1", "usage": {"input_tokens": 1, "output_tokens": 1}}) + "\n")
PY

# redact: the agent writes LINE_MB of one line, no line feed, and exits.
cat >"$TMP/long-line-agent.py" <<'PY'
import sys
mb = int(sys.argv[1])
chunk = b"a" * (1 << 20)
for _ in range(mb):
    sys.stdout.buffer.write(chunk)
sys.stdout.buffer.flush()
PY

status=0
measure() { # measure NAME COMMAND...: runs COMMAND, prints its max RSS, checks the limit
  local name=$1
  shift
  /usr/bin/time -v "$@" >"$TMP/$name.out" 2>"$TMP/$name.time" || true
  local rss_kb wall
  rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/$name.time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$TMP/$name.time")
  printf '%-7s max RSS %8.1f MiB, wall %s\n' "$name" "$(echo "$rss_kb / 1024" | bc -l)" "$wall"
  grep -v '^\s' "$TMP/$name.time" | grep -v 'Command being timed' | tail -n 3 | sed 's/^/          /' || true
  if [ "$rss_kb" -gt $((LIMIT_MB * 1024)) ]; then
    echo "          over the limit of $LIMIT_MB MiB"
    status=1
  fi
}

printf 'axt: %s\n' "$AXT"
printf 'tree input: %d MiB, %s lines; kept input: %d MiB; redact line: %d MiB\n' \
  $(($(stat -c %s "$TMP/tree-run.jsonl") >> 20)) "$(wc -l <"$TMP/tree-run.jsonl")" \
  $(($(stat -c %s "$TMP/kept.jsonl") >> 20)) "$LINE_MB"
measure tree "$AXT" tree "$TMP/tree-run.jsonl"
measure kept "$AXT" normalize --clock fixed:2026-06-08T08:00:00Z "$TMP/kept.jsonl"
mkdir -p "$TMP/runs"
measure redact "$AXT" exec -p claude --redact --out "$TMP/runs" --run-id long -- \
  python3 "$TMP/long-line-agent.py" "$LINE_MB"
exit $status
