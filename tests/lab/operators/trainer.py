"""Kubeflow Trainer v2.0.0 (TrainJob, TrainingRuntime, ClusterTrainingRuntime) as a local process, without
webhooks. A TrainJob runs as a JobSet: start the jobset operator too.

As training-operator's, its certificate rotation cannot be turned off: the namespace it would run in
(``kubeflow-system`` outside a pod) must hold the Secret ``kubeflow-trainer-webhook-cert`` before it starts,
and the certificate it makes is for its Service's DNS name, not 127.0.0.1, so ``validator.trainer.kubeflow.org``
stays unregistered: TrainJobs and runtimes are not validated."""

from __future__ import annotations

from . import OperatorContext, OperatorLaunch
from ._kubebuilder import module_dir

NAME = "trainer"
VERSION = "v2.0.0"
MODULE = "github.com/kubeflow/trainer/v2"
NAMESPACE = "kubeflow-system"  # cert.go's default outside a pod; not configurable
CERT_SECRET = "kubeflow-trainer-webhook-cert"


def launch(ctx: OperatorContext) -> OperatorLaunch:
    source = module_dir(MODULE, VERSION)
    port = ctx.free_port()  # its webhook server (all interfaces) serves TLS once the certificates are made
    return OperatorLaunch(
        argv=[
            str(ctx.bin_dir / NAME),
            f"--kubeconfig={ctx.kubeconfig}",
            "--leader-elect=false",
            "--metrics-bind-address=0",
            f"--health-probe-bind-address=127.0.0.1:{ctx.free_port()}",
            f"--webhook-server-port={port}",
        ],
        env={},
        crds=sorted((source / "manifests" / "base" / "crds").glob("trainer.kubeflow.org_*.yaml")),
        before=[
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": CERT_SECRET, "namespace": NAMESPACE}},
        ],
        webhooks=[],
        ready_port=port,
    )
