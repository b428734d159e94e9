#!/usr/bin/env bash
# Runs mcp_client_test.py against the mcp_server example with the official MCP Python SDK,
# installed into a virtual environment this script makes. Skips, saying so, where there is no
# Python 3.10+ (the SDK's minimum).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "python mcp client: SKIPPED: no Python 3.10 or newer on this machine (set PYTHON to one)"
  exit 0
fi
venv=${TOOLDEF_VENV:-"$root/target/python-venv"}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check "mcp>=1.29,<2"
(cd "$root" && cargo build -q -p tooldef-examples --example mcp_server)
target=${CARGO_TARGET_DIR:-"$root/target"}
"$venv/bin/python" "$root/tests/python/mcp_client_test.py" "$target/debug/examples/mcp_server"
