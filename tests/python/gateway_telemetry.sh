#!/usr/bin/env bash
# Runs gateway_telemetry_test.py: `tooldef gateway`'s metrics, OTLP spans and W3C trace context end
# to end, between the official OpenAI Python SDK and the scripted upstream, with the mcp_server
# example and meta_echo_mcp_server.py as its MCP servers and an OTLP/HTTP receiver the suite runs.
# Installs the SDK, prometheus-client (to parse /metrics) and opentelemetry-proto (to decode the
# spans) into a virtual environment (TOOLDEF_VENV, by default target/python-venv) and builds the
# three binaries. Skips, saying so, where there is no Python 3.10+ (the SDK's minimum). Arguments
# are passed to the suite (e.g. `-k metrics`). The suite runs in its own process group, killed as
# a whole at the end, even when it fails or is interrupted.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "python gateway telemetry: SKIPPED: no Python 3.10 or newer on this machine (set PYTHON to one)"
  exit 0
fi
venv=${TOOLDEF_VENV:-"$root/target/python-venv"}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  "openai>=3.54,<4" "prometheus-client>=0.26,<1" "opentelemetry-proto>=1.45,<2"
(
  cd "$root"
  cargo build -q -p tooldef-cli
  cargo build -q -p tooldef-scripted-upstream
  cargo build -q -p tooldef-examples --example mcp_server
)
target=${CARGO_TARGET_DIR:-"$root/target"}

# Job control: the suite gets a process group of its own, which every process it starts shares.
set -m
"$venv/bin/python" "$root/tests/python/gateway_telemetry_test.py" \
  --tooldef "$target/debug/tooldef" \
  --upstream "$target/debug/scripted-upstream" \
  --mcp-server "$target/debug/examples/mcp_server" \
  "$@" &
group=$!
cleanup() {
  if kill -0 -- "-$group" 2>/dev/null; then
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
status=0
wait "$group" || status=$?
exit "$status"
