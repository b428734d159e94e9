#!/usr/bin/env bash
# The official MCP conformance suite's client scenarios, run against tooldef's CLI: builds
# `tooldef`, installs the suite (tests/conformance/install.sh), and runs every client scenario
# the suite lists through tests/conformance/client/adapter.mjs, which turns each into the
# `tooldef list` / `tooldef call` command a user would type (OAuth scenarios sign in through
# client/browser.mjs, which only follows redirects as a browser does). Prints one line per
# scenario and a total; exits 1 when a scenario fails that client/expected-failures.yaml does
# not list, or passes though it lists it.
#
# Needs cargo, npm and the npm registry. Each scenario's output is kept in
# target/conformance/client-results/SCENARIO.log.
#
# Usage: bash tests/conformance/client.sh [SCENARIO…]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
expected="$here/client/expected-failures.yaml"

suite=$(bash "$here/install.sh" | tail -1)
node=${suite%% *}

echo "conformance: building tooldef" >&2
(cd "$root" && cargo build -q -p tooldef-cli)
target=$(cd "$root" && cargo metadata --format-version 1 --no-deps |
  "$node" -e 'let s = ""; process.stdin.on("data", d => s += d).on("end", () => console.log(JSON.parse(s).target_directory))')
export TOOLDEF_BIN="$target/debug/tooldef"
[ -x "$TOOLDEF_BIN" ] || { echo "conformance: no tooldef at $TOOLDEF_BIN" >&2; exit 1; }

if [ $# -gt 0 ]; then
  scenarios=("$@")
else
  # `list` prints the server scenarios, then "Client scenarios", each as `  - NAME [VERSIONS]`.
  mapfile -t scenarios < <($suite list | sed -n '/^Client scenarios/,$p' | sed -n 's/^  - \([^ ]*\).*/\1/p')
fi
[ ${#scenarios[@]} -gt 0 ] || { echo "conformance: the suite listed no client scenarios" >&2; exit 1; }

# Each expected failure's reason: the comment lines above its entry, joined.
reason() {
  awk -v name="$1" '
    /^[[:space:]]*#/ { sub(/^[[:space:]]*#[[:space:]]?/, ""); text = text (text ? " " : "") $0; next }
    /^[[:space:]]*-[[:space:]]/ { entry = $0; sub(/^[[:space:]]*-[[:space:]]*/, "", entry);
      if (entry == name) { print text; exit } text = ""; next }
    { text = "" }' "$expected"
}
listed() { grep -qE "^[[:space:]]*-[[:space:]]*$1[[:space:]]*$" "$expected"; }

results="$root/target/conformance/client-results"
mkdir -p "$results"
passed=0 expected_failures=0 unexpected=0
start=$(date +%s)
for scenario in "${scenarios[@]}"; do
  log="$results/${scenario//\//_}.log"
  status=0
  $suite client --command "$node $here/client/adapter.mjs" --scenario "$scenario" \
    --expected-failures "$expected" >"$log" 2>&1 || status=$?
  # The suite's verdict on the checks, and on a client that exited with an error where the
  # scenario does not allow one (which its baseline comparison alone leaves out).
  if grep -q "OVERALL: PASSED" "$log"; then verdict=pass; else verdict=fail; fi
  if [ "$verdict" = pass ] && ! listed "$scenario" && [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
    printf 'PASS   %s\n' "$scenario"
  elif [ "$verdict" = fail ] && listed "$scenario" && [ "$status" -eq 0 ]; then
    expected_failures=$((expected_failures + 1))
    printf 'XFAIL  %s: %s\n' "$scenario" "$(reason "$scenario")"
  elif [ "$verdict" = pass ]; then
    unexpected=$((unexpected + 1))
    printf 'XPASS  %s: passes, but client/expected-failures.yaml lists it (log: %s)\n' "$scenario" "$log"
  else
    unexpected=$((unexpected + 1))
    failed=$(sed -n 's/^  - \(.*\)$/\1/p' "$log" | head -3 | tr '\n' ';')
    printf 'FAIL   %s: %s (log: %s)\n' "$scenario" "${failed:-see the log}" "$log"
  fi
done
total=${#scenarios[@]}
echo "conformance (client): $passed of $total passed, $expected_failures expected failures, $unexpected unexpected, in $(($(date +%s) - start)) s"
[ "$unexpected" -eq 0 ]
