#!/usr/bin/env bash
# Installs verdaccio, an npm registry that runs on loopback, into a cache folder outside the
# repository, once per version, for the publishing test (test/e2e/package/publish.e2e.test.mjs,
# through tools/registry.mjs). Prints that folder as the last line; the registry's entry is
# <folder>/node_modules/verdaccio/bin/verdaccio. Runs under the Node on PATH (24 under the tests).
# Usage: scripts/ensure-verdaccio.sh
set -euo pipefail
# 6.8.0 with node-fetch held at 2.7.0 is the one found to install here (later 6.x want Node 22).
VERDACCIO_VERSION="${VERDACCIO_VERSION:-6.8.0}"
scripts="$(cd "$(dirname "$0")" && pwd)"
source "$scripts/cache-folder.sh"

dir="$CACHE/verdaccio-$VERDACCIO_VERSION"
if cache_fill_needed "$dir"; then
  # Its node-fetch range resolves to a release that does not install here: hold it at 2.7.0.
  printf '{ "name": "verdaccio-host", "private": true, "overrides": { "node-fetch": "2.7.0" } }\n' >"$dir/package.json"
  (cd "$dir" && node "$scripts/progress.mjs" "installing verdaccio $VERDACCIO_VERSION" \
    --note "into $dir (first run only; under a minute)" --size "$dir" -- \
    npm install --ignore-scripts --no-audit --no-fund --loglevel=http "verdaccio@$VERDACCIO_VERSION")
  cache_filled "$dir"
fi
echo "$dir"
