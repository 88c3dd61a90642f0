"""Kubeflow mpi-operator v0.6.0 (MPIJob kubeflow.org/v2beta1) as a local process.

Not controller-runtime and no webhooks. It always runs leader election on a Lease in ``--lock-namespace``
(created first) and serves its health endpoint on the hard-coded :8080, so one runs per machine at a time.
The CRD directory also holds its Deployment and RBAC: only the CRD file is applied.
"""

from __future__ import annotations

from . import OperatorContext, OperatorLaunch
from ._kubebuilder import module_dir

NAME = "mpi-operator"
VERSION = "v0.6.0"
MODULE = "github.com/kubeflow/mpi-operator"
LOCK_NAMESPACE = "lab-mpi-operator"


def launch(ctx: OperatorContext) -> OperatorLaunch:
    source = module_dir(MODULE, VERSION)
    return OperatorLaunch(
        argv=[
            str(ctx.bin_dir / NAME),
            f"--kubeConfig={ctx.kubeconfig}",
            f"--lock-namespace={LOCK_NAMESPACE}",
            "--monitoring-port=0",
        ],
        env={"KUBEFLOW_NAMESPACE": ""},  # all namespaces
        crds=[source / "manifests" / "base" / "kubeflow.org_mpijobs.yaml"],
        before=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": LOCK_NAMESPACE}}],
        webhooks=[],
        ready_port=None,
    )
