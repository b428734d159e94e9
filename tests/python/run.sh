#!/usr/bin/env bash
# Runs mcp_client_test.py against the mcp_server example with the official MCP Python SDK, both
# majors, over both transports: four combinations, one summary line each, e.g.
#   python mcp client (mcp 2.3.0, http): 480 passed, 0 failed (...)
# The SDK 1.x (`mcp>=1.29,<2`) goes into the virtual environment the other Python suites share
# (TOOLDEF_VENV, by default target/python-venv), 2.x (`mcp>=2,<3`) into one of its own
# (TOOLDEF_VENV_MCP2, by default target/python-venv-mcp2). The server is built once (or taken from
# TOOLDEF_MCP_SERVER) and shared by all four. Skips, saying so, where there is no Python 3.10+
# (the SDK's minimum). Every combination runs under a time limit in a process group of its own,
# killed as a whole at the end, even when it fails or is interrupted: nothing it starts outlives
# it. Runs all four whatever happens; exits 1 if any failed.
#
# By hand: VENV/bin/python tests/python/mcp_client_test.py --transport stdio|http MCP_SERVER_BINARY
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "python mcp client: SKIPPED: no Python 3.10 or newer on this machine (set PYTHON to one)"
  exit 0
fi

venv_v1=${TOOLDEF_VENV:-"$root/target/python-venv"}
venv_v2=${TOOLDEF_VENV_MCP2:-"$root/target/python-venv-mcp2"}
install() { # VENV REQUIREMENT
  if [ ! -x "$1/bin/python" ]; then
    "$python" -m venv "$1"
  fi
  "$1/bin/python" -m pip install --quiet --disable-pip-version-check "$2"
}
install "$venv_v1" "mcp>=1.29,<2"
install "$venv_v2" "mcp>=2,<3"

if [ -n "${TOOLDEF_MCP_SERVER:-}" ]; then
  server=$TOOLDEF_MCP_SERVER
else
  (cd "$root" && cargo build -q -p tooldef-examples --features mcp --example mcp_server)
  server="${CARGO_TARGET_DIR:-"$root/target"}/debug/examples/mcp_server"
fi
[ -x "$server" ] || {
  echo "python mcp client: error: no mcp_server binary at $server" >&2
  exit 1
}

# Job control: each combination gets a process group of its own, which every process it starts
# (the server included) shares; `timeout` bounds it, and the trap ends whatever is left.
set -m
group=
cleanup() {
  if [ -n "$group" ] && kill -0 -- "-$group" 2>/dev/null; then
    kill -TERM -- "-$group" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 -- "-$group" 2>/dev/null || return 0
      sleep 0.3
    done
    kill -KILL -- "-$group" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

failed=0
for venv in "$venv_v1" "$venv_v2"; do
  for transport in stdio http; do
    status=0
    timeout -k 10 240 "$venv/bin/python" "$root/tests/python/mcp_client_test.py" \
      --transport "$transport" --timeout 180 "$server" &
    group=$!
    wait "$group" || status=$?
    cleanup
    group=
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
      echo "python mcp client (mcp $("$venv/bin/python" -c 'from importlib.metadata import version; print(version("mcp"))'), $transport): FAILED: killed after 240 s"
    fi
    [ "$status" -eq 0 ] || failed=$((failed + 1))
  done
done
[ "$failed" -eq 0 ] || {
  echo "python mcp client: $failed of 4 combinations failed"
  exit 1
}
