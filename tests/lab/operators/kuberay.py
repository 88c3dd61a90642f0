"""KubeRay ray-operator v1.5.0: RayCluster, RayJob and RayService controllers; it runs without a webhook."""

from __future__ import annotations

from . import OperatorContext, OperatorLaunch
from ._kubebuilder import module_dir

NAME = "kuberay"
VERSION = "v1.5.0"
MODULE = "github.com/ray-project/kuberay/ray-operator"


def launch(ctx: OperatorContext) -> OperatorLaunch:
    crd_dir = module_dir(MODULE, VERSION) / "config" / "crd" / "bases"
    return OperatorLaunch(
        argv=[
            str(ctx.bin_dir / NAME),
            "--enable-leader-election=false",
            f"--health-probe-bind-address=127.0.0.1:{ctx.free_port()}",
            "--metrics-addr=0",
        ],
        env={"KUBECONFIG": str(ctx.kubeconfig)},
        crds=[crd_dir / f"ray.io_{plural}.yaml" for plural in ("rayclusters", "rayjobs", "rayservices")],
        before=[],
        webhooks=[],
        ready_port=None,
    )
