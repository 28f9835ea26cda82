#!/usr/bin/env bash
# The concurrent parts of the test suite under ThreadSanitizer: the recorder (seq, write,
# broadcast, close racing record), the fan-out, the workflow scopes (parallel branches,
# ends racing records), live capture (axt exec) and the live OTLP export.
#
# TSan needs nightly Rust and the standard library rebuilt with the sanitizer
# (-Zbuild-std, so rust-src): otherwise std's own synchronisation is invisible to it and it
# reports races that are not there. A machine without nightly skips with a message, as the
# fuzz build does. Any race report fails the run (halt_on_error).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "test-race: skipped: no nightly toolchain (rustup toolchain list shows none)"
  exit 0
fi
if ! rustup component add rust-src --toolchain nightly >/dev/null 2>&1; then
  echo "test-race: skipped: nightly has no rust-src, which -Zbuild-std needs"
  exit 0
fi

target=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="-Zsanitizer=thread"
export RUSTDOCFLAGS="-Zsanitizer=thread"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
export INSTA_UPDATE=no INSTA_REQUIRE_FULL_MATCH=1
# Its own target directory: sanitizer builds share nothing with the normal ones.
# Without the binary's jemalloc (the `jemalloc` feature): TSan intercepts malloc and free to
# see memory handed from one thread to another, and jemalloc's own functions it cannot see.
cargo +nightly test --locked -Zbuild-std --target "$target" --target-dir target/tsan \
  --no-default-features --features cli --lib --test axt -- \
  record workflow exec otlp_live capture fanout recorder batch
echo "test-race: no data race reported"
