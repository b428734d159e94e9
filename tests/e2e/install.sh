#!/usr/bin/env bash
# Installs the two reference MCP servers the end-to-end tests call, into DIR ($1, by default
# target/e2e-servers under the repository root):
#   DIR/npm   @modelcontextprotocol/server-everything (npm, major 2026);
#             run as DIR/npm/node_modules/.bin/mcp-server-everything (stdio)
#   DIR/venv  mcp-server-git (PyPI, major 2026) in a virtual environment;
#             run as DIR/venv/bin/python -m mcp_server_git -r REPO
# Idempotent: a part whose directory is already in place is skipped, so a warm run takes
# milliseconds. Each part is installed into a temporary directory beside its final place and
# renamed into place only once complete, so an interrupted run leaves nothing half-installed
# and concurrent runs cannot see each other's half-done work (the loser of a race throws its
# copy away). Messages go to stderr; stdout stays empty.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-"$root/target/e2e-servers"}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

say() { echo "e2e-servers: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

# Serialise concurrent runs where flock(1) exists (util-linux); the atomic renames below keep
# things correct without it, this only avoids installing twice at once.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$dir/.lock"
  flock 9
  # Holding the lock, any temporary directory left here is from a run that was killed.
  rm -rf "$dir"/.npm.* "$dir"/.venv.*
fi

# Moves the completed temporary directory $1 to $2; if another run got there first, keeps
# theirs and removes ours.
put_in_place() {
  local tmp=$1 final=$2
  if ! mv -T "$tmp" "$final" 2>/dev/null; then
    rm -rf "$tmp"
    [ -e "$final" ] || die "could not move $tmp to $final"
  fi
}

everything_bin="$dir/npm/node_modules/.bin/mcp-server-everything"
if [ -x "$everything_bin" ]; then
  say "server-everything already installed in $dir/npm"
else
  command -v npm >/dev/null 2>&1 ||
    die "npm not found: install Node.js 18 or newer with npm to run the end-to-end tests"
  command -v node >/dev/null 2>&1 ||
    die "node not found: install Node.js 18 or newer with npm to run the end-to-end tests"
  rm -rf "$dir/npm"
  tmp=$(mktemp -d "$dir/.npm.XXXXXX")
  say "installing @modelcontextprotocol/server-everything@^2026 into $dir/npm"
  # npm's progress and summary go to stdout: keep ours empty.
  if ! npm install --prefix "$tmp" --no-audit --no-fund --no-update-notifier \
    '@modelcontextprotocol/server-everything@^2026' >&2; then
    rm -rf "$tmp"
    die "npm install @modelcontextprotocol/server-everything@^2026 failed"
  fi
  [ -x "$tmp/node_modules/.bin/mcp-server-everything" ] || {
    rm -rf "$tmp"
    die "npm installed server-everything but node_modules/.bin/mcp-server-everything is missing"
  }
  put_in_place "$tmp" "$dir/npm"
fi

venv_python="$dir/venv/bin/python"
if [ -x "$venv_python" ]; then
  say "mcp-server-git already installed in $dir/venv"
else
  command -v python3 >/dev/null 2>&1 ||
    die "python3 not found: install Python 3.10 or newer (with venv) to run the end-to-end tests"
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
    die "python3 is $(python3 -V 2>&1); mcp-server-git needs Python 3.10 or newer"
  command -v git >/dev/null 2>&1 || die "git not found: mcp-server-git and its tests need git"
  rm -rf "$dir/venv"
  tmp=$(mktemp -d "$dir/.venv.XXXXXX")
  say "installing mcp-server-git>=2026,<2027 into $dir/venv"
  if ! python3 -m venv "$tmp" >&2; then
    rm -rf "$tmp"
    die "python3 -m venv failed (on Debian or Ubuntu: apt-get install python3-venv)"
  fi
  # `python -m pip` rather than bin/pip: after the rename the scripts' #! lines point at the
  # temporary path, while bin/python finds its environment from where it is.
  if ! "$tmp/bin/python" -m pip install -q --disable-pip-version-check \
    'mcp-server-git>=2026,<2027' >&2; then
    rm -rf "$tmp"
    die "pip install mcp-server-git>=2026,<2027 failed"
  fi
  "$tmp/bin/python" -c 'import mcp_server_git' >&2 || {
    rm -rf "$tmp"
    die "mcp-server-git installed but 'import mcp_server_git' fails"
  }
  put_in_place "$tmp" "$dir/venv"
fi
