#!/usr/bin/env bash
# Installs verdaccio, an npm registry that runs on loopback, into a cache folder outside the
# repository, once per version, for the publishing test (test/e2e/package/publish.e2e.test.mjs,
# through tools/registry.mjs). Prints that folder as the last line; the registry's entry is
# <folder>/node_modules/verdaccio/bin/verdaccio. Runs under the Node on PATH (24 under the tests).
# Usage: scripts/ensure-verdaccio.sh
set -euo pipefail
# 6.8.0 with node-fetch held at 2.7.0 is the one found to install here (later 6.x want Node 22).
VERDACCIO_VERSION="${VERDACCIO_VERSION:-6.8.0}"
CACHE="${VOICE_MESSAGING_CACHE:-$HOME/.cache/n8n-nodes-voice-messaging}"
mkdir -p "$CACHE"
scripts="$(cd "$(dirname "$0")" && pwd)"

dir="$CACHE/verdaccio-$VERDACCIO_VERSION"
if [ ! -f "$dir/.complete" ]; then
  # Test lanes started at once may both get here: one installs, the others wait on this lock.
  exec 9>"$dir.lock"
  flock 9
fi
if [ ! -f "$dir/.complete" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  # Its node-fetch range resolves to a release that does not install here: hold it at 2.7.0.
  printf '{ "name": "verdaccio-host", "private": true, "overrides": { "node-fetch": "2.7.0" } }\n' >"$dir/package.json"
  (cd "$dir" && node "$scripts/progress.mjs" "installing verdaccio $VERDACCIO_VERSION" \
    --note "into $dir (first run only; under a minute)" --size "$dir" -- \
    npm install --ignore-scripts --no-audit --no-fund --loglevel=http "verdaccio@$VERDACCIO_VERSION")
  touch "$dir/.complete"
fi
echo "$dir"
