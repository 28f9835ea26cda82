#!/usr/bin/env bash
# Runs fuzz targets one after another, one libFuzzer process at a time (never -jobs or
# -workers: the machine is shared). `make fuzz` and `make fuzz-speed` call it.
#
#   fuzz/run.sh SECONDS TARGET...          fuzz each target in fuzz/corpus/<target>/
#   fuzz/run.sh --speed SECONDS TARGET...  from a fresh copy of its seeds (init-corpus.sh),
#                                          then print `TARGET exec/s N`
#
# A target that crashes stops (libFuzzer stops at the first crash); the others still run,
# and the script exits with the crash's status at the end.
#
# Each target gets its dictionary (fuzz/dict/, see make-dicts.py) and -max_len=$FUZZ_MAX_LEN
# (4096 by default; fuzz/README.md says why). Extra libFuzzer flags: FUZZ_FLAGS.
set -euo pipefail
cd "$(dirname "$0")"

speed=false
if [ "${1:-}" = --speed ]; then
  speed=true
  shift
fi
seconds=$1
shift
max_len=${FUZZ_MAX_LEN:-4096}
bin=target/x86_64-unknown-linux-gnu/release

dict_of() {
  case $1 in
    *_chunked) echo "dict/${1%_chunked}.dict" ;;
    decode_event | read_transcript) echo dict/transcript.dict ;;
    sse_framer) echo dict/sse.dict ;;
    eventstream_framer) echo dict/eventstream.dict ;;
    import_claude_code) echo dict/claude-code.dict ;;
    inflated) echo dict/inflated.dict ;;
    *) echo "no dictionary for $1" >&2; exit 2 ;;
  esac
}

for target in "$@"; do
  corpus=corpus/$target
  log=artifacts/$target/fuzz.log
  if $speed; then
    corpus=$(mktemp -d)
    cp -r "corpus/$target/." "$corpus/"
  fi
  mkdir -p "artifacts/$target" "$corpus"
  status=0
  # shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
  "$bin/$target" "$corpus" -dict="$(dict_of "$target")" -max_len="$max_len" \
    -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="artifacts/$target/" \
    ${FUZZ_FLAGS:-} >"$log" 2>&1 || status=$?
  if $speed; then
    rm -rf "$corpus"
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  if $speed; then
    echo "$target exec/s ${rate:-?}"
  else
    echo "$target: ${runs:-?} runs, ${rate:-?} exec/s, corpus $(ls "$corpus" | wc -l) files" \
      "($(grep -c . "$log") log lines in fuzz/$log)"
  fi
  if [ "$status" -ne 0 ]; then
    echo "$target: the fuzzer stopped with status $status (a crash?); see fuzz/$log and fuzz/artifacts/$target/" >&2
    grep -m1 -A2 panicked "$log" >&2 || tail -n 5 "$log" >&2
    failed=$status
  fi
done
# Every target ran; a crash in one fails the run at the end.
exit "${failed:-0}"
