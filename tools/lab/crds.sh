#!/usr/bin/env bash
# Print the directory holding an operator's CustomResourceDefinition YAMLs, read in place from its
# Go module in the module cache (downloaded through the Go module proxy, never copied into the repo).
#
#   tools/lab/crds.sh NAME     NAME: jobset kueue kuberay lws training-operator mpi-operator trainer
#                                    scheduler-plugins (alias coscheduling)
#
# The version is the one the lab builds: read from the operator's group module (tools/lab/<group>/go.mod).
# Apply the files of the directory whose kind is CustomResourceDefinition: some directories also hold a
# kustomization.yaml, and mpi-operator's holds its Deployment and RBAC next to its one CRD.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then PATH="/usr/local/go/bin:$PATH"; fi

# name -> "group module dir-inside-the-module"
declare -A crds=(
  [jobset]="jobset-kuberay sigs.k8s.io/jobset config/components/crd/bases"
  [kuberay]="jobset-kuberay github.com/ray-project/kuberay/ray-operator config/crd/bases"
  [kueue]="kueue sigs.k8s.io/kueue config/components/crd/bases"
  [lws]="lws sigs.k8s.io/lws config/crd/bases"
  [training-operator]="training-operator github.com/kubeflow/training-operator manifests/base/crds"
  [mpi-operator]="mpi-operator github.com/kubeflow/mpi-operator manifests/base"
  [trainer]="trainer github.com/kubeflow/trainer/v2 manifests/base/crds"
  [scheduler-plugins]="scheduler-plugins sigs.k8s.io/scheduler-plugins config/crd/bases"
  [coscheduling]="scheduler-plugins sigs.k8s.io/scheduler-plugins config/crd/bases"
)
name="${1:?usage: $0 NAME  (one of: ${!crds[*]})}"
[ -n "${crds[$name]+x}" ] || { echo "crds.sh: unknown operator '$name' (known: ${!crds[*]})" >&2; exit 2; }
read -r group module sub <<< "${crds[$name]}"
version="$(awk -v m="$module" '$1==m {print $2; exit} $1=="require" && $2==m {print $3; exit}' "$here/$group/go.mod")"
[ -n "$version" ] || { echo "crds.sh: $module not required by tools/lab/$group/go.mod" >&2; exit 1; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
moddir="$(cd "$tmp" && GOFLAGS=-mod=mod go mod download -json "$module@$version" \
  | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("Dir") or sys.exit(d.get("Error")))')"
[ -d "$moddir/$sub" ] || { echo "crds.sh: $moddir/$sub not found" >&2; exit 1; }
echo "$moddir/$sub"
