"""Kubeflow Trainer v2.0.0 (TrainJob, TrainingRuntime, ClusterTrainingRuntime) as a local process, without
webhooks. A TrainJob runs as a JobSet: start the jobset operator too.

As training-operator's, its certificate rotation (open-policy-agent/cert-controller) cannot be turned off and
it starts its controllers only once the rotator is ready: the namespace it would run in (``kubeflow-system``
outside a pod) must hold the Secret ``kubeflow-trainer-webhook-cert`` (the rotator fills it in), the
ValidatingWebhookConfiguration ``validator.trainer.kubeflow.org`` must exist for the rotator to inject its CA
into, and the webhook server reads its certificate from the fixed ``/tmp/k8s-webhook-server/serving-certs``.
The rotator's certificate is for its Service's DNS name, not 127.0.0.1, so that configuration's one webhook
matches no object: TrainJobs and runtimes are not validated. The fixed certificate directory is the
training-operator's too: the process gets its own, a bind mount of this operator's work dir in a private mount
namespace (the host's /tmp only gets the empty mount point), holding the lab's certificate at start."""

from __future__ import annotations

import shlex

from . import OperatorContext, OperatorLaunch
from ._kubebuilder import module_dir, rotator_target

NAME = "trainer"
VERSION = "v2.0.0"
MODULE = "github.com/kubeflow/trainer/v2"
NAMESPACE = "kubeflow-system"  # cert.go's default outside a pod; not configurable
CERT_SECRET = "kubeflow-trainer-webhook-cert"
WEBHOOK_CONFIGURATION = "validator.trainer.kubeflow.org"
SERVER_DIR = "/tmp/k8s-webhook-server"  # its CertDir is SERVER_DIR/serving-certs, fixed in pkg/util/cert


def launch(ctx: OperatorContext) -> OperatorLaunch:
    source = module_dir(MODULE, VERSION)
    port = ctx.free_port()  # its webhook server (all interfaces)
    cert = ctx.serving_cert()
    own = ctx.work_dir / "webhook-server"
    (own / "serving-certs").mkdir(parents=True, exist_ok=True)
    trainer = [
        str(ctx.bin_dir / NAME),
        f"--kubeconfig={ctx.kubeconfig}",
        "--leader-elect=false",
        "--metrics-bind-address=0",
        f"--health-probe-bind-address=127.0.0.1:{ctx.free_port()}",
        f"--webhook-server-port={port}",
    ]
    certs = shlex.quote(str(own / "serving-certs"))
    script = " && ".join(
        [
            f"mkdir -p {SERVER_DIR}",
            f"mount --bind {shlex.quote(str(own))} {SERVER_DIR}",
            f"cp {shlex.quote(str(cert.cert_file))} {certs}/tls.crt",
            f"cp {shlex.quote(str(cert.key_file))} {certs}/tls.key",
            "exec " + shlex.join(trainer),
        ]
    )
    return OperatorLaunch(
        argv=["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        env={},
        crds=sorted((source / "manifests" / "base" / "crds").glob("trainer.kubeflow.org_*.yaml")),
        before=[
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": CERT_SECRET, "namespace": NAMESPACE}},
            rotator_target(
                WEBHOOK_CONFIGURATION,
                port,
                path="/validate-trainer-kubeflow-org-v1alpha1-trainjob",
                group="trainer.kubeflow.org",
                version="v1alpha1",
                resource="trainjobs",
            ),
        ],
        webhooks=[],
        ready_port=port,  # the lab's certificate is served at once; the controllers start once the rotator is
    )
