#!/usr/bin/env bash
# Installs n8n's community package scanner (@n8n/scan-community-package: the ESLint scan n8n runs on
# a community package before it verifies it) into a cache folder outside the repository, once per
# set of versions, for scripts/scan-package.mjs (through tools/communityScan.mjs). Prints that
# folder as the last line; the scanner's module is
# <folder>/node_modules/@n8n/scan-community-package/scanner/scanner.mjs. Runs under the Node on
# PATH (24 under the tests).
# Usage: scripts/ensure-scanner.sh
set -euo pipefail
SCANNER_VERSION="${SCANNER_VERSION:-0.32.0}"
# The scanner asks for typescript 7.0.2, which @typescript-eslint's parser (typescript <6.1) fails
# to load with ("Cannot read properties of undefined (reading 'Cjs')"): held at 5.9.3, the newest
# it supports.
SCANNER_TYPESCRIPT_VERSION="${SCANNER_TYPESCRIPT_VERSION:-5.9.3}"
# Its ESLint plugin (@n8n/eslint-plugin-community-nodes) needs n8n-workflow (a peer, >=2), as
# n8n brings it to this package: the one n8n 2.41.1 ships and the dev dependencies lock.
SCANNER_N8N_WORKFLOW_VERSION="${SCANNER_N8N_WORKFLOW_VERSION:-2.41.0}"
scripts="$(cd "$(dirname "$0")" && pwd)"
source "$scripts/cache-folder.sh"

dir="$CACHE/scan-community-package-$SCANNER_VERSION"
stamp="typescript $SCANNER_TYPESCRIPT_VERSION, n8n-workflow $SCANNER_N8N_WORKFLOW_VERSION"
if cache_fill_needed "$dir" "$stamp"; then
  printf '{ "name": "scanner-host", "private": true, "overrides": { "typescript": "%s" } }\n' \
    "$SCANNER_TYPESCRIPT_VERSION" >"$dir/package.json"
  (cd "$dir" && node "$scripts/progress.mjs" "installing @n8n/scan-community-package $SCANNER_VERSION" \
    --note "into $dir (first run only; under a minute)" --size "$dir" -- \
    npm install --ignore-scripts --no-audit --no-fund --loglevel=http --save-exact \
    "@n8n/scan-community-package@$SCANNER_VERSION" \
    "typescript@$SCANNER_TYPESCRIPT_VERSION" \
    "n8n-workflow@$SCANNER_N8N_WORKFLOW_VERSION")
  cache_filled "$dir" "$stamp"
fi
echo "$dir"
