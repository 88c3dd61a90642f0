#!/usr/bin/env bash
# Build (or reuse) the Go baseline of bench/bench_gobaseline.py: main.go against github.com/itchyny/gojq at
# the version below, fetched from the module proxy into a copy of this module at build time (go.mod here
# names no dependency, so nothing of it is vendored or pinned in the repository). The binary is cached
# outside the repo, in
#   ${WMAP_GOBASELINE_CACHE:-$HOME/.cache/workload-map/gobaseline}/<stamp>/gobaseline
# where <stamp> hashes everything that determines it (main.go, go.mod, the module versions, the Go
# version), so a warm run takes well under a second. The binary's path is printed on the last line of
# stdout; everything else goes to stderr. Bench infrastructure only: never shipped.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { printf 'gobaseline/build.sh: %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || { log "go toolchain not found on PATH"; exit 3; }

modules=(github.com/itchyny/gojq@v0.12.17)
stamp="$( { cat "$here/main.go" "$here/go.mod"; printf '%s\n' "${modules[@]}"; go env GOVERSION; } | sha256sum | cut -c1-16)"
cache_root="${WMAP_GOBASELINE_CACHE:-${HOME:-/root}/.cache/workload-map/gobaseline}"
out_dir="$cache_root/$stamp"
binary="$out_dir/gobaseline"

if [ ! -x "$binary" ]; then
  mkdir -p "$out_dir"
  exec 9>"$out_dir/.lock"
  flock 9
  if [ ! -x "$binary" ]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    cp "$here/main.go" "$here/go.mod" "$work/"
    cd "$work"
    log "fetching ${modules[*]} and building ..."
    GOFLAGS=-mod=mod go get "${modules[@]}" >&2
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$binary.tmp.$$" . >&2
    mv -f "$binary.tmp.$$" "$binary"
  fi
  flock -u 9
fi

echo "$binary"
