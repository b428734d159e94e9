#!/usr/bin/env bash
# The official MCP conformance suite's server scenarios — all of them, the default set and the
# pending ones (`--suite all`) — against the `conformance` example (examples/examples/
# conformance.rs), a server written with tooldef's API alone, over Streamable HTTP.
#
# The suite and the Node.js 22 it needs are installed by install.sh (pinned in package.json).
# The server listens on a free port of 127.0.0.1 (its address is read from its stderr) and is
# stopped at the end, whatever happens. Prints the suite's summary and
# `conformance server: N of M scenarios passed`; exits 1 unless every scenario passed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

say() { echo "conformance server: $*"; }

suite=$(bash "$here/install.sh" | tail -1)
cargo build -q -p tooldef-examples --features mcp --example conformance
binary="$root/target/debug/examples/conformance"

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$binary" --http 127.0.0.1:0 2>"$work/server.log" &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(grep -o 'http://[0-9.:]*/mcp' "$work/server.log" | head -1 || true)
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; say "error: the server exited"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/server.log" >&2; say "error: the server printed no address"; exit 1; }
say "the conformance example serves at $url"

status=0
timeout 600 $suite server --url "$url" --suite all -o "$work/results" >"$work/suite.log" 2>&1 || status=$?
sed -n '/=== SUMMARY ===/,$p' "$work/suite.log"
passed=$(grep -c '^✓' "$work/suite.log" || true)
failed=$(grep -c '^✗' "$work/suite.log" || true)
if [ "$failed" != 0 ] || [ "$status" != 0 ] || [ "$passed" = 0 ]; then
  # What failed, in the suite's words.
  grep -B2 -A12 '"status": "FAILURE"' -r "$work/results" 2>/dev/null | grep -E 'errorMessage|"id"' | head -60 || true
  say "$passed of $((passed + failed)) scenarios passed (suite exit status $status)"
  exit 1
fi
say "$passed of $((passed + failed)) scenarios passed"
