#!/usr/bin/env bash
# Runs gateway_test.py: `tooldef gateway` end to end, between the official OpenAI and Anthropic
# Python SDKs and the scripted upstream (one serving all three APIs, one Chat Completions only),
# with the mcp_server example and server-everything as its MCP servers. Installs the SDKs into a
# virtual environment (TOOLDEF_VENV, by default target/python-venv), the reference servers
# (tests/e2e/install.sh) and builds the binaries. Skips, saying so, where there is no Python 3.10+
# (the SDKs' minimum). Arguments are passed to the suite (e.g. `-k chat`).
# Every process the suite starts is killed at the end, even when it fails or is interrupted: the
# suite runs in its own process group, killed as a whole.
set -euo pipefail
source "$(dirname "$0")/suite.sh"
suite_python "python gateway client"
suite_venv "anthropic>=2,<3"
bash "$root/tests/e2e/install.sh"
suite_build
(cd "$root" && cargo build -q -p tooldef-gateway-bench --bin corpus-mcp-server)
suite_run "$root/tests/python/gateway_test.py" \
  --tooldef "$target/debug/tooldef" \
  --upstream "$target/debug/scripted-upstream" \
  --mcp-server "$target/debug/examples/mcp_server" \
  --everything "$root/target/e2e-servers/npm/node_modules/.bin/mcp-server-everything" \
  --corpus-server "$target/debug/corpus-mcp-server" \
  --corpus "$root/tests/fixtures/corpus/github-mcp-server.tools.json" \
  "$@"
