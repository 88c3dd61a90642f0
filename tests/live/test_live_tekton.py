"""Tekton PipelineRun and TaskRun against the genuine kube-apiserver with Tekton's own CRDs (read in place
from ../shared/corpus/tekton-pipelinerun/crd/).

No controller runs: the objects are created as Tekton's creates them (pkg/reconciler/pipelinerun createTaskRun,
pkg/pod/pod.go Build): a v1 PipelineRun with an embedded pipeline (a task, a matrix task of two combinations
and a finally task), its TaskRuns ``<run>-<task>[-<index>]`` owned by it and labelled tekton.dev/pipelineRun,
pipelineTask and memberOf, and each TaskRun's pod ``<taskrun>-pod`` carrying those labels plus
tekton.dev/taskRun; beside it a TaskRun of its own with its pod. ``get -A`` shows two rows (the PipelineRun's
TaskRuns are no rows of their own), each pod on its task and TaskRun; ``describe`` reaches the same tree
through the PipelineRun's chain; ``wmap update`` stores the scheduler name in the PipelineRun's
taskRunTemplate and the queue label in its labels, which every task's pods inherit. The CRDs and every
object are removed at the end (the test apiserver runs no garbage collector).
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from live_data import (
    CORPUS,
    admin,
    assert_narrow_read_matches_full,
    create,
    create_namespace,
    eventually,
    live_options,
    owner_ref,
    pod,
    set_pod_running,
)
from tests.cluster.apiserver import TestCluster

from workload_map.api.cluster_update import patch_workload
from workload_map.base.snapshot import key_of
from workload_map.catalog import builtin_definitions
from workload_map.resolve.writes import PodSpecChange, update_workload
from workload_map.sources.kube import live_source
from workload_map.sources.kube.discovery import discover
from workload_map.tree.build import tree_of

pytestmark = pytest.mark.live

CRD_DIR = CORPUS / "tekton-pipelinerun" / "crd"
CRDS = {"taskruns": CRD_DIR / "300-taskrun.yaml", "pipelineruns": CRD_DIR / "300-pipelinerun.yaml"}
GROUP = "tekton.dev"
UID = "6f1c2d3e-0000-4000-8000-0000000000"  # + two digits: the uid labels Tekton stamps


def _step(name: str, image: str, gpus: int = 0) -> dict[str, Any]:
    step: dict[str, Any] = {"name": name, "image": image}
    if gpus:
        step["computeResources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    return step


PIPELINE = {
    "tasks": [
        {"name": "prepare", "taskSpec": {"steps": [_step("fetch", "alpine:3.20")]}},
        {
            "name": "train",
            "matrix": {"params": [{"name": "lr", "value": ["0.1", "0.01"]}]},
            "taskSpec": {"steps": [_step("run", "nvcr.io/nvidia/pytorch:24.05-py3", gpus=1)]},
        },
    ],
    "finally": [{"name": "report", "taskSpec": {"steps": [_step("send", "alpine:3.20")]}}],
}


def _served(cluster: TestCluster) -> set[str]:
    proc = cluster.kubectl("api-resources", "--api-group", GROUP, "-o", "name")
    return {line.split(".", 1)[0] for line in proc.stdout.split()} & set(CRDS)


def _remove(cluster: TestCluster, namespace: str) -> None:
    # No kubelet confirms a bound pod's graceful deletion; deleting the CRDs deletes the Tekton objects.
    cluster.kubectl("delete", "pods", "--all", "-n", namespace, "--grace-period=0", "--force")
    cluster.kubectl("delete", "namespace", namespace, "--wait=false")
    for path in CRDS.values():
        cluster.kubectl("delete", "-f", str(path), "--ignore-not-found", "--wait=true")
    eventually(lambda: not _served(cluster), timeout=60, what="the Tekton CRDs no longer served")
    left = cluster.kubectl("get", "pods", "-n", namespace, "-o", "name").stdout.split()
    assert left == [], left


def _taskrun_pod(conn: Any, taskrun: dict[str, Any], uid: str) -> None:
    """The pod pkg/pod/pod.go Build makes: the TaskRun's labels plus its own, one container per step."""
    namespace = taskrun["metadata"]["namespace"]
    name = taskrun["metadata"]["name"]
    labels = {
        **(taskrun["metadata"].get("labels") or {}),
        "tekton.dev/taskRun": name,
        "tekton.dev/taskRunUID": uid,
        "app.kubernetes.io/managed-by": "tekton-pipelines",
    }
    steps = taskrun["spec"]["taskSpec"]["steps"]
    containers = [{"name": f"step-{s['name']}", "image": s["image"]} for s in steps]
    template = {"spec": {"restartPolicy": "Never", "containers": containers}}
    create(conn, pod(f"{name}-pod", namespace, template, labels, taskrun), "pods", namespace)
    set_pod_running(conn, namespace, f"{name}-pod")


