#!/usr/bin/env bash
# What a tools/call costs in each protocol generation on the `mcp_server` example (release), in
# instructions under callgrind: N1 and N2 calls, per call = (total(N2) - total(N1)) / (N2 - N1), so
# that start-up and the handshake cancel out. Prints one line per protocol and the ratio.
#
# usage: bash benches/protocol-calls/run.sh [N1 N2]   (default 100 1100)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
n1=${1:-100}
n2=${2:-1100}
(cd "$root" && cargo build -q --release -p tooldef-examples --features mcp --example mcp_server)
server="${CARGO_TARGET_DIR:-"$root/target"}/release/examples/mcp_server"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
total() { # FILE: the run's total instructions
  grep -E '^(summary|totals):' "$1" | head -1 | awk '{print $2}'
}
declare -A per_call
for protocol in 2025-11-25 2026-07-28; do
  for n in "$n1" "$n2"; do
    python3 "$root/benches/protocol-calls/driver.py" "$n" --protocol "$protocol" -- \
      valgrind --tool=callgrind --callgrind-out-file="$out/$protocol-$n" "$server"
  done
  a=$(total "$out/$protocol-$n1")
  b=$(total "$out/$protocol-$n2")
  per_call[$protocol]=$(( (b - a) / (n2 - n1) ))
  echo "protocol $protocol: ${per_call[$protocol]} instructions per tools/call"
done
python3 -c "print(f'2026-07-28 / 2025-11-25: {${per_call[2026-07-28]} / ${per_call[2025-11-25]}:.2f}x')"
