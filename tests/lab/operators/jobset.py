"""JobSet v0.10.1: the manager as a local process, its webhooks (JobSet defaulting and validation, the pod
webhooks for exclusive placement) by URL on 127.0.0.1."""

from __future__ import annotations

from . import OperatorContext, OperatorLaunch
from ._kubebuilder import manager_config, module_dir, webhooks_by_url

NAME = "jobset"
VERSION = "v0.10.1"
MODULE = "sigs.k8s.io/jobset"


def launch(ctx: OperatorContext) -> OperatorLaunch:
    source = module_dir(MODULE, VERSION)
    port = ctx.free_port()
    config = manager_config(ctx, "config.jobset.x-k8s.io/v1alpha1", port)
    return OperatorLaunch(
        argv=[str(ctx.bin_dir / NAME), f"--kubeconfig={ctx.kubeconfig}", f"--config={config}"],
        env={},
        crds=sorted((source / "config" / "components" / "crd" / "bases").glob("*.yaml")),
        before=[],
        webhooks=webhooks_by_url(
            source / "config" / "components" / "webhook", NAME, port, ctx.serving_cert().ca_bundle
        ),
        ready_port=port,
    )
