#!/usr/bin/env bash
# Build (or reuse) the binaries of the integration-test cluster:
#   kube-apiserver, kubectl  from k8s.io/kubernetes at the pinned release
#   etcd                     from go.etcd.io/etcd/server/v3 at the version that
#                            release requires (same module graph)
#
# Binaries are cached outside the repo, in
#   ${WMAP_TESTCLUSTER_CACHE:-$HOME/.cache/workload-map/testcluster}/<k8s-version>/
# Only missing (or stale) binaries are built, so a warm run takes well under a
# second. The bin dir is printed on the last line of stdout; everything else
# goes to stderr.
#
# Environment:
#   WMAP_TESTCLUSTER_CACHE  cache root (default ~/.cache/workload-map/testcluster)
#   WMAP_TESTCLUSTER_JOBS   go build -p value (default 2)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { printf 'testcluster/build.sh: %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || { log "go toolchain not found on PATH"; exit 3; }

k8s_version="$(tr -d '[:space:]' < "$here/K8S_VERSION")"
cache_root="${WMAP_TESTCLUSTER_CACHE:-${HOME:-/root}/.cache/workload-map/testcluster}"
bin_dir="$cache_root/$k8s_version"
mkdir -p "$bin_dir"

minor="${k8s_version#v1.}"; minor="${minor%%.*}"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

# Everything that determines the binaries' content: a change in any of these
# invalidates the cached binaries of this version.
stamp="$( { cat "$here/go.mod" "$here/go.sum"; echo "$ldflags"; go env GOVERSION; } | sha256sum | cut -c1-16)"

# name -> Go package
declare -A pkgs=(
  [kube-apiserver]=k8s.io/kubernetes/cmd/kube-apiserver
  [kubectl]=k8s.io/kubernetes/cmd/kubectl
  [etcd]=go.etcd.io/etcd/server/v3
)

is_fresh() { [ -x "$bin_dir/$1" ] && [ "$(cat "$bin_dir/.stamp-$1" 2>/dev/null)" = "$stamp" ]; }

missing=()
for name in kube-apiserver kubectl etcd; do
  is_fresh "$name" || missing+=("$name")
done

if [ "${#missing[@]}" -gt 0 ]; then
  # Serialise concurrent builders (e.g. several pytest-xdist workers).
  trap 'rm -f "$bin_dir"/.*.tmp.$$' EXIT
  exec 9>"$bin_dir/.lock"
  flock 9
  export GOFLAGS="-trimpath -mod=readonly"
  export CGO_ENABLED=0
  jobs="${WMAP_TESTCLUSTER_JOBS:-2}"
  cd "$here"
  for name in "${missing[@]}"; do
    is_fresh "$name" && continue   # built by a concurrent run while we waited
    log "building $name ($k8s_version) from ${pkgs[$name]} ..."
    start=$SECONDS
    tmp="$bin_dir/.$name.tmp.$$"
    go build -p "$jobs" -ldflags "$ldflags" -o "$tmp" "${pkgs[$name]}" >&2
    mv -f "$tmp" "$bin_dir/$name"
    echo "$stamp" > "$bin_dir/.stamp-$name"
    log "built $name in $((SECONDS - start))s"
  done
  flock -u 9
fi

echo "$bin_dir"
