"""A fleet of genuine API servers for the multi-cluster tests: one kubeconfig holding a context per cluster.

Not a conftest: test modules that need a fleet import :func:`start_fleet` and keep the result in one
module-scoped fixture (every API server costs ~100 MB and a share of the machine's two cores).
Objects are created through each API server; Jobs and their pods the way the Job controller makes them
(no controller runs), pods bound to a node with ``spec.nodeName``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from live_data import admin, create, create_many, create_namespace, owner_ref, set_pod_running
from tests.cluster.apiserver import TestCluster
from tests.live.placement_data import create_node, gpu_node


@dataclass
class FleetClusters:
    """Clusters by context name, the kubeconfig naming them all, and the contexts that read as a forbidden user."""

    clusters: dict[str, TestCluster]
    kubeconfig: Path
    forbidden: dict[str, str] = field(default_factory=dict)  # context -> the context of the cluster it reads

    @property
    def contexts(self) -> list[str]:
        return [*self.clusters, *self.forbidden]


def write_kubeconfig(path: Path, clusters: dict[str, TestCluster], forbidden: dict[str, str] | None = None) -> Path:
    """One kubeconfig with a context per cluster (admin user) and, for ``forbidden``, a context that reads
    the named cluster as its user without permissions. The first cluster is the current context."""
    config: dict[str, Any] = {"apiVersion": "v1", "kind": "Config", "clusters": [], "users": [], "contexts": []}
    for name, cluster in clusters.items():
        config["clusters"].append(
            {"name": name, "cluster": {"server": cluster.server, "certificate-authority": str(cluster.ca_path)}}
        )
        config["users"].append({"name": f"{name}-admin", "user": {"token": cluster.admin_token}})
        config["contexts"].append({"name": name, "context": {"cluster": name, "user": f"{name}-admin"}})
    for context, target in (forbidden or {}).items():
        cluster = clusters[target]
        config["users"].append({"name": f"{context}-user", "user": {"token": cluster.restricted_token}})
        config["contexts"].append({"name": context, "context": {"cluster": target, "user": f"{context}-user"}})
    config["current-context"] = next(iter(clusters))
    path.write_text(json.dumps(config, indent=2) + "\n")
    path.chmod(0o600)
    return path


@contextlib.contextmanager
def own_clusters(bin_dir: Path, count: int) -> Iterator[list[TestCluster]]:
    """``count`` new API servers, each with its own etcd, stopped at the end whatever happens."""
    started: list[TestCluster] = []
    try:
        for _ in range(count):
            started.append(TestCluster(bin_dir).start())
        yield started
    finally:
        for cluster in started:
            cluster.stop()


def gpu_nodes(cluster: TestCluster, names: list[str]) -> None:
    """Ready Nodes of 8 GPUs each (no kubelet: the API server takes them as objects)."""

    conn = admin(cluster)
    try:
        for name in names:
            create_node(conn, gpu_node(name, "fleet", []))
    finally:
        conn.close()


def gpu_job(
    cluster: TestCluster, namespace: str, name: str, *, pods: int, gpus: int, running: int, node: str = "gpu-node"
) -> dict[str, Any]:
    """A batch Job of ``pods`` pods of ``gpus`` GPUs each, bound to ``node``; the first ``running`` are Running."""
    conn = admin(cluster)
    try:
        create_namespace(conn, namespace)
        container = {"name": "main", "image": "trainer", "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}
        template = {"spec": {"restartPolicy": "Never", "containers": [container]}}
        job = create(
            conn,
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": name, "namespace": namespace},
                "spec": {"parallelism": pods, "completions": pods, "template": template},
            },
            "jobs",
            namespace,
        )
        uid = job["metadata"]["uid"]
        labels = {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name, "job-name": name}
        pod_objects = [
            (
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"{name}-{i}",
                        "namespace": namespace,
                        "labels": labels,
                        "ownerReferences": [owner_ref(job)],
                    },
                    "spec": {**template["spec"], "nodeName": f"{node}-{i}"},
                },
                "pods",
                namespace,
            )
            for i in range(pods)
        ]
        create_many(conn, pod_objects)
        for i in range(running):
            set_pod_running(conn, namespace, f"{name}-{i}")
        return job
    finally:
        conn.close()
