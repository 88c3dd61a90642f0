"""Kubeflow Trainer TrainJob (trainer.kubeflow.org): a JobSet underneath."""

from __future__ import annotations

from datetime import timedelta

from ..core import GPU, Built, Ctx, W, cond, obj
from ..pods import IMG_TORCH, container
from ..registry import framework, sample_gpus
from .jobset import jobset_tree


@framework(
    "trainjob",
    weight=3,
    states={"running": 5, "completed": 3, "failed": 1, "suspended": 1},
    names=("qwen-sft", "llama-lora", "mistral-dpo"),
    sample=lambda rng, target: {"nodes": max(1, min(32, target)), "gpus": sample_gpus(rng, (4, 8))},
)
def build_trainjob(c: Ctx, w: W) -> Built:
    s, ns, t = w.shape, w.namespace, w.created
    tj = obj(c, "trainer.kubeflow.org/v1alpha1", "TrainJob", w.name, ns, t=t)
    tj["spec"] = {
        "runtimeRef": {
            "apiGroup": "trainer.kubeflow.org",
            "kind": "ClusterTrainingRuntime",
            "name": "torch-distributed",
        },
        "trainer": {
            "image": IMG_TORCH,
            "command": ["torchrun", "/workspace/train.py"],
            "numNodes": s["nodes"],
            "resourcesPerNode": {"limits": {GPU: str(s["gpus"])}},
        },
        "suspend": w.state == "suspended",
    }
    ct = container(
        "node",
        IMG_TORCH,
        gpus=s["gpus"],
        cpu=str(12 * s["gpus"]),
        mem=f"{128 * s['gpus']}Gi",
        command=["torchrun", "/workspace/train.py"],
        env={"PET_NNODES": str(s["nodes"]), "PET_NPROC_PER_NODE": str(s["gpus"])},
    )
    rjobs = [{"name": "node", "replicas": 1, "parallelism": s["nodes"], "containers": [ct]}]
    sub = jobset_tree(
        c, w, w.name, tj, rjobs, state=w.state, pod_labels={"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}
    )
    out = Built(tj)
    out.add(sub)
    jstat = sub.workload["status"]
    conds = []
    if w.state == "suspended":
        conds.append(cond("Suspended", "True", t, "Suspended", "TrainJob is suspended"))
    for cd in jstat.get("conditions", []):
        if cd["type"] == "Completed":
            conds.append(cond("Complete", "True", t + timedelta(hours=3), cd["reason"], cd["message"]))
        elif cd["type"] == "Failed":
            conds.append(cond("Failed", "True", t + timedelta(hours=1), cd["reason"], cd["message"]))
    tj["status"] = ({"conditions": conds} if conds else {}) | {"jobsStatus": jstat["replicatedJobsStatus"]}
    return out
