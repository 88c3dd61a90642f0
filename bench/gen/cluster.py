"""Whole-cluster generation: ``generate`` (random workloads over every framework) and the hand-picked
example snapshot; namespaces and nodes are added around the workloads.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from .core import BASE_TIME, CONTROL_PLANE_NODES, Ctx, Obj, W, hash_hex, ts
from .frameworks import FRAMEWORKS
from .pods import unschedulable_message

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
        cd["message"] = unschedulable_message(total, cd.pop("sample_gpus"), CONTROL_PLANE_NODES)
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
