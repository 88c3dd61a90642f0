"""JobSet (jobset.x-k8s.io): Jobs per replicatedJob, headless Service, JobSet conditions."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from ..controllers import job_tree
from ..core import Built, Ctx, Obj, W, cond, hash_hex, obj, uid_of
from ..pods import container, svc, template
from ..registry import framework, sample_gpus

IMG_JAX = "ghcr.io/nvidia/jax:maxtext-2025-05-01"


def jobset_tree(
    c: Ctx,
    w: W,
    name: str,
    owner: Obj | None,
    rjobs: list[dict[str, Any]],
    *,
    state: str,
    pod_labels: Obj | None = None,
    labels: Obj | None = None,
) -> Built:
    """JobSet → Jobs <js>-<rjob>-<i> → Pods <job>-<podIdx>-<5>.

    state: running / pending / degraded / completed / failed / suspended."""
    ns, t = w.namespace, w.created
    js = obj(c, "jobset.x-k8s.io/v1alpha2", "JobSet", name, ns, t=t, labels=labels, owner=owner)
    suspended = state == "suspended"
    js["spec"] = {
        "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True, "subdomain": name},
        "successPolicy": {"operator": "All", "targetReplicatedJobs": [rjobs[-1]["name"]]},
        "failurePolicy": {"maxRestarts": 3, "restartStrategy": "Recreate"},
        "startupPolicy": {"startupPolicyOrder": "AnyOrder"},
        "suspend": suspended,
        "replicatedJobs": [
            {
                "name": rj["name"],
                "replicas": rj["replicas"],
                "template": {
                    "spec": {
                        "parallelism": rj["parallelism"],
                        "completions": rj["parallelism"],
                        "backoffLimit": 0,
                        "completionMode": "Indexed",
                        "template": template(pod_labels, rj["containers"], "Never"),
                    }
                },
            }
            for rj in rjobs
        ],
    }
    out = Built(js)
    total_jobs = sum(rj["replicas"] for rj in rjobs)
    restarts = 1 if state == "degraded" else 0
    gidx = 0
    rj_status = []
    t_job = t + timedelta(seconds=2)
    for rj in rjobs:
        st = {"name": rj["name"], "ready": 0, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0}
        for i in range(rj["replicas"]):
            jname = f"{name}-{rj['name']}-{i}"
            lab = {
                "jobset.sigs.k8s.io/jobset-name": name,
                "jobset.sigs.k8s.io/jobset-uid": uid_of(js),
                "jobset.sigs.k8s.io/replicatedjob-name": rj["name"],
                "jobset.sigs.k8s.io/replicatedjob-replicas": str(rj["replicas"]),
                "jobset.sigs.k8s.io/global-replicas": str(total_jobs),
                "jobset.sigs.k8s.io/job-index": str(i),
                "jobset.sigs.k8s.io/job-global-index": str(gidx),
                "jobset.sigs.k8s.io/job-key": hash_hex(f"{ns}/{jname}"),
                "jobset.sigs.k8s.io/restart-attempt": str(restarts),
                "jobset.sigs.k8s.io/group-name": "default",
                "jobset.sigs.k8s.io/group-replicas": str(total_jobs),
                "jobset.sigs.k8s.io/job-group-index": str(gidx),
            }
            gidx += 1
            par = rj["parallelism"]
            if state == "failed":
                if gidx > 1:  # on failure the JobSet deletes its still-active Jobs
                    continue
                pstates, outcome = ["failed"], "failed"
                st["failed"] += 1
            elif suspended:
                pstates, outcome = [], "suspended"
                st["suspended"] += 1
            elif state == "completed":
                pstates, outcome = ["succeeded"] * par, "completed"
                st["succeeded"] += 1
            else:
                pstates = ["running"] * par
                if state == "pending" and gidx == total_jobs:
                    pstates = ["unschedulable"] * par
                if state == "degraded" and gidx == 1:
                    pstates = ["creating"] * par
                outcome = "running"
                st["active"] += 1
                st["ready"] += all(s == "running" for s in pstates)
            sub = job_tree(
                c,
                jname,
                ns,
                t_job,
                js,
                containers=rj["containers"],
                outcome=outcome,
                parallelism=par,
                indexed=True,
                suspend=suspended,
                labels=lab,
                annotations=dict(lab),
                pod_labels=(pod_labels or {}) | lab,
                pod_annotations=dict(lab),
                pod_states=pstates,
                hostname_fn=lambda k, jn=jname: f"{jn}-{k}",
                subdomain=name,
            )
            out.add(sub)
        rj_status.append(st)
    out.children.append(svc(c, name, ns, t_job, js, selector={"jobset.sigs.k8s.io/jobset-name": name}, headless=True))
    status: Obj = {}
    t_end = t + timedelta(hours=c.rng.randint(1, 30))
    if suspended:
        status["conditions"] = [cond("Suspended", "True", t, "SuspendedJobs", "jobset is suspended")]
    elif state == "completed":
        status["conditions"] = [cond("Completed", "True", t_end, "AllJobsCompleted", "jobset completed successfully")]
        status["terminalState"] = "Completed"
    elif state == "failed":
        status["conditions"] = [
            cond(
                "Failed",
                "True",
                t_end,
                "FailedJobs",
                f"jobset failed due to one or more job failures (first failed job: {name}-{rjobs[0]['name']}-0)",
            )
        ]
        status["terminalState"] = "Failed"
    if restarts:
        status["restarts"] = restarts
        status["restartsCountTowardsMax"] = restarts
    status["replicatedJobsStatus"] = rj_status
    js["status"] = status
    return out


def _sample_jobset(rng: random.Random, target: int) -> dict[str, Any]:
    gpus = sample_gpus(rng)
    if rng.random() < 0.3:  # driver + workers
        par = rng.choice((1, 2, 4))
        reps = max(1, min(16, (target - 1) // par))
        return {
            "jobs": [
                {"name": "driver", "replicas": 1, "parallelism": 1, "gpus": 0},
                {"name": "workers", "replicas": reps, "parallelism": par, "gpus": gpus},
            ]
        }
    par = rng.choice((1, 2, 4, 8))
    reps = max(1, min(16, target // par))
    return {
        "jobs": [
            {"name": rng.choice(("workers", "slice", "trainer")), "replicas": reps, "parallelism": par, "gpus": gpus}
        ]
    }


@framework(
    "jobset",
    weight=12,
    states={"running": 6, "completed": 3, "failed": 1, "pending": 2, "suspended": 1, "degraded": 1},
    names=("llama3-8b-pretrain", "resnet-train", "gemma-finetune", "maxtext-70b", "bert-mlm", "vit-huge"),
    sample=_sample_jobset,
)
def build_jobset(c: Ctx, w: W) -> Built:
    rjobs = []
    for rj in w.shape["jobs"]:
        g = rj["gpus"]
        cmd = ["python3", "-m", "MaxText.train", "/configs/base.yml"] if g else ["python3", "/app/coordinator.py"]
        rjobs.append(
            rj
            | {
                "containers": [
                    container(
                        "trainer" if g else "driver",
                        w.shape.get("image", IMG_JAX),
                        gpus=g,
                        cpu=str(max(2, 12 * g)),
                        mem=f"{max(8, 128 * g)}Gi",
                        command=cmd,
                    )
                ]
            }
        )
    return jobset_tree(c, w, w.name, None, rjobs, state=w.state)
