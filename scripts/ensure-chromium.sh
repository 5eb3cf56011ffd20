#!/usr/bin/env bash
# Makes sure a Chromium is installed for the editor end-to-end test (test/e2e/editor.e2e.test.mjs)
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

if ! command -v apt-get >/dev/null 2>&1; then
  echo "no Chromium found and no apt-get to install one; install Chromium or set CHROMIUM_PATH" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"
  else
    echo "no Chromium found; installing it needs root (apt-get install chromium), or set CHROMIUM_PATH" >&2
    exit 1
  fi
fi
echo "installing Chromium with apt-get (first run only)" >&2
$sudo apt-get update -qq >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2

if path="$(find_chromium)"; then echo "$path"; exit 0; fi
echo "apt-get installed chromium, but no working chromium binary was found on PATH" >&2
exit 1
