#!/usr/bin/env bash
# Seeds each fuzz target's working corpus (fuzz/corpus/<target>/, gitignored) from the
# fixtures in corpus/. Safe to re-run: files are named by content, so nothing is duplicated.
set -euo pipefail
cd "$(dirname "$0")/.."

seed() { # seed TARGET LABEL PREFIX FILE...: PREFIX is written before each file's bytes
  local target=$1 label=$2 prefix=$3
  shift 3
  mkdir -p "fuzz/corpus/$target"
  for file in "$@"; do
    local out
    out="fuzz/corpus/$target/$(basename "$file" .jsonl)-$label"
    { printf '%b' "$prefix"; cat "$file"; } >"$out"
  done
}

shopt -s globstar nullglob
transcripts=(corpus/read/transcript/**/*.jsonl)

# <provider>_chunked: two leading bytes choose the chunking (1-byte chunks, 7-byte chunks,
# whole), seeded from that provider's fixtures.
for provider in claude codex gemini copilot openai; do
  fixtures=(corpus/normalize/"$provider"/**/*.jsonl corpus/normalize/"$provider"/**/*.json corpus/normalize/"$provider"/**/*.sse)
  seed "${provider}_chunked" bytes '\x00\x00' "${fixtures[@]}"
  seed "${provider}_chunked" sevens '\x03\x00' "${fixtures[@]}"
  seed "${provider}_chunked" whole '\x07\x00' "${fixtures[@]}"
done

# decode_event: one transcript line per seed file.
mkdir -p fuzz/corpus/decode_event
for file in "${transcripts[@]}"; do
  n=0
  while IFS= read -r line; do
    n=$((n + 1))
    printf '%s' "$line" >"fuzz/corpus/decode_event/$(basename "$file" .jsonl)-$n"
  done <"$file"
done
echo "seeded: $(ls fuzz/corpus/claude_chunked | wc -l) claude_chunked, $(ls fuzz/corpus/decode_event | wc -l) decode_event"
