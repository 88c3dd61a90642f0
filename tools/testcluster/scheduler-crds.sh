#!/usr/bin/env bash
# Print the path of the scheduler-plugins coscheduling PodGroup CRD (scheduling.x-k8s.io), read in place
# from its Go module in the module cache (downloaded once through the Go module proxy, never copied into
# the repository). The live gang tests install it to check that our emitted PodGroups are accepted.
set -euo pipefail
version="v0.33.5"
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then PATH="/usr/local/go/bin:$PATH"; fi
dir="$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/scheduler-plugins@$version" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')"
crd="$dir/config/crd/bases/scheduling.x-k8s.io_podgroups.yaml"
[ -f "$crd" ] || { echo "scheduler-crds.sh: $crd not found" >&2; exit 1; }
echo "$crd"
