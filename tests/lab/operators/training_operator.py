"""Kubeflow training-operator v1.9.2, PyTorchJob only: the manager as a local process without webhooks.

Its certificate rotation cannot be turned off: it wants its namespace (``$MY_POD_NAMESPACE``) holding the
Secret ``training-operator-webhook-cert`` before it starts (it fills in an empty one), and it serves the
certificate it makes for ``training-operator.<ns>.svc``, which the apiserver could not verify at
127.0.0.1, so no webhook configuration is registered: PyTorchJobs are not validated, and nothing else
needs the webhook (the controller defaults the jobs itself). Only the PyTorchJob scheme and CRD: the
training-operator's ``mpijobs.kubeflow.org`` (v1) would clash with mpi-operator's (v2beta1).
"""

from __future__ import annotations

from . import OperatorContext, OperatorLaunch
from ._kubebuilder import module_dir

NAME = "training-operator"
VERSION = "v1.9.2"
MODULE = "github.com/kubeflow/training-operator"
NAMESPACE = "lab-training-operator"
CERT_SECRET = "training-operator-webhook-cert"


def launch(ctx: OperatorContext) -> OperatorLaunch:
    source = module_dir(MODULE, VERSION)
    port = ctx.free_port()  # its webhook server (all interfaces) serves TLS once the certificates are made
    return OperatorLaunch(
        argv=[
            str(ctx.bin_dir / NAME),
            f"--kubeconfig={ctx.kubeconfig}",
            "--enable-scheme=pytorchjob",
            "--leader-elect=false",
            "--metrics-bind-address=0",
            f"--health-probe-bind-address=127.0.0.1:{ctx.free_port()}",
            f"--webhook-server-port={port}",
        ],
        env={"MY_POD_NAMESPACE": NAMESPACE},
        crds=[source / "manifests" / "base" / "crds" / "kubeflow.org_pytorchjobs.yaml"],
        before=[
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": CERT_SECRET, "namespace": NAMESPACE}},
        ],
        webhooks=[],
        ready_port=port,
    )
