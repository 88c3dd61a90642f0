#!/usr/bin/env bash
# Build (or reuse) the binaries of the cluster lab, each from a pinned Go module:
#
#   tools/lab/build.sh [NAME...]      (no NAME: all of them, in the order below)
#
# Binaries are cached outside the repo, in ${WMAP_LAB_CACHE:-$HOME/.cache/workload-map/lab}/bin/,
# each next to a .stamp-NAME: a hash of its module's go.mod and go.sum, the package, the ldflags and
# the Go version. Only missing or stale binaries are built (each under a flock of its own), so a warm
# run takes well under a second.
# The bin dir is printed on the last line of stdout; everything else goes to stderr.
#
# A binary that fails to build is named, with the tail of the compiler's output, on stderr and the
# others are still built. Exit status: 1 if a NAME given on the command line failed (a test asks for
# the binaries it needs); without NAMEs (the CI prebuild) failures are reported but the exit status
# is 0, so that one broken operator does not stop the tests that do not need it. 2: unknown NAME.
#
# Environment:
#   WMAP_LAB_CACHE  cache root (default ~/.cache/workload-map/lab)
#   WMAP_LAB_JOBS   go build -p value (default 2)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { printf 'lab/build.sh: %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || { log "go toolchain not found on PATH"; exit 3; }

# name -> "module-dir package module-whose-version-is-stamped -X-variables..."
# The module dir is relative to tools/; kube-controller-manager and kube-scheduler are built from
# tools/testcluster, the apiserver's module graph, so the Kubernetes libraries compile once.
# A -X value of @V@ stands for the stamped module's version as the group's go.mod pins it; @K8S@ and
# @K8SMINOR@ for the k8s.io/kubernetes release (and its minor) the group builds against: a kube-scheduler
# built from scheduler-plugins must report that release, or its emulation-version check refuses to start.
order=(kube-controller-manager kube-scheduler kwok jobset kueue kuberay lws coscheduling
       training-operator mpi-operator trainer coscheduling-controller)
declare -A spec=(
  [kube-controller-manager]="testcluster k8s.io/kubernetes/cmd/kube-controller-manager k8s"
  [kube-scheduler]="testcluster k8s.io/kubernetes/cmd/kube-scheduler k8s"
  [kwok]="lab/kwok sigs.k8s.io/kwok/cmd/kwok sigs.k8s.io/kwok sigs.k8s.io/kwok/pkg/consts.Version=@V@"
  [jobset]="lab/jobset-kuberay sigs.k8s.io/jobset sigs.k8s.io/jobset sigs.k8s.io/jobset/pkg/version.GitVersion=@V@"
  [kuberay]="lab/jobset-kuberay github.com/ray-project/kuberay/ray-operator github.com/ray-project/kuberay/ray-operator"
  [kueue]="lab/kueue sigs.k8s.io/kueue/cmd/kueue sigs.k8s.io/kueue sigs.k8s.io/kueue/pkg/version.GitVersion=@V@"
  [lws]="lab/lws sigs.k8s.io/lws/cmd sigs.k8s.io/lws sigs.k8s.io/lws/pkg/version.GitVersion=@V@"
  [coscheduling]="lab/scheduler-plugins sigs.k8s.io/scheduler-plugins/cmd/scheduler sigs.k8s.io/scheduler-plugins k8s.io/component-base/version.gitVersion=@K8S@ k8s.io/component-base/version.gitMajor=1 k8s.io/component-base/version.gitMinor=@K8SMINOR@"
  [coscheduling-controller]="lab/scheduler-plugins sigs.k8s.io/scheduler-plugins/cmd/controller sigs.k8s.io/scheduler-plugins k8s.io/component-base/version.gitVersion=@K8S@ k8s.io/component-base/version.gitMajor=1 k8s.io/component-base/version.gitMinor=@K8SMINOR@"
  [training-operator]="lab/training-operator github.com/kubeflow/training-operator/cmd/training-operator.v1 github.com/kubeflow/training-operator"
  [mpi-operator]="lab/mpi-operator github.com/kubeflow/mpi-operator/cmd/mpi-operator github.com/kubeflow/mpi-operator github.com/kubeflow/mpi-operator/pkg/version.Version=@V@"
  [trainer]="lab/trainer github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager github.com/kubeflow/trainer/v2"
)

requested=("$@")
names=("$@")
[ "${#names[@]}" -gt 0 ] || names=("${order[@]}")
for name in "${names[@]}"; do
  [ -n "${spec[$name]+x}" ] || { log "unknown binary '$name' (known: ${order[*]})"; exit 2; }
done

