#!/usr/bin/env bash
# tooldef against rmcp's own macros, side by side in one run (issue 15): build CPU time, rebuild
# CPU time, stripped release binary size, instructions per MCP tools/call, instructions per tool to
# convert the github-mcp-server corpus (against anchors/naive_converter.py in CPython).
# The crates and their own target directory go to target/rmcp-compare (never the workspace's
# target directory). Needs cargo, python3, valgrind and strip.
#
# usage: bash benches/rmcp-compare/run.sh [--tools 1,100] [--repeats 5] [--calls 200,1200] [--passes 2,12]
#            [--call-rounds 3] [--sections build,size,call,convert] [--tooldef-rev REV] [--keep-incremental]
# (`--help` for all options.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for tool in cargo python3 valgrind strip; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is needed" >&2; exit 2; }
done
exec python3 "$here/harness.py" "$@"
