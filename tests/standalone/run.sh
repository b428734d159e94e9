#!/usr/bin/env bash
# The README's promise, checked as a user meets it: a crate outside the workspace, whose only
# MCP-related dependency is tooldef (the README's `[dependencies]` snippet), builds and serves a
# tool over stdio and Streamable HTTP to the official MCP Python SDK (1.x, in the venv the other
# Python suites share: TOOLDEF_VENV, by default target/python-venv).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${PYTHON:-python3}

# Its own lock file, seeded with the workspace's so that it builds with the versions CI tested
# (cargo drops what this crate does not use); the shared target directory reuses what matches.
cp "$root/Cargo.lock" "$here/Cargo.lock"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-"$root/target"}
direct=$(cd "$here" && cargo tree --depth 1 --prefix none --edges normal | tail -n +2 | cut -d' ' -f1 | sort | tr '\n' ' ')
echo "standalone server: direct dependencies: $direct"
case " $direct " in
  *" rmcp "* | *" axum "*) echo "standalone server: rmcp or axum is a direct dependency" >&2; exit 1 ;;
esac
(cd "$here" && cargo build -q)
binary="$CARGO_TARGET_DIR/debug/tooldef-standalone-check"

venv=${TOOLDEF_VENV:-"$root/target/python-venv"}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp>=1.29,<2"
timeout 180 "$venv/bin/python" "$here/client.py" "$binary"
