"""Deterministic generator of a realistic AI-cluster dump (workloads + operator-created children + pods + nodes).

Every framework has exactly one builder in ``FRAMEWORKS``; a builder turns a ``W`` (name, namespace, state and a
small "shape" dict) into ``Built(workload, children, pods)`` the way that framework's operator would: the same
child kinds and names, ownerReferences with uid + ``controller: true``, the operator's pod labels/annotations and
the framework's own status fields/conditions/reasons (see ../shared/corpus/<framework>/FACTS.md and live/).
Pod counts always follow the spec arithmetic of the shape (e.g. JobSet Σ replicas × parallelism, Ray 1 + Σ
replicas × numOfHosts, LWS replicas × size), minus what the operator really removes in terminal states (a
completed MPIJob's workers, a finished RayJob's cluster, a failed JobSet's still-active Jobs).

    python bench/gen_cluster.py --workloads 1000 --namespaces 20 --seed 7 -o /tmp/cluster.json
    python bench/gen_cluster.py --example -o src/workload_map/examples/ai-cluster.yaml

Everything random comes from one ``random.Random(seed)``; timestamps are relative to a fixed ``BASE_TIME``.
"""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import random
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

Obj = dict[str, Any]

BASE_TIME = datetime(2025, 6, 16, 9, 0, 0, tzinfo=UTC)
_ALNUM = "bcdfghjklmnpqrstvwxz2456789"  # the alphabet Kubernetes uses for generateName / pod-template-hash
GPU = "nvidia.com/gpu"
GPUS_PER_NODE = 8
CPU_PODS_PER_NODE = 48
CONTROL_PLANE_NODES = 3

# --------------------------------------------------------------------------------------------------------------
# context, ids, time
# --------------------------------------------------------------------------------------------------------------


def ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class W:
    """One workload to build: which framework, where, in which state, with which shape."""

    framework: str
    name: str
    namespace: str
    state: str
    shape: dict[str, Any]
    created: datetime = BASE_TIME - timedelta(hours=6)


@dataclass
class Built:
    workload: Obj
    children: list[Obj] = field(default_factory=list)
    pods: list[Obj] = field(default_factory=list)

    def add(self, other: Built) -> None:
        """Absorb a sub-tree (its top object becomes a child)."""
        self.children.append(other.workload)
        self.children.extend(other.children)
        self.pods.extend(other.pods)


class Nodes:
    """GPU nodes packed 8 GPUs each, CPU nodes 48 pods each; created on demand, emitted at the end."""

    def __init__(self, c: Ctx) -> None:
        self.c = c
        self.gpu: list[list[Any]] = []  # [name, free gpus, ip]
        self.cpu: list[list[Any]] = []  # [name, free slots, ip]
        self.control = [f"cp-{i}" for i in range(CONTROL_PLANE_NODES)]

    def _new(self, pool: list[list[Any]], prefix: str, free: int) -> list[Any]:
        n = len(pool)
        node = [
            f"{prefix}-{n // 16:02d}-{n % 16:02d}",
            free,
            f"10.{64 + len(pool) // 250}.{len(pool) % 250}.{10 + (0 if prefix.startswith('gpu') else 100)}",
        ]
        pool.append(node)
        return node

    def place(self, gpus: int, active: bool) -> tuple[str, str]:
        if gpus > 0:
            need = min(gpus, GPUS_PER_NODE)
            node = (
                next((n for n in self.gpu[-4:] if n[1] >= need), None)
                if active
                else (self.gpu[-1] if self.gpu else None)
            )
            if node is None:
                node = self._new(self.gpu, "gpu-h100", GPUS_PER_NODE)
            if active:
                node[1] -= need
        else:
            node = self.cpu[-1] if self.cpu and (self.cpu[-1][1] > 0 or not active) else None
            if node is None:
                node = self._new(self.cpu, "cpu", CPU_PODS_PER_NODE)
            if active:
                node[1] -= 1
        return node[0], node[2]

    def total(self) -> int:
        return len(self.gpu) + len(self.cpu) + len(self.control)

    def objects(self) -> list[Obj]:
        out = []
        created = BASE_TIME - timedelta(days=60)
        for name, _free, ip in self.gpu:
            out.append(self._node(name, ip, created, gpu=True))
        for name, _free, ip in self.cpu:
            out.append(self._node(name, ip, created, gpu=False))
        for i, name in enumerate(self.control):
            out.append(self._node(name, f"10.0.0.{10 + i}", created, gpu=False, control=True))
        return out

    def _node(self, name: str, ip: str, created: datetime, *, gpu: bool, control: bool = False) -> Obj:
        labels = {
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
            "node.kubernetes.io/instance-type": "p5.48xlarge" if gpu else "m7i.12xlarge",
            "topology.kubernetes.io/zone": "us-east-1a" if hash_int(name) % 2 else "us-east-1b",
        }
        capacity = {
            "cpu": "192" if gpu else "48",
            "memory": "2097152Mi" if gpu else "196608Mi",
            "pods": "110",
            "ephemeral-storage": "3750Gi",
        }
        spec: Obj = {
            "podCIDR": f"100.{hash_int(name) % 200}.0.0/24",
            "providerID": f"aws:///us-east-1a/i-{hash_hex(name)[:17]}",
        }
        if gpu:
            labels |= {
                "nvidia.com/gpu.present": "true",
                "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
                "nvidia.com/gpu.count": str(GPUS_PER_NODE),
                "nvidia.com/gpu.memory": "81559",
            }
            capacity[GPU] = str(GPUS_PER_NODE)
            spec["taints"] = [{"key": GPU, "value": "present", "effect": "NoSchedule"}]
        if control:
            labels["node-role.kubernetes.io/control-plane"] = ""
            spec["taints"] = [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]
        allocatable = dict(capacity) | {"cpu": "191450m" if gpu else "47410m"}
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "uid": str(uuid.UUID(hash_hex("node/" + name)[:32], version=4)),
                "creationTimestamp": ts(created),
                "labels": labels,
            },
            "spec": spec,
            "status": {
                "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
                "capacity": capacity,
                "allocatable": allocatable,
                "conditions": [
                    {
                        "type": "MemoryPressure",
                        "status": "False",
                        "reason": "KubeletHasSufficientMemory",
                        "message": "kubelet has sufficient memory available",
                        "lastHeartbeatTime": ts(BASE_TIME),
                        "lastTransitionTime": ts(created),
                    },
                    {
                        "type": "DiskPressure",
                        "status": "False",
                        "reason": "KubeletHasNoDiskPressure",
                        "message": "kubelet has no disk pressure",
                        "lastHeartbeatTime": ts(BASE_TIME),
                        "lastTransitionTime": ts(created),
                    },
                    {
                        "type": "PIDPressure",
                        "status": "False",
                        "reason": "KubeletHasSufficientPID",
                        "message": "kubelet has sufficient PID available",
                        "lastHeartbeatTime": ts(BASE_TIME),
                        "lastTransitionTime": ts(created),
                    },
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "KubeletReady",
                        "message": "kubelet is posting ready status",
                        "lastHeartbeatTime": ts(BASE_TIME),
                        "lastTransitionTime": ts(created),
                    },
                ],
                "nodeInfo": {
                    "kubeletVersion": "v1.31.7",
                    "containerRuntimeVersion": "containerd://1.7.27",
                    "kernelVersion": "6.8.0-1029-aws",
                    "osImage": "Ubuntu 22.04.5 LTS",
                    "architecture": "amd64",
                    "operatingSystem": "linux",
                },
            },
        }


def hash_hex(s: str) -> str:
    return hashlib.sha1(s.encode()).hexdigest()


def hash_int(s: str) -> int:
    return int(hash_hex(s)[:8], 16)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def ssh_auth_data(name: str) -> Obj:
    """`data` of the MPI operator's kubernetes.io/ssh-auth Secret: a dummy, deterministic ECDSA key pair."""
    body = base64.b64encode(bytes.fromhex(hash_hex(name + "/private") * 3)).decode()
    private = f"-----BEGIN EC PRIVATE KEY-----\n{body}\n-----END EC PRIVATE KEY-----\n"
    public = "ecdsa-sha2-nistp521 " + base64.b64encode(bytes.fromhex(hash_hex(name + "/public") * 4)).decode()
    return {"ssh-privatekey": b64(private), "ssh-publickey": b64(public + "\n")}


class Ctx:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.nodes = Nodes(self)
        self.unschedulable: list[Obj] = []  # PodScheduled conditions whose message needs the final node count
        self.rv = 100000
        self.ip = 0

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def rand(self, n: int = 5) -> str:
        return "".join(self.rng.choices(_ALNUM, k=n))

    def resource_version(self) -> str:
        self.rv += self.rng.randint(1, 40)
        return str(self.rv)

    def pod_ip(self) -> str:
        self.ip += 1
        return f"100.{64 + (self.ip >> 16) % 64}.{(self.ip >> 8) & 255}.{self.ip & 255}"


def obj(
    c: Ctx,
    api: str,
    kind: str,
    name: str,
    ns: str | None,
    *,
    t: datetime,
    labels: Obj | None = None,
    annotations: Obj | None = None,
    owner: Obj | None = None,
    generation: int | None = 1,
) -> Obj:
    md: Obj = {"name": name}
    if ns is not None:
        md["namespace"] = ns
    md["uid"] = c.uid()
    md["resourceVersion"] = c.resource_version()
    if generation is not None:
        md["generation"] = generation
    md["creationTimestamp"] = ts(t)
    if labels:
        md["labels"] = labels
    if annotations:
        md["annotations"] = annotations
    if owner is not None:
        md["ownerReferences"] = [ref(owner)]
    return {"apiVersion": api, "kind": kind, "metadata": md}


