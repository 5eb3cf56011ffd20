#!/usr/bin/env bash
# Installs Debian packages for the test suites: `scripts/apt-install.sh <package>...`.
# Needs apt-get and root (or sudo without a password); says what to install by hand otherwise.
# RUNLEVEL=1: invoke-rc.d starts no system-wide service during the install (the suites start
# their own servers on loopback).
#
# Safe to run several times at once (test lanes that each need a package): the installs take
# turns on a lock file in the cache folder, and a package that an earlier turn installed is not
# installed again. apt-get also waits for an apt or dpkg that something else runs
# (DPkg::Lock::Timeout) instead of failing on its lock.
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: $0 <package>..." >&2; exit 2; }
CACHE="${VOICE_MESSAGING_CACHE:-$HOME/.cache/n8n-nodes-voice-messaging}"
# How long apt-get waits for another apt or dpkg to let go of its lock, in seconds.
APT_LOCK_TIMEOUT="${APT_LOCK_TIMEOUT:-600}"

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

mkdir -p "$CACHE"
exec 9>"$CACHE/apt-install.lock"
flock 9

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
missing=()
for package in "$@"; do installed "$package" || missing+=("$package"); done
[ "${#missing[@]}" -gt 0 ] || exit 0

progress="$(dirname "$0")/progress.mjs"
node "$progress" "updating the package lists (apt-get update)" -- \
  $sudo apt-get -o DPkg::Lock::Timeout="$APT_LOCK_TIMEOUT" update -qq
node "$progress" "installing ${missing[*]} with apt-get" --note "(first run only)" -- \
  $sudo env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 \
  apt-get -o DPkg::Lock::Timeout="$APT_LOCK_TIMEOUT" install -y -qq "${missing[@]}"
