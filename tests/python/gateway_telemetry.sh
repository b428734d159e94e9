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
source "$(dirname "$0")/suite.sh"
suite_python "python gateway telemetry"
suite_venv "prometheus-client>=0.26,<1" "opentelemetry-proto>=1.45,<2"
suite_build
suite_run "$root/tests/python/gateway_telemetry_test.py" \
  --tooldef "$target/debug/tooldef" \
  --upstream "$target/debug/scripted-upstream" \
  --mcp-server "$target/debug/examples/mcp_server" \
  "$@"