@pytest.fixture(scope="module")
def runs(test_cluster: TestCluster) -> Iterator[dict[str, Any]]:
    for path in CRDS.values():
        proc = test_cluster.kubectl("create", "-f", str(path))
        assert proc.returncode == 0 or "AlreadyExists" in proc.stderr, proc.stderr
    conn = admin(test_cluster)
    eventually(
        lambda: all(discover(conn).served(GROUP, k) for k in ("PipelineRun", "TaskRun")),
        timeout=60,
        what="discovery of the Tekton kinds",
    )
    namespace = create_namespace(conn, f"tekton-{secrets.token_hex(3)}")
    try:
        run = create(
            conn,
            {
                "apiVersion": "tekton.dev/v1",
                "kind": "PipelineRun",
                "metadata": {"name": "nightly", "namespace": namespace, "labels": {"team": "vision"}},
                "spec": {"pipelineSpec": copy.deepcopy(PIPELINE)},
            },
            "pipelineruns",
            namespace,
        )
        # The report (finally) task has not started: its TaskRun and pod do not exist yet.
        children = [("prepare", "nightly-prepare", 0), ("train", "nightly-train-0", 1), ("train", "nightly-train-1", 1)]
        for index, (task, name, position) in enumerate(children):
            labels = {
                "team": "vision",
                "tekton.dev/pipelineRun": "nightly",
                "tekton.dev/pipelineRunUID": run["metadata"]["uid"],
                "tekton.dev/pipelineTask": task,
                "tekton.dev/memberOf": "tasks",
            }
            taskrun = create(
                conn,
                {
                    "apiVersion": "tekton.dev/v1",
                    "kind": "TaskRun",
                    "metadata": {
                        "name": name,
                        "namespace": namespace,
                        "labels": labels,
                        "ownerReferences": [owner_ref(run)],
                    },
                    "spec": {"taskSpec": copy.deepcopy(PIPELINE["tasks"][position]["taskSpec"])},
                },
                "taskruns",
                namespace,
            )
            _taskrun_pod(conn, taskrun, f"{UID}{10 + index}")
        lint = create(
            conn,
            {
                "apiVersion": "tekton.dev/v1",
                "kind": "TaskRun",
                "metadata": {"name": "lint", "namespace": namespace},
                "spec": {"taskSpec": {"steps": [_step("vet", "golang:1.23")]}},
            },
            "taskruns",
            namespace,
        )
        _taskrun_pod(conn, lint, f"{UID}20")
        yield {"namespace": namespace}
    finally:
        conn.close()
        _remove(test_cluster, namespace)


def test_get_all_shows_the_pipelinerun_and_the_lone_taskrun(test_cluster: TestCluster, runs: dict[str, Any]) -> None:
    namespace = runs["namespace"]
    source = live_source(live_options(test_cluster, all_namespaces=True))
    view = source.index()
    mine = sorted(str(key_of(w)) for w in view.workloads(None, namespace))
    # The PipelineRun's TaskRuns are owned by it: no rows of their own.
    assert mine == [f"pipelinerun.tekton.dev/nightly in {namespace}", f"taskrun.tekton.dev/lint in {namespace}"]
    (nightly,) = view.find(source.registry.resolve_type("pipelinerun"), "nightly", namespace)
    tree = tree_of(view, nightly)
    assert tree.warnings == []
    assert {p.name: (p.component, p.instance, p.replica) for p in tree.all_pods} == {
        "nightly-prepare-pod": ("task", "prepare", "nightly-prepare"),
        "nightly-train-0-pod": ("task", "train", "nightly-train-0"),
        "nightly-train-1-pod": ("task", "train", "nightly-train-1"),
    }
    result = tree.to_json()
    assert result["totals"]["pods"]["desired"] == 4  # prepare 1 + train 2 + report 1 (not started)
    assert result["totals"]["gpus"] == 2
    (lint,) = view.find(source.registry.resolve_type("taskrun"), "lint", namespace)
    assert [(p.name, p.component) for p in tree_of(view, lint).all_pods] == [("lint-pod", "taskrun")]
    assert not [w for w in view.warnings if namespace in w], view.warnings
    source.connection.close()


def test_describe_reads_the_chain_and_gives_the_same_tree(test_cluster: TestCluster, runs: dict[str, Any]) -> None:
    must_list = {"pipelineruns", "taskruns", "pods"}
    assert_narrow_read_matches_full(test_cluster, runs["namespace"], "pipelinerun", "nightly", must_list)


def test_update_stores_the_scheduler_name_in_the_taskrun_template(
    test_cluster: TestCluster, runs: dict[str, Any]
) -> None:
    namespace = runs["namespace"]
    source = live_source(live_options(test_cluster, namespace=namespace, describe=("pipelinerun", "nightly")))
    view = source.index()
    (live,) = view.find(source.registry.resolve_type("pipelinerun"), "nightly", namespace)
    [definition] = [d for d in builtin_definitions() if d.name == "tekton-dev-pipelinerun-v1"]
    change = PodSpecChange(scheduler_name="kai-scheduler", labels={"kai.scheduler/queue": "team-a"})
    result = update_workload(definition.karta, live, change=change)
    stored = patch_workload(source.connection, source.discovery, live, result.patch)
    assert stored["spec"]["taskRunTemplate"]["podTemplate"]["schedulerName"] == "kai-scheduler"
    assert stored["metadata"]["labels"] == {"team": "vision", "kai.scheduler/queue": "team-a"}
    source.connection.close()
    again = live_source(live_options(test_cluster, namespace=namespace, describe=("pipelinerun", "nightly"))).index()
    (reread,) = again.find(again.registry.resolve_type("pipelinerun"), "nightly", namespace)
    [task] = [c for c in tree_of(again, reread).to_json()["components"] if c["name"] == "task"]
    assert [i["id"] for i in task["instances"]] == ["prepare", "train", "report"]
    for instance in task["instances"]:
        template = instance["podTemplate"]
        assert template["spec"]["schedulerName"] == "kai-scheduler"
        assert template["metadata"]["labels"]["kai.scheduler/queue"] == "team-a"