cache_root="${WMAP_LAB_CACHE:-${HOME:-/root}/.cache/workload-map/lab}"
bin_dir="$cache_root/bin"
mkdir -p "$bin_dir"
go_version="$(go env GOVERSION)"

# Sets moddir, pkg, ldflags and stamp for one binary.
resolve() {
  local name="$1" dir module vars var version
  read -r dir pkg module vars <<< "${spec[$name]}"
  moddir="$here/../$dir"
  if [ "$module" = k8s ]; then
    # The same ldflags as tools/testcluster/build.sh, so they report the apiserver's release.
    version="$(tr -d '[:space:]' < "$moddir/K8S_VERSION")"
    local minor="${version#v1.}"; minor="${minor%%.*}"
    ldflags="-s -w"
    for var in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ldflags+=" -X $var.gitVersion=$version -X $var.gitMajor=1 -X $var.gitMinor=$minor"
      ldflags+=" -X $var.gitTreeState=clean -X $var.buildDate=1970-01-01T00:00:00Z"
    done
  else
    version="$(awk -v m="$module" '$1==m {print $2; exit} $1=="require" && $2==m {print $3; exit}' "$moddir/go.mod")"
    [ -n "$version" ] || { log "$module not required by $moddir/go.mod"; return 1; }
    local k8s k8s_minor
    k8s="$(awk '$1=="k8s.io/kubernetes" {print $2; exit} $1=="require" && $2=="k8s.io/kubernetes" {print $3; exit}' "$moddir/go.mod")"
    k8s_minor="${k8s#v1.}"; k8s_minor="${k8s_minor%%.*}"
    ldflags="-s -w"
    for var in $vars; do
      var="${var//@V@/$version}"; var="${var//@K8SMINOR@/$k8s_minor}"
      ldflags+=" -X ${var//@K8S@/$k8s}"
    done
  fi
  stamp="$( { cat "$moddir/go.mod" "$moddir/go.sum"; echo "$pkg $ldflags"; echo "$go_version"; } | sha256sum | cut -c1-16)"
}

# User+system CPU seconds of this shell's finished children (bash's `times`, second line).
cpu_seconds() { times | awk 'NR==2 { split($1,u,"m"); split($2,s,"m"); printf "%.0f", u[1]*60+u[2]+s[1]*60+s[2] }'; }

is_fresh() { [ -x "$bin_dir/$1" ] && [ "$(cat "$bin_dir/.stamp-$1" 2>/dev/null)" = "$2" ]; }

missing=()
for name in "${names[@]}"; do
  resolve "$name"
  is_fresh "$name" "$stamp" || missing+=("$name")
done

failed=()
if [ "${#missing[@]}" -gt 0 ]; then
  trap 'rm -f "$bin_dir"/.*.tmp.$$ "$bin_dir"/.*.tmp.$$.log' EXIT
  export GOFLAGS="-trimpath -mod=readonly"
  export CGO_ENABLED=0
  jobs="${WMAP_LAB_JOBS:-2}"
  for name in "${missing[@]}"; do
    # One lock per binary: concurrent callers (test workers, CI's prebuild, a test asking for one
    # binary) never build the same binary twice, and one waiting for jobset does not wait for the
    # whole prebuild of everything else.
    exec 9>"$bin_dir/.lock-$name"
    flock -n 9 || { log "waiting for another build of $name ..."; flock 9; }
    resolve "$name"
    if is_fresh "$name" "$stamp"; then   # built by a concurrent run while we waited
      exec 9>&-
      continue
    fi
    log "building $name from $pkg ($(realpath --relative-to="$here/.." "$moddir")) ..."
    start=$SECONDS
    tmp="$bin_dir/.$name.tmp.$$"
    # CPU time next to wall time: on a shared machine the wall time says more about the load.
    cpu_before="$(cpu_seconds)"
    if (cd "$moddir" && go build -p "$jobs" -ldflags "$ldflags" -o "$tmp" "$pkg") 2> "$tmp.log"; then
      mv -f "$tmp" "$bin_dir/$name"
      echo "$stamp" > "$bin_dir/.stamp-$name"
      log "built $name in $((SECONDS - start))s (CPU $(( $(cpu_seconds) - cpu_before ))s)"
    else
      failed+=("$name")
      log "FAILED to build $name after $((SECONDS - start))s; go build said:"
      tail -n 40 "$tmp.log" | sed "s/^/lab\/build.sh: $name: /" >&2
    fi
    rm -f "$tmp.log"
    exec 9>&-
  done
fi

echo "$bin_dir"
if [ "${#failed[@]}" -gt 0 ]; then
  log "not built: ${failed[*]}"
  [ "${#requested[@]}" -eq 0 ] || exit 1
fi
