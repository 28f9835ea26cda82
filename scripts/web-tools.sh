#!/usr/bin/env bash
# Installs what checks the HTML viewer's page (src/export/html/page/) into target/web:
# ESLint with its rules (scripts/web/eslint.config.mjs) and playwright-core, which drives
# Debian's Chromium in the browser tests (tests/axt/view.rs). Versions are pinned by
# scripts/web/package-lock.json; the install is reused while target/ lives and the lock file
# is unchanged (about 5 s when it is not). AXT_WEB_TOOLS names another directory.
#
#   scripts/web-tools.sh            # install (or say it is cached)
#   scripts/web-tools.sh lint       # then run ESLint over the page and the test driver
set -euo pipefail
cd "$(dirname "$0")/.."

DEST=${AXT_WEB_TOOLS:-target/web}
if [ -d "$DEST/node_modules" ] && cmp -s scripts/web/package-lock.json "$DEST/package-lock.json"; then
  echo "web tools cached in $DEST"
else
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm is not installed: the page's lint and browser tests cannot run" >&2
    exit 1
  fi
  started=$(date +%s)
  rm -rf "$DEST"
  mkdir -p "$DEST"
  cp scripts/web/package.json scripts/web/package-lock.json "$DEST/"
  (cd "$DEST" && npm ci --no-audit --no-fund --loglevel=error)
  echo "web tools installed in $DEST in $(( $(date +%s) - started )) s"
fi

if [ "${1:-}" = "lint" ]; then
  AXT_WEB_TOOLS="$(cd "$DEST" && pwd)" "$DEST/node_modules/.bin/eslint" \
    --config scripts/web/eslint.config.mjs --max-warnings 0 \
    src/export/html/page/ tests/axt/support/view-browser.mjs
  echo "eslint: the page and its test driver are clean"
fi
