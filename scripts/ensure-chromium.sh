#!/usr/bin/env bash
# Makes sure a Chromium is installed for the editor end-to-end test (test/e2e/package/editor.e2e.test.mjs)
# and prints its path as the last line of output. playwright-core never downloads a browser here:
# it drives this one.
#   CHROMIUM_PATH=/path/to/chrome   use that binary (checked, nothing installed)
#   otherwise: chromium / chromium-browser / google-chrome on PATH, else Debian's `chromium`
#   package, installed with apt-get (needs root, or sudo without a password).
set -euo pipefail

works() { [ -n "$1" ] && [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

if [ -n "${CHROMIUM_PATH:-}" ]; then
  if works "$CHROMIUM_PATH"; then echo "$CHROMIUM_PATH"; exit 0; fi
  echo "CHROMIUM_PATH=$CHROMIUM_PATH is not a working browser binary" >&2
  exit 1
fi

find_chromium() {
  local name path
  for name in chromium chromium-browser google-chrome-stable google-chrome; do
    path="$(command -v "$name" 2>/dev/null || true)"
    if works "$path"; then echo "$path"; return 0; fi
  done
  return 1
}

if path="$(find_chromium)"; then echo "$path"; exit 0; fi

# Debian's package, or a message saying what to do (CHROMIUM_PATH also works).
bash "$(dirname "$0")/apt-install.sh" chromium || {
  echo "no Chromium found; install one or set CHROMIUM_PATH" >&2
  exit 1
}

if path="$(find_chromium)"; then echo "$path"; exit 0; fi
echo "apt-get installed chromium, but no working chromium binary was found on PATH" >&2
exit 1
