"""Volcano Job (batch.volcano.sh): task pods and the PodGroup the Volcano controller creates."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from ..core import GPU, Built, Ctx, Obj, W, cond, obj, ts, uid_of
from ..pods import container, count, pod, states_for, svc, template
from ..registry import framework, sample_gpus


def _sample_volcano(rng: random.Random, target: int) -> dict[str, Any]:
    lead, work = rng.choice((("ps", "worker"), ("mpimaster", "mpiworker")))
    return {
        "tasks": [
            {"name": lead, "replicas": 1, "gpus": 0},
            {"name": work, "replicas": max(1, min(32, target - 1)), "gpus": sample_gpus(rng)},
        ]
    }


@framework(
    "volcano-job",
    weight=4,
    states={"running": 5, "completed": 3, "failed": 1, "pending": 2},
    names=("tf-dist-mnist", "lm-mpi-train", "rec-sys-train"),
    sample=_sample_volcano,
)
def build_volcano(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    queue = "training"
    job = obj(c, "batch.volcano.sh/v1alpha1", "Job", name, ns, t=t)
    tasks = []
    for tk in s["tasks"]:
        g = tk["gpus"]
        tasks.append(
            tk
            | {
                "containers": [
                    container(
                        tk["name"],
                        "volcanosh/example-tf:2.15-gpu" if g else "volcanosh/example-tf:2.15",
                        gpus=g,
                        cpu=str(max(2, 8 * g)),
                        mem=f"{max(8, 64 * g)}Gi",
                        command=["python", "/var/tf_dist_mnist/dist_mnist.py"],
                    )
                ]
            }
        )
    total = sum(tk["replicas"] for tk in tasks)
    job["spec"] = {
        "minAvailable": total,
        "schedulerName": "volcano",
        "queue": queue,
        "maxRetry": 3,
        "plugins": {"env": [], "svc": []},
        "policies": [{"event": "PodEvicted", "action": "RestartJob"}],
        "tasks": [
            {
                "name": tk["name"],
                "replicas": tk["replicas"],
                "template": template(None, tk["containers"], "Never"),
                **({"policies": [{"event": "TaskCompleted", "action": "CompleteJob"}]} if tk is tasks[-1] else {}),
            }
            for tk in tasks
        ],
    }
    pg_name = f"{name}-{uid_of(job)}"
    pg = obj(c, "scheduling.volcano.sh/v1beta1", "PodGroup", pg_name, ns, t=t, owner=job)
    gsum = sum(tk["gpus"] * tk["replicas"] for tk in tasks)
    pg["spec"] = {
        "minMember": total,
        "minTaskMember": {tk["name"]: tk["replicas"] for tk in tasks},
        "queue": queue,
        "minResources": {"count/pods": str(total), GPU: str(gsum), f"requests.{GPU}": str(gsum)},
    }
    out = Built(job, [pg])
    out.children.append(
        svc(c, name, ns, t, job, selector={"volcano.sh/job-name": name, "volcano.sh/job-namespace": ns}, headless=True)
    )
    cm = obj(c, "v1", "ConfigMap", f"{name}-svc", ns, t=t, owner=job, generation=None)
    cm["data"] = {f"{tk['name'].upper()}_NUM": str(tk["replicas"]) for tk in tasks} | {
        f"{tk['name']}.host": "\n".join(f"{name}-{tk['name']}-{i}.{name}" for i in range(tk["replicas"]))
        for tk in tasks
    }
    out.children.append(cm)
    pstates = ["unschedulable"] * total if state == "pending" else states_for(total, state, c.rng)
    k = 0
    tsc: Obj = {}
    for tk in tasks:
        phases: dict[str, int] = {}
        for i in range(tk["replicas"]):
            st = pstates[k]
            k += 1
            pname = f"{name}-{tk['name']}-{i}"
            lab = {
                "volcano.sh/job-name": name,
                "volcano.sh/job-namespace": ns,
                "volcano.sh/queue-name": queue,
                "volcano.sh/task-index": str(i),
                "volcano.sh/task-spec": tk["name"],
            }
            ann = {
                "scheduling.k8s.io/group-name": pg_name,
                "volcano.sh/job-name": name,
                "volcano.sh/job-version": "0",
                "volcano.sh/queue-name": queue,
                "volcano.sh/task-index": str(i),
                "volcano.sh/task-spec": tk["name"],
                "volcano.sh/template-uid": f"{name}-{tk['name']}",
                "volcano.sh/job-retry-count": "0",
            }
            out.pods.append(
                pod(
                    c,
                    pname,
                    ns,
                    t + timedelta(seconds=2),
                    job,
                    state=st,
                    containers=tk["containers"],
                    labels=lab,
                    annotations=ann,
                    hostname=pname,
                    subdomain=name,
                    scheduler="volcano",
                )
            )
            ph = {"unschedulable": "Pending", "creating": "Pending", "succeeded": "Succeeded", "failed": "Failed"}.get(
                st, "Running"
            )
            phases[ph] = phases.get(ph, 0) + 1
        tsc[tk["name"]] = {"phase": phases}
    t_run, t_end = t + timedelta(seconds=9), t + timedelta(minutes=c.rng.randint(20, 900))
    phase = {"running": "Running", "completed": "Completed", "failed": "Failed", "pending": "Pending"}[state]
    hist = [{"status": "Pending", "lastTransitionTime": ts(t)}]
    if state != "pending":
        hist.append({"status": "Running", "lastTransitionTime": ts(t_run)})
    if state in ("completed", "failed"):
        hist.append({"status": phase, "lastTransitionTime": ts(t_end)})
    st_: Obj = {"state": {"phase": phase, "lastTransitionTime": hist[-1]["lastTransitionTime"]}}
    if state == "failed":
        st_["state"] |= {"reason": "PodFailed", "message": f"pod {name}-{tasks[0]['name']}-0 failed"}
    st_ |= {
        "minAvailable": total,
        "pending": count(pstates, "unschedulable", "creating"),
        "running": count(pstates, "running", "starting", "crashloop"),
        "succeeded": count(pstates, "succeeded"),
        "failed": count(pstates, "failed"),
        "terminating": 0,
        "unknown": 0,
        "version": 0,
        "retryCount": 0,
        "taskStatusCount": tsc,
        "conditions": hist,
    }
    if state in ("completed", "failed"):
        st_["runningDuration"] = f"{(t_end - t_run).total_seconds():g}s"
    job["status"] = st_
    if state == "pending":
        pg_cond = cond(
            "Unschedulable",
            "True",
            t + timedelta(seconds=5),
            "NotEnoughResources",
            f"{total}/{total} tasks in gang unschedulable: pod group is not ready, {total} Pending, "
            f"{total} minAvailable; Pending: {total} Unschedulable",
        )
    else:
        pg_cond = cond("Scheduled", "True", t_run, "tasks in gang are ready to be scheduled")
    pg_cond["transitionID"] = c.uid()
    pg["status"] = {
        "phase": {"pending": "Inqueue", "completed": "Completed"}.get(state, "Running"),
        "running": count(pstates, "running", "starting", "crashloop"),
        "succeeded": count(pstates, "succeeded"),
        "failed": count(pstates, "failed"),
        "conditions": [pg_cond],
    }
    return out
