"""Kubeflow training-operator v1.9.2, PyTorchJob only: the manager as a local process without webhooks.

Its certificate rotation (open-policy-agent/cert-controller) cannot be turned off, and it starts the
controllers only once the rotator is ready: the namespace ``$MY_POD_NAMESPACE`` must hold the Secret
``training-operator-webhook-cert`` (it fills in an empty one with a CA and a certificate for
``training-operator.<ns>.svc``), a certificate file must exist in the fixed
``/tmp/k8s-webhook-server/serving-certs`` (in a pod, the Secret mounted there; here the lab's
certificate), and the ValidatingWebhookConfiguration ``validator.training-operator.kubeflow.org`` must
exist for the rotator to inject its CA into. That CA does not sign what the server serves here, so the
configuration's one webhook matches no object (an objectSelector nothing carries): PyTorchJobs are not
validated, and nothing else needs the webhook (the controller defaults the jobs itself). Only the
PyTorchJob scheme and CRD: the training-operator's ``mpijobs.kubeflow.org`` (v1) would clash with
mpi-operator's (v2beta1).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from . import OperatorContext, OperatorLaunch
from ._kubebuilder import module_dir, rotator_target

NAME = "training-operator"
VERSION = "v1.9.2"
MODULE = "github.com/kubeflow/training-operator"
NAMESPACE = "lab-training-operator"
CERT_SECRET = "training-operator-webhook-cert"
WEBHOOK_CONFIGURATION = "validator.training-operator.kubeflow.org"
CERT_DIR = Path("/tmp/k8s-webhook-server/serving-certs")  # the rotator's CertDir, fixed in pkg/cert


def launch(ctx: OperatorContext) -> OperatorLaunch:
    source = module_dir(MODULE, VERSION)
    port = ctx.free_port()  # its webhook server (all interfaces)
    cert = ctx.serving_cert()
    CERT_DIR.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cert.cert_file, CERT_DIR / "tls.crt")
    shutil.copyfile(cert.key_file, CERT_DIR / "tls.key")
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
            rotator_target(
                WEBHOOK_CONFIGURATION,
                port,
                path="/validate-kubeflow-org-v1-pytorchjob",
                group="kubeflow.org",
                version="v1",
                resource="pytorchjobs",
            ),
        ],
        webhooks=[],
        ready_port=None,  # the webhook server starts only once the rotator is ready
    )
