"""`wmap definitions new --kind` against the genuine apiserver: a corpus CRD the draft is made from,
an instance, and pods owned through Deployments and ReplicaSets (and, for workers, a second custom
resource), as the Dask operator builds them (../shared/corpus/dask-cluster/FACTS.md)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from tests.cluster.apiserver import TestCluster
from tests.live.live_data import CORPUS, admin, create, create_namespace, eventually, owner_ref, pod

import workload_map as wm
from workload_map.cli.main import cli

DASK = CORPUS / "dask-cluster"
GROUP = "kubernetes.dask.org"


def _install(cluster: TestCluster, crd: Path, name: str) -> None:
    proc = cluster.kubectl("create", "-f", str(crd))
    assert proc.returncode == 0 or "AlreadyExists" in proc.stderr, proc.stderr
    conn = admin(cluster)
    try:
        eventually(lambda: conn.get(f"/apis/{GROUP}/v1/{name}", {"limit": 1}) is not None, timeout=60, what=name)
    finally:
        conn.close()


def _remove_crds(cluster: TestCluster) -> None:
    """Delete the Dask CRDs (and so their objects) and wait until the group is no longer served."""
    cluster.kubectl("delete", "crd", f"daskclusters.{GROUP}", f"daskworkergroups.{GROUP}", "--ignore-not-found")
    eventually(
        lambda: GROUP not in cluster.kubectl("api-resources", "--api-group", GROUP).stdout,
        timeout=60,
        what="the Dask CRDs no longer served",
    )


def _owned(obj: dict[str, Any], owner: dict[str, Any]) -> dict[str, Any]:
    obj["metadata"]["ownerReferences"] = [owner_ref(owner)]
    return obj


def _chain(conn: Any, namespace: str, owner: dict[str, Any], name: str, labels: dict[str, str]) -> dict[str, Any]:
    """Deployment -> ReplicaSet owned by ``owner``; returns the ReplicaSet (pods are created by the caller)."""
    selector = {"matchLabels": labels}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "x", "image": "busybox"}]}}
    deployment = create(
        conn,
        _owned(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": name},
                "spec": {"replicas": 1, "selector": selector, "template": template},
            },
            owner,
        ),
        "deployments",
        namespace,
    )
    return create(
        conn,
        _owned(
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {"name": f"{name}-5d8f"},
                "spec": {"replicas": 1, "selector": selector, "template": template},
            },
            deployment,
        ),
        "replicasets",
        namespace,
    )


@pytest.fixture
def dask_cluster(test_cluster: TestCluster) -> Iterator[tuple[str, list[str]]]:
    _install(test_cluster, DASK / "crd" / "daskcluster.yaml", "daskclusters")
    _install(test_cluster, DASK / "crd" / "daskworkergroup.yaml", "daskworkergroups")
    namespace = f"authoring-{uuid.uuid4().hex[:6]}"
    conn = admin(test_cluster)
    try:
        create_namespace(conn, namespace)
        example = yaml.safe_load((DASK / "examples" / "simplecluster.yaml").read_text())
        root = create(conn, example, "daskclusters", namespace)
        group = create(
            conn,
            _owned(
                {
                    "apiVersion": f"{GROUP}/v1",
                    "kind": "DaskWorkerGroup",
                    "metadata": {"name": "simple-default", "labels": {"dask.org/component": "workergroup"}},
                    "spec": {"cluster": "simple", "worker": example["spec"]["worker"]},
                },
                root,
            ),
            "daskworkergroups",
            namespace,
        )
        scheduler_labels = {"dask.org/cluster-name": "simple", "dask.org/component": "scheduler"}
        rs = _chain(conn, namespace, root, "simple-scheduler", scheduler_labels)
        names = ["simple-scheduler-5d8f-abcde"]
        create(conn, pod(names[0], namespace, example["spec"]["scheduler"], scheduler_labels, rs), "pods", namespace)
        for i in range(2):
            labels = {
                "dask.org/cluster-name": "simple",
                "dask.org/component": "worker",
                "dask.org/workergroup-name": "simple-default",
            }
            worker_rs = _chain(conn, namespace, group, f"simple-default-worker-{i}", labels)
            names.append(f"simple-default-worker-{i}-5d8f-x{i}")
            create(conn, pod(names[-1], namespace, example["spec"]["worker"], labels, worker_rs), "pods", namespace)
        # a pod of nobody's and one of another owner: the walk must leave them out
        create(conn, pod("stray", namespace, {}, {"dask.org/component": "worker"}, None), "pods", namespace)
        yield namespace, names
    finally:
        # The test apiserver runs no namespace controller and the catalog covers Dask: objects or CRDs left
        # behind would become gaps or orphans in the cluster-wide reads of the modules after this one.
        test_cluster.kubectl("delete", "deployments,replicasets,pods", "--all", "-n", namespace, "--wait=false")
        test_cluster.kubectl("delete", "namespace", namespace, "--wait=false")
        _remove_crds(test_cluster)
        conn.close()


def test_kind_reads_the_crd_and_walks_owners_from_the_pods_up(
    test_cluster: TestCluster, dask_cluster: tuple[str, list[str]], tmp_path: Path
) -> None:
    namespace, _pods = dask_cluster
    result = CliRunner().invoke(
        cli,
        [
            "definitions",
            "new",
            "--kind",
            f"DaskCluster.{GROUP}",
            "-n",
            namespace,
            "--kubeconfig",
            str(test_cluster.kubeconfig_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "from 1 sample object(s) and 3 pod(s)" in result.stderr
    draft = yaml.safe_load(result.stdout)
    children = {c["name"]: c for c in draft["spec"]["structureDefinition"]["childComponents"]}
    assert children["scheduler"]["kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert children["worker"]["kind"] == {"group": GROUP, "version": "v1", "kind": "DaskWorkerGroup"}
    assert children["worker"]["podSelector"]["componentTypeSelector"] == {
        "keyPath": '.metadata.labels["dask.org/component"]',
        "value": "worker",
    }
    assert "DaskCluster -> DaskWorkerGroup -> Deployment -> ReplicaSet -> Pod" in result.stdout
    assert "ReplicaSet is covered by the catalog's apps-replicaset-v1" in result.stdout
    # the draft, unedited, reads the live instance: every pod on its role, the counts from the object
    path = tmp_path / "draft.yaml"
    path.write_text(result.stdout)
    (definition,) = wm.validate_definitions([str(path)]).definitions
    kubeconfig = str(test_cluster.kubeconfig_path)
    with wm.open_cluster(kubeconfig=kubeconfig, namespace=namespace, definitions=[definition]) as view:
        (workload,) = list(view.workloads(f"daskclusters.{GROUP}"))
        tree = workload.to_json()
    per_component = {c["name"]: sum(i["desiredPods"] for i in c["instances"]) for c in tree["components"]}
    assert per_component["scheduler"] == 1 and per_component["worker"] == 2
    placed = sorted((p["component"], p["name"]) for p in tree["pods"])
    assert [c for c, _ in placed] == ["scheduler", "worker", "worker"]
    assert tree["unattributed"] == []


def test_a_kind_without_crd_is_one_error(test_cluster: TestCluster) -> None:
    result = CliRunner().invoke(
        cli,
        ["definitions", "new", "--kind", "Nothing.example.com", "--kubeconfig", str(test_cluster.kubeconfig_path)],
    )
    assert result.exit_code == 1
    assert "no CustomResourceDefinition for Nothing.example.com in the cluster" in result.stderr
    assert "Traceback" not in result.output


def test_kind_without_instances_drafts_from_the_crd_alone(test_cluster: TestCluster) -> None:
    _install(test_cluster, DASK / "crd" / "daskworkergroup.yaml", "daskworkergroups")
    conn = admin(test_cluster)
    namespace = create_namespace(conn, f"authoring-empty-{uuid.uuid4().hex[:6]}")
    conn.close()
    try:
        made = wm.draft_from_cluster(
            f"daskworkergroups.{GROUP}", kubeconfig=str(test_cluster.kubeconfig_path), namespace=namespace
        )
    finally:
        test_cluster.kubectl("delete", "namespace", namespace, "--wait=false")
        _remove_crds(test_cluster)
    assert (made.samples, made.pods) == (0, 0)
    (worker,) = made.karta["spec"]["structureDefinition"]["childComponents"]
    assert worker["specDefinition"] == {"podTemplateSpecPath": ".spec.worker"}
    assert f"the CRD daskworkergroups.{GROUP} in the cluster" in made.text
