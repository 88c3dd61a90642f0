"""Kubernetes batch: Job and CronJob (the kube-controller-manager's controllers)."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from ..controllers import job_tree
from ..core import BASE_TIME, Built, Ctx, Obj, W, obj, ts, uid_of
from ..pods import IMG_TORCH, container, states_for, template
from ..registry import framework, sample_gpus


def _sample_job(rng: random.Random, target: int) -> dict[str, Any]:
    par = max(1, min(16, target // 2))
    return {
        "parallelism": par,
        "completions": par * rng.choice((1, 1, 2)),
        "gpus": rng.choice((0, 1, 1, 2, 8)),
        "indexed": par > 1 and rng.random() < 0.5,
    }


@framework(
    "job",
    weight=10,
    states={"running": 5, "completed": 4, "failed": 2, "pending": 2, "suspended": 1},
    names=("eval-mmlu", "data-prep", "checkpoint-convert", "tokenize-corpus", "embedding-backfill", "model-export"),
    sample=_sample_job,
)
def build_job(c: Ctx, w: W) -> Built:
    s, state = w.shape, w.state
    g = s["gpus"]
    ct = [
        container(
            "main",
            IMG_TORCH if g else "python:3.12-slim",
            gpus=g,
            cpu=str(max(1, 8 * g)),
            mem=f"{max(4, 64 * g)}Gi",
            command=["python", "/app/run.py"],
        )
    ]
    par, comp = s["parallelism"], s["completions"]
    n = 0 if state == "suspended" else min(par, comp)
    # a failed Job (backoffLimit 0) keeps its failed pod; the Job controller removed the other running pods
    pstates = (
        ["unschedulable"] * n
        if state == "pending"
        else ["failed"]
        if state == "failed"
        else []
        if state == "suspended"
        else states_for(n, state, c.rng)
    )
    return job_tree(
        c,
        w.name,
        w.namespace,
        w.created,
        None,
        containers=ct,
        outcome={"pending": "running"}.get(state, state),
        parallelism=par,
        completions=comp,
        indexed=s.get("indexed", False),
        suspend=state == "suspended",
        pod_states=pstates,
        backoff=0 if state == "failed" else 6,
        labels={"app": w.name},
        pod_labels={"app": w.name},
    )


@framework(
    "cronjob",
    weight=4,
    states={"running": 3, "completed": 4, "failed": 1, "suspended": 1},
    names=("nightly-eval", "feature-refresh", "model-drift-check", "dataset-snapshot"),
    sample=lambda rng, target: {"parallelism": rng.choice((1, 1, 2)), "gpus": sample_gpus(rng, (0, 0, 1, 2))},
)
def build_cronjob(c: Ctx, w: W) -> Built:
    """CronJob → Jobs <cj>-<scheduled minutes since epoch> → Pods.

    completed = idle after a good run, failed = last run failed."""
    s, ns, name, state = w.shape, w.namespace, w.name, w.state
    g = s["gpus"]
    ct = [
        container(
            "main",
            "ghcr.io/acme/ml-jobs:1.14.2",
            gpus=g,
            cpu=str(max(1, 8 * g)),
            mem=f"{max(4, 64 * g)}Gi",
            command=["python", "-m", "jobs." + name.rsplit("-", 1)[0].replace("-", "_")],
        )
    ]
    cj = obj(c, "batch/v1", "CronJob", name, ns, t=w.created - timedelta(days=5))
    cj["spec"] = {
        "schedule": "0 */6 * * *",
        "timeZone": "Etc/UTC",
        "concurrencyPolicy": "Forbid",
        "suspend": state == "suspended",
        "successfulJobsHistoryLimit": 3,
        "failedJobsHistoryLimit": 1,
        "startingDeadlineSeconds": 300,
        "jobTemplate": {
            "spec": {
                "parallelism": s["parallelism"],
                "completions": s["parallelism"],
                "backoffLimit": 1,
                "template": template({"app": name}, ct, "Never"),
            }
        },
    }
    out = Built(cj)
    last = BASE_TIME.replace(minute=0, second=0) - timedelta(hours=BASE_TIME.hour % 6)
    runs = [last - timedelta(hours=6 * k) for k in (3, 2, 1, 0)]
    outcomes = ["completed", "completed", "completed", {"suspended": "completed"}.get(state, state)]
    if state == "suspended":
        runs, outcomes = runs[:3], outcomes[:3]
    active = []
    last_success = None
    for when, oc in zip(runs, outcomes, strict=True):
        jname = f"{name}-{int(when.timestamp()) // 60}"
        b = job_tree(
            c,
            jname,
            ns,
            when,
            cj,
            containers=ct,
            outcome=oc,
            parallelism=s["parallelism"],
            labels={"app": name},
            annotations={"batch.kubernetes.io/cronjob-scheduled-timestamp": ts(when)},
            pod_labels={"app": name},
            backoff=1,
            pod_states=["failed"] * s["parallelism"] if oc == "failed" else None,
        )
        out.add(b)
        if oc == "running":
            active.append(
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": jname,
                    "namespace": ns,
                    "resourceVersion": b.workload["metadata"]["resourceVersion"],
                    "uid": uid_of(b.workload),
                }
            )
        if oc == "completed":
            last_success = b.workload["status"]["completionTime"]
    status: Obj = {}
    if active:
        status["active"] = active
    status["lastScheduleTime"] = ts(runs[-1])
    if last_success:
        status["lastSuccessfulTime"] = last_success
    cj["status"] = status
    return out
