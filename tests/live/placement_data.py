"""Nodes of realistic capacity, pods bound to them and suspended Jobs, for the placement tests on genuine API
servers (tests/live/test_live_placement*.py). The API server takes Node objects without a kubelet."""

from __future__ import annotations

from typing import Any

from tests.live.live_data import create

from workload_map.sources.kube.connection import Connection

GPU = "nvidia.com/gpu"


def gpu_node(name: str, label: str, taints: list[dict[str, str]]) -> dict[str, Any]:
    allocatable = {"cpu": "191450m", "memory": "2097152Mi", "pods": "110", "ephemeral-storage": "3750Gi", GPU: "8"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"placement-test": label, "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
        },
        "spec": {"taints": [{"key": GPU, "value": "present", "effect": "NoSchedule"}, *taints]},
        "status": {
            "capacity": {**allocatable, "cpu": "192"},
            "allocatable": allocatable,
            "conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is ready"}
            ],
        },
    }


def bound_pod(name: str, node: str, gpus: int) -> dict[str, Any]:
    resources = {"requests": {"cpu": "8", "memory": "64Gi"}, "limits": {GPU: str(gpus)}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "nodeName": node,
            "tolerations": [{"key": GPU, "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [{"name": "main", "image": "busybox", "resources": resources}],
        },
    }


def suspended_job(
    name: str, label: str, pods: int, gpus: int, tolerations: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "nodeSelector": {"placement-test": label},
        "containers": [{"name": "main", "image": "trainer:1", "resources": {"limits": {GPU: str(gpus)}}}],
    }
    if tolerations:
        spec["tolerations"] = tolerations
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        # suspended: no controller runs here, and the verdict is about placing it, not its pods
        "spec": {"suspend": True, "parallelism": pods, "completions": pods, "template": {"spec": spec}},
    }


def create_node(conn: Connection, node: dict[str, Any]) -> dict[str, Any]:
    """Create a Node with its status, Ready, carrying exactly its own taints."""
    created = create(conn, node, "nodes", None)
    name = node["metadata"]["name"]
    if not created.get("status", {}).get("allocatable"):  # status is set through its subresource
        conn.request(
            "PATCH", f"/api/v1/nodes/{name}/status", body={"status": node["status"]},
            content_type="application/merge-patch+json",
        )  # fmt: skip
    # The TaintNodesByCondition admission plugin taints a new node not-ready:NoSchedule; the node lifecycle
    # controller of a real cluster lifts it once the node is Ready, here the test does.
    assert "node.kubernetes.io/not-ready" in {t["key"] for t in created["spec"].get("taints", [])}
    return dict(
        conn.request(
            "PATCH", f"/api/v1/nodes/{name}", body={"spec": {"taints": node["spec"]["taints"]}},
            content_type="application/merge-patch+json",
        )
    )  # fmt: skip
