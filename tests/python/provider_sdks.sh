#!/usr/bin/env bash
# Checks the requests tooldef builds for Anthropic, Gemini and OpenAI's Responses API (the
# showcase's tools, a turn of parallel calls read back with tooldef::calls, and the turn that
# answers them) against the
# official `anthropic`, `google-genai` and `openai` Python SDKs' request types: provider_sdks.py.
# Installs the SDKs into the virtual environment the other Python suites use (TOOLDEF_VENV, by
# default target/python-venv). Skips, saying so, where there is no Python 3.10+.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "provider SDKs: SKIPPED: no Python 3.10 or newer on this machine (set PYTHON to one)"
  exit 0
fi
venv=${TOOLDEF_VENV:-"$root/target/python-venv"}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check "anthropic>=2,<3" "google-genai>=1.40,<2" "openai>=3.54,<4" "jsonschema>=4.20,<5"
requests=$(mktemp)
trap 'rm -f "$requests"' EXIT
(cd "$root" && cargo run -q -p tooldef-examples --example provider_requests) > "$requests"
"$venv/bin/python" "$root/tests/python/provider_sdks.py" "$requests"