def ref(o: Obj) -> Obj:
    m = o["metadata"]
    return {
        "apiVersion": o["apiVersion"],
        "kind": o["kind"],
        "name": m["name"],
        "uid": m["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def uid_of(o: Obj) -> str:
    return str(o["metadata"]["uid"])


def cond(
    type_: str,
    status: str,
    t: datetime,
    reason: str | None = None,
    message: str | None = None,
    *,
    update: bool = False,
    probe: bool = False,
    severity: str | None = None,
    generation: int | None = None,
) -> Obj:
    out: Obj = {"type": type_, "status": status}
    if severity:
        out["severity"] = severity
    if reason:
        out["reason"] = reason
    if message:
        out["message"] = message
    if update:
        out["lastUpdateTime"] = ts(t)
    if probe:
        out["lastProbeTime"] = ts(t)
    if generation is not None:
        out["observedGeneration"] = generation
    out["lastTransitionTime"] = ts(t)
    return out


# --------------------------------------------------------------------------------------------------------------
# containers and pods
# --------------------------------------------------------------------------------------------------------------

ACTIVE = {"running", "starting", "creating", "crashloop", "unschedulable"}


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
        condition["_gpus"] = gpus
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


# --------------------------------------------------------------------------------------------------------------
# built-in controllers reused by operators: Job, Deployment/ReplicaSet, StatefulSet
# --------------------------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Framework:
    name: str
    build: Callable[[Ctx, W], Built]
    sample: Callable[[random.Random, int], dict[str, Any]]  # rng, target pod count -> shape
    states: dict[str, int]  # state -> weight
    weight: int
    names: tuple[str, ...]


FRAMEWORKS: dict[str, Framework] = {}


def framework(
    name: str,
    *,
    weight: int,
    states: dict[str, int],
    names: tuple[str, ...],
    sample: Callable[[random.Random, int], dict[str, Any]],
) -> Callable[[Callable[[Ctx, W], Built]], Callable[[Ctx, W], Built]]:
    """Register the one builder of a framework (with its shape sampler, states and name pool)."""

    def deco(fn: Callable[[Ctx, W], Built]) -> Callable[[Ctx, W], Built]:
        FRAMEWORKS[name] = Framework(name, fn, sample, states, weight, names)
        return fn

    return deco


def _gpus(rng: random.Random, choices: tuple[int, ...] = (1, 2, 4, 8, 8, 8)) -> int:
    return rng.choice(choices)


# --------------------------------------------------------------------------------------------------------------
# training: JobSet, TrainJob, PyTorchJob, MPIJob, Volcano Job, Job, CronJob
# --------------------------------------------------------------------------------------------------------------

IMG_TORCH = "nvcr.io/nvidia/pytorch:25.01-py3"
IMG_JAX = "ghcr.io/nvidia/jax:maxtext-2025-05-01"


def _jobset_tree(
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
    gpus = _gpus(rng)
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
    return _jobset_tree(c, w, w.name, None, rjobs, state=w.state)


@framework(
    "trainjob",
    weight=3,
    states={"running": 5, "completed": 3, "failed": 1, "suspended": 1},
    names=("qwen-sft", "llama-lora", "mistral-dpo"),
    sample=lambda rng, target: {"nodes": max(1, min(32, target)), "gpus": _gpus(rng, (4, 8))},
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
    sub = _jobset_tree(
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


def _sample_workers(rng: random.Random, target: int) -> dict[str, Any]:
    return {"workers": max(0, min(63, target - 1)), "gpus": _gpus(rng)}


@framework(
    "pytorchjob",
    weight=10,
    states={"running": 6, "completed": 3, "failed": 1, "pending": 2, "suspended": 1, "degraded": 1, "initializing": 1},
    names=("resnet50-ddp", "bert-finetune", "gpt2-train", "llama2-13b-ft", "mnist-nccl", "stable-diffusion-xl"),
    sample=_sample_workers,
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


@framework(
    "mpijob",
    weight=5,
    states={"running": 5, "completed": 3, "failed": 1, "pending": 1, "suspended": 1},
    names=("nccl-tests", "horovod-resnet", "mpi-allreduce-bench", "deepspeed-mpi"),
    sample=_sample_workers,
)
def build_mpijob(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    g, workers = s["gpus"], max(1, s["workers"])
    img = s.get("image", "mpioperator/nccl-tests:2.13.8")
    job = obj(c, "kubeflow.org/v2beta1", "MPIJob", name, ns, t=t)
    launcher_ct = [
        container(
            "launcher",
            img,
            cpu="2",
            mem="4Gi",
            command=["mpirun", "-np", str(workers * g), "/opt/nccl-tests/build/all_reduce_perf", "-b", "8", "-e", "8G"],
        )
    ]
    worker_ct = [
        container(
            "worker",
            img,
            gpus=g,
            cpu=str(max(2, 12 * g)),
            mem=f"{max(8, 128 * g)}Gi",
            command=["/usr/sbin/sshd", "-De"],
        )
    ]
    wait = state == "pending"
    job["spec"] = {
        "slotsPerWorker": g,
        "mpiImplementation": "OpenMPI",
        "sshAuthMountPath": "/root/.ssh",
        "launcherCreationPolicy": "WaitForWorkersReady" if wait else "AtStartup",
        "runPolicy": {"cleanPodPolicy": "Running", "suspend": state == "suspended", "backoffLimit": 2},
        "mpiReplicaSpecs": {
            "Launcher": {"replicas": 1, "restartPolicy": "OnFailure", "template": template(None, launcher_ct)},
            "Worker": {"replicas": workers, "restartPolicy": "Never", "template": template(None, worker_ct)},
        },
    }
    out = Built(job)
    t1 = t + timedelta(seconds=1)
    base = {"training.kubeflow.org/job-name": name, "training.kubeflow.org/operator-name": "mpi-operator"}
    out.children.append(
        svc(
            c,
            f"{name}-worker",
            ns,
            t1,
            job,
            selector=base | {"training.kubeflow.org/job-role": "worker"},
            headless=True,
            port=22,
        )
    )
    cm = obj(c, "v1", "ConfigMap", f"{name}-config", ns, t=t1, labels={"app": name}, owner=job, generation=None)
    cm["data"] = {
        "hostfile": "".join(f"{name}-worker-{i}.{name}-worker.{ns}.svc slots={g}\n" for i in range(workers)),
        "discover_hosts.sh": "#!/bin/sh\n"
        + "".join(f"echo {name}-worker-{i}.{name}-worker.{ns}.svc\n" for i in range(workers)),
    }
    sec = obj(c, "v1", "Secret", f"{name}-ssh", ns, t=t1, labels={"app": name}, owner=job, generation=None)
    sec["data"] = ssh_auth_data(name)
    sec["type"] = "kubernetes.io/ssh-auth"
    out.children += [cm, sec]
    # cleanPodPolicy Running: workers are deleted once the job finished; WaitForWorkersReady: no launcher yet
    worker_states = (
        []
        if state in ("completed", "failed", "suspended")
        else ["unschedulable"] * workers
        if wait
        else ["running"] * workers
    )
    for i, st in enumerate(worker_states):
        pname = f"{name}-worker-{i}"
        out.pods.append(
            pod(
                c,
                pname,
                ns,
                t1,
                job,
                state=st,
                containers=worker_ct,
                hostname=pname,
                subdomain=f"{name}-worker",
                labels=base
                | {"training.kubeflow.org/job-role": "worker", "training.kubeflow.org/replica-index": str(i)},
            )
        )
    if not wait:
        llab = base | {"training.kubeflow.org/job-role": "launcher"}
        out.add(
            job_tree(
                c,
                f"{name}-launcher",
                ns,
                t1,
                job,
                containers=launcher_ct,
                outcome=state,
                labels=llab,
                pod_labels=llab,
                suspend=state == "suspended",
                backoff=2,
                pod_states={"running": ["running"], "completed": ["succeeded"], "failed": ["failed"], "suspended": []}[
                    state
                ],
            )
        )
    t_end = t + timedelta(hours=c.rng.randint(1, 12))
    full = f"{ns}/{name}"
    conds = [cond("Created", "True", t, "MPIJobCreated", f"MPIJob {full} is created.", update=True)]
    if state == "suspended":
        conds.append(cond("Suspended", "True", t, "MPIJobSuspended", f"MPIJob {full} is suspended.", update=True))
    elif state == "running":
        conds.append(
            cond(
                "Running", "True", t + timedelta(minutes=1), "MPIJobRunning", f"MPIJob {full} is running.", update=True
            )
        )
    elif state == "completed":
        conds += [
            cond("Running", "False", t_end, "MPIJobRunning", f"MPIJob {full} is running.", update=True),
            cond("Succeeded", "True", t_end, "MPIJobSucceeded", f"MPIJob {full} successfully completed.", update=True),
        ]
    elif state == "failed":
        conds += [
            cond("Running", "False", t_end, "MPIJobRunning", f"MPIJob {full} is running.", update=True),
            cond(
                "Failed",
                "True",
                t_end,
                "MPIJobFailed",
                f"MPIJob {full} has failed: Job has reached the specified backoff limit",
                update=True,
            ),
        ]
    launcher = {"running": {"active": 1}, "completed": {"succeeded": 1}, "failed": {"failed": 1}}.get(state, {})
    worker = {"active": workers} if state in ("running", "pending") else {}
    status: Obj = {"conditions": conds, "replicaStatuses": {"Launcher": launcher, "Worker": worker}}
    if state != "suspended":
        status["startTime"] = ts(t)
        status["lastReconcileTime"] = ts(
            t_end if state in ("completed", "failed") else BASE_TIME - timedelta(minutes=2)
        )
    if state in ("completed", "failed"):
        status["completionTime"] = ts(t_end)
    job["status"] = status
    return out


def _sample_volcano(rng: random.Random, target: int) -> dict[str, Any]:
    lead, work = rng.choice((("ps", "worker"), ("mpimaster", "mpiworker")))
    return {
        "tasks": [
            {"name": lead, "replicas": 1, "gpus": 0},
            {"name": work, "replicas": max(1, min(32, target - 1)), "gpus": _gpus(rng)},
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
    sample=lambda rng, target: {"parallelism": rng.choice((1, 1, 2)), "gpus": _gpus(rng, (0, 0, 1, 2))},
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


# --------------------------------------------------------------------------------------------------------------
# Ray: RayCluster, RayJob, RayService
# --------------------------------------------------------------------------------------------------------------

IMG_RAY = "rayproject/ray:2.46.0-py311-gpu"


def _sample_ray(rng: random.Random, target: int) -> dict[str, Any]:
    groups = []
    left = max(1, target - 1)
    for gi in range(rng.choice((1, 1, 2, 3))):
        hosts = rng.choice((1, 1, 1, 2, 4))
        reps = max(1, min(8, left // (hosts * (2 if gi == 0 else 3))))
        groups.append(
            {
                "name": ("gpu-group", "cpu-group", "h100-multihost")[gi],
                "replicas": reps,
                "numOfHosts": hosts,
                "gpus": 0 if gi == 1 else _gpus(rng, (1, 4, 8)),
            }
        )
    return {"groups": groups}


def _ray_spec(groups: list[dict[str, Any]], image: str = IMG_RAY) -> Obj:
    return {
        "rayVersion": "2.46.0",
        "headGroupSpec": {
            "rayStartParams": {"dashboard-host": "0.0.0.0", "num-cpus": "0"},
            "serviceType": "ClusterIP",
            "template": template(None, _ray_head_ct(image)),
        },
        "workerGroupSpecs": [
            {
                "groupName": g["name"],
                "replicas": g["replicas"],
                "minReplicas": g["replicas"],
                "maxReplicas": 2 * g["replicas"],
                "numOfHosts": g["numOfHosts"],
                "rayStartParams": {},
                "template": template(None, _ray_worker_ct(g, image)),
            }
            for g in groups
        ],
    }


def _ray_head_ct(image: str) -> list[Obj]:
    return [container("ray-head", image, cpu="8", mem="32Gi", ports=[6379, 8265, 10001])]


def _ray_worker_ct(g: dict[str, Any], image: str) -> list[Obj]:
    return [
        container(
            "ray-worker", image, gpus=g["gpus"], cpu=str(max(4, 12 * g["gpus"])), mem=f"{max(16, 128 * g['gpus'])}Gi"
        )
    ]


def _ray_cluster(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    groups: list[dict[str, Any]],
    state: str,
    labels: Obj | None = None,
    serve: bool = False,
    image: str = IMG_RAY,
) -> Built:
    """RayCluster → head pod <rc>-head-<5> + worker pods <rc>-<group>-worker-<5> (numOfHosts pods per replica);
    state running / initializing / pending / degraded / suspended."""
    rc = obj(c, "ray.io/v1", "RayCluster", name, ns, t=t, labels=labels, owner=owner)
    suspended = state == "suspended"
    rc["spec"] = {"enableInTreeAutoscaling": False, "suspend": suspended} | _ray_spec(groups, image)
    out = Built(rc)
    t1 = t + timedelta(seconds=1)
    base = {
        "app.kubernetes.io/created-by": "kuberay-operator",
        "app.kubernetes.io/name": "kuberay",
        "ray.io/cluster": name,
        "ray.io/is-ray-node": "yes",
    }
    head_svc_name = f"{name}-head-svc"
    head_svc = None
    if not suspended:
        head_svc = svc(
            c,
            head_svc_name,
            ns,
            t1,
            rc,
            selector={"ray.io/cluster": name, "ray.io/node-type": "head"},
            port=8265,
            labels={"ray.io/cluster": name, "ray.io/node-type": "head", "ray.io/identifier": f"{name}-head"},
        )
        out.children.append(head_svc)
    desired = sum(g["replicas"] * g["numOfHosts"] for g in groups)
    n = 0 if suspended else desired
    wstates = (
        ["unschedulable"] * n
        if state == "pending"
        else states_for(n, state, c.rng)
        if state in ("degraded", "initializing")
        else ["running"] * n
    )
    head_state = "starting" if state == "initializing" and c.rng.random() < 0.3 else "running"
    head_pod = None
    if not suspended:
        hl = base | {"ray.io/group": "headgroup", "ray.io/identifier": f"{name}-head", "ray.io/node-type": "head"}
        if serve:
            hl["ray.io/serve"] = "true" if head_state == "running" else "false"
        head_pod = pod(
            c,
            f"{name}-head-{c.rand()}",
            ns,
            t1,
            rc,
            state=head_state,
            containers=_ray_head_ct(image),
            labels=hl,
            restart="Always",
            annotations={"ray.io/ft-enabled": "false"},
            generate_name=f"{name}-head-",
        )
        out.pods.append(head_pod)
    k = 0
    for g in groups if not suspended else []:
        if g["numOfHosts"] > 1:
            out.children.append(
                svc(
                    c,
                    f"{name}-{g['name']}-headless",
                    ns,
                    t1,
                    rc,
                    selector={"ray.io/cluster": name, "ray.io/group": g["name"]},
                    headless=True,
                    port=6379,
                    labels={"ray.io/cluster": name, "ray.io/headless-worker-svc": f"{name}-{g['name']}-headless"},
                )
            )
        for r in range(g["replicas"]):
            replica_name = f"{g['name']}-{c.rand()}"
            for h in range(g["numOfHosts"]):
                st = wstates[k]
                k += 1
                wl = base | {
                    "ray.io/group": g["name"],
                    "ray.io/identifier": f"{name}-worker",
                    "ray.io/node-type": "worker",
                }
                if g["numOfHosts"] > 1:
                    wl |= {
                        "ray.io/worker-group-replica-name": replica_name,
                        "ray.io/worker-group-replica-index": str(r),
                        "ray.io/replica-host-index": str(h),
                    }
                if serve:
                    wl["ray.io/serve"] = "true" if st == "running" else "false"
                out.pods.append(
                    pod(
                        c,
                        f"{name}-{g['name']}-worker-{c.rand()}",
                        ns,
                        t1,
                        rc,
                        state=st,
                        containers=_ray_worker_ct(g, image),
                        labels=wl,
                        restart="Always",
                        generate_name=f"{name}-{g['name']}-worker-",
                    )
                )
    ready_workers = count(wstates, "running")
    t_ready = t + timedelta(minutes=c.rng.randint(2, 12))
    status: Obj = {}
    if suspended:
        status["conditions"] = [cond("RayClusterSuspended", "True", t, "RayClusterSuspended")]
        status["state"] = "suspended"
    else:
        assert head_pod is not None and head_svc is not None
        head_ok = head_state == "running"
        provisioned = state in ("running", "degraded")
        status["conditions"] = [
            cond(
                "HeadPodReady",
                "True" if head_ok else "False",
                t_ready,
                "HeadPodRunningAndReady" if head_ok else "ContainersNotReady",
                None if head_ok else "containers with unready status: [ray-head]",
            ),
            cond(
                "RayClusterProvisioned",
                "True" if provisioned else "False",
                t_ready,
                "AllPodRunningAndReadyFirstTime" if provisioned else "RayClusterPodsProvisioning",
                "All Ray Pods are ready for the first time"
                if provisioned
                else "RayCluster Pods are being provisioned for first time",
            ),
        ]
        if provisioned:
            status["state"] = "ready"
            status["stateTransitionTimes"] = {"ready": ts(t_ready)}
        status["head"] = {
            "podName": head_pod["metadata"]["name"],
            "podIP": head_pod["status"].get("podIP", ""),
            "serviceName": head_svc_name,
            "serviceIP": head_svc["spec"]["clusterIP"],
        }
        status["endpoints"] = {"client": "10001", "dashboard": "8265", "gcs-server": "6379", "metrics": "8080"}
    status |= {
        "desiredWorkerReplicas": desired,
        "minWorkerReplicas": desired,
        "maxWorkerReplicas": 2 * desired,
        "readyWorkerReplicas": ready_workers,
        "availableWorkerReplicas": ready_workers,
        "desiredCPU": str(8 + sum(g["replicas"] * g["numOfHosts"] * max(4, 12 * g["gpus"]) for g in groups)),
        "desiredGPU": str(sum(g["replicas"] * g["numOfHosts"] * g["gpus"] for g in groups)),
        "desiredMemory": f"{32 + sum(g['replicas'] * g['numOfHosts'] * max(16, 128 * g['gpus']) for g in groups)}Gi",
        "desiredTPU": "0",
        "lastUpdateTime": ts(BASE_TIME - timedelta(seconds=30)),
        "observedGeneration": 1,
    }
    rc["status"] = status
    return out


@framework(
    "raycluster",
    weight=6,
    states={"running": 6, "initializing": 1, "pending": 2, "degraded": 1, "suspended": 1},
    names=("ray-dev", "ray-batch-infer", "verl-rlhf", "ray-tune-hpo", "ray-data-etl"),
    sample=_sample_ray,
)
def build_raycluster(c: Ctx, w: W) -> Built:
    return _ray_cluster(c, w.name, w.namespace, w.created, None, groups=w.shape["groups"], state=w.state)


@framework(
    "rayjob",
    weight=5,
    states={"running": 5, "completed": 3, "failed": 1, "initializing": 1, "pending": 1, "suspended": 1},
    names=("ray-train-llama", "ray-batch-embed", "ray-ppo", "ray-data-dedup"),
    sample=_sample_ray,
)
def build_rayjob(c: Ctx, w: W) -> Built:
    """RayJob → RayCluster <rayjob>-<5> (deleted after success: shutdownAfterJobFinishes) + submitter Job
    <rayjob> → pod."""
    ns, t, name, state = w.namespace, w.created, w.name, w.state
    rj = obj(c, "ray.io/v1", "RayJob", name, ns, t=t)
    shutdown = state != "failed"
    entry = w.shape.get("entrypoint", "python /home/ray/samples/train.py --num-workers 8")
    groups = w.shape["groups"]
    rj["spec"] = {
        "entrypoint": entry,
        "submissionMode": "K8sJobMode",
        "shutdownAfterJobFinishes": shutdown,
        "ttlSecondsAfterFinished": 600,
        "suspend": state == "suspended",
        "backoffLimit": 0,
        "rayClusterSpec": _ray_spec(groups),
    }
    out = Built(rj)
    rc_name = f"{name}-{c.rand()}"
    t1 = t + timedelta(seconds=1)
    cluster_status: Obj = {}
    if state != "suspended":
        cstate = {"initializing": "initializing", "pending": "pending"}.get(state, "running")
        sub = _ray_cluster(
            c,
            rc_name,
            ns,
            t1,
            rj,
            groups=groups,
            state=cstate,
            labels={
                "ray.io/job-submission-mode": "K8sJobMode",
                "ray.io/originated-from-cr-name": name,
                "ray.io/originated-from-crd": "RayJob",
            },
        )
        cluster_status = sub.workload["status"]
        if not (shutdown and state == "completed"):
            out.add(sub)
            out.children.append(
                svc(
                    c,
                    f"{name}-head-svc",
                    ns,
                    t1,
                    rj,
                    selector={"ray.io/cluster": rc_name, "ray.io/node-type": "head"},
                    port=8265,
                    labels={
                        "ray.io/identifier": f"{rc_name}-head",
                        "ray.io/node-type": "head",
                        "ray.io/originated-from-cr-name": name,
                        "ray.io/originated-from-crd": "RayJob",
                    },
                )
            )
    if state in ("running", "completed", "failed"):
        sub_ct = [
            container(
                "ray-job-submitter",
                IMG_RAY,
                cpu="1",
                mem="1Gi",
                command=[
                    "ray",
                    "job",
                    "submit",
                    "--address",
                    f"http://{rc_name}-head-svc.{ns}.svc.cluster.local:8265",
                    "--",
                    *entry.split(),
                ],
            )
        ]
        out.add(
            job_tree(
                c,
                name,
                ns,
                t + timedelta(minutes=3),
                rj,
                containers=sub_ct,
                outcome=state,
                backoff=2,
                pod_states={"running": ["running"], "completed": ["succeeded"], "failed": ["failed"]}[state],
            )
        )
    t_end = t + timedelta(hours=c.rng.randint(1, 10))
    st: Obj = {
        "jobDeploymentStatus": {
            "running": "Running",
            "completed": "Complete",
            "failed": "Failed",
            "initializing": "Initializing",
            "pending": "Initializing",
            "suspended": "Suspended",
        }[state]
    }
    if state in ("running", "completed", "failed"):
        st["jobStatus"] = {"running": "RUNNING", "completed": "SUCCEEDED", "failed": "FAILED"}[state]
        st["jobId"] = f"{name}-{c.rand()}"
    if state == "failed":
        st["reason"] = "AppFailed"
        st["message"] = (
            "Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):\n"
            "RuntimeError: CUDA error: an illegal memory access was encountered"
        )
    if state != "suspended":
        st["rayClusterName"] = rc_name
        st["dashboardURL"] = f"{rc_name}-head-svc.{ns}.svc.cluster.local:8265"
        st["startTime"] = ts(t)
        st["rayClusterStatus"] = cluster_status
    if state in ("completed", "failed"):
        st["endTime"] = ts(t_end)
        st["succeeded"] = 1 if state == "completed" else 0
        st["failed"] = 1 if state == "failed" else 0
    st["observedGeneration"] = 1
    rj["status"] = st
    return out


@framework(
    "rayservice",
    weight=3,
    states={"running": 5, "initializing": 1, "degraded": 1},
    names=("llm-serve", "deepseek-r1-serve", "stable-diffusion-serve"),
    sample=lambda rng, target: {
        "groups": [
            {
                "name": "gpu-group",
                "replicas": max(1, min(8, target // 2)),
                "numOfHosts": 1,
                "gpus": _gpus(rng, (1, 2, 4, 8)),
            }
        ]
    },
)
def build_rayservice(c: Ctx, w: W) -> Built:
    """RayService → RayCluster <rs>-<5> (+ <rs>-head-svc, <rs>-serve-svc); pods carry ray.io/serve."""
    ns, t, name, state = w.namespace, w.created, w.name, w.state
    rs = obj(c, "ray.io/v1", "RayService", name, ns, t=t)
    groups = w.shape["groups"]
    rs["spec"] = {
        "serveConfigV2": (
            "applications:\n- name: llm\n  route_prefix: /\n  import_path: ray.serve.llm:build_openai_app\n"
            "  args:\n    llm_configs:\n    - model_loading_config:\n        model_id: qwen-2.5-7b\n"
        ),
        "upgradeStrategy": {"type": "NewCluster"},
        "rayClusterConfig": _ray_spec(groups),
    }
    out = Built(rs)
    rc_name = f"{name}-{c.rand()}"
    t1 = t + timedelta(seconds=1)
    sub = _ray_cluster(
        c,
        rc_name,
        ns,
        t1,
        rs,
        groups=groups,
        state=state,
        serve=True,
        labels={"ray.io/originated-from-cr-name": name, "ray.io/originated-from-crd": "RayService"},
    )
    out.add(sub)
    sel = {"ray.io/cluster": rc_name}
    out.children.append(svc(c, f"{name}-head-svc", ns, t1, rs, selector=sel | {"ray.io/node-type": "head"}, port=8265))
    out.children.append(svc(c, f"{name}-serve-svc", ns, t1, rs, selector=sel | {"ray.io/serve": "true"}, port=8000))
    serving = sum(1 for p in sub.pods if p["metadata"]["labels"].get("ray.io/serve") == "true")
    t_ready = t + timedelta(minutes=c.rng.randint(5, 20))
    now = ts(BASE_TIME - timedelta(seconds=5))
    app_status = {"running": "RUNNING", "degraded": "UNHEALTHY", "initializing": "DEPLOYING"}[state]
    dep_status = {"running": "HEALTHY", "degraded": "UNHEALTHY", "initializing": "UPDATING"}[state]
    svc_status: Obj = {
        "rayClusterName": rc_name,
        "rayClusterStatus": sub.workload["status"],
        "applicationStatuses": {
            "llm": {
                "status": app_status,
                "healthLastUpdateTime": now,
                "deployments": {
                    "LLMServer:qwen-2_5-7b": {"status": dep_status, "healthLastUpdateTime": now},
                    "LLMRouter": {"status": "HEALTHY", "healthLastUpdateTime": now},
                },
            }
        },
    }
    if state == "degraded":
        svc_status["applicationStatuses"]["llm"]["message"] = "The deployment LLMServer:qwen-2_5-7b is UNHEALTHY."
    if state == "initializing":
        status: Obj = {
            "conditions": [
                cond("Ready", "False", t, "Initializing", "RayService is initializing", generation=1),
                cond(
                    "UpgradeInProgress",
                    "False",
                    t,
                    "NoActiveCluster",
                    "The Ray cluster is not active yet",
                    generation=1,
                ),
            ],
            "activeServiceStatus": {},
            "pendingServiceStatus": svc_status,
        }
    else:
        status = {
            "conditions": [
                cond(
                    "Ready",
                    "True",
                    t_ready,
                    "NonZeroServeEndpoints",
                    "Number of serve endpoints is greater than 0",
                    generation=1,
                ),
                cond(
                    "UpgradeInProgress",
                    "False",
                    t_ready,
                    "NoPendingCluster",
                    "Active Ray cluster exists and no pending Ray cluster",
                    generation=1,
                ),
            ],
            "serviceStatus": "Running",
            "activeServiceStatus": svc_status,
            "pendingServiceStatus": {},
        }
    status |= {"numServeEndpoints": serving, "observedGeneration": 1, "lastUpdateTime": now}
    rs["status"] = status
    return out


# --------------------------------------------------------------------------------------------------------------
# LeaderWorkerSet (also the multi-node backend of LLMInferenceService and NIMService)
# --------------------------------------------------------------------------------------------------------------


def _lws_tree(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    replicas: int,
    size: int,
    leader_ct: list[Obj],
    worker_ct: list[Obj],
    state: str,
    labels: Obj | None = None,
    leader_labels: Obj | None = None,
    worker_labels: Obj | None = None,
) -> Built:
    """LWS → leader StatefulSet <lws> → leader pods <lws>-<g>; per group a worker StatefulSet <lws>-<g> owned by the
    leader Pod → worker pods <lws>-<g>-<w>, w = 1..size-1.

    state: running / initializing / pending / degraded / failed."""
    lws = obj(c, "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", name, ns, t=t, labels=labels, owner=owner)
    lws["spec"] = {
        "replicas": replicas,
        "startupPolicy": "LeaderCreated",
        "rolloutStrategy": {
            "type": "RollingUpdate",
            "rollingUpdateConfiguration": {"maxSurge": 0, "maxUnavailable": 1},
        },
        "networkConfig": {"subdomainPolicy": "Shared"},
        "leaderWorkerTemplate": {
            "size": size,
            "restartPolicy": "RecreateGroupOnPodRestart",
            "leaderTemplate": template(leader_labels, leader_ct),
            "workerTemplate": template(worker_labels, worker_ct),
        },
    }
    out = Built(lws)
    rev = hash_hex(f"{ns}/{name}/rev")[:16]
    t1 = t + timedelta(seconds=1)
    name_l = {"leaderworkerset.sigs.k8s.io/name": name}
    gstates: list[list[str]] = []
    for g in range(replicas):
        if state == "pending" and g == replicas - 1:
            gstates.append(["unschedulable"] * size)
        elif state == "initializing":
            gstates.append(states_for(size, "initializing", c.rng))
        elif state == "degraded" and g == replicas - 1:
            gstates.append(["running"] + ["crashloop"] * (size - 1) if size > 1 else ["crashloop"])
        elif state == "failed":
            gstates.append(["crashloop"] * size)
        else:
            gstates.append(["running"] * size)

    def gkey(g: int) -> str:
        return hash_hex(f"{ns}/{name}-{g}")

    leader_sel = name_l | {"leaderworkerset.sigs.k8s.io/worker-index": "0"}
    leader = sts_tree(
        c,
        name,
        ns,
        t1,
        lws,
        replicas=replicas,
        pod_labels=(leader_labels or {}) | leader_sel,
        containers=leader_ct,
        states=[gs[0] for gs in gstates],
        labels=name_l | {"leaderworkerset.sigs.k8s.io/template-revision-hash": rev},
        annotations={"leaderworkerset.sigs.k8s.io/replicas": str(replicas)},
        selector=leader_sel,
        pod_labels_fn=lambda g: {
            "leaderworkerset.sigs.k8s.io/group-index": str(g),
            "leaderworkerset.sigs.k8s.io/group-key": gkey(g),
            "leaderworkerset.sigs.k8s.io/template-revision-hash": rev,
        },
        pod_annotations_fn=lambda g: {"leaderworkerset.sigs.k8s.io/size": str(size)},
    )
    out.add(leader)
    out.children.append(svc(c, name, ns, t1, lws, selector=name_l, headless=True, labels=name_l))
    for g, lp in enumerate(leader.pods):
        if size == 1:
            continue
        gl = name_l | {
            "leaderworkerset.sigs.k8s.io/group-index": str(g),
            "leaderworkerset.sigs.k8s.io/group-key": gkey(g),
        }
        ws = sts_tree(
            c,
            f"{name}-{g}",
            ns,
            t1 + timedelta(seconds=2),
            lp,
            replicas=size - 1,
            pod_labels=(worker_labels or {}) | gl,
            containers=worker_ct,
            states=gstates[g][1:],
            labels=gl | {"leaderworkerset.sigs.k8s.io/template-revision-hash": rev},
            selector=gl,
            start=1,
            service_name=name,
            subdomain=name,
            pod_labels_fn=lambda w_: {
                "leaderworkerset.sigs.k8s.io/worker-index": str(w_),
                "leaderworkerset.sigs.k8s.io/template-revision-hash": rev,
            },
            pod_annotations_fn=lambda w_, lpn=lp["metadata"]["name"]: {
                "leaderworkerset.sigs.k8s.io/size": str(size),
                "leaderworkerset.sigs.k8s.io/leader-name": lpn,
            },
        )
        out.add(ws)
    ready_groups = sum(all(s == "running" for s in gs) for gs in gstates)
    t_ready = t + timedelta(minutes=c.rng.randint(3, 25))
    available = ready_groups > 0 and state != "initializing"
    conds = [cond("Available", "True", t_ready, "AllGroupsReady", "All replicas are ready")] if available else []
    conds.append(
        cond(
            "Progressing",
            "True" if ready_groups < replicas else "False",
            t if ready_groups < replicas else t_ready,
            "GroupsProgressing",
            "Replicas are progressing",
        )
    )
    lws["status"] = {
        "conditions": conds,
        "replicas": replicas,
        "readyReplicas": ready_groups,
        "updatedReplicas": replicas,
        "hpaPodSelector": f"leaderworkerset.sigs.k8s.io/name={name},leaderworkerset.sigs.k8s.io/worker-index=0",
        "observedGeneration": 1,
    }
    return out


def _sample_lws(rng: random.Random, target: int) -> dict[str, Any]:
    size = rng.choice((2, 2, 4))
    return {"size": size, "replicas": max(1, min(8, target // size)), "gpus": 8}


@framework(
    "leaderworkerset",
    weight=5,
    states={"running": 6, "initializing": 1, "pending": 1, "degraded": 1},
    names=("vllm-llama-405b", "sglang-deepseek-v3", "vllm-qwen-72b", "trtllm-mixtral"),
    sample=_sample_lws,
)
def build_lws(c: Ctx, w: W) -> Built:
    s = w.shape
    img = s.get("image", "vllm/vllm-openai:v0.9.1")
    model = s.get("model", "meta-llama/Llama-3.1-405B-Instruct")
    leader = [
        container(
            "vllm-leader",
            img,
            gpus=s["gpus"],
            cpu="96",
            mem="1024Gi",
            ports=[8080],
            command=[
                "sh",
                "-c",
                "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader "
                "--ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server --port 8080 "
                f"--model {model} --tensor-parallel-size {s['gpus']} --pipeline_parallel_size {s['size']}",
            ],
        )
    ]
    worker = [
        container(
            "vllm-worker",
            img,
            gpus=s["gpus"],
            cpu="96",
            mem="1024Gi",
            command=[
                "sh",
                "-c",
                "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker "
                "--ray_address=$(LWS_LEADER_ADDRESS)",
            ],
        )
    ]
    return _lws_tree(
        c,
        w.name,
        w.namespace,
        w.created,
        None,
        replicas=s["replicas"],
        size=s["size"],
        leader_ct=leader,
        worker_ct=worker,
        state=w.state,
        leader_labels={"app": w.name, "role": "leader"},
        worker_labels={"app": w.name, "role": "worker"},
    )


# --------------------------------------------------------------------------------------------------------------
# serving: Knative Service, KServe InferenceService / LLMInferenceService, NIMService / NIMCache, Milvus
# --------------------------------------------------------------------------------------------------------------

IMG_QUEUE = (
    "gcr.io/knative-releases/knative.dev/serving/cmd/queue"
    "@sha256:7b1d4a56b63c7ad5bc1a8a5ec6e2e4b1c0cbe2cf1c1e0a0a3d59f8b1f8f0a2c4"
)


def _knative_tree(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    replicas: int,
    containers: list[Obj],
    state: str,
    extra_pod_labels: Obj | None = None,
    labels: Obj | None = None,
    min_scale: int = 1,
) -> Built:
    """ksvc → Configuration + Route (same name) → Revision <svc>-00001 → Deployment <rev>-deployment → ReplicaSet
    → Pods. state: running / initializing / failed / idle (scaled to zero)."""
    ks = obj(
        c,
        "serving.knative.dev/v1",
        "Service",
        name,
        ns,
        t=t,
        labels=labels,
        owner=owner,
        annotations={
            "serving.knative.dev/creator": "system:serviceaccount:kserve:kserve-controller-manager"
            if owner
            else "alice@example.com",
            "serving.knative.dev/lastModifier": "alice@example.com",
        },
    )
    tmpl_ann = {
        "autoscaling.knative.dev/min-scale": str(min_scale),
        "autoscaling.knative.dev/max-scale": str(max(replicas, 1) * 2),
    }
    ks["spec"] = {
        "template": {
            "metadata": {"annotations": tmpl_ann} | ({"labels": extra_pod_labels} if extra_pod_labels else {}),
            "spec": {"containerConcurrency": 0, "timeoutSeconds": 300, "containers": containers},
        },
        "traffic": [{"latestRevision": True, "percent": 100}],
    }
    out = Built(ks)
    t1 = t + timedelta(seconds=1)
    kl = {"serving.knative.dev/service": name, "serving.knative.dev/serviceUID": uid_of(ks)}
    cfg = obj(c, "serving.knative.dev/v1", "Configuration", name, ns, t=t1, labels=(labels or {}) | kl, owner=ks)
    route = obj(c, "serving.knative.dev/v1", "Route", name, ns, t=t1, labels=(labels or {}) | kl, owner=ks)
    rev_name = f"{name}-00001"
    cl = kl | {
        "serving.knative.dev/configuration": name,
        "serving.knative.dev/configurationUID": uid_of(cfg),
        "serving.knative.dev/configurationGeneration": "1",
    }
    rev = obj(
        c,
        "serving.knative.dev/v1",
        "Revision",
        rev_name,
        ns,
        t=t1 + timedelta(seconds=1),
        labels=(labels or {}) | cl | {"serving.knative.dev/routingState": "active"},
        owner=cfg,
        annotations=tmpl_ann,
    )
    rev["spec"] = {"containerConcurrency": 0, "timeoutSeconds": 300, "containers": containers}
    pl = (
        (extra_pod_labels or {})
        | cl
        | {"serving.knative.dev/revision": rev_name, "serving.knative.dev/revisionUID": uid_of(rev), "app": rev_name}
    )
    n = 0 if state == "idle" else replicas
    pstates = {"running": ["running"] * n, "idle": [], "initializing": ["starting"] * n, "failed": ["crashloop"] * n}[
        state
    ]
    qp = container(
        "queue-proxy",
        IMG_QUEUE,
        cpu="25m",
        mem="50Mi",
        ports=[8022, 8012, 9090, 9091],
        env={
            "SERVING_NAMESPACE": ns,
            "SERVING_SERVICE": name,
            "SERVING_CONFIGURATION": name,
            "SERVING_REVISION": rev_name,
        },
    )
    dep = deploy_tree(
        c,
        f"{rev_name}-deployment",
        ns,
        t1 + timedelta(seconds=2),
        rev,
        replicas=n,
        pod_labels=pl,
        containers=[*containers, qp],
        states=pstates,
        labels=pl,
        selector={"serving.knative.dev/revisionUID": uid_of(rev)},
        pod_annotations=tmpl_ann
        | {"serving.knative.dev/creator": ks["metadata"]["annotations"]["serving.knative.dev/creator"]},
        progress_deadline=state == "failed",
    )
    out.children += [cfg, route, rev]
    out.add(dep)
    t_ready = t + timedelta(minutes=c.rng.randint(1, 8))
    host = f"{name}.{ns}.example.com"
    ok = state in ("running", "idle")
    waiting = f'Configuration "{name}" is waiting for a Revision to become ready.'
    failed_msg = f'Revision "{rev_name}" failed with message: Container failed with: RuntimeError: CUDA out of memory.'
    if ok:
        kconds = [
            cond("ConfigurationsReady", "True", t_ready),
            cond("Ready", "True", t_ready),
            cond("RoutesReady", "True", t_ready),
        ]
    elif state == "initializing":
        kconds = [
            cond("ConfigurationsReady", "Unknown", t, "RevisionMissing", waiting),
            cond("Ready", "Unknown", t, "RevisionMissing", waiting),
            cond("RoutesReady", "Unknown", t, "RevisionMissing", waiting),
        ]
    else:
        kconds = [
            cond("ConfigurationsReady", "False", t_ready, "RevisionFailed", failed_msg),
            cond("Ready", "False", t_ready, "RevisionFailed", failed_msg),
            cond("RoutesReady", "Unknown", t, "RevisionMissing", waiting),
        ]
    traffic = [{"latestRevision": True, "percent": 100, "revisionName": rev_name}] if ok else []
    ks["status"] = {
        "conditions": kconds,
        "latestCreatedRevisionName": rev_name,
        "observedGeneration": 1,
        "url": f"https://{host}",
        "address": {"url": f"http://{name}.{ns}.svc.cluster.local"},
    }
    if ok:
        ks["status"] |= {"latestReadyRevisionName": rev_name, "traffic": traffic}
    cfg["spec"] = {"template": ks["spec"]["template"]}
    cfg["status"] = {
        "conditions": [cond("Ready", kconds[0]["status"], t_ready, kconds[0].get("reason"), kconds[0].get("message"))],
        "latestCreatedRevisionName": rev_name,
        "observedGeneration": 1,
    } | ({"latestReadyRevisionName": rev_name} if ok else {})
    route["spec"] = {"traffic": [{"configurationName": name, "latestRevision": True, "percent": 100}]}
    route["status"] = {
        "conditions": [
            cond("AllTrafficAssigned", "True" if ok else "Unknown", t_ready),
            cond("CertificateProvisioned", "True", t_ready, "TLSNotEnabled", "autoTLS is not enabled"),
            cond("IngressReady", "True" if ok else "Unknown", t_ready),
            cond("Ready", "True" if ok else "Unknown", t_ready),
        ],
        "observedGeneration": 1,
        "url": f"https://{host}",
        "traffic": traffic,
    }
    ready = count(pstates, "running")
    rconds = [
        cond(
            "Active",
            "True" if ready else "False",
            t_ready,
            None if ready else ("NoTraffic" if state == "idle" else "Deploying"),
            None if ready else ("The target is not receiving traffic." if state == "idle" else None),
        ),
        cond(
            "ContainerHealthy",
            "False" if state == "failed" else "True",
            t_ready,
            "ExitCode1" if state == "failed" else None,
            "Container failed with: RuntimeError: CUDA out of memory." if state == "failed" else None,
        ),
        cond(
            "Ready",
            "True" if ok else ("False" if state == "failed" else "Unknown"),
            t_ready,
            "ExitCode1" if state == "failed" else ("Deploying" if state == "initializing" else None),
        ),
        cond(
            "ResourcesAvailable",
            "True" if state != "initializing" else "Unknown",
            t_ready,
            "Deploying" if state == "initializing" else None,
        ),
    ]
    rev["status"] = {
        "conditions": rconds,
        "actualReplicas": ready,
        "desiredReplicas": n,
        "observedGeneration": 1,
        "containerStatuses": [
            {"name": ct["name"], "imageDigest": f"{ct['image'].split(':')[0]}@sha256:{hash_hex(ct['image'])}"}
            for ct in containers
        ],
    }
    return out


@framework(
    "knative-service",
    weight=3,
    states={"running": 5, "initializing": 1, "failed": 1, "idle": 2},
    names=("embeddings-api", "whisper-transcribe", "rerank-api", "tokenizer-svc"),
    sample=lambda rng, target: {"replicas": max(1, min(10, target // 3)), "gpus": rng.choice((0, 1, 1))},
)
def build_ksvc(c: Ctx, w: W) -> Built:
    s = w.shape
    ct = [
        container(
            "user-container",
            s.get("image", "ghcr.io/acme/embeddings-api:2.3.0"),
            gpus=s["gpus"],
            cpu="4",
            mem="16Gi",
            ports=[8080],
        )
    ]
    return _knative_tree(
        c,
        w.name,
        w.namespace,
        w.created,
        None,
        replicas=s["replicas"],
        containers=ct,
        state=w.state,
        min_scale=0 if w.state == "idle" else 1,
    )


def _isvc_conditions(t: datetime, state: str, mode: str, rev: str) -> list[Obj]:
    if state == "suspended":
        return [
            cond("PredictorReady", "False", t, "Stopped"),
            cond("Ready", "False", t, "Stopped"),
            cond("Stopped", "True", t, severity="Info"),
        ]
    stopped = cond("Stopped", "False", t, severity="Info")
    if state == "running":
        base = [cond("IngressReady", "True", t)]
        if mode == "Knative":
            base += [
                cond("LatestDeploymentReady", "True", t, severity="Info"),
                cond("PredictorConfigurationReady", "True", t, severity="Info"),
            ]
        base.append(cond("PredictorReady", "True", t))
        if mode == "Knative":
            base += [cond("PredictorRouteReady", "True", t, severity="Info")]
        return [*base, cond("Ready", "True", t), stopped]
    if state == "failed":
        msg = (
            f'Revision "{rev}" failed with message: Container failed with: ValueError: '
            "No supported config format found in /mnt/models."
        )
        if mode == "Knative":
            return [
                cond("IngressReady", "False", t, "Predictor ingress not created"),
                cond("PredictorConfigurationReady", "False", t, "RevisionFailed", msg),
                cond("PredictorReady", "False", t, "RevisionFailed", msg),
                cond("PredictorRouteReady", "True", t, severity="Info"),
                cond("Ready", "False", t, "Predictor ingress not created"),
                stopped,
            ]
        return [
            cond("IngressReady", "True", t),
            cond(
                "PredictorReady",
                "False",
                t,
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.",
            ),
            cond("Ready", "False", t, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."),
            stopped,
        ]
    # initializing / pending
    if mode == "Knative":
        waiting = f'Configuration "{rev.rsplit("-", 1)[0]}" is waiting for a Revision to become ready.'
        return [
            cond("PredictorConfigurationReady", "Unknown", t, severity="Info"),
            cond("PredictorReady", "Unknown", t, "RevisionMissing", waiting),
            cond("PredictorRouteReady", "Unknown", t, "RevisionMissing", waiting, severity="Info"),
            cond("Ready", "Unknown", t, "RevisionMissing", waiting),
            stopped,
        ]
    return [
        cond("IngressReady", "True", t),
        cond(
            "PredictorReady", "False", t, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."
        ),
        cond("Ready", "False", t, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."),
        stopped,
    ]


@framework(
    "kserve-inferenceservice",
    weight=7,
    states={"running": 6, "initializing": 1, "pending": 1, "failed": 1, "suspended": 1},
    names=("llama3-8b-chat", "sklearn-iris", "bge-embed", "mistral-7b-instruct", "torchserve-mnist", "xgb-fraud"),
    sample=lambda rng, target: {
        "mode": rng.choice(("Standard", "Standard", "Knative")),
        "replicas": max(1, min(12, target // 2)),
        "gpus": rng.choice((0, 1, 1, 2, 4)),
        "transformer": rng.random() < 0.15,
    },
)
def build_isvc(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    mode = s["mode"]
    ann = {"serving.kserve.io/deploymentMode": mode}
    if state == "suspended":
        ann["serving.kserve.io/stop"] = "true"
    isvc = obj(c, "serving.kserve.io/v1beta1", "InferenceService", name, ns, t=t, annotations=ann)
    g = s["gpus"]
    model = s.get("model", "hf://meta-llama/Llama-3.1-8B-Instruct")
    res = {
        "limits": {"cpu": "8", "memory": "32Gi"} | ({GPU: str(g)} if g else {}),
        "requests": {"cpu": "4", "memory": "16Gi"} | ({GPU: str(g)} if g else {}),
    }
    isvc["spec"] = {
        "predictor": {
            "minReplicas": s["replicas"],
            "maxReplicas": s["replicas"] * 2,
            "model": {
                "modelFormat": {"name": "huggingface"},
                "storageUri": model,
                "args": ["--model_name", name],
                "resources": res,
            },
        }
    }
    if s.get("transformer"):
        isvc["spec"]["transformer"] = {
            "minReplicas": 1,
            "containers": [
                container("kserve-container", "ghcr.io/acme/tokenizer-transformer:0.4.1", cpu="2", mem="4Gi")
            ],
        }
    out = Built(isvc)
    img = "kserve/huggingfaceserver:v0.15.2-gpu" if g else "kserve/huggingfaceserver:v0.15.2"
    comps = [
        (
            "predictor",
            s["replicas"],
            [
                container(
                    "kserve-container",
                    img,
                    gpus=g,
                    cpu="8",
                    mem="32Gi",
                    ports=[8080],
                    args=["--model_name", name, "--model_dir", "/mnt/models", "--http_port", "8080"],
                )
            ],
        )
    ]
    if s.get("transformer"):
        comps.append(("transformer", 1, isvc["spec"]["transformer"]["containers"]))
    t1 = t + timedelta(seconds=1)
    rev = f"{name}-predictor-00001"
    comp_status: Obj = {}
    for comp, reps, cts in comps if state != "suspended" else []:
        cname = f"{name}-{comp}"
        kl = {"serving.kserve.io/inferenceservice": name, "component": comp}
        pstates = {
            "running": ["running"] * reps,
            "initializing": ["starting"] * reps,
            "failed": ["crashloop"] * reps,
            "pending": ["unschedulable"] * reps,
        }[state if comp == "predictor" else "running"]
        if mode == "Knative":
            sub = _knative_tree(
                c,
                cname,
                ns,
                t1,
                isvc,
                replicas=reps,
                containers=cts,
                state={"pending": "initializing"}.get(state, state) if comp == "predictor" else "running",
                extra_pod_labels=kl,
                labels=kl,
                min_scale=reps,
            )
            if state == "pending" and comp == "predictor":
                for p in sub.pods:  # the revision's pods could not be placed
                    p["spec"].pop("nodeName", None)
                    cd = cond("PodScheduled", "False", t1, "Unschedulable", "")
                    cd["lastProbeTime"] = None
                    cd["_gpus"] = g
                    c.unschedulable.append(cd)
                    p["status"] = {"phase": "Pending", "conditions": [cd], "qosClass": qos_class(p["spec"])}
            out.add(sub)
            comp_status[comp] = {"latestCreatedRevision": f"{cname}-00001", "url": f"https://{cname}.{ns}.example.com"}
            if state == "running" or comp != "predictor":
                comp_status[comp] |= {
                    "latestReadyRevision": f"{cname}-00001",
                    "latestRolledoutRevision": f"{cname}-00001",
                    "traffic": [{"latestRevision": True, "percent": 100, "revisionName": f"{cname}-00001"}],
                }
        else:
            pl = kl | {"app": f"isvc.{cname}"}
            sub = deploy_tree(
                c,
                cname,
                ns,
                t1,
                isvc,
                replicas=reps,
                pod_labels=pl,
                containers=cts,
                states=pstates,
                labels=pl,
                selector={"app": f"isvc.{cname}"},
                pod_annotations={"serving.kserve.io/deploymentMode": mode},
            )
            out.add(sub)
            out.children.append(svc(c, cname, ns, t1, isvc, selector={"app": f"isvc.{cname}"}, port=80, labels=pl))
            hpa = obj(
                c, "autoscaling/v2", "HorizontalPodAutoscaler", cname, ns, t=t1, labels=pl, owner=isvc, generation=None
            )
            hpa["spec"] = {
                "minReplicas": reps,
                "maxReplicas": reps * 2,
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": cname},
                "metrics": [
                    {
                        "type": "Resource",
                        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
                    }
                ],
            }
            hpa["status"] = {"currentReplicas": reps, "desiredReplicas": reps}
            out.children.append(hpa)
            comp_status[comp] = {"url": f"http://{cname}-{ns}.example.com"}
    t_ready = t + timedelta(minutes=c.rng.randint(2, 15))
    status: Obj = {
        "conditions": _isvc_conditions(t_ready, state, mode, rev),
        "observedGeneration": 1,
        "deploymentMode": mode,
    }
    if state != "suspended":
        status["url"] = f"http://{name}-{ns}.example.com" if mode == "Standard" else f"https://{name}.{ns}.example.com"
        status["address"] = {"url": f"http://{name}-predictor.{ns}.svc.cluster.local"}
        status["components"] = comp_status
    ms = {
        "running": ("UpToDate", "Loaded", "Loaded"),
        "failed": ("BlockedByFailedLoad", "", "FailedToLoad"),
        "initializing": ("InProgress", "", "Loading"),
        "pending": ("InProgress", "", "Pending"),
        "suspended": ("UpToDate", "", ""),
    }[state]
    status["modelStatus"] = {
        "transitionStatus": ms[0],
        "states": {"activeModelState": ms[1], "targetModelState": ms[2]},
        "copies": {
            "failedCopies": s["replicas"] if state == "failed" else 0,
            "totalCopies": s["replicas"] if state == "running" else 0,
        },
    }
    if state == "failed":
        status["modelStatus"]["lastFailureInfo"] = {
            "reason": "ModelLoadFailed",
            "message": "No supported config format found in /mnt/models",
            "time": ts(t_ready),
        }
    isvc["status"] = status
    return out


@framework(
    "kserve-llminferenceservice",
    weight=3,
    states={"running": 5, "initializing": 1, "pending": 1},
    names=("qwen3-8b", "llama-70b-pd", "deepseek-r1-dp"),
    sample=lambda rng, target: {
        "replicas": max(1, min(8, target // 3)),
        "prefill": rng.choice((0, 0, 1, 2)),
        "size": rng.choice((1, 1, 1, 2)),
        "gpus": rng.choice((1, 2, 8)),
    },
)
def build_llmisvc(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    llm = obj(c, "serving.kserve.io/v1alpha2", "LLMInferenceService", name, ns, t=t)
    model = s.get("model", "hf://Qwen/Qwen3-8B")
    g = s["gpus"]
    main_ct = [
        container(
            "main",
            "ghcr.io/llm-d/llm-d:v0.2.0",
            gpus=g,
            cpu="16",
            mem="128Gi",
            ports=[8000],
            args=["--served-model-name", model.split("/")[-1], "--tensor-parallel-size", str(g)],
        )
    ]
    spec: Obj = {
        "model": {"uri": model, "name": model.split("/", 3)[-1]},
        "replicas": s["replicas"],
        "template": {"containers": [{"name": "main", "resources": main_ct[0]["resources"]}]},
        "router": {"route": {}, "gateway": {}, "scheduler": {}},
    }
    multi = s["size"] > 1
    if multi:
        spec["parallelism"] = {"tensor": g, "data": s["size"] * g, "dataLocal": g}
        spec["worker"] = {"containers": [{"name": "main", "resources": main_ct[0]["resources"]}]}
    if s["prefill"]:
        spec["prefill"] = {
            "replicas": s["prefill"],
            "template": {"containers": [{"name": "main", "resources": main_ct[0]["resources"]}]},
        }
    llm["spec"] = spec
    out = Built(llm)
    t1 = t + timedelta(seconds=1)
    base = {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "llminferenceservice"}
    primary = None
    for role, reps, suffix in [
        ("decode" if s["prefill"] else "both", s["replicas"], ""),
        ("prefill", s["prefill"], "-prefill"),
    ]:
        if not reps:
            continue
        st = state if role != "prefill" else "running"
        if multi:
            sub = _lws_tree(
                c,
                f"{name}-kserve-mn{suffix}",
                ns,
                t1,
                llm,
                replicas=reps,
                size=s["size"],
                leader_ct=main_ct,
                worker_ct=main_ct,
                state={"pending": "pending", "initializing": "initializing"}.get(st, "running"),
                labels=base,
                leader_labels=base
                | {
                    "app.kubernetes.io/component": f"llminferenceservice-workload-leader{suffix}",
                    "kserve.io/component": "workload",
                    "llm-d.ai/role": role,
                },
                worker_labels=base
                | {
                    "app.kubernetes.io/component": f"llminferenceservice-workload-worker{suffix}",
                    "kserve.io/component": "workload",
                    "llm-d.ai/role": role,
                },
            )
        else:
            pl = base | {
                "app.kubernetes.io/component": f"llminferenceservice-workload{suffix}",
                "kserve.io/component": "workload",
                "llm-d.ai/role": role,
            }
            pstates = {
                "running": ["running"] * reps,
                "initializing": ["starting"] * reps,
                "pending": ["running"] * (reps - 1) + ["unschedulable"],
            }[st]
            sub = deploy_tree(
                c,
                f"{name}-kserve{suffix}",
                ns,
                t1,
                llm,
                replicas=reps,
                pod_labels=pl,
                containers=main_ct,
                states=pstates,
                labels=base,
                service_account=f"{name}-kserve",
            )
        primary = primary or sub
        out.add(sub)
    sched_l = base | {"app.kubernetes.io/component": "llminferenceservice-router-scheduler"}
    out.add(
        deploy_tree(
            c,
            f"{name}-kserve-router-scheduler",
            ns,
            t1,
            llm,
            replicas=1,
            pod_labels=sched_l,
            containers=[
                container(
                    "main",
                    "ghcr.io/llm-d/llm-d-inference-scheduler:v0.2.1",
                    cpu="2",
                    mem="4Gi",
                    ports=[9002, 9003, 9090],
                )
            ],
            states=["running"],
            labels=base,
            service_account=f"{name}-epp-sa",
        )
    )
    out.children.append(
        svc(
            c,
            f"{name}-kserve-workload-svc",
            ns,
            t1,
            llm,
            selector=base | {"kserve.io/component": "workload"},
            port=8000,
            labels=base,
        )
    )
    t_ready = t + timedelta(minutes=c.rng.randint(5, 30))
    ok = state == "running"
    not_ready = ("MinimumReplicasUnavailable", "Deployment does not have minimum availability.")
    conds = [
        cond("HTTPRoutesReady", "True", t_ready),
        cond("InferencePoolReady", "True", t_ready),
        cond("MainWorkloadReady", "True", t_ready) if ok else cond("MainWorkloadReady", "False", t_ready, *not_ready),
    ]
    if s["prefill"]:
        conds.append(cond("PrefillWorkloadReady", "True", t_ready))
    conds += [
        cond("PresetsCombined", "True", t),
        cond("Ready", "True" if ok else "False", t_ready, *(() if ok else not_ready)),
        cond("RouterReady", "True", t_ready),
        cond("SchedulerWorkloadReady", "True", t_ready),
        cond("WorkloadsReady", "True" if ok else "False", t_ready, *(() if ok else not_ready)),
    ]
    for cd in conds:
        cd.setdefault("severity", None)
        if cd["severity"] is None:
            del cd["severity"]
    llm["status"] = {
        "conditions": conds,
        "observedGeneration": 1,
        "url": f"http://{name}.{ns}.example.com",
        "address": {"url": f"http://{name}-kserve-workload-svc.{ns}.svc.cluster.local:8000"},
    }
    return out


@framework(
    "nimservice",
    weight=4,
    states={"running": 6, "initializing": 2, "failed": 1, "pending": 1},
    names=("llama-3-1-8b-nim", "nemotron-70b-nim", "nv-embedqa-nim", "llama-405b-nim"),
    sample=lambda rng, target: {
        "replicas": max(1, min(8, target // 3)),
        "pipeline": rng.choice((1, 1, 1, 2)),
        "gpus": rng.choice((1, 2, 4, 8)),
    },
)
def build_nimservice(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    repo, tag = s.get("image", "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.4").rsplit(":", 1)
    nim = obj(c, "apps.nvidia.com/v1alpha1", "NIMService", name, ns, t=t)
    g = s["gpus"]
    spec: Obj = {
        "image": {"repository": repo, "tag": tag, "pullPolicy": "IfNotPresent", "pullSecrets": ["ngc-secret"]},
        "authSecret": "ngc-api-secret",
        "replicas": s["replicas"],
        "resources": {"limits": {GPU: str(g)}},
        "expose": {"service": {"type": "ClusterIP", "port": 8000}},
    }
    spec["storage"] = (
        {"nimCache": {"name": s["cache"], "profile": ""}}
        if s.get("cache")
        else {"pvc": {"create": True, "size": "200Gi", "volumeAccessMode": "ReadWriteOnce"}}
    )
    multi = s["pipeline"] > 1
    if multi:
        spec["multiNode"] = {"backendType": "lws", "parallelism": {"pipeline": s["pipeline"], "tensor": g}}
    nim["spec"] = spec
    out = Built(nim)
    std = {
        "app.kubernetes.io/instance": name,
        "app.kubernetes.io/managed-by": "k8s-nim-operator",
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/operator-version": "v3.0.0",
        "app.kubernetes.io/part-of": "nim-service",
    }
    ct = [
        container(
            name if not multi else "nim-leader",
            f"{repo}:{tag}",
            gpus=g,
            cpu=str(8 * g),
            mem=f"{64 * g}Gi",
            ports=[8000],
            env={"NIM_CACHE_PATH": "/model-store", "NIM_SERVER_PORT": "8000"},
        )
    ]
    t1 = t + timedelta(seconds=1)
    wstate = {"failed": "failed", "initializing": "initializing", "pending": "pending"}.get(state, "running")
    if multi:
        sub = _lws_tree(
            c,
            f"{name}-lws",
            ns,
            t1,
            nim,
            replicas=s["replicas"],
            size=s["pipeline"],
            leader_ct=ct,
            worker_ct=[dict(ct[0], name="nim-worker")],
            state=wstate,
            labels=std,
            leader_labels=std | {"app": f"{name}-lws", "nim-llm-role": "leader"},
            worker_labels=std | {"app": f"{name}-lws"},
        )
        out.children.append(
            svc(c, name, ns, t1, nim, selector={"app": f"{name}-lws", "nim-llm-role": "leader"}, port=8000, labels=std)
        )
    else:
        n = s["replicas"]
        pstates = {
            "running": ["running"] * n,
            "initializing": ["starting"] * n,
            "failed": ["crashloop"] * n,
            "pending": ["unschedulable"] * n,
        }[wstate]
        sub = deploy_tree(
            c,
            name,
            ns,
            t1,
            nim,
            replicas=n,
            pod_labels=std | {"app": name},
            containers=ct,
            states=pstates,
            labels=std,
            selector={"app": name},
            service_account=name,
            progress_deadline=state == "failed",
        )
        out.children.append(svc(c, name, ns, t1, nim, selector={"app": name}, port=8000, labels=std))
    out.add(sub)
    t_ready = t + timedelta(minutes=c.rng.randint(5, 40))
    kind_name = f'deployment "{name}"' if not multi else f'leaderworkerset "{name}-lws"'
    if state == "running":
        conds = [
            cond("NIM_SERVICE_READY", "True", t_ready, "Ready", f"{kind_name} successfully rolled out\n"),
            cond("NIM_SERVICE_FAILED", "False", t_ready, "Ready"),
        ]
        st = "Ready"
    elif state == "failed":
        conds = [
            cond(
                "NIM_SERVICE_READY",
                "False",
                t_ready,
                "NotReady",
                f"Waiting for {kind_name} rollout to finish: 0 of {s['replicas']} updated replicas are available...\n",
            ),
            cond("NIM_SERVICE_FAILED", "True", t_ready, "Failed", f"{kind_name} exceeded its progress deadline"),
        ]
        st = "Failed"
    else:
        conds = [
            cond(
                "NIM_SERVICE_READY",
                "False",
                t,
                "NotReady",
                f"Waiting for {kind_name} rollout to finish: 0 of {s['replicas']} updated replicas are available...\n",
            ),
            cond("NIM_SERVICE_FAILED", "False", t, "Ready"),
        ]
        st = "NotReady" if state == "initializing" else "Pending"
    ready = sum(
        1
        for p in sub.pods
        if p["status"]["phase"] == "Running"
        and p["status"]["conditions"][2]["status"] == "True"
        and p["metadata"]["labels"].get("leaderworkerset.sigs.k8s.io/worker-index", "0") == "0"
    )
    nim["status"] = {
        "state": st,
        "conditions": conds,
        "availableReplicas": ready,
        "model": {
            "name": repo.rsplit("/", 1)[-1],
            "clusterEndpoint": f"{name}.{ns}.svc.cluster.local:8000",
            "externalEndpoint": "",
        },
    }
    return out


@framework(
    "nimcache",
    weight=2,
    states={"completed": 5, "running": 2, "failed": 1},
    names=("llama-3-1-8b-cache", "nemotron-cache", "embedqa-cache"),
    sample=lambda rng, target: {"gpus": rng.choice((0, 1))},
)
def build_nimcache(c: Ctx, w: W) -> Built:
    ns, t, name, state = w.namespace, w.created, w.name, w.state
    nc = obj(
        c,
        "apps.nvidia.com/v1alpha1",
        "NIMCache",
        name,
        ns,
        t=t,
        labels={
            "app": "k8s-nim-operator",
            "app.kubernetes.io/instance": name,
            "app.kubernetes.io/managed-by": "k8s-nim-operator",
            "app.kubernetes.io/name": name,
            "app.kubernetes.io/part-of": "nim-cache",
        },
    )
    model_puller = w.shape.get("image", "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.4")
    nc["spec"] = {
        "source": {
            "ngc": {
                "modelPuller": model_puller,
                "pullSecret": "ngc-secret",
                "authSecret": "ngc-api-secret",
                "model": {"engine": "tensorrt_llm", "tensorParallelism": "1", "qosProfile": "throughput"},
            }
        },
        "storage": {
            "pvc": {"create": True, "storageClass": "gp3", "size": "100Gi", "volumeAccessMode": "ReadWriteOnce"}
        },
        "resources": {"cpu": "4", "memory": "16Gi"},
    }
    out = Built(nc)
    t1 = t + timedelta(seconds=1)
    pvc = obj(c, "v1", "PersistentVolumeClaim", f"{name}-pvc", ns, t=t1, owner=nc, generation=None)
    pvc["spec"] = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "100Gi"}},
        "storageClassName": "gp3",
        "volumeMode": "Filesystem",
        "volumeName": f"pvc-{c.uid()}",
    }
    pvc["status"] = {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "100Gi"}}
    out.children.append(pvc)
    pl = {"app": "k8s-nim-operator", "app.kubernetes.io/managed-by": "k8s-nim-operator", "app.kubernetes.io/name": name}
    ct = [container("nim-cache-ctr", model_puller, cpu="4", mem="16Gi", command=["download-to-cache"])]
    out.add(
        job_tree(
            c,
            f"{name}-job",
            ns,
            t1,
            nc,
            containers=ct,
            outcome=state,
            labels=pl,
            pod_labels=pl,
            backoff=5,
            pod_annotations={"sidecar.istio.io/inject": "false"},
            pod_states={"completed": ["succeeded"], "running": ["running"], "failed": ["failed"]}[state],
        )
    )
    t_end = t + timedelta(minutes=c.rng.randint(10, 60))
    conds = [
        cond("NIM_CACHE_PVC_CREATED", "True", t1, "PVCCreated", "The PVC has been created for caching NIM model"),
        cond("NIM_CACHE_JOB_CREATED", "True", t1, "JobCreated", "The Job to cache NIM has been created"),
        cond("NIM_CACHE_JOB_PENDING", "False", t1, "JobPending", "The Job to cache NIM is in pending state"),
    ]
    if state == "completed":
        conds.append(
            cond(
                "NIM_CACHE_JOB_COMPLETED",
                "True",
                t_end,
                "JobCompleted",
                "The Job to cache NIM has successfully completed",
            )
        )
    if state == "failed":
        conds.append(cond("NIM_CACHE_RECONCILE_FAILED", "True", t_end, "JobFailed", "The Job to cache NIM has failed"))
    nc["status"] = {
        "state": {"completed": "Ready", "running": "InProgress", "failed": "Failed"}[state],
        "pvc": f"{name}-pvc",
        "conditions": conds,
    }
    if state == "completed":
        nc["status"]["profiles"] = [
            {
                "name": hash_hex(name)[:64],
                "model": "meta/llama-3.1-8b-instruct",
                "release": "1.8.4",
                "config": {
                    "feat_lora": "false",
                    "gpu": "H100",
                    "llm_engine": "tensorrt_llm",
                    "precision": "bf16",
                    "profile": "throughput",
                    "tp": "1",
                },
            }
        ]
    return out


@framework(
    "milvus",
    weight=2,
    states={"running": 4, "degraded": 1, "initializing": 1},
    names=("vector-db", "rag-milvus", "search-milvus"),
    sample=lambda rng, target: {
        "mode": rng.choice(("cluster", "cluster", "standalone")),
        "proxy": rng.choice((1, 2)),
        "querynode": max(1, min(12, target // 3)),
        "datanode": rng.choice((1, 2)),
        "indexnode": rng.choice((1, 2)),
    },
)
def build_milvus(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    img = "milvusdb/milvus:v2.5.10"
    mv = obj(
        c,
        "milvus.io/v1beta1",
        "Milvus",
        name,
        ns,
        t=t,
        labels={"app": "milvus"},
        annotations={"milvus.io/dependency-values-merged": "true", "milvus.io/pod-service-label-added": "true"},
    )
    if s["mode"] == "standalone":
        comps = [("standalone", "standalone", 1)]
    else:
        comps = [
            ("mixCoord", "mixcoord", 1),
            ("proxy", "proxy", s["proxy"]),
            ("dataNode", "datanode", s["datanode"]),
            ("queryNode", "querynode", s["querynode"]),
            ("indexNode", "indexnode", s["indexnode"]),
        ]
    mv["spec"] = {
        "mode": s["mode"],
        "dependencies": {
            "etcd": {"external": True, "endpoints": ["etcd-0.etcd.infra.svc:2379"]},
            "storage": {
                "external": True,
                "type": "S3",
                "endpoint": "s3.us-east-1.amazonaws.com:443",
                "secretRef": "milvus-s3-secret",
            },
            **(
                {
                    "msgStreamType": "pulsar",
                    "pulsar": {"external": True, "endpoint": "pulsar://pulsar-proxy.infra:6650"},
                }
                if s["mode"] == "cluster"
                else {"msgStreamType": "rocksmq"}
            ),
        },
        "components": {
            "image": img,
            **{k: {"replicas": r} for k, _, r in comps if k != "standalone"},
            **({"standalone": {"replicas": 1}} if s["mode"] == "standalone" else {}),
        },
        "config": {},
    }
    out = Built(mv)
    t1 = t + timedelta(seconds=1)
    bad = c.rng.randrange(len(comps)) if state == "degraded" else -1
    deploy_status: Obj = {}
    not_ready = []
    for i, (_key, comp, reps) in enumerate(comps):
        pl = {
            "app.kubernetes.io/component": comp,
            "app.kubernetes.io/instance": name,
            "app.kubernetes.io/managed-by": "milvus-operator",
            "app.kubernetes.io/name": "milvus",
        }
        if comp in ("proxy", "standalone"):
            pl["milvus.io/service"] = "true"
        pstates = (
            ["crashloop"] + ["running"] * (reps - 1)
            if i == bad
            else ["starting"] * reps
            if state == "initializing"
            else ["running"] * reps
        )
        if "running" not in pstates or count(pstates, "running") < reps:
            not_ready.append(comp)
        ct = [
            container(
                comp,
                img,
                gpus=1 if comp == "querynode" and s.get("gpu") else 0,
                cpu="4",
                mem="16Gi",
                command=["/milvus/tools/run.sh", "milvus", "run", comp],
                ports=[19530, 9091] if comp in ("proxy", "standalone") else [9091],
            )
        ]
        sub = deploy_tree(
            c,
            f"{name}-milvus-{comp}",
            ns,
            t1,
            mv,
            replicas=reps,
            pod_labels=pl,
            containers=ct,
            states=pstates,
            labels=pl,
            selector={k: v for k, v in pl.items() if k != "milvus.io/service"},
            pod_annotations={"milvus.io/dependency-values-merged": "true", "milvus.io/using-configmap": name},
        )
        out.add(sub)
        deploy_status[comp] = {"generation": 1, "image": img, "status": sub.workload["status"]}
    cm = obj(c, "v1", "ConfigMap", name, ns, t=t1, owner=mv, generation=None)
    cm["data"] = {"milvus.yaml": "etcd:\n  endpoints:\n  - etcd-0.etcd.infra.svc:2379\n"}
    out.children.append(cm)
    out.children.append(
        svc(
            c,
            f"{name}-milvus",
            ns,
            t1,
            mv,
            selector={
                "app.kubernetes.io/instance": name,
                "app.kubernetes.io/name": "milvus",
                "milvus.io/service": "true",
            },
            port=19530,
        )
    )
    t_ready = t + timedelta(minutes=c.rng.randint(2, 10))
    healthy = not not_ready
    conds = [
        {
            "type": "EtcdReady",
            "status": "True",
            "reason": "EtcdReady",
            "message": "All etcd endpoints are healthy",
            "lastTransitionTime": ts(t1),
        },
        {
            "type": "StorageReady",
            "status": "True",
            "reason": "S3StorageAssumeReady",
            "message": "Storage is ready",
            "lastTransitionTime": ts(t1),
        },
        {
            "type": "MsgStreamReady",
            "status": "True",
            "reason": "MsgStreamReady",
            "message": "MsgStream is ready",
            "lastTransitionTime": ts(t1),
        },
        {
            "type": "MilvusReady",
            "status": "True" if healthy else "False",
            "reason": "ReasonMilvusHealthy" if healthy else "MilvusComponentNotHealthy",
            "message": "All Milvus components are healthy"
            if healthy
            else f"[{' '.join(not_ready)}] not ready, detail: container {not_ready[0]} is not ready",
            "lastTransitionTime": ts(t_ready),
        },
        {
            "type": "MilvusUpdated",
            "status": "True",
            "reason": "MilvusComponentsUpdated",
            "message": "Milvus components are all updated",
            "lastTransitionTime": ts(t_ready),
        },
    ]
    mv["status"] = {
        "status": "Healthy" if healthy else ("Pending" if state == "initializing" else "Unhealthy"),
        "conditions": conds,
        "endpoint": f"{name}-milvus.{ns}:19530",
        "componentsDeployStatus": deploy_status,
        "observedGeneration": 1,
        "currentImage": img,
        "currentVersion": "2.5.10",
        "rollingModeVersion": 2,
    }
    return out


# --------------------------------------------------------------------------------------------------------------
# Grove PodCliqueSet and Dynamo DynamoGraphDeployment (Grove provider)
# --------------------------------------------------------------------------------------------------------------


GROVE_MAX_COMBINED_NAME = 45  # Grove's PodCliqueSet webhook: len(PCS) [+ len(PCSG)] + len(PCLQ) <= 45


def grove_check_names(pcs: str, cliques: list[dict[str, Any]], groups: list[dict[str, Any]]) -> None:
    """Reject what Grove's webhook rejects, so that every generated pod name, hostname and label stays valid."""
    combos = [(pcs, cq["name"]) for cq in cliques] + [
        (pcs, g["name"], cq["name"]) for g in groups for cq in g["cliques"]
    ]
    for parts in combos:
        if sum(map(len, parts)) > GROVE_MAX_COMBINED_NAME:
            raise ValueError(f"Grove would reject {'/'.join(parts)}: combined name length > {GROVE_MAX_COMBINED_NAME}")


def _fnv1a32(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def dynamo_pcs_name(dgd: str, budgets: list[int]) -> str:
    """Dynamo's PCSNameForDGD: the DGD name, truncated with a 4-hex FNV-1a suffix when the longest component
    (PCSG + longest PodClique, or the PodClique alone) leaves too little of Grove's 45-character budget."""
    room = max(8, GROVE_MAX_COMBINED_NAME - max(budgets, default=0))
    if len(dgd) <= room:
        return dgd
    return f"{dgd[: room - 5]}-{_fnv1a32(dgd.encode()) & 0xFFFF:04x}"


def _grove_tree(
    c: Ctx,
    name: str,
    ns: str,
    t: datetime,
    owner: Obj | None,
    *,
    replicas: int,
    cliques: list[dict[str, Any]],
    groups: list[dict[str, Any]],
    state: str,
    labels: Obj | None = None,
    pod_labels_fn: Callable[[dict[str, Any]], Obj] | None = None,
) -> Built:
    """PCS → PodClique <pcs>-<r>-<clique> | PCSG <pcs>-<r>-<pcsg> → PodClique <pcs>-<r>-<pcsg>-<j>-<clique>; PodClique →
    Pods <pclq>-<5>; PodGang <pcs>-<r>. cliques: {name, replicas, containers, role, labels?}; groups: {name, replicas,
    cliques: [...]}. state running / initializing (unschedulable) / degraded."""
    grove_check_names(name, cliques, groups)
    all_cliques = cliques + [cq for g in groups for cq in g["cliques"]]
    pcs = obj(c, "grove.io/v1alpha1", "PodCliqueSet", name, ns, t=t, labels=labels, owner=owner)
    pcs["spec"] = {
        "replicas": replicas,
        "template": {
            "cliqueStartupType": "CliqueStartupTypeAnyOrder",
            "terminationDelay": "4h0m0s",
            "cliques": [
                {
                    "name": cq["name"],
                    "labels": cq.get("labels") or {},
                    "spec": {
                        "roleName": cq["role"],
                        "replicas": cq["replicas"],
                        "minAvailable": cq["replicas"],
                        "podSpec": {"containers": cq["containers"], "schedulerName": "kai-scheduler"},
                    },
                }
                for cq in all_cliques
            ],
            "podCliqueScalingGroups": [
                {
                    "name": g["name"],
                    "cliqueNames": [cq["name"] for cq in g["cliques"]],
                    "replicas": g["replicas"],
                    "minAvailable": g["replicas"],
                }
                for g in groups
            ],
        },
    }
    if not groups:
        del pcs["spec"]["template"]["podCliqueScalingGroups"]
    out = Built(pcs)
    t1 = t + timedelta(seconds=1)
    base = {"app.kubernetes.io/managed-by": "grove-operator", "app.kubernetes.io/part-of": name}
    available = 0
    gang_statuses = []
    bad_done = False

    def clique(  # one PodClique with its pods, in replica r (labels rl), recorded in podgroups
        owner_obj: Obj,
        full: str,
        cq: dict[str, Any],
        extra: Obj,
        component: str,
        *,
        r: int,
        rl: Obj,
        podgroups: list[Obj],
    ) -> None:
        nonlocal replica_ok, bad_done
        cl = rl | extra | {"app.kubernetes.io/component": component}
        pclq = obj(c, "grove.io/v1alpha1", "PodClique", full, ns, t=t1, labels=cl, owner=owner_obj)
        pclq["spec"] = {
            "roleName": cq["role"],
            "replicas": cq["replicas"],
            "minAvailable": cq["replicas"],
            "podSpec": {"containers": cq["containers"], "schedulerName": "kai-scheduler"},
        }
        n = cq["replicas"]
        if state == "initializing" and r == replicas - 1:
            pstates = ["unschedulable"] * n
        elif state == "degraded" and not bad_done and cq["replicas"] > 0 and cq is all_cliques[-1]:
            pstates = ["crashloop"] + ["running"] * (n - 1)
            bad_done = True
        else:
            pstates = ["running"] * n
        pth = hash_hex(f"{name}/{cq['name']}")[:10]
        out.children.append(pclq)
        refs = []
        for i, st in enumerate(pstates):
            pname = f"{full}-{c.rand()}"
            pl = (
                cl
                | (cq.get("labels") or {})
                | {
                    "grove.io/podclique": full,
                    "grove.io/podclique-pod-index": str(i),
                    "grove.io/pod-template-hash": pth,
                }
            )
            if pod_labels_fn:
                pl |= pod_labels_fn(cq)
            out.pods.append(
                pod(
                    c,
                    pname,
                    ns,
                    t1 + timedelta(seconds=2),
                    pclq,
                    state=st,
                    containers=cq["containers"],
                    labels=pl,
                    restart="Always",
                    scheduler="kai-scheduler",
                    hostname=f"{full}-{i}",  # Grove: <podclique>-<pod index>, in the headless service <pcs>-<r>
                    subdomain=f"{name}-{r}",
                    generate_name=f"{full}-",
                )
            )
            refs.append({"namespace": ns, "name": pname})
        ready, scheduled = count(pstates, "running"), n - count(pstates, "unschedulable")
        breached = ready < n
        pclq["status"] = {
            "replicas": n,
            "readyReplicas": ready,
            "updatedReplicas": n,
            "scheduleGatedReplicas": 0,
            "scheduledReplicas": scheduled,
            "observedGeneration": 1,
            "hpaPodSelector": f"grove.io/podclique={full}",
            "conditions": [
                cond(
                    "MinAvailableBreached",
                    "Unknown" if scheduled < n else ("True" if breached else "False"),
                    t1,
                    "InsufficientScheduledPods"
                    if scheduled < n
                    else ("InsufficientReadyPods" if breached else "SufficientReadyPods"),
                    f"Insufficient ready pods. expected at least: {n}, found: {ready}"
                    if breached
                    else f"Sufficient ready pods found. expected at least: {n}, found: {ready}",
                ),
                cond(
                    "PodCliqueScheduled",
                    "True" if scheduled == n else "False",
                    t1,
                    "SufficientScheduledPods" if scheduled == n else "InsufficientScheduledPods",
                    f"Sufficient scheduled pods found. expected at least: {n}, found: {scheduled}"
                    if scheduled == n
                    else f"Insufficient scheduled pods. expected at least: {n}, found: {scheduled}",
                ),
            ],
        }
        if breached:
            replica_ok = False
        podgroups.append({"name": full, "podReferences": refs, "minReplicas": n})

    for r in range(replicas):
        gang = f"{name}-{r}"
        rl = base | {"grove.io/podcliqueset-replica-index": str(r), "grove.io/podgang": gang}
        pg = obj(c, "scheduler.grove.io/v1alpha1", "PodGang", gang, ns, t=t1, labels=base, owner=pcs)
        podgroups = []
        replica_ok = True

        for cq in cliques:
            clique(pcs, f"{name}-{r}-{cq['name']}", cq, {}, "pcs-podclique", r=r, rl=rl, podgroups=podgroups)
        for g in groups:
            gname = f"{name}-{r}-{g['name']}"
            pcsg = obj(
                c,
                "grove.io/v1alpha1",
                "PodCliqueScalingGroup",
                gname,
                ns,
                t=t1,
                labels=rl | {"app.kubernetes.io/component": "pcs-podcliquescalinggroup"},
                owner=pcs,
            )
            pcsg["spec"] = {
                "replicas": g["replicas"],
                "minAvailable": g["replicas"],
                "cliqueNames": [cq["name"] for cq in g["cliques"]],
            }
            out.children.append(pcsg)
            before = replica_ok
            replica_ok = True
            for j in range(g["replicas"]):
                for cq in g["cliques"]:
                    clique(
                        pcsg,
                        f"{gname}-{j}-{cq['name']}",
                        cq,
                        {
                            "grove.io/podcliquescalinggroup": gname,
                            "grove.io/podcliquescalinggroup-replica-index": str(j),
                        },
                        "pcsg-podclique",
                        r=r,
                        rl=rl,
                        podgroups=podgroups,
                    )
            pcsg["status"] = {
                "replicas": g["replicas"],
                "availableReplicas": g["replicas"] if replica_ok else g["replicas"] - 1,
                "updatedReplicas": g["replicas"],
                "observedGeneration": 1,
                "conditions": [
                    cond(
                        "MinAvailableBreached",
                        "False" if replica_ok else "True",
                        t1,
                        "SufficientAvailablePodCliqueScalingGroupReplicas"
                        if replica_ok
                        else "InsufficientAvailablePodCliqueScalingGroupReplicas",
                        f"Sufficient PodCliqueScalingGroup replicas, expected at least: {g['replicas']}"
                        if replica_ok
                        else "Insufficient PodCliqueScalingGroup replicas, "
                        f"expected at least: {g['replicas']}, found: {g['replicas'] - 1}",
                    )
                ],
            }
            replica_ok = replica_ok and before
        pg["spec"] = {"podgroups": podgroups, "priorityClassName": ""}
        phase = "Pending" if state == "initializing" and r == replicas - 1 else "Running"
        pg["status"] = {
            "phase": phase,
            "conditions": [
                cond(
                    "Scheduled",
                    "True" if phase == "Running" else "False",
                    t1,
                    "AllPodsScheduled" if phase == "Running" else "InsufficientResources",
                )
            ],
        }
        out.children.append(pg)
        gang_statuses.append({"name": gang, "phase": phase})
        available += replica_ok
    pcs["status"] = {
        "replicas": replicas,
        "updatedReplicas": replicas,
        "availableReplicas": available,
        "observedGeneration": 1,
        "hpaPodSelector": f"app.kubernetes.io/part-of={name}",
        "podGangStatuses": gang_statuses,
        "currentGenerationHash": hash_hex(name)[:16],
    }
    return out


def _sample_grove(rng: random.Random, target: int) -> dict[str, Any]:
    g = rng.choice((1, 2, 4))
    return {
        "replicas": rng.choice((1, 1, 2)),
        "frontend": rng.choice((1, 2)),
        "groups": [
            {
                "name": "prefill",
                "replicas": max(1, min(4, target // 8)),
                "leader": 1,
                "workers": rng.choice((1, 3)),
                "gpus": g,
            },
            {
                "name": "decode",
                "replicas": max(1, min(6, target // 6)),
                "leader": 1,
                "workers": rng.choice((1, 3)),
                "gpus": g,
            },
        ],
    }


@framework(
    "grove-podcliqueset",
    weight=2,
    states={"running": 4, "initializing": 1, "degraded": 1},
    names=("disagg-inference", "llm-pipeline", "agentic-serving"),
    sample=_sample_grove,
)
def build_grove(c: Ctx, w: W) -> Built:
    s = w.shape
    img = "vllm/vllm-openai:v0.9.1"
    cliques = [
        {
            "name": "frontend",
            "role": "frontend",
            "replicas": s["frontend"],
            "containers": [container("frontend", "ghcr.io/acme/llm-router:0.6.0", cpu="2", mem="4Gi", ports=[8000])],
        }
    ]
    groups = []
    for g in s["groups"]:
        p = g["name"][0]
        groups.append(
            {
                "name": g["name"],
                "replicas": g["replicas"],
                "cliques": [
                    {
                        "name": f"{p}leader",
                        "role": f"{g['name']}-leader",
                        "replicas": g["leader"],
                        "containers": [container("leader", img, gpus=g["gpus"], cpu="32", mem="256Gi")],
                    },
                    {
                        "name": f"{p}worker",
                        "role": f"{g['name']}-worker",
                        "replicas": g["workers"],
                        "containers": [container("worker", img, gpus=g["gpus"], cpu="32", mem="256Gi")],
                    },
                ],
            }
        )
    return _grove_tree(
        c,
        w.name,
        w.namespace,
        w.created,
        None,
        replicas=s["replicas"],
        cliques=cliques,
        groups=groups,
        state=w.state,
        labels={"app": w.name},
    )


def _sample_dynamo(rng: random.Random, target: int) -> dict[str, Any]:
    nodes = rng.choice((1, 1, 2))
    return {
        "frontend": 1,
        "services": [
            {  # multi-node services become PCSGs: upstream names them short (examples/vllm-disagg-multinode.yaml)
                "name": "VllmPrefillWorker" if nodes == 1 else "prefill",
                "sub": "prefill",
                "replicas": rng.choice((1, 2)),
                "nodes": nodes,
                "gpus": rng.choice((1, 4, 8)),
            },
            {
                "name": "VllmDecodeWorker" if nodes == 1 else "decode",
                "sub": "decode",
                "replicas": max(1, min(12, target // (2 * nodes))),
                "nodes": nodes,
                "gpus": rng.choice((1, 4, 8)),
            },
        ],
    }


@framework(
    "dynamo",
    weight=4,
    states={"running": 5, "initializing": 1, "degraded": 1},
    names=("llama-70b-disagg", "qwen3-disagg", "deepseek-dynamo"),
    sample=_sample_dynamo,
)
def build_dynamo(c: Ctx, w: W) -> Built:
    s, ns, t, name, state = w.shape, w.namespace, w.created, w.name, w.state
    img = s.get("image", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.1")
    model = s.get("model", "Qwen/Qwen3-0.6B")
    dgd = obj(
        c,
        "nvidia.com/v1alpha1",
        "DynamoGraphDeployment",
        name,
        ns,
        t=t,
        annotations={"nvidia.com/enable-grove": "true"},
    )
    services: Obj = {
        "Frontend": {
            "dynamoNamespace": name,
            "componentType": "frontend",
            "replicas": s["frontend"],
            "extraPodSpec": {"mainContainer": {"image": img}},
        }
    }
    for sv in s["services"]:
        spec = {
            "dynamoNamespace": name,
            "envFromSecret": "hf-token-secret",
            "componentType": "worker",
            "subComponentType": sv["sub"],
            "replicas": sv["replicas"],
            "resources": {"limits": {"gpu": str(sv["gpus"])}},
            "extraPodSpec": {
                "mainContainer": {
                    "image": img,
                    "workingDir": "/workspace/examples/backends/vllm",
                    "command": ["python3", "-m", "dynamo.vllm"],
                    "args": ["--model", model, f"--is-{sv['sub']}-worker"],
                }
            },
        }
        if sv["nodes"] > 1:
            spec["multinode"] = {"nodeCount": sv["nodes"]}
        services[sv["name"]] = spec
    # a map in a custom resource: the API server returns its keys sorted (as any dump of it has them)
    dgd["spec"] = {"backendFramework": "vllm", "services": dict(sorted(services.items()))}
    out = Built(dgd)
    front_ct = [container("main", img, cpu="2", mem="8Gi", command=["python3", "-m", "dynamo.frontend"], ports=[8000])]

    def mk(sv: dict[str, Any]) -> list[Obj]:
        return [
            container(
                "main",
                img,
                gpus=sv["gpus"],
                cpu=str(8 * sv["gpus"]),
                mem=f"{64 * sv['gpus']}Gi",
                command=["python3", "-m", "dynamo.vllm"],
                args=["--model", model, f"--is-{sv['sub']}-worker"],
            )
        ]

    cliques = [
        {
            "name": "frontend",
            "role": "frontend",
            "replicas": s["frontend"],
            "containers": front_ct,
            "_svc": "Frontend",
            "_type": "frontend",
        }
    ]
    groups = []
    for sv in s["services"]:
        low = sv["name"].lower()
        if sv["nodes"] > 1:
            groups.append(
                {
                    "name": low,
                    "replicas": sv["replicas"],
                    "_svc": sv["name"],
                    "cliques": [
                        {
                            "name": f"{low}-ldr",
                            "role": "leader",
                            "replicas": 1,
                            "containers": mk(sv),
                            "_svc": sv["name"],
                            "_type": sv["sub"],
                        },
                        {
                            "name": f"{low}-wkr",
                            "role": "worker",
                            "replicas": sv["nodes"] - 1,
                            "containers": mk(sv),
                            "_svc": sv["name"],
                            "_type": sv["sub"],
                        },
                    ],
                }
            )
        else:
            cliques.append(
                {
                    "name": low,
                    "role": "main",
                    "replicas": sv["replicas"],
                    "containers": mk(sv),
                    "_svc": sv["name"],
                    "_type": sv["sub"],
                }
            )
    dl = {"nvidia.com/dynamo-graph-deployment-name": name}
    pcs_name = dynamo_pcs_name(
        name,
        [len(cq["name"]) for cq in cliques]
        + [len(g["name"]) + max(len(cq["name"]) for cq in g["cliques"]) for g in groups],
    )

    def plabels(cq: dict[str, Any]) -> Obj:
        out_l = dl | {
            "nvidia.com/dynamo-component": cq["_svc"],
            "nvidia.com/dynamo-namespace": name,
            "nvidia.com/dynamo-component-type": "frontend" if cq["_type"] == "frontend" else "worker",
            "nvidia.com/selector": f"{name}-{cq['_svc'].lower()}",
            "nvidia.com/metrics-enabled": "true",
            "kai.scheduler/queue": "dynamo",
        }
        if cq["_type"] != "frontend":
            out_l |= {
                "nvidia.com/dynamo-sub-component-type": cq["_type"],
                "nvidia.com/dynamo-component-class": "worker",
                "nvidia.com/dynamo-worker-hash": hash_hex(name + cq["_svc"])[:8],
            }
        return out_l

    sub = _grove_tree(
        c,
        pcs_name,
        ns,
        t + timedelta(seconds=1),
        dgd,
        replicas=1,
        cliques=[dict(cq) for cq in cliques],
        groups=groups,
        state=state,
        labels=dl,
        pod_labels_fn=plabels,
    )
    out.add(sub)
    pclqs = [o for o in sub.children if o["kind"] == "PodClique"]
    pcsgs = [o for o in sub.children if o["kind"] == "PodCliqueScalingGroup"]
    svc_status: Obj = {}
    for cq in cliques:
        pc = next(o for o in pclqs if o["metadata"]["name"] == f"{pcs_name}-0-{cq['name']}")
        svc_status[cq["_svc"]] = {
            "componentKind": "PodClique",
            "componentName": pc["metadata"]["name"],
            "componentNames": [pc["metadata"]["name"]],
            "runtimeNamespace": name,
            "replicas": pc["status"]["replicas"],
            "updatedReplicas": pc["status"]["updatedReplicas"],
            "readyReplicas": pc["status"]["readyReplicas"],
        }
    for g in groups:
        pg = next(o for o in pcsgs if o["metadata"]["name"] == f"{pcs_name}-0-{g['name']}")
        gpus = int(g["cliques"][0]["containers"][0]["resources"]["limits"][GPU])
        size = sum(cq["replicas"] for cq in g["cliques"])
        svc_status[g["_svc"]] = {
            "componentKind": "PodCliqueScalingGroup",
            "componentName": pg["metadata"]["name"],
            "componentNames": [pg["metadata"]["name"]],
            "runtimeNamespace": name,
            "replicas": g["replicas"],
            "updatedReplicas": g["replicas"],
            "availableReplicas": pg["status"]["availableReplicas"],
            "gpusPerEngine": gpus * size,
            "gpusPerReplica": gpus * size,
        }
    t_ready = t + timedelta(minutes=c.rng.randint(5, 25))
    ok = state == "running"
    dgd["status"] = {
        "state": {"running": "successful", "degraded": "failed", "initializing": "pending"}[state],
        "conditions": [
            cond(
                "Ready",
                "True" if ok else "False",
                t_ready,
                "all_resources_are_ready" if ok else "some_resources_are_not_ready",
                "All resources are ready"
                if ok
                else "Resources not ready: "
                + ", ".join(
                    f"{name}: podclique/{o['metadata']['name']}: "
                    f"desired={o['status']['replicas']}, ready={o['status']['readyReplicas']}"
                    for o in pclqs
                    if o["status"]["readyReplicas"] < o["status"]["replicas"]
                ),
            )
        ],
        "services": dict(sorted(svc_status.items())),
        "observedGeneration": 1,
    }
    if state == "degraded":
        dgd["status"]["state"] = "successful"
    return out


# --------------------------------------------------------------------------------------------------------------
# plain Deployment / StatefulSet
# --------------------------------------------------------------------------------------------------------------


@framework(
    "deployment",
    weight=8,
    states={"running": 7, "degraded": 2, "initializing": 1, "pending": 1},
    names=("triton-resnet", "vllm-gateway", "feature-store-api", "jupyterhub", "tei-embeddings", "label-studio"),
    sample=lambda rng, target: {"replicas": max(1, min(24, target)), "gpus": rng.choice((0, 0, 1, 1, 2))},
)
def build_deployment(c: Ctx, w: W) -> Built:
    s = w.shape
    ct = [
        container(
            "server",
            s.get("image", "nvcr.io/nvidia/tritonserver:25.01-py3"),
            gpus=s["gpus"],
            cpu="4",
            mem="16Gi",
            ports=[8000, 8001, 8002],
        )
    ]
    labels = {"app": w.name, "app.kubernetes.io/name": w.name}
    return deploy_tree(
        c,
        w.name,
        w.namespace,
        w.created,
        None,
        replicas=s["replicas"],
        pod_labels=labels,
        containers=ct,
        states=states_for(s["replicas"], w.state, c.rng),
        labels=labels,
        selector={"app": w.name},
        progress_deadline=w.state == "degraded",
    )


@framework(
    "statefulset",
    weight=3,
    states={"running": 5, "degraded": 1, "pending": 1},
    names=("qdrant", "redis-cache", "mlflow-postgres", "kafka"),
    sample=lambda rng, target: {"replicas": rng.choice((1, 3, 3, 5)), "gpus": 0},
)
def build_statefulset(c: Ctx, w: W) -> Built:
    s = w.shape
    ct = [
        container(
            w.name.split("-")[0],
            s.get("image", "qdrant/qdrant:v1.13.4"),
            gpus=s["gpus"],
            cpu="2",
            mem="8Gi",
            ports=[6333],
        )
    ]
    labels = {"app": w.name}
    return sts_tree(
        c,
        w.name,
        w.namespace,
        w.created,
        None,
        replicas=s["replicas"],
        pod_labels=labels,
        containers=ct,
        states=states_for(s["replicas"], w.state, c.rng),
        labels=labels,
    )


# --------------------------------------------------------------------------------------------------------------
# whole-cluster generation
# --------------------------------------------------------------------------------------------------------------

NAMESPACES = (
    "ml-training",
    "ml-serving",
    "research",
    "llm-platform",
    "team-vision",
    "team-nlp",
    "team-recsys",
    "data-eng",
)


def namespace_names(m: int) -> list[str]:
    return [
        NAMESPACES[i] if i < len(NAMESPACES) else f"{NAMESPACES[i % len(NAMESPACES)]}-{i // len(NAMESPACES)}"
        for i in range(m)
    ]


def _namespace(name: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": name,
            "uid": str(uuid.UUID(hash_hex("ns/" + name)[:32], version=4)),
            "creationTimestamp": ts(BASE_TIME - timedelta(days=90)),
            "labels": {"kubernetes.io/metadata.name": name},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def assemble(c: Ctx, workloads: list[W]) -> list[Obj]:
    """Build every workload, then append nodes/namespaces.

    Order: namespaces, nodes, then per workload (top, children, pods)."""
    body: list[Obj] = []
    for w in workloads:
        b = FRAMEWORKS[w.framework].build(c, w)
        body.append(b.workload)
        body.extend(b.children)
        body.extend(b.pods)
    total = c.nodes.total()
    for cd in c.unschedulable:
        cd["message"] = unschedulable_message(total, cd.pop("_gpus"), CONTROL_PLANE_NODES)
    namespaces = sorted({w.namespace for w in workloads})
    return [_namespace(n) for n in namespaces] + c.nodes.objects() + body


SIZE_CALIBRATION = 4.0


def generate(workloads: int, namespaces: int, seed: int, pods_per_workload_target: float = 20) -> list[Obj]:
    """`workloads` top-level workloads spread over `namespaces` namespaces and every framework in FRAMEWORKS."""
    c = Ctx(seed)
    rng = c.rng
    fws = list(FRAMEWORKS.values())
    weights = [f.weight for f in fws]
    nss = namespace_names(max(1, namespaces))
    ws: list[W] = []
    for i in range(workloads):
        fw = (
            fws[i] if i < len(fws) and workloads >= len(fws) else rng.choices(fws, weights)[0]
        )  # every framework at least once
        # sizes are exponential (many small, a few 64-pod jobs); samplers divide the draw among roles/replicas and
        # terminal states drop pods, hence the calibration factor that brings the mean back to the target
        target = max(1, min(64, round(rng.expovariate(1 / (SIZE_CALIBRATION * max(1.0, pods_per_workload_target))))))
        state = rng.choices(list(fw.states), list(fw.states.values()))[0]
        name = f"{rng.choice(fw.names)}-{i:05d}"
        created = BASE_TIME - timedelta(minutes=rng.randint(10, 60 * 24 * 14))
        ws.append(W(fw.name, name, nss[i % len(nss)], state, fw.sample(rng, target), created))
    return assemble(c, ws)


def example_workloads() -> list[W]:
    """The hand-picked snapshot behind src/workload_map/examples/ai-cluster.yaml."""
    T, S = "ml-training", "ml-serving"

    def ago(**kw: float) -> datetime:
        return BASE_TIME - timedelta(**kw)

    return [
        W(
            "jobset",
            "llama3-8b-pretrain",
            T,
            "running",
            {
                "jobs": [
                    {"name": "driver", "replicas": 1, "parallelism": 1, "gpus": 0},
                    {"name": "workers", "replicas": 2, "parallelism": 2, "gpus": 8},
                ]
            },
            ago(hours=7),
        ),
        W("pytorchjob", "resnet-train", T, "completed", {"workers": 2, "gpus": 4}, ago(days=1, hours=3)),
        W("pytorchjob", "bert-finetune", T, "pending", {"workers": 1, "gpus": 8}, ago(minutes=25)),
        W("mpijob", "nccl-allreduce", T, "failed", {"workers": 2, "gpus": 8}, ago(hours=5)),
        W(
            "job",
            "eval-mmlu",
            T,
            "suspended",
            {"parallelism": 2, "completions": 2, "gpus": 1, "indexed": True},
            ago(hours=1),
        ),
        W(
            "rayjob",
            "ray-batch-embed",
            T,
            "running",
            {"groups": [{"name": "gpu-group", "replicas": 2, "numOfHosts": 1, "gpus": 1}]},
            ago(minutes=50),
        ),
        W(
            "raycluster",
            "ray-dev",
            "research",
            "running",
            {
                "groups": [
                    {"name": "gpu-group", "replicas": 1, "numOfHosts": 1, "gpus": 1},
                    {"name": "tpu-like-multihost", "replicas": 1, "numOfHosts": 2, "gpus": 8},
                ]
            },
            ago(days=2),
        ),
        W("leaderworkerset", "vllm-llama-405b", S, "running", {"replicas": 2, "size": 2, "gpus": 8}, ago(days=3)),
        W(
            "kserve-inferenceservice",
            "llama3-8b-chat",
            S,
            "running",
            {"mode": "Standard", "replicas": 2, "gpus": 1, "transformer": False},
            ago(days=4),
        ),
        W(
            "dynamo",
            "llama-70b-disagg",
            S,
            "running",
            {
                "frontend": 1,
                "services": [
                    {"name": "VllmPrefillWorker", "sub": "prefill", "replicas": 1, "nodes": 1, "gpus": 4},
                    {"name": "VllmDecodeWorker", "sub": "decode", "replicas": 2, "nodes": 1, "gpus": 4},
                ],
            },
            ago(days=1),
        ),
        W(
            "knative-service",
            "whisper-transcribe",
            S,
            "running",
            {"replicas": 1, "gpus": 1, "image": "ghcr.io/acme/whisper-large-v3:1.2.0"},
            ago(days=6),
        ),
        W(
            "nimservice",
            "llama-3-1-8b-nim",
            S,
            "initializing",
            {"replicas": 1, "pipeline": 1, "gpus": 1},
            ago(minutes=12),
        ),
        W(
            "deployment",
            "tei-embeddings",
            S,
            "degraded",
            {"replicas": 2, "gpus": 0, "image": "ghcr.io/huggingface/text-embeddings-inference:cpu-1.7"},
            ago(days=9),
        ),
    ]


def generate_example() -> list[Obj]:
    return assemble(Ctx(20250616), example_workloads())


# --------------------------------------------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------------------------------------------

EXAMPLE_HEADER = """\
# A small, realistic snapshot of an AI cluster: workloads of several frameworks with their operator-created
# children (Jobs, ReplicaSets, StatefulSets, RayCluster, PodCliques, ...), their pods and the nodes they run on.
# GENERATED - do not edit by hand. Regenerate with:
#   python bench/gen_cluster.py --example -o src/workload_map/examples/ai-cluster.yaml
"""


def as_list(objects: list[Obj]) -> Obj:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objects}


def dump_yaml(objects: list[Obj], header: str = "") -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return header + yaml.dump(
        as_list(objects), Dumper=dumper, sort_keys=False, default_flow_style=False, width=120, allow_unicode=True
    )


def dump_json(objects: list[Obj]) -> bytes:
    import orjson

    return orjson.dumps(as_list(objects))


def write(objects: list[Obj], path: Path, header: str = "") -> int:
    data = dump_json(objects) if path.suffix == ".json" else dump_yaml(objects, header).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", type=int, default=100)
    ap.add_argument("--namespaces", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pods-per-workload", type=float, default=20)
    ap.add_argument("--example", action="store_true", help="write the built-in example snapshot instead")
    ap.add_argument("-o", "--output", type=Path, required=True, help=".json (orjson) or .yaml/.yml")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    if args.example:
        objects = generate_example()
        header = EXAMPLE_HEADER
    else:
        objects = generate(args.workloads, args.namespaces, args.seed, args.pods_per_workload)
        header = (
            f"# Generated by: python bench/gen_cluster.py --workloads {args.workloads} --namespaces {args.namespaces} "
            f"--seed {args.seed} --pods-per-workload {args.pods_per_workload:g}\n"
        )
    gen = time.perf_counter() - start
    size = write(objects, args.output, header)
    pods = sum(1 for o in objects if o["kind"] == "Pod")
    print(
        f"{args.output}: {len(objects)} objects ({pods} pods), {size} bytes; generated in {gen:.2f}s, "
        f"total {time.perf_counter() - start:.2f}s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
