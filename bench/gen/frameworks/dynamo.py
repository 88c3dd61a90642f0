"""NVIDIA Dynamo (nvidia.com) DynamoGraphDeployment on its Grove provider."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from ..core import GPU, Built, Ctx, Obj, W, cond, hash_hex, obj
from ..pods import container
from ..registry import framework
from .grove import GROVE_MAX_COMBINED_NAME, grove_tree


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

    sub = grove_tree(
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
