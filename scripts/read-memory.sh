#!/usr/bin/env bash
# Reads a ~1 GB transcript with `axt check` and `axt stats` under /usr/bin/time -v and
# prints the maximum resident set size of each; fails if either exceeds the limit.
#
#   scripts/read-memory.sh            # 1024 MiB, limit 64 MiB
#   AXT_READ_MB=200 scripts/read-memory.sh
#
# The transcript is written directly by scripts/make-agent-run.py (a run of one agent step
# repeated, ~1.3 KB lines) into a temporary directory that is removed on exit. Needs GNU
# time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."

MB=${AXT_READ_MB:-1024}
LIMIT_MB=${AXT_READ_LIMIT_MB:-64}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axt-read-memory.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FILE="$TMP/mem-run.jsonl"

# The distribution build (fat LTO), the one the README's figures were measured with.
cargo build --profile dist --locked --quiet
AXT=target/dist/axt

python3 scripts/make-agent-run.py "$FILE" "$MB"

SIZE=$(stat -c %s "$FILE")
LINES=$(wc -l < "$FILE")
printf 'transcript: %s bytes (%d MiB), %s lines\n' "$SIZE" $((SIZE >> 20)) "$LINES"

status=0
for cmd in check stats; do
  /usr/bin/time -v "$AXT" "$cmd" "$FILE" > "$TMP/$cmd.out" 2> "$TMP/$cmd.time" || {
    echo "axt $cmd failed:"; cat "$TMP/$cmd.out" "$TMP/$cmd.time"; exit 1; }
  rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/$cmd.time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$TMP/$cmd.time")
  printf 'axt %-5s max RSS %6.1f MiB, wall %s (%s)\n' "$cmd" "$(echo "$rss_kb / 1024" | bc -l)" "$wall" \
    "$(tail -n 1 "$TMP/$cmd.out" | cut -c1-60)"
  if [ "$rss_kb" -gt $((LIMIT_MB * 1024)) ]; then
    echo "  over the limit of $LIMIT_MB MiB"; status=1
  fi
done
exit $status
