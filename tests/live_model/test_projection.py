"""The live model's projection loses nothing resolution reads: every tree is the same from projected objects."""

from __future__ import annotations

import copy
import sys
from typing import Any

import pytest
from tests.corpus import CORPUS, REPO_ROOT, corpus_objects

import workload_map as wm
from gen.cluster import generate
from workload_map.api.definitions import builtin_with_warnings
from workload_map.definition.loader import LoadedDefinition, load_text
from workload_map.live.projection import LAST_APPLIED, Projection, pod_expressions, project, project_pod, projection_for


def _generate(workloads: int, namespaces: int, seed: int) -> list[dict[str, Any]]:
    """bench/gen, imported as the benchmarks import it (bench/ on sys.path)."""
    bench = str(REPO_ROOT / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)

    return list(generate(workloads, namespaces, seed))


def _trees(objects: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    listing = wm.open_objects(objects, namespace=None).workloads()
    return [tree.to_json() for tree in listing], listing.problems


def test_a_generated_cluster_resolves_the_same_from_projected_objects() -> None:
    objects = _generate(60, 4, seed=7)
    assert any(o["kind"] == "Pod" for o in objects)
    trees, problems = _trees(objects)
    assert trees and not problems
    assert _trees([project(o) for o in objects]) == (trees, problems)


def _corpus_files() -> list[str]:
    return sorted(str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/live/*.yaml"))


@pytest.mark.parametrize("relative", _corpus_files())
def test_recorded_objects_resolve_the_same_from_projected_objects(relative: str) -> None:
    for case in corpus_objects(relative):  # each recorded object on its own: cases repeat names
        if case.obj.get("kind") == "Pod" and (case.obj.get("metadata") or {}).get("ownerReferences"):
            continue  # an owned pod alone is an orphan, shown projected on purpose (live/projection.py)
        assert _trees([project(copy.deepcopy(case.obj))]) == _trees([case.obj]), case.label


def test_a_pod_keeps_only_what_resolution_reads() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p",
            "namespace": "n",
            "uid": "u",
            "managedFields": [{"manager": "kubelet"}],
            "annotations": {LAST_APPLIED: "{...}", "team": "a"},
        },
        "spec": {
            "nodeName": "node-1",
            "volumes": [{"name": "data"}],
            "containers": [
                {"name": "c", "image": "x", "env": [{"name": "A"}], "resources": {"requests": {"cpu": "1"}}}
            ],
        },
        "status": {"phase": "Running", "containerStatuses": [{"name": "c", "ready": True, "imageID": "sha256:..."}]},
    }
    projected = project_pod(pod)
    assert projected["metadata"] == {"name": "p", "namespace": "n", "uid": "u", "annotations": {"team": "a"}}
    assert projected["spec"] == {
        "nodeName": "node-1",
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
    }
    assert projected["status"] == {"phase": "Running", "containerStatuses": [{"name": "c"}]}


JOBSET = REPO_ROOT / "src" / "workload_map" / "catalog" / "definitions" / "jobset-x-k8s-io-jobset-v1alpha2.yaml"
REPLICA_KEY = """keyPath: '.metadata.labels["jobset.sigs.k8s.io/job-index"]'"""


def _jobset_reading(key_path: str) -> LoadedDefinition:
    """The built-in JobSet definition with its replica key read by ``key_path`` (a user's definition)."""
    text = JOBSET.read_text()
    assert text.count(REPLICA_KEY) == 1
    loaded, findings = load_text(text.replace(REPLICA_KEY, f"keyPath: '{key_path}'").encode(), "jobset.yaml")
    assert not [f for f in findings if f.severity == "error"] and len(loaded) == 1
    return loaded[0]


def test_the_builtin_catalog_needs_nothing_beyond_the_base_projection() -> None:
    builtin, _warnings = _builtin()
    assert pod_expressions(builtin)
    assert projection_for(builtin) == Projection()


def _builtin() -> tuple[list[LoadedDefinition], list[str]]:
    return builtin_with_warnings()


@pytest.mark.parametrize(
    ("key_path", "kept"),
    [
        (".spec.hostname", Projection(extra=frozenset({("spec", "hostname")}))),
        (
            '.spec.containers[0].name + "-" + .spec.hostname',
            Projection(extra=frozenset({("spec", "containers"), ("spec", "hostname")})),
        ),
        ("tojson | length | tostring", Projection(whole_pods=True)),
    ],
)
def test_a_definition_reading_more_of_its_pods_keeps_it(key_path: str, kept: Projection) -> None:
    """A user's JobSet definition keyed on other pod fields: the model keeps them, and every tree of the
    generated cluster is the same from the model as from ``get -A`` over the full objects."""
    definition = _jobset_reading(key_path)
    assert projection_for([*_builtin()[0], definition]) == kept
    view = wm.open_objects(_generate(60, 4, seed=11), [definition], namespace=None)
    listing = view.workloads()
    jobsets = [t for t in listing if t.kind == "JobSet"]
    keys = {
        g["key"]
        for t in jobsets
        for c in t.to_json()["components"]
        for i in c.get("instances", [])
        for g in i.get("replicaGroups", [])
    }
    assert len(keys) > 1  # the replica key really comes from the pods' fields
    assert [r.tree.to_json() for r in view.to_model().workloads()] == [t.to_json() for t in listing]
