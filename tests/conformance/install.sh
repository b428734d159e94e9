#!/usr/bin/env bash
# Installs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# tests/conformance/package.json) and Node.js 22, which it needs (npm's `node` package, so that
# the machine's own Node is left alone), into target/conformance (git-ignored), once: a later run
# whose package.json is unchanged reuses it.
#
# Prints, as its last line, the command that runs the suite (`NODE SUITE`); callers take it with
# `suite=$(bash tests/conformance/install.sh | tail -1)` and run `$suite server --url …`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir="$root/target/conformance"
mkdir -p "$dir"
if ! cmp -s "$here/package.json" "$dir/package.json" || [ ! -x "$dir/node_modules/node/bin/node" ]; then
  echo "conformance: installing $(grep -o '"@modelcontextprotocol/conformance": "[^"]*"' "$here/package.json") and Node.js 22 into $dir" >&2
  cp "$here/package.json" "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --no-package-lock --loglevel=error >&2)
fi
node="$dir/node_modules/node/bin/node"
suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -x "$node" ] || { echo "conformance: no Node.js 22 at $node" >&2; exit 1; }
[ -f "$suite" ] || { echo "conformance: no suite at $suite" >&2; exit 1; }
echo "$node $suite"
