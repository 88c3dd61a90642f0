#!/usr/bin/env bash
# Build (or reuse) `helm` for tests (rendering charts/workload-map with `helm template`).
# Test-only tool: nothing here is shipped.
#
# The binary is cached outside the repo, in
#   ${WMAP_TESTCLUSTER_CACHE:-$HOME/.cache/workload-map/testcluster}/helm-<version>/helm
# and rebuilt only when go.mod, go.sum, the ldflags or the Go version change.
# The bin dir is printed on the last line of stdout; everything else goes to stderr.
#
# Environment:
#   WMAP_TESTCLUSTER_CACHE  cache root (default ~/.cache/workload-map/testcluster)
#   WMAP_TESTCLUSTER_JOBS   go build -p value (default 2)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { printf 'helm/build.sh: %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || { log "go toolchain not found on PATH"; exit 3; }

helm_version="$(tr -d '[:space:]' < "$here/HELM_VERSION")"
cache_root="${WMAP_TESTCLUSTER_CACHE:-${HOME:-/root}/.cache/workload-map/testcluster}"
bin_dir="$cache_root/helm-$helm_version"
mkdir -p "$bin_dir"

# helm reports its version from these variables (upstream's Makefile sets them the same way).
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version"
ldflags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"

stamp="$( { cat "$here/go.mod" "$here/go.sum"; echo "$ldflags"; go env GOVERSION; } | sha256sum | cut -c1-16)"

if ! { [ -x "$bin_dir/helm" ] && [ "$(cat "$bin_dir/.stamp-helm" 2>/dev/null)" = "$stamp" ]; }; then
  trap 'rm -f "$bin_dir"/.helm.tmp.$$' EXIT
  exec 9>"$bin_dir/.lock"
  flock 9
  if ! { [ -x "$bin_dir/helm" ] && [ "$(cat "$bin_dir/.stamp-helm" 2>/dev/null)" = "$stamp" ]; }; then
    export GOFLAGS="-trimpath -mod=readonly"
    export CGO_ENABLED=0
    cd "$here"
    log "building helm $helm_version from helm.sh/helm/v3/cmd/helm ..."
    start=$SECONDS
    go build -p "${WMAP_TESTCLUSTER_JOBS:-2}" -ldflags "$ldflags" -o "$bin_dir/.helm.tmp.$$" helm.sh/helm/v3/cmd/helm >&2
    mv -f "$bin_dir/.helm.tmp.$$" "$bin_dir/helm"
    echo "$stamp" > "$bin_dir/.stamp-helm"
    log "built helm in $((SECONDS - start))s"
  fi
  flock -u 9
fi

echo "$bin_dir"
