#!/usr/bin/env bash
# Runs gateway_store_test.py: two `tooldef gateway` instances sharing one Redis store, between the
# official OpenAI Python SDK and the scripted upstream, with the mcp_server example as their MCP
# server; Redis killed and started again in the middle. Installs the SDK into a virtual
# environment (TOOLDEF_VENV, by default target/python-venv) and builds the three binaries. Skips,
# saying so, where there is no Python 3.10+ (the SDK's minimum) or no redis-server on PATH; with
# TOOLDEF_REQUIRE_REDIS=1 (CI) a missing redis-server is a failure. Arguments are passed to the
# suite (e.g. `-k chat`). Every process the suite starts is killed at the end, even when it fails
# or is interrupted: the suite runs in its own process group, killed as a whole.
set -euo pipefail
source "$(dirname "$0")/suite.sh"
suite_python "python gateway store"
if ! command -v redis-server >/dev/null 2>&1; then
  if [ "${TOOLDEF_REQUIRE_REDIS:-}" = 1 ]; then
    echo "python gateway store: FAILED: TOOLDEF_REQUIRE_REDIS=1 and there is no redis-server on PATH (Debian: apt-get install redis-server)" >&2
    exit 1
  fi
  echo "python gateway store: SKIPPED: no redis-server on PATH (Debian: apt-get install redis-server)"
  exit 0
fi
suite_venv
suite_build
suite_run "$root/tests/python/gateway_store_test.py" \
  --tooldef "$target/debug/tooldef" \
  --upstream "$target/debug/scripted-upstream" \
  --mcp-server "$target/debug/examples/mcp_server" \
  "$@"
