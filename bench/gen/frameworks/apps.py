"""Plain Kubernetes workloads: Deployment and StatefulSet."""

from __future__ import annotations

from ..controllers import deploy_tree, sts_tree
from ..core import Built, Ctx, W
from ..pods import container, states_for
from ..registry import framework


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
