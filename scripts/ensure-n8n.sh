#!/usr/bin/env bash
# Installs a real n8n, and through scripts/ensure-node.sh the Node its users run it on, into a cache
# folder outside the repository, once per version. The 1.x line runs on Node 22 (n8n 1.x's Docker
# images ship it; Node 20.19 is the oldest its "engines" allow), 2.x on Node 24 (the oldest 2.x
# allows). Prints that Node's bin folder, then (last line) the cache folder of that n8n.
# Usage: scripts/ensure-n8n.sh [n8n-version]
set -euo pipefail
N8N_VERSION="${1:-${N8N_VERSION:-2.41.1}}"
scripts="$(cd "$(dirname "$0")" && pwd)"
source "$scripts/cache-folder.sh"

if [[ "$N8N_VERSION" == 1.* ]]; then node_major=22; else node_major=24; fi
node_bin="$(bash "$scripts/ensure-node.sh" "$node_major" | tail -n 1)"

# Native modules are built for one Node: an install built under another Node has a folder of its own.
n8n_dir="$CACHE/n8n-$N8N_VERSION"
if [ "$node_major" != 24 ]; then n8n_dir="$n8n_dir-node$node_major"; fi
if cache_fill_needed "$n8n_dir"; then
  if [[ "$N8N_VERSION" == 1.* ]]; then
    # One of 1.x's dependencies points at a download address outside the npm registry.
    printf '{ "name": "n8n-host", "private": true, "overrides": { "xlsx": "0.18.5" } }\n' > "$n8n_dir/package.json"
  else
    printf '{ "name": "n8n-host", "private": true }\n' > "$n8n_dir/package.json"
  fi
  # An optional native module (Kafka) downloads sources in its install script: skip scripts,
  # then build only the native modules n8n needs, under the Node it runs on. npm's request lines
  # (--loglevel=http) tell the progress line whether npm is still resolving or downloading.
  (cd "$n8n_dir" && PATH="$node_bin:$PATH" node "$scripts/progress.mjs" "installing n8n $N8N_VERSION" \
    --note "into $n8n_dir (first run only; 5 to 7 minutes on two cores, 3 GB: npm resolves its dependencies for about 2 minutes, then downloads)" --size "$n8n_dir" -- \
    npm install --ignore-scripts --no-audit --no-fund --loglevel=http "n8n@$N8N_VERSION")
  (cd "$n8n_dir" && PATH="$node_bin:$PATH" node "$scripts/progress.mjs" \
    "building n8n $N8N_VERSION's native modules (sqlite3, isolated-vm) for Node $node_major" -- npm rebuild sqlite3 isolated-vm)
  cache_filled "$n8n_dir"
fi
echo "$node_bin"
echo "$n8n_dir"
