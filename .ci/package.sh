#!/usr/bin/env bash
# The crates a user installs, packaged as crates.io would take them: tooldef-uri-template,
# tooldef-macros, tooldef, tooldef-gateway and tooldef-cli. `cargo package` refuses a path
# dependency without a version, a readme that is not there, a manifest crates.io would refuse;
# cargo (>= 1.90) packages the five together, each one's unpublished dependencies on the others
# served from a temporary local registry. Then each package must carry its licence texts and its
# README (symlinks in the crate directories, which cargo follows).
#
# Without verification by default. Verifying builds each packaged crate as crates.io's users
# would, on its own, with the features it asks for alone, so it compiles the dependencies again
# rather than reusing the workspace's build. Measured on the 2-core machine this was written on
# (shared with other jobs): with verification, from an empty target directory, 10 min 57 s wall
# (319 s user + 38 s sys CPU); the same again right after, everything built, 72 s. Without it,
# 12 s. `--verify` verifies (before a release, say): `bash .ci/package.sh --verify`.
set -euo pipefail
cd "$(dirname "$0")/.."

crates=(tooldef-uri-template tooldef-macros tooldef tooldef-gateway tooldef-cli)
verify=--no-verify
case "${1:-}" in
  "") ;;
  --verify) verify= ;;
  *) echo "usage: $0 [--verify]" >&2; exit 2 ;;
esac

selected=()
for crate in "${crates[@]}"; do selected+=(-p "$crate"); done
# Cargo extracts the temporary registry's crates under $CARGO_HOME/registry/src/-HASH/, the hash
# that of the registry's path, and reuses what it finds there: a second packaging in the same
# directory (a CI clone made again at the same path) would verify against the first one's
# sources. Ours go first. (Only registries without a host name, and only these crates.)
registry_src="${CARGO_HOME:-$HOME/.cargo}/registry/src"
for crate in "${crates[@]}"; do
  rm -rf "$registry_src"/-*/"$crate"-[0-9]*
done
cargo package $verify "${selected[@]}"

for crate in "${crates[@]}"; do
  files=$(cargo package --list -p "$crate" 2>/dev/null)
  for file in LICENSE-MIT LICENSE-APACHE README.md; do
    if ! grep -qx "$file" <<<"$files"; then
      echo "package.sh: the $crate package has no $file" >&2
      exit 1
    fi
  done
done
echo "package.sh: ${crates[*]} packaged ($([ -n "$verify" ] && echo "not verified" || echo verified)), each with its licences and README"
