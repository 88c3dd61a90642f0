"""scheduler-plugins v0.33.5: a second kube-scheduler with the Coscheduling plugin under its own name.

Pods opt in with ``spec.schedulerName: scheduler-plugins-scheduler`` and the label
``scheduling.x-k8s.io/pod-group: <PodGroup>``; the lab's default scheduler keeps every other pod."""

from __future__ import annotations

import json

from . import OperatorContext, OperatorLaunch
from ._kubebuilder import module_dir

NAME = "coscheduling"
VERSION = "v0.33.5"
MODULE = "sigs.k8s.io/scheduler-plugins"
SCHEDULER_NAME = "scheduler-plugins-scheduler"
# How long a gang's bound-to-be members wait in Permit for the rest before the whole gang is rejected.
PERMIT_WAITING_SECONDS = 30


def launch(ctx: OperatorContext) -> OperatorLaunch:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": False},
        "clientConnection": {"kubeconfig": str(ctx.kubeconfig)},
        "profiles": [
            {
                "schedulerName": SCHEDULER_NAME,
                "plugins": {
                    "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                    "queueSort": {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]},
                },
                "pluginConfig": [
                    {
                        "name": "Coscheduling",
                        "args": {"permitWaitingTimeSeconds": PERMIT_WAITING_SECONDS, "podGroupBackoffSeconds": 1},
                    }
                ],
            }
        ],
    }
    ctx.work_dir.mkdir(parents=True, exist_ok=True)
    config_file = ctx.work_dir / "scheduler-config.yaml"
    config_file.write_text(json.dumps(config, indent=2) + "\n")
    crd = module_dir(MODULE, VERSION) / "config" / "crd" / "bases" / "scheduling.x-k8s.io_podgroups.yaml"
    return OperatorLaunch(
        argv=[str(ctx.bin_dir / NAME), f"--config={config_file}", "--secure-port=0"],
        env={"KUBECONFIG": str(ctx.kubeconfig)},
        crds=[crd],
        before=[],
        webhooks=[],
        ready_port=None,
    )
