"""LeaderWorkerSet v0.7.0: the manager as a local process, its webhooks (LWS defaulting and validation, the
pod webhooks that label leaders and workers) by URL on 127.0.0.1."""

from __future__ import annotations

from . import OperatorContext, OperatorLaunch
from ._kubebuilder import manager_config, module_dir, webhooks_by_url

NAME = "lws"
VERSION = "v0.7.0"
MODULE = "sigs.k8s.io/lws"


def launch(ctx: OperatorContext) -> OperatorLaunch:
    source = module_dir(MODULE, VERSION)
    port = ctx.free_port()
    config = manager_config(ctx, "config.lws.x-k8s.io/v1alpha1", port)
    return OperatorLaunch(
        argv=[str(ctx.bin_dir / NAME), f"--kubeconfig={ctx.kubeconfig}", f"--config={config}"],
        env={},
        crds=sorted((source / "config" / "crd" / "bases").glob("*.yaml")),
        before=[],
        webhooks=webhooks_by_url(source / "config" / "webhook", NAME, port, ctx.serving_cert().ca_bundle),
        ready_port=port,
    )
