#!/usr/bin/env bash
# The Parquet export against `axt stats` on the same generated transcript corpus (~1 GB by
# default): throughput of each, as a ratio to stats measured in the same run, the peak
# resident memory of each, and the dataset's size against the JSONL's. Also the
# incremental re-run over the unchanged corpus (every file hashed, none parsed).
#
#   scripts/export-bench.sh                   # AXT_EXPORT_MB=1024, 3 repetitions, medians
#   AXT_EXPORT_MB=100 AXT_EXPORT_REPS=1 scripts/export-bench.sh
#
# The corpus: 2,000 agent runs of ~0.5 MB (a prompt, then model turns with thinking, a text
# reply and a tool call with its result, ~1.3 KB lines, run metadata with usage and cost)
# spread over 20 days, and two runs of 25% of the corpus each, the largest any one run
# gets. Written into a temporary directory removed on exit. Needs GNU time (/usr/bin/time)
# and a release build (cargo build --release).
set -euo pipefail
cd "$(dirname "$0")/.."

MB=${AXT_EXPORT_MB:-1024}
REPS=${AXT_EXPORT_REPS:-3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axt-export-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
CORPUS="$TMP/transcripts"
mkdir -p "$CORPUS"

cargo build --release --locked --quiet
AXT=target/release/axt

python3 - "$CORPUS" "$MB" <<'PY'
import json, os, sys
out, mb = sys.argv[1], int(sys.argv[2])
target = mb << 20
pad = "lorem ipsum dolor sit amet " * 25
def write_run(run_id, size, day):
    path = os.path.join(out, run_id + ".jsonl")
    with open(path, "w") as f:
        seq = 0
        written = 0
        def put(type_, p, payload, ts):
            nonlocal seq, written
            seq += 1
            text = json.dumps({"seq": seq, "run_id": run_id, "type": type_, "path": p, "iteration": 0,
                               "timestamp": ts, "payload": payload}, separators=(",", ":")) + "\n"
            f.write(text)
            written += len(text)
        ts = "2026-05-%02dT10:00:00.000000Z" % (day + 1)
        put("run.started", "", {"name": "claude", "kind": "agent"}, ts)
        put("step.started", "agent", {"name": "agent", "kind": "agent"}, ts)
        put("message.user", "agent", {"role": "user", "blocks": [{"type": "text", "fidelity": "agent_emitted", "text": "Fix the failing test in %s." % run_id}]}, ts)
        n = 0
        while written < size:
            n += 1
            call = "toolu_%s_%d" % (run_id, n)
            tool = ("Bash", {"command": "cargo test %d" % (n % 7)}) if n % 3 else ("Read", {"file_path": "/src/lib%d.rs" % (n % 11)})
            put("message.assistant", "agent", {"role": "assistant", "message_id": "msg_%d" % n, "blocks": [
                {"type": "thinking", "fidelity": "agent_emitted", "thinking": pad},
                {"type": "text", "fidelity": "agent_emitted", "text": "Step %d: %s" % (n, pad[:200])},
                {"type": "tool_use", "fidelity": "agent_emitted", "tool_name": tool[0], "tool_id": call, "tool_input": tool[1]}]}, ts)
            put("tool.call", "agent", {"name": tool[0], "call_id": call, "input": tool[1], "output": None, "fidelity": "agent_emitted"}, ts)
            result = {"name": tool[0], "call_id": call, "input": None, "output": pad, "fidelity": "agent_emitted"}
            if n % 5 == 0:
                result["error"] = "exit status 101"
                result["exit_code"] = 101
            put("tool.result", "agent", result, ts)
        put("step.completed", "agent", {"name": "agent", "kind": "agent"}, ts)
        put("run.completed", "", {"name": "claude", "kind": "agent", "result": {
            "provider": "claude", "provider_version": "2.1.%d" % (200 + day % 3), "model": "claude-sonnet-4-6",
            "session_id": "s-" + run_id, "usage": {"input_tokens": 40 * n, "output_tokens": 300 * n,
            "cache_read_tokens": 9000 * n, "cache_write_tokens": 800, "reasoning_tokens": 0},
            "cost_usd": 0.002 * n, "status": "completed", "duration_ms": 1000 * n,
            "report": {"records": {"assistant": {"seen": n, "mapped": n}, "user": {"seen": n, "mapped": n}}, "unreadable": 0}}}, ts)
    return written
total = 0
for big in range(2):
    total += write_run("big-%d" % big, target // 4, big)
i = 0
while total < target:
    total += write_run("run-%05d" % i, (target // 2) // 2000, i % 20)
    i += 1
print("corpus: %d runs, %d bytes" % (i + 2, total))
PY

BYTES=$(du -sb "$CORPUS" | cut -f1)
FILES=$(ls "$CORPUS" | wc -l)
printf 'corpus: %s files, %s bytes (%d MiB)\n' "$FILES" "$BYTES" $((BYTES >> 20))

# One timed run: prints "seconds max_rss_kb".
timed() {
  /usr/bin/time -f '%e %M' -o "$TMP/time" "$@" > /dev/null 2> "$TMP/stderr" || {
    echo "failed: $*"; cat "$TMP/stderr"; exit 1; }
  cat "$TMP/time"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A SECONDS_OF RSS_OF
for rep in $(seq "$REPS"); do
  for what in stats export export-content reexport; do
    case "$what" in
      stats) result=$(timed "$AXT" stats --quiet "$CORPUS") ;;
      export) rm -rf "$TMP/ds"; result=$(timed "$AXT" export --to parquet --quiet --out "$TMP/ds" "$CORPUS") ;;
      export-content) rm -rf "$TMP/dsc"; result=$(timed "$AXT" export --to parquet --quiet --content --out "$TMP/dsc" "$CORPUS") ;;
      reexport) result=$(timed "$AXT" export --to parquet --quiet --out "$TMP/ds" "$CORPUS") ;;
    esac
    SECONDS_OF[$what]+="${result% *}"$'\n'
    RSS_OF[$what]+="${result#* }"$'\n'
  done
done

stats_s=$(printf '%s' "${SECONDS_OF[stats]}" | median)
printf '\n%-34s %9s %9s %12s %9s\n' "(medians of $REPS, same run)" "seconds" "MB/s" "vs stats" "peak MiB"
for what in stats export export-content reexport; do
  s=$(printf '%s' "${SECONDS_OF[$what]}" | median)
  kb=$(printf '%s' "${RSS_OF[$what]}" | median)
  label=$what
  case "$what" in
    stats) label="axt stats" ;;
    export) label="export --to parquet" ;;
    export-content) label="export --to parquet --content" ;;
    reexport) label="re-export, nothing changed" ;;
  esac
  awk -v l="$label" -v s="$s" -v b="$BYTES" -v base="$stats_s" -v kb="$kb" \
    'BEGIN { printf "%-34s %9.2f %9.0f %11.2fx %9.1f\n", l, s, b / 1048576 / s, s / base, kb / 1024 }'
done

tables() { du -sb --exclude=_axt "$1" | cut -f1; }
ds=$(tables "$TMP/ds"); dsc=$(tables "$TMP/dsc")
printf '\ndataset without content: %s bytes, %.2f%% of the JSONL\n' "$ds" "$(awk -v a="$ds" -v b="$BYTES" 'BEGIN {print 100 * a / b}')"
printf 'dataset with content:    %s bytes, %.2f%% of the JSONL\n' "$dsc" "$(awk -v a="$dsc" -v b="$BYTES" 'BEGIN {print 100 * a / b}')"
printf 'files: %s parquet files without content, %s with\n' "$(find "$TMP/ds" -name '*.parquet' | wc -l)" "$(find "$TMP/dsc" -name '*.parquet' | wc -l)"
