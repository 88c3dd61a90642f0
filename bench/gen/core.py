"""The generator's core: the build context (one seeded random stream, uids, resourceVersions, pod IPs,
nodes), the workload record ``W``, the built tree ``Built`` and the object/condition constructors.
"""

from __future__ import annotations

import base64
import hashlib
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

Obj = dict[str, Any]


BASE_TIME = datetime(2025, 6, 16, 9, 0, 0, tzinfo=UTC)


_ALNUM = "bcdfghjklmnpqrstvwxz2456789"  # the alphabet Kubernetes uses for generateName / pod-template-hash


GPU = "nvidia.com/gpu"


GPUS_PER_NODE = 8


CPU_PODS_PER_NODE = 48


CONTROL_PLANE_NODES = 3


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
