#!/usr/bin/env bash
# How long a new user waits: clones the repository at COMMIT into a temporary directory and
# times, each from a cold target/ (the Cargo registry and pip caches stay warm, as on a
# machine that has built any Rust or Python before), the README's commands as that commit's
# README writes them:
#
#   1. the install command (`cargo install ... --path .`, with --root in the scratch
#      directory so that ~/.cargo/bin is left alone),
#   2. the quick start (`cargo run --release ... -- normalize ...`),
#   3. the Python package (`pip install ... ./python`, into a fresh virtualenv).
#
#   scripts/fresh-clone-times.sh [COMMIT]     # default: HEAD
#   make fresh-clone-times COMMIT=main
#
# Prints one line per command with its wall time, the CPU time it used (user + system, its
# children included: on an otherwise idle machine with N cores the wall time is at least
# CPU / N) and the load average before it started: the machine may be shared, and a wall
# time means little without them.
set -euo pipefail
cd "$(dirname "$0")/.."

COMMIT=${1:-HEAD}
REPO=$(pwd)
SHA=$(git rev-parse --short "$COMMIT")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axt-fresh-clone.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

git clone --quiet --no-checkout "$REPO" "$TMP/axt"
git -C "$TMP/axt" checkout --quiet "$SHA"
cd "$TMP/axt"

# The commands, as the README of that commit writes them.
install=$(grep -m1 -E '^cargo install .*--path \.' README.md)
quick=$(grep -m1 -E '^cargo run --release' README.md)
pip_line=$(grep -m1 -E '^pip install .*\./python' README.md | sed 's/[[:space:]]*#.*//')

load() { cut -d' ' -f1-3 /proc/loadavg; }

# Runs "$@" from a cold target/, logging its output to LOG; sets WALL and CPU in seconds
# (GNU time: elapsed, and user + system of the command and its children).
timed() {
  local log=$1
  shift
  rm -rf target python/target
  if ! /usr/bin/time -o "$TMP/time" -f "%e %U %S" "$@" >"$log" 2>&1; then
    echo "failed: $* (see the log's end below)" >&2
    tail -20 "$log" >&2
    exit 1
  fi
  read -r WALL CPU < <(awk '{ printf "%d %d\n", $1, $2 + $3 }' "$TMP/time")
}

report() {
  local what=$1 wall=$2 cpu=$3 before=$4
  printf '%s\n    wall %4d s (%dm%02ds), CPU %4d s, load before: %s\n' "$what" "$wall" \
    $((wall / 60)) $((wall % 60)) "$cpu" "$before"
}

echo "commit $SHA, $(nproc) CPUs, $(cargo --version)"

before=$(load)
timed "$TMP/install.log" bash -c "$install --root '$TMP/root'"
report "$install" "$WALL" "$CPU" "$before"

before=$(load)
timed "$TMP/quick.log" bash -c "$quick"
report "$quick" "$WALL" "$CPU" "$before"

python3 -m venv "$TMP/venv"
before=$(load)
timed "$TMP/pip.log" bash -c ". '$TMP/venv/bin/activate' && $pip_line"
report "$pip_line" "$WALL" "$CPU" "$before"
# What the user saw while waiting: lines printed during the build.
echo "pip printed $(wc -l <"$TMP/pip.log") lines while building"
