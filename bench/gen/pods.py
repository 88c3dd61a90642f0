"""Containers and pods as the API server returns them, in the states the builders ask for, and the Services
and pod templates around them.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from .core import GPU, Ctx, Obj, cond, hash_hex, obj, ts

ACTIVE = {"running", "starting", "creating", "crashloop", "unschedulable"}
# The PyTorch image of the training frameworks' examples (PyTorchJob, TrainJob, Job).
IMG_TORCH = "nvcr.io/nvidia/pytorch:25.01-py3"


def container(
    name: str,
    image: str,
    *,
    gpus: int = 0,
    cpu: str = "4",
    mem: str = "16Gi",
    command: list[str] | None = None,
    args: list[str] | None = None,
    ports: list[int] | None = None,
    env: dict[str, str] | None = None,
) -> Obj:
    out: Obj = {"name": name, "image": image}
    if command:
        out["command"] = command
    if args:
        out["args"] = args
    if env:
        out["env"] = [{"name": k, "value": v} for k, v in env.items()]
    if ports:
        out["ports"] = [{"containerPort": p, "protocol": "TCP"} for p in ports]
    limits: Obj = {"cpu": cpu, "memory": mem}
    requests: Obj = {"cpu": cpu, "memory": mem}
    if gpus:
        limits[GPU] = str(gpus)
        requests[GPU] = str(gpus)
    out["resources"] = {"limits": limits, "requests": requests}
    return out


_QOS_RESOURCES = ("cpu", "memory")


def _quantity(v: Any) -> float:
    """A resource quantity as a number (enough to compare requests with limits: 500m, 4, 16Gi, 1e3)."""
    text = str(v)
    suffixes = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
    binary = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
    for suffix, factor in binary.items():
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * factor
    if text and text[-1] in suffixes:
        return float(text[:-1]) * suffixes[text[-1]]
    return float(text)


def qos_class(spec: Obj) -> str:
    """status.qosClass as the API server computes it from the pod's (init) containers: Guaranteed when every
    container has cpu and memory limits and requests equal to them (requests default to limits), BestEffort when
    none has any cpu/memory request or limit, Burstable otherwise."""
    any_set, guaranteed = False, True
    for ct in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        res = ct.get("resources") or {}
        limits = {k: _quantity(v) for k, v in (res.get("limits") or {}).items() if k in _QOS_RESOURCES}
        requests = {k: _quantity(v) for k, v in (res.get("requests") or {}).items() if k in _QOS_RESOURCES}
        requests = limits | requests
        if limits or requests:
            any_set = True
        if set(limits) != set(_QOS_RESOURCES) or requests != limits:
            guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def pod_gpus(containers: list[Obj]) -> int:
    return sum(int(ct.get("resources", {}).get("limits", {}).get(GPU, 0)) for ct in containers)


def gpu_tolerations(gpus: int) -> list[Obj]:
    base = [
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {
            "key": "node.kubernetes.io/unreachable",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        },
    ]
    if gpus:
        base.insert(0, {"key": GPU, "operator": "Exists", "effect": "NoSchedule"})
    return base


def pod(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj,
    *,
    state: str,
    containers: list[Obj],
    labels: Obj | None = None,
    annotations: Obj | None = None,
    restart: str = "Never",
    hostname: str | None = None,
    subdomain: str | None = None,
    scheduler: str = "default-scheduler",
    service_account: str = "default",
    finalizers: list[str] | None = None,
    generate_name: str | None = None,
) -> Obj:
    """A Pod as the API server returns it, in one of the states running / starting (up, not ready) / creating /
    crashloop / unschedulable / succeeded / failed."""
    p = obj(c, "v1", "Pod", name, ns, t=t, labels=labels, annotations=annotations, owner=owner, generation=None)
    md = p["metadata"]
    if generate_name:
        md = {"generateName": generate_name, **md}
        p["metadata"] = md
    if finalizers:
        md["finalizers"] = finalizers
    gpus = pod_gpus(containers)
    spec: Obj = {"containers": containers}
    if hostname:
        spec["hostname"] = hostname
    if subdomain:
        spec["subdomain"] = subdomain
    spec |= {
        "restartPolicy": restart,
        "schedulerName": scheduler,
        "serviceAccountName": service_account,
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "priority": 0,
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
        "tolerations": gpu_tolerations(gpus),
    }
    p["spec"] = spec
    t_sched = t + timedelta(seconds=1)
    if state == "unschedulable":
        condition = cond("PodScheduled", "False", t_sched, "Unschedulable", "", probe=True)
        condition["lastProbeTime"] = None
        condition["sample_gpus"] = gpus
        c.unschedulable.append(condition)
        p["status"] = {"phase": "Pending", "conditions": [condition], "qosClass": qos_class(spec)}
        return p
    node, host_ip = c.nodes.place(gpus, state in ACTIVE)
    spec["nodeName"] = node
    t_start = t_sched + timedelta(seconds=2)
    t_run = t_start + timedelta(seconds=c.rng.randint(20, 240) if gpus else c.rng.randint(3, 30))
    terminal = state in ("succeeded", "failed")
    t_end = t_run + timedelta(minutes=c.rng.randint(5, 600))
    ready = state == "running"
    initialized = state != "creating"
    conditions = [
        cond(
            "PodReadyToStartContainers",
            "False" if state == "creating" or terminal else "True",
            t_run if not terminal else t_end,
            probe=True,
        ),
        cond("Initialized", "True" if initialized else "False", t_start, probe=True),
        cond(
            "Ready",
            "True" if ready else "False",
            t_run if ready else (t_end if terminal else t_start),
            None
            if ready
            else (
                "PodCompleted" if state == "succeeded" else "PodFailed" if state == "failed" else "ContainersNotReady"
            ),
            None if ready or terminal else f"containers with unready status: [{containers[0]['name']}]",
            probe=True,
        ),
        cond(
            "ContainersReady",
            "True" if ready else "False",
            t_run if ready else (t_end if terminal else t_start),
            None
            if ready
            else (
                "PodCompleted" if state == "succeeded" else "PodFailed" if state == "failed" else "ContainersNotReady"
            ),
            None if ready or terminal else f"containers with unready status: [{containers[0]['name']}]",
            probe=True,
        ),
        cond("PodScheduled", "True", t_sched, probe=True),
    ]
    for cd in conditions:
        cd["lastProbeTime"] = None
    statuses = []
    for i, ct in enumerate(containers):
        image = ct["image"]
        st: Obj = {"name": ct["name"], "image": image}
        if state != "creating":
            st["imageID"] = f"{image.split(':')[0]}@sha256:{hash_hex(image)}{hash_hex(image)[:24]}"
            st["containerID"] = f"containerd://{hash_hex(name + ct['name'])}{hash_hex(ct['name'] + name)[:24]}"
        st["ready"] = ready
        st["restartCount"] = 0
        st["started"] = state in ("running", "starting", "crashloop") and not (state == "crashloop" and i == 0)
        if state in ("running", "starting"):
            st["state"] = {"running": {"startedAt": ts(t_run)}}
        elif state == "creating":
            st["state"] = {"waiting": {"reason": "ContainerCreating"}}
            st["started"] = False
        elif state == "crashloop" and i == 0:
            st["restartCount"] = c.rng.randint(3, 40)
            st["lastState"] = {
                "terminated": {
                    "exitCode": 1,
                    "reason": "Error",
                    "startedAt": ts(t_run),
                    "finishedAt": ts(t_run + timedelta(seconds=95)),
                    "containerID": st["containerID"],
                }
            }
            st["state"] = {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off 5m0s restarting failed container={ct['name']} pod={name}_{ns}({md['uid']})",
                }
            }
        elif state == "crashloop":
            st["state"] = {"running": {"startedAt": ts(t_run)}}
        elif state == "succeeded":
            st["state"] = {
                "terminated": {
                    "exitCode": 0,
                    "reason": "Completed",
                    "startedAt": ts(t_run),
                    "finishedAt": ts(t_end),
                    "containerID": st["containerID"],
                }
            }
        else:  # failed
            st["state"] = {
                "terminated": {
                    "exitCode": 1,
                    "reason": "Error",
                    "startedAt": ts(t_run),
                    "finishedAt": ts(t_end),
                    "containerID": st["containerID"],
                }
            }
        statuses.append(st)
    phase = {
        "running": "Running",
        "starting": "Running",
        "crashloop": "Running",
        "creating": "Pending",
        "succeeded": "Succeeded",
        "failed": "Failed",
    }[state]
    ip = c.pod_ip()
    p["status"] = {
        "phase": phase,
        "conditions": conditions,
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}],
        "podIP": ip,
        "podIPs": [{"ip": ip}],
        "startTime": ts(t_start),
        "containerStatuses": statuses,
        "qosClass": qos_class(spec),
    }
    if state == "creating":
        del p["status"]["podIP"], p["status"]["podIPs"]
    return p


def unschedulable_message(total: int, gpus: int, control: int) -> str:
    workers = total - control
    if gpus:
        return (
            f"0/{total} nodes are available: {control} node(s) had untolerated taint "
            f"{{node-role.kubernetes.io/control-plane: }}, {workers} Insufficient {GPU}. preemption: 0/{total} "
            f"nodes are available: {control} Preemption is not helpful for scheduling, {workers} No preemption "
            "victims found for incoming pod."
        )
    return (
        f"0/{total} nodes are available: {control} node(s) had untolerated taint "
        f"{{node-role.kubernetes.io/control-plane: }}, {workers} Insufficient cpu. preemption: 0/{total} nodes "
        f"are available: {control} Preemption is not helpful for scheduling, {workers} No preemption victims "
        "found for incoming pod."
    )


def states_for(n: int, state: str, rng: random.Random) -> list[str]:
    """Pod states for n pods of a workload in `state` (running/pending/degraded/initializing/completed/failed)."""
    if n == 0:
        return []
    if state in ("running", "idle"):
        return ["running"] * n
    if state == "completed":
        return ["succeeded"] * n
    if state == "failed":
        return ["failed"] + ["failed" if rng.random() < 0.3 else "succeeded"] * (n - 1)
    if state == "pending":
        k = max(1, n // 2) if n > 1 else 1
        return ["running"] * (n - k) + ["unschedulable"] * k
    if state == "degraded":
        bad = rng.randrange(n)
        return ["crashloop" if i == bad else "running" for i in range(n)]
    if state == "initializing":
        return [("starting" if i % 2 else "creating") if n > 1 else "starting" for i in range(n)]
    raise ValueError(state)


def count(states: list[str], *wanted: str) -> int:
    return sum(1 for s in states if s in wanted)


def template(labels: Obj | None, containers: list[Obj], restart: str | None = None, **spec: Any) -> Obj:
    s: Obj = {"containers": containers}
    if restart:
        s["restartPolicy"] = restart
    s |= spec
    out: Obj = {"metadata": {"labels": labels}} if labels else {"metadata": {}}
    out["spec"] = s
    return out


def svc(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj,
    *,
    selector: Obj,
    headless: bool = False,
    port: int = 8080,
    labels: Obj | None = None,
) -> Obj:
    s = obj(c, "v1", "Service", name, ns, t=t, labels=labels, owner=owner, generation=None)
    s["spec"] = {
        "type": "ClusterIP",
        "clusterIP": "None" if headless else f"172.20.{c.rng.randint(0, 255)}.{c.rng.randint(1, 254)}",
        "selector": selector,
        "ports": [{"name": "http", "port": port, "protocol": "TCP", "targetPort": port}],
    }
    if headless:
        s["spec"]["publishNotReadyAddresses"] = True
    s["status"] = {"loadBalancer": {}}
    return s
