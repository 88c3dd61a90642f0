"""The built-in controllers the frameworks' operators reuse: Job, Deployment -> ReplicaSet, StatefulSet."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import datetime, timedelta

from .core import Built, Ctx, Obj, cond, obj, ts, uid_of
from .pods import ACTIVE, count, pod, states_for


def job_labels(job: Obj) -> Obj:
    name, uid = job["metadata"]["name"], uid_of(job)
    return {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
    }


def job_tree(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    containers: list[Obj],
    outcome: str,
    parallelism: int = 1,
    completions: int | None = None,
    indexed: bool = False,
    suspend: bool = False,
    labels: Obj | None = None,
    annotations: Obj | None = None,
    pod_labels: Obj | None = None,
    pod_annotations: Obj | None = None,
    pod_states: list[str] | None = None,
    backoff: int = 0,
    hostname_fn: Callable[[int], str] | None = None,
    subdomain: str | None = None,
    scheduler: str = "default-scheduler",
) -> Built:
    """A batch/v1 Job and its pods. outcome: running / completed / failed / suspended (pod_states overrides)."""
    completions = parallelism if completions is None else completions
    job = obj(c, "batch/v1", "Job", name, ns, t=t, labels=labels, annotations=annotations, owner=owner)
    jl = job_labels(job)
    job["metadata"]["labels"] = (labels or {}) | {
        k: v for k, v in jl.items() if k.endswith("job-name") or k.endswith("controller-uid")
    }
    n = 0 if suspend else min(parallelism, completions)
    states = (
        pod_states if pod_states is not None else states_for(n, {"suspended": "running"}.get(outcome, outcome), c.rng)
    )
    tmpl_labels = (pod_labels or {}) | jl
    spec: Obj = {
        "parallelism": parallelism,
        "completions": completions,
        "backoffLimit": backoff,
        "completionMode": "Indexed" if indexed else "NonIndexed",
        "manualSelector": False,
        "podReplacementPolicy": "TerminatingOrFailed",
        "suspend": suspend,
        "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": uid_of(job)}},
        "template": {
            "metadata": {"labels": tmpl_labels} | ({"annotations": pod_annotations} if pod_annotations else {}),
            "spec": {"containers": containers, "restartPolicy": "Never"},
        },
    }
    job["spec"] = spec
    out = Built(job)
    t_pod = t + timedelta(seconds=1)
    for i, st in enumerate(states):
        pl = dict(tmpl_labels)
        pa = dict(pod_annotations or {})
        if indexed:
            pl["batch.kubernetes.io/job-completion-index"] = str(i)
            pa["batch.kubernetes.io/job-completion-index"] = str(i)
            pname = f"{name}-{i}-{c.rand()}"
        else:
            pname = f"{name}-{c.rand()}"
        out.pods.append(
            pod(
                c,
                pname,
                ns,
                t_pod,
                job,
                state=st,
                containers=containers,
                labels=pl,
                annotations=pa or None,
                hostname=hostname_fn(i) if hostname_fn else None,
                subdomain=subdomain,
                scheduler=scheduler,
                finalizers=["batch.kubernetes.io/job-tracking"] if st not in ("succeeded", "failed") else None,
                generate_name=pname.rsplit("-", 1)[0] + "-",
            )
        )
    status: Obj = {}
    t_done = t + timedelta(minutes=c.rng.randint(10, 900))
    if suspend:
        status["conditions"] = [cond("Suspended", "True", t, "JobSuspended", "Job suspended", probe=True)]
        job["status"] = status
        return out
    status["startTime"] = ts(t)
    active = count(states, *ACTIVE)
    if active:
        status["active"] = active
    status["ready"] = count(states, "running")
    status["terminating"] = 0
    if count(states, "succeeded"):
        status["succeeded"] = count(states, "succeeded")
    if count(states, "failed"):
        status["failed"] = count(states, "failed")
    if outcome == "completed":
        status["conditions"] = [
            cond(
                "SuccessCriteriaMet",
                "True",
                t_done,
                "CompletionsReached",
                "Reached expected number of succeeded pods",
                probe=True,
            ),
            cond(
                "Complete",
                "True",
                t_done,
                "CompletionsReached",
                "Reached expected number of succeeded pods",
                probe=True,
            ),
        ]
        status["completionTime"] = ts(t_done)
        if indexed:
            status["completedIndexes"] = f"0-{completions - 1}" if completions > 1 else "0"
    elif outcome == "failed":
        status["conditions"] = [
            cond(
                "FailureTarget",
                "True",
                t_done,
                "BackoffLimitExceeded",
                "Job has reached the specified backoff limit",
                probe=True,
            ),
            cond(
                "Failed",
                "True",
                t_done,
                "BackoffLimitExceeded",
                "Job has reached the specified backoff limit",
                probe=True,
            ),
        ]
        if indexed and count(states, "succeeded"):
            status["completedIndexes"] = ",".join(str(i) for i, s in enumerate(states) if s == "succeeded")
    status["uncountedTerminatedPods"] = {}
    job["status"] = status
    return out


def deploy_tree(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    replicas: int,
    pod_labels: Obj,
    containers: list[Obj],
    states: list[str],
    labels: Obj | None = None,
    annotations: Obj | None = None,
    selector: Obj | None = None,
    pod_annotations: Obj | None = None,
    scheduler: str = "default-scheduler",
    service_account: str = "default",
    progress_deadline: bool = False,
) -> Built:
    """Deployment → ReplicaSet <deploy>-<hash> → Pods <rs>-<5>, status computed from the pod states."""
    d = obj(c, "apps/v1", "Deployment", name, ns, t=t, labels=labels, annotations=annotations, owner=owner)
    selector = selector or pod_labels
    tmpl = {
        "metadata": {"labels": pod_labels} | ({"annotations": pod_annotations} if pod_annotations else {}),
        "spec": {
            "containers": containers,
            "restartPolicy": "Always",
            "schedulerName": scheduler,
            "serviceAccountName": service_account,
        },
    }
    d["spec"] = {
        "replicas": replicas,
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
        "selector": {"matchLabels": selector},
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
        "template": tmpl,
    }
    pth = c.rand(10)
    rs_name = f"{name}-{pth}"
    rs = obj(
        c,
        "apps/v1",
        "ReplicaSet",
        rs_name,
        ns,
        t=t,
        labels=pod_labels | {"pod-template-hash": pth},
        annotations={
            "deployment.kubernetes.io/desired-replicas": str(replicas),
            "deployment.kubernetes.io/max-replicas": str(replicas + max(1, -(-replicas // 4))),
            "deployment.kubernetes.io/revision": "1",
        },
        owner=d,
    )
    rs["spec"] = {
        "replicas": replicas,
        "selector": {"matchLabels": selector | {"pod-template-hash": pth}},
        "template": {
            "metadata": {"labels": pod_labels | {"pod-template-hash": pth}}
            | ({"annotations": pod_annotations} if pod_annotations else {}),
            "spec": tmpl["spec"],
        },
    }
    ready = count(states, "running")
    rs["status"] = {
        "replicas": len(states),
        "fullyLabeledReplicas": len(states),
        "readyReplicas": ready,
        "availableReplicas": ready,
        "observedGeneration": 1,
    }
    if not ready:
        del rs["status"]["readyReplicas"], rs["status"]["availableReplicas"]
    out = Built(d, [rs])
    for st in states:
        pname = f"{rs_name}-{c.rand()}"
        out.pods.append(
            pod(
                c,
                pname,
                ns,
                t + timedelta(seconds=1),
                rs,
                state=st,
                containers=containers,
                restart="Always",
                labels=pod_labels | {"pod-template-hash": pth},
                annotations=pod_annotations,
                scheduler=scheduler,
                service_account=service_account,
                generate_name=f"{rs_name}-",
            )
        )
    t_ready = t + timedelta(minutes=c.rng.randint(2, 20))
    min_avail = replicas - (replicas // 4)
    available = (ready >= min_avail and replicas > 0) or replicas == 0
    status: Obj = {"observedGeneration": 1, "replicas": len(states), "updatedReplicas": len(states)}
    if ready:
        status["readyReplicas"] = ready
        status["availableReplicas"] = ready
    if len(states) - ready:
        status["unavailableReplicas"] = len(states) - ready
    conds = [
        cond(
            "Available",
            "True" if available else "False",
            t_ready if available else t,
            "MinimumReplicasAvailable" if available else "MinimumReplicasUnavailable",
            "Deployment has minimum availability." if available else "Deployment does not have minimum availability.",
            update=True,
        )
    ]
    if progress_deadline:
        conds.append(
            cond(
                "Progressing",
                "False",
                t + timedelta(minutes=10),
                "ProgressDeadlineExceeded",
                f'ReplicaSet "{rs_name}" has timed out progressing.',
                update=True,
            )
        )
    elif ready == replicas:
        conds.append(
            cond(
                "Progressing",
                "True",
                t_ready,
                "NewReplicaSetAvailable",
                f'ReplicaSet "{rs_name}" has successfully progressed.',
                update=True,
            )
        )
    else:
        conds.append(
            cond("Progressing", "True", t, "ReplicaSetUpdated", f'ReplicaSet "{rs_name}" is progressing.', update=True)
        )
    status["conditions"] = conds
    d["status"] = status
    return out


def sts_tree(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    replicas: int,
    pod_labels: Obj,
    containers: list[Obj],
    states: list[str],
    labels: Obj | None = None,
    annotations: Obj | None = None,
    selector: Obj | None = None,
    pod_annotations_fn: Callable[[int], Obj] | None = None,
    pod_labels_fn: Callable[[int], Obj] | None = None,
    service_name: str | None = None,
    start: int = 0,
    scheduler: str = "default-scheduler",
    subdomain: str | None = None,
) -> Built:
    """StatefulSet → Pods <sts>-<ordinal> (+ its ControllerRevision)."""
    s = obj(c, "apps/v1", "StatefulSet", name, ns, t=t, labels=labels, annotations=annotations, owner=owner)
    selector = selector or pod_labels
    rev = f"{name}-{c.rand(10)}"
    s["spec"] = {
        "replicas": replicas,
        "podManagementPolicy": "Parallel",
        "revisionHistoryLimit": 10,
        "selector": {"matchLabels": selector},
        "serviceName": service_name or name,
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
        "template": {"metadata": {"labels": pod_labels}, "spec": {"containers": containers, "restartPolicy": "Always"}},
    }
    if start:
        s["spec"]["ordinals"] = {"start": start}
    cr = obj(
        c,
        "apps/v1",
        "ControllerRevision",
        rev,
        ns,
        t=t,
        labels=selector | {"controller-revision-hash": rev},
        owner=s,
        generation=None,
    )
    # what the StatefulSet controller stores: a strategic-merge patch that replaces the pod template
    cr["data"] = {"spec": {"template": {"$patch": "replace"} | copy.deepcopy(s["spec"]["template"])}}
    cr["revision"] = 1
    out = Built(s, [cr])
    for i, st in enumerate(states):
        ordinal = start + i
        pname = f"{name}-{ordinal}"
        pl = (
            pod_labels
            | (pod_labels_fn(ordinal) if pod_labels_fn else {})
            | {
                "apps.kubernetes.io/pod-index": str(ordinal),
                "controller-revision-hash": rev,
                "statefulset.kubernetes.io/pod-name": pname,
            }
        )
        out.pods.append(
            pod(
                c,
                pname,
                ns,
                t + timedelta(seconds=1 + i),
                s,
                state=st,
                containers=containers,
                restart="Always",
                labels=pl,
                annotations=pod_annotations_fn(ordinal) if pod_annotations_fn else None,
                hostname=pname,
                subdomain=subdomain or service_name or name,
                scheduler=scheduler,
                generate_name=f"{name}-",
            )
        )
    ready = count(states, "running")
    s["status"] = {
        "observedGeneration": 1,
        "replicas": len(states),
        "readyReplicas": ready,
        "currentReplicas": len(states),
        "updatedReplicas": len(states),
        "availableReplicas": ready,
        "currentRevision": rev,
        "updateRevision": rev,
        "collisionCount": 0,
    }
    return out
