# What the gateway's python suites' runners share (sourced, not run): a Python 3.10+ or a SKIPPED
# line, the virtual environment with the SDK (TOOLDEF_VENV, by default target/python-venv), the
# binaries, and the suite run in a process group of its own, killed as a whole at the end even
# when it fails or is interrupted, so that no process it started is left.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
target=${CARGO_TARGET_DIR:-"$root/target"}

# suite_python LABEL: sets `python`, or says the suite is skipped and exits 0.
suite_python() {
  python=${PYTHON:-python3}
  if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    echo "$1: SKIPPED: no Python 3.10 or newer on this machine (set PYTHON to one)"
    exit 0
  fi
}

# suite_venv [REQUIREMENT...]: sets `venv`, with the openai SDK and these installed.
suite_venv() {
  venv=${TOOLDEF_VENV:-"$root/target/python-venv"}
  if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check "openai>=3.54,<4" "$@"
}

# suite_build: the binaries every gateway suite runs.
suite_build() {
  (
    cd "$root"
    cargo build -q -p tooldef-cli
    cargo build -q -p tooldef-scripted-upstream
    cargo build -q -p tooldef-examples --features mcp --example mcp_server
  )
}

# suite_run SCRIPT ARG...: runs the suite in its own process group and exits with its status.
suite_run() {
  set -m
  "$venv/bin/python" "$@" &
  group=$!
  trap suite_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  status=0
  wait "$group" || status=$?
  exit "$status"
}

suite_cleanup() {
  if kill -0 -- "-$group" 2>/dev/null; then
    kill -TERM -- "-$group" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 -- "-$group" 2>/dev/null || return 0
      sleep 0.3
    done
    kill -KILL -- "-$group" 2>/dev/null || true
  fi
}
