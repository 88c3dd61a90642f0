"""The live model on the genuine API server: the answer of `wmap get -A`, before and after changes, from
projected objects only."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from live_data import admin, create, create_namespace, ensure_crds, eventually, jobset_scenario, owner_ref
from tests.cluster.apiserver import TestCluster

import workload_map as wm
from workload_map.api.definitions import as_definitions
from workload_map.live.model import LiveModel
from workload_map.sources.kube import LiveOptions
from workload_map.sources.kube.connection import Connection

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def setup(test_cluster: TestCluster) -> Iterator[tuple[Connection, str, dict[str, Any], LiveModel]]:
    ensure_crds(test_cluster, "jobsets.jobset.x-k8s.io")
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"model-{secrets.token_hex(3)}")
    scenario = jobset_scenario(conn, ns, running=False)
    model = wm.watch_cluster(kubeconfig=str(test_cluster.kubeconfig_path))
    try:
        yield conn, ns, scenario, model
    finally:
        model.stop()
        conn.close()


def _model_answer(model: LiveModel, ns: str) -> list[dict[str, Any]]:
    return [r.tree.to_json() for r in model.workloads() if r.tree.namespace == ns]


def _get_answer(cluster: TestCluster, ns: str) -> list[dict[str, Any]]:
    view = wm.open_cluster(kubeconfig=str(cluster.kubeconfig_path), all_namespaces=True)
    try:
        return [tree.to_json() for tree in view.workloads(namespace=ns)]
    finally:
        view.close()


def test_the_synced_model_says_what_get_says_and_keeps_no_full_objects(
    test_cluster: TestCluster, setup: tuple[Connection, str, dict[str, Any], LiveModel]
) -> None:
    _conn, ns, _scenario, model = setup
    answer = _get_answer(test_cluster, ns)
    assert [t["workload"]["kind"] for t in answer] == ["JobSet"]
    assert _model_answer(model, ns) == answer
    pods = [o for o in model._forest.objects.values() if o["kind"] == "Pod" and o["metadata"].get("namespace") == ns]
    assert pods
    for pod in pods:  # projected: no volumes, images, commands or service account
        assert not {"volumes", "serviceAccountName", "dnsPolicy"} & set(pod["spec"]), pod
        assert all(set(c) <= {"name", "resources"} for c in pod["spec"]["containers"]), pod
    assert model.source is not None
    assert not list(model.source.snapshot) and not any(listed.items for listed in model.source.lists)


def test_a_child_created_later_takes_the_place_a_fresh_read_gives_it(
    test_cluster: TestCluster, setup: tuple[Connection, str, dict[str, Any], LiveModel]
) -> None:
    conn, ns, jobset, model = setup
    version = model.version
    # Named to sort before the JobSet's other Jobs: a fresh LIST returns it first.
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "aaa-late", "namespace": ns, "ownerReferences": [owner_ref(jobset)]},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}},
    }
    create(conn, job, "jobs", ns)

    def caught_up() -> bool:
        model.wait_for_version(version, timeout=5)
        names = [c["name"] for t in _model_answer(model, ns) for c in t.get("children", [])]
        return "aaa-late" in names

    eventually(caught_up, timeout=30, what="the model sees the new Job")
    answer = _get_answer(test_cluster, ns)
    assert answer[0]["children"][0]["name"] == "aaa-late"
    assert _model_answer(model, ns) == answer


WIDGET_GROUP = "kinds.wmap.test"
WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"widgets.{WIDGET_GROUP}"},
    "spec": {
        "group": WIDGET_GROUP,
        "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                "subresources": {"status": {}},
            }
        ],
    },
}
WIDGET_KARTA = f"""
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {{name: widget-v1}}
spec:
  structureDefinition:
    rootComponent:
      name: widget
      kind: {{group: {WIDGET_GROUP}, version: v1, kind: Widget}}
      specDefinition: {{podTemplateSpecPath: .spec.template}}
      scaleDefinition: {{replicasPath: .spec.replicas}}
      statusDefinition:
        phaseDefinition: {{path: .status.phase}}
        statusMappings:
          running: [{{byPhase: Running}}]
