"""The live model's projection loses nothing resolution reads: every tree is the same from projected objects."""

from __future__ import annotations

import copy
import sys
from typing import Any

import pytest
from tests.corpus import CORPUS, REPO_ROOT, corpus_objects

import workload_map as wm
from workload_map.live.projection import LAST_APPLIED, project, project_pod


def _generate(workloads: int, namespaces: int, seed: int) -> list[dict[str, Any]]:
    """bench/gen, imported as the benchmarks import it (bench/ on sys.path)."""
    bench = str(REPO_ROOT / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    from gen.cluster import generate

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
    assert projected["status"] == {"phase": "Running", "containerStatuses": [{"name": "c", "ready": True}]}
