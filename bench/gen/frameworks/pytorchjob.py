"""Kubeflow PyTorchJob (kubeflow.org, training-operator): master and worker pods with their Services."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from ..core import BASE_TIME, Built, Ctx, Obj, W, cond, obj, ts
from ..pods import ACTIVE, IMG_TORCH, container, pod, states_for, svc, template
from ..registry import framework, sample_gpus


def sample_workers(rng: random.Random, target: int) -> dict[str, Any]:
    return {"workers": max(0, min(63, target - 1)), "gpus": sample_gpus(rng)}


@framework(
    "pytorchjob",
    weight=10,
    states={"running": 6, "completed": 3, "failed": 1, "pending": 2, "suspended": 1, "degraded": 1, "initializing": 1},
    names=("resnet50-ddp", "bert-finetune", "gpt2-train", "llama2-13b-ft", "mnist-nccl", "stable-diffusion-xl"),
    sample=sample_workers,
)
def build_pytorchjob(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    g = s["gpus"]
    job = obj(c, "kubeflow.org/v1", "PyTorchJob", name, ns, t=t)

    def mk() -> list[Obj]:
        return [
            container(
                "pytorch",
                s.get("image", IMG_TORCH),
                gpus=g,
                cpu=str(max(2, 10 * g)),
                mem=f"{max(8, 96 * g)}Gi",
                command=["torchrun", "--nproc-per-node", str(g), "/workspace/train.py"],
                ports=[23456],
            )
        ]

    specs = {"Master": {"replicas": 1, "restartPolicy": "OnFailure", "template": template(None, mk())}}
    if s["workers"]:
        specs["Worker"] = {"replicas": s["workers"], "restartPolicy": "OnFailure", "template": template(None, mk())}
    job["spec"] = {
        "pytorchReplicaSpecs": specs,
        "nprocPerNode": str(g),
        "runPolicy": {"cleanPodPolicy": "None", "suspend": state == "suspended", "backoffLimit": 3},
    }
    out = Built(job)
    roles = [("Master", 1)] + ([("Worker", s["workers"])] if s["workers"] else [])
    n = sum(r for _, r in roles)
    all_states = (
        []
        if state == "suspended"
        else ["failed"] * n
        if state == "failed"
        else ["unschedulable"] * n
        if state == "pending"
        else states_for(n, state, c.rng)
    )
    rstat: Obj = {}
    k = 0
    for rtype, reps in roles:
        lower = rtype.lower()
        counts = {"active": 0, "succeeded": 0, "failed": 0}
        for i in range(reps if state != "suspended" else 0):
            st = all_states[k]
            k += 1
            pname = f"{name}-{lower}-{i}"
            lab = {
                "training.kubeflow.org/job-name": name,
                "training.kubeflow.org/operator-name": "pytorchjob-controller",
                "training.kubeflow.org/replica-index": str(i),
                "training.kubeflow.org/replica-type": lower,
            }
            if rtype == "Master":
                lab["training.kubeflow.org/job-role"] = "master"
            cts = mk()
            cts[0]["env"] = [
                {"name": a, "value": b}
                for a, b in {
                    "MASTER_PORT": "23456",
                    "MASTER_ADDR": f"{name}-master-0",
                    "WORLD_SIZE": str(n),
                    "RANK": str(k - 1),
                    "PYTHONUNBUFFERED": "1",
                }.items()
            ]
            out.pods.append(
                pod(
                    c,
                    pname,
                    ns,
                    t + timedelta(seconds=1),
                    job,
                    state=st,
                    containers=cts,
                    labels=lab,
                    restart="OnFailure",
                )
            )
            out.children.append(
                svc(c, pname, ns, t + timedelta(seconds=1), job, selector=lab, headless=True, port=23456, labels=lab)
            )
            counts["active" if st in ACTIVE else "succeeded" if st == "succeeded" else "failed"] += 1
        sel = (
            f"training.kubeflow.org/job-name={name},training.kubeflow.org/operator-name=pytorchjob-controller,"
            f"training.kubeflow.org/replica-type={lower}"
        )
        rstat[rtype] = {key: v for key, v in counts.items() if v} | {"selector": sel}
    t_run, t_end = t + timedelta(minutes=2), t + timedelta(hours=c.rng.randint(1, 20))
    conds = [cond("Created", "True", t, "PyTorchJobCreated", f"PyTorchJob {name} is created.", update=True)]
    if state == "suspended":
        conds += [
            cond("Running", "False", t, "PyTorchJobSuspended", f"PyTorchJob {name} is suspended.", update=True),
            cond("Suspended", "True", t, "PyTorchJobSuspended", f"PyTorchJob {name} is suspended.", update=True),
        ]
    elif state == "running":
        conds.append(cond("Running", "True", t_run, "PyTorchJobRunning", f"PyTorchJob {name} is running.", update=True))
    elif state == "degraded":
        conds += [
            cond("Running", "False", t_end, "PyTorchJobRunning", f"PyTorchJob {name} is running.", update=True),
            cond(
                "Restarting",
                "True",
                t_end,
                "PyTorchJobRestarting",
                f"PyTorchJob {name} is restarting because 1 Worker replica(s) failed.",
                update=True,
            ),
        ]
    elif state == "completed":
        conds += [
            cond("Running", "False", t_end, "PyTorchJobRunning", f"PyTorchJob {name} is running.", update=True),
            cond(
                "Succeeded",
                "True",
                t_end,
                "PyTorchJobSucceeded",
                f"PyTorchJob {name} is successfully completed.",
                update=True,
            ),
        ]
    elif state == "failed":
        conds += [
            cond("Running", "False", t_end, "PyTorchJobRunning", f"PyTorchJob {name} is running.", update=True),
            cond(
                "Failed",
                "True",
                t_end,
                "PyTorchJobFailed",
                f"PyTorchJob {name} is failed because 1 Master replica(s) failed.",
                update=True,
            ),
        ]
    status: Obj = {"conditions": conds, "replicaStatuses": rstat}
    if state != "suspended":
        status["startTime"] = ts(t)
        status["lastReconcileTime"] = ts(
            t_end if state in ("completed", "failed") else BASE_TIME - timedelta(minutes=1)
        )
    if state in ("completed", "failed"):
        status["completionTime"] = ts(t_end)
    job["status"] = status
    return out