"""


def test_a_kind_installed_while_the_model_runs_is_watched_from_then_on(
    test_cluster: TestCluster, tmp_path: Any
) -> None:
    """The Widget CRD does not exist at start (a gap that no watcher can retry); once it is installed,
    discovery serves it, the model lists and watches it, and the pods created before it take their place."""

    definition = tmp_path / "widget.yaml"
    definition.write_text(WIDGET_KARTA)
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"kind-later-{secrets.token_hex(3)}")
    notices: list[str] = []
    model = LiveModel(
        LiveOptions(
            kubeconfig=str(test_cluster.kubeconfig_path),
            all_namespaces=True,
            definitions=as_definitions([str(definition)]),
        ),
        kind_poll_seconds=0.5,
        on_notice=notices.append,
    )
    model.start()
    try:
        assert any(g.kind == "Widget" for g in model.coverage), list(model.coverage)
        proc = test_cluster.kubectl("apply", "-f", "-", input=json.dumps(WIDGET_CRD))
        assert proc.returncode == 0, proc.stderr
        widget = eventually(
            lambda: create(
                conn,
                {
                    "apiVersion": f"{WIDGET_GROUP}/v1",
                    "kind": "Widget",
                    "metadata": {"name": "w", "namespace": ns},
                    "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}},
                },
                "widgets",
                ns,
            ),
            timeout=30,
            what="the Widget CRD served",
        )
        for i in range(2):
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"w-{i}", "namespace": ns, "ownerReferences": [owner_ref(widget)]},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            }
            create(conn, pod, "pods", ns)

        def widget_tree() -> dict[str, Any] | None:
            # Both pods too: the model can take the Widget in from its new watch before the pods' events reach
            # it (a loaded run compared a pod-less answer with the fresh read below).
            trees = [t for t in _model_answer(model, ns) if t["workload"]["kind"] == "Widget" and len(t["pods"]) == 2]
            return trees[0] if trees and not any(g.kind == "Widget" for g in model.coverage) else None

        tree = eventually(widget_tree, timeout=30, what="the Widget in the model with its gap closed")
        view = wm.open_cluster(
            kubeconfig=str(test_cluster.kubeconfig_path), all_namespaces=True, definitions=[str(definition)]
        )
        try:
            assert [tree] == [t.to_json() for t in view.workloads(namespace=ns)]
        finally:
            view.close()
        assert [p["name"] for p in tree["pods"]] == ["w-0", "w-1"], tree
        eventually(  # notices are sent after the answer they announce is in place
            lambda: any("widgets" in line and "served now" in line for line in notices),
            timeout=10,
            what="a notice that widgets are served now",
        )
    finally:
        model.stop()
        test_cluster.kubectl("delete", "namespace", ns, "--wait=false")
        test_cluster.kubectl("delete", "pods,widgets", "--all", "-n", ns, "--wait=false")
        test_cluster.kubectl("delete", "crd", WIDGET_CRD["metadata"]["name"], "--timeout=60s")
        conn.close()


def test_a_karta_created_or_deleted_while_the_model_runs_is_in_effect_at_once(test_cluster: TestCluster) -> None:
    """Without a definition, the Widget's pods are workloads of their own; a cluster Karta for Widget makes
    them the Widget's, and deleting it makes them pods again: each change reads the cluster again."""
    ensure_crds(test_cluster, "kartas.run.ai")
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"karta-later-{secrets.token_hex(3)}")
    karta = yaml.safe_load(WIDGET_KARTA)
    karta["metadata"]["name"] = f"widget-{ns}"
    proc = test_cluster.kubectl("apply", "-f", "-", input=json.dumps(WIDGET_CRD))
    assert proc.returncode == 0, proc.stderr
    notices: list[str] = []
    model: LiveModel | None = None
    try:
        widget = eventually(
            lambda: create(
                conn,
                {
                    "apiVersion": f"{WIDGET_GROUP}/v1",
                    "kind": "Widget",
                    "metadata": {"name": "w", "namespace": ns},
                    "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}},
                },
                "widgets",
                ns,
            ),
            timeout=30,
            what="the Widget CRD served",
        )
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "w-0", "namespace": ns, "ownerReferences": [owner_ref(widget)]},
            "spec": {"containers": [{"name": "c", "image": "x"}]},
        }
        create(conn, pod, "pods", ns)
        model = wm.watch_cluster(kubeconfig=str(test_cluster.kubeconfig_path), on_notice=notices.append)
        assert [t["workload"]["kind"] for t in _model_answer(model, ns)] == ["Pod"]

        def kinds_are(want: list[str]) -> bool:
            assert model is not None
            return [t["workload"]["kind"] for t in _model_answer(model, ns)] == want

        proc = test_cluster.kubectl("apply", "-f", "-", input=json.dumps(karta))
        assert proc.returncode == 0, proc.stderr
        eventually(lambda: kinds_are(["Widget"]), timeout=30, what="the Widget a workload once its Karta exists")
        assert model.reloads == 1
        assert [p["name"] for p in _model_answer(model, ns)[0]["pods"]] == ["w-0"]
        # the notice is sent once the new answer is in place, so it may come just after it is seen
        eventually(
            lambda: any("kartas.run.ai" in line and "read again" in line for line in notices),
            timeout=10,
            what="a notice of the re-read",
        )
        proc = test_cluster.kubectl("delete", "krt", karta["metadata"]["name"])
        assert proc.returncode == 0, proc.stderr
        eventually(lambda: kinds_are(["Pod"]), timeout=30, what="the pod its own workload once the Karta is gone")
        assert model.reloads == 2
    finally:
        if model is not None:
            model.stop()
        test_cluster.kubectl("delete", "krt", karta["metadata"]["name"], "--ignore-not-found")
        test_cluster.kubectl("delete", "namespace", ns, "--wait=false")
        test_cluster.kubectl("delete", "pods,widgets", "--all", "-n", ns, "--wait=false")
        test_cluster.kubectl("delete", "crd", WIDGET_CRD["metadata"]["name"], "--timeout=60s")
        conn.close()
