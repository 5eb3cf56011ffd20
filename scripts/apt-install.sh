#!/usr/bin/env bash
# Installs Debian packages for the test suites: `scripts/apt-install.sh <package>...`.
# Needs apt-get and root (or sudo without a password); says what to install by hand otherwise.
# RUNLEVEL=1: invoke-rc.d starts no system-wide service during the install (the suites start
# their own servers on loopback).
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: $0 <package>..." >&2; exit 2; }

if ! command -v apt-get >/dev/null 2>&1; then
  echo "no apt-get here: install $* yourself" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"
  else
    echo "installing $* needs root (apt-get install $*), or install them yourself" >&2
    exit 1
  fi
fi
progress="$(dirname "$0")/progress.mjs"
node "$progress" "updating the package lists (apt-get update)" -- $sudo apt-get update -qq
node "$progress" "installing $* with apt-get" --note "(first run only)" -- \
  $sudo env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq "$@"
