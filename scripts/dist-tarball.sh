#!/usr/bin/env bash
# Packs a built `axt` into the CLI tarball users download:
#   OUT/axt-<version>-<target>.tar.gz  with  axt-<version>-<target>/{axt, README.md,
#   man/*.1, completions/axt.{bash,zsh,fish,elvish,powershell}}  and its .sha256 beside it.
#
#   scripts/dist-tarball.sh OUT [TARGET]
#
# The binary is cargo's dist-profile build: target/dist/axt for this machine, or
# target/TARGET/dist/axt when TARGET is given (the release workflow's cross builds). The
# manual pages and completions come from the binary itself, so they match it; a binary of
# another architecture than this machine's cannot run here, and then they come from a
# native build of the same commit (AXT_NATIVE, default target/dist/axt).
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${1:?usage: scripts/dist-tarball.sh OUT [TARGET]}
TARGET=${2:-$(rustc -vV | sed -n 's/^host: //p')}
if [ $# -ge 2 ]; then
  BIN=target/$TARGET/dist/axt
else
  BIN=target/dist/axt
fi
NATIVE=${AXT_NATIVE:-target/dist/axt}
[ -x "$BIN" ] || { echo "no $BIN: build it first (cargo build --profile dist)" >&2; exit 2; }
"$NATIVE" --version >/dev/null 2>&1 || NATIVE=$BIN

VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
NAME=axt-$VERSION-$TARGET
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/axt-dist.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

mkdir -p "$STAGE/$NAME/completions" "$OUT"
cp "$BIN" README.md "$STAGE/$NAME/"
"$NATIVE" man --out "$STAGE/$NAME/man" >/dev/null
for shell in bash zsh fish elvish powershell; do
  "$NATIVE" completions "$shell" >"$STAGE/$NAME/completions/axt.$shell"
done
tar -C "$STAGE" -czf "$OUT/$NAME.tar.gz" "$NAME"
(cd "$OUT" && sha256sum "$NAME.tar.gz" >"$NAME.tar.gz.sha256")
echo "$OUT/$NAME.tar.gz"
