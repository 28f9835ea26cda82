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
# whole), seeded from that provider's fixtures; every provider has its corpus folder.
for dir in corpus/normalize/*/; do
  provider=$(basename "$dir")
  fixtures=(corpus/normalize/"$provider"/**/*.jsonl corpus/normalize/"$provider"/**/*.json corpus/normalize/"$provider"/**/*.sse corpus/normalize/"$provider"/**/*.eventstream)
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
# read_transcript: two leading bytes choose where reading stops and resumes (byte 0, 256,
# near the end), then a whole transcript fixture.
for file in "${transcripts[@]}"; do
  for cut in '\x00\x00' '\x00\x01' '\xff\xff'; do
    seed read_transcript "cut$(printf '%b' "$cut" | od -An -tx1 | tr -d ' ')" "$cut" "$file"
  done
done

# sse_framer: the SSE streams of every provider's corpus, in three chunkings.
streams=(corpus/normalize/**/*.sse)
seed sse_framer bytes '\x00\x00' "${streams[@]}"
seed sse_framer sevens '\x03\x00' "${streams[@]}"
seed sse_framer whole '\x07\x00' "${streams[@]}"

# eventstream_framer: the binary event streams of every provider's corpus, in three chunkings.
binaries=(corpus/normalize/**/*.eventstream)
seed eventstream_framer bytes '\x00\x00' "${binaries[@]}"
seed eventstream_framer sevens '\x03\x00' "${binaries[@]}"
seed eventstream_framer whole '\x07\x00' "${binaries[@]}"

# import_claude_code: every log of the import corpus, as it is.
logs=(corpus/import/claude-code/**/*.jsonl)
mkdir -p fuzz/corpus/import_claude_code
for file in "${logs[@]}"; do
  cp "$file" "fuzz/corpus/import_claude_code/$(echo "$file" | tr / _)"
done

# inflated: a first byte choosing the provider (its index among the providers by name, the
# corpus folders' order; +0x80 for 64 KiB chunks), then its fixtures as they are; and a
# Claude stream (index 1) already carrying the inflation tokens (a 16 MiB text, a tool input 128
# brackets deep).
index=0
for dir in corpus/normalize/*/; do
  provider=$(basename "$dir")
  fixtures=(corpus/normalize/"$provider"/ok/*.jsonl corpus/normalize/"$provider"/ok/*.json corpus/normalize/"$provider"/ok/*.sse)
  seed inflated "$provider-whole" "\\x0$index" "${fixtures[@]}"
  seed inflated "$provider-chunked" "\\x8$index" "${fixtures[@]}"
  index=$((index + 1))
done
printf '\x01{"type":"assistant","session_id":"s","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"a\xf5\xff\xf5\x10"},{"type":"tool_use","id":"t","name":"Bash","input":\xf6\x1f1\xf7\x1f}]}}\n{"type":"result","subtype":"success","session_id":"s"}\n' \
  >fuzz/corpus/inflated/claude-handmade-large-and-deep

echo "seeded: $(ls fuzz/corpus/claude_chunked | wc -l) claude_chunked, $(ls fuzz/corpus/decode_event | wc -l) decode_event," \
  "$(ls fuzz/corpus/read_transcript | wc -l) read_transcript, $(ls fuzz/corpus/sse_framer | wc -l) sse_framer," \
  "$(ls fuzz/corpus/eventstream_framer | wc -l) eventstream_framer," \
  "$(ls fuzz/corpus/import_claude_code | wc -l) import_claude_code, $(ls fuzz/corpus/inflated | wc -l) inflated"
