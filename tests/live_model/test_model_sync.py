"""The live model's answer: its one-pass initial sync, its per-root re-resolution and `wmap get -A` agree."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from tests.corpus import REPO_ROOT

import workload_map as wm
from gen.cluster import generate
from workload_map.live.model import LiveModel, Resolved


def _generate(workloads: int, namespaces: int, seed: int) -> list[dict[str, Any]]:
    bench = str(REPO_ROOT / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)

    return list(generate(workloads, namespaces, seed))


def _answer(items: list[Resolved]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    return [(r.tree.to_json(), r.gang.to_json() if r.gang else None) for r in items]


@pytest.fixture(scope="module")
def generated() -> tuple[wm.View, LiveModel]:
    view = wm.open_objects(_generate(60, 4, seed=11), namespace=None)
    return view, view.to_model()


def test_the_initial_sync_says_what_get_all_namespaces_says(generated: tuple[wm.View, LiveModel]) -> None:
    view, model = generated
    listing = view.workloads()
    assert len(listing) > 50 and not listing.problems
    assert [r.tree.to_json() for r in model.workloads()] == [tree.to_json() for tree in listing]
    gangs = [view.gang(tree.workload).to_json() for tree in listing]
    assert [r.gang.to_json() if r.gang else None for r in model.workloads()] == gangs
    assert any(g["groups"] for g in gangs)


def test_re_resolving_every_root_alone_gives_the_same_answer(generated: tuple[wm.View, LiveModel]) -> None:
    _view, model = generated
    synced = _answer(model.workloads())
    roots = set(model._forest.root.values())
    assert len(roots) > len(synced)  # Services, ConfigMaps and the like are roots without workloads
    resolves = model.resolves
    model._resolve(roots)  # the path an event takes: one WorkloadIndex per root
    assert model.resolves == resolves + len(roots)
    assert _answer(model.workloads()) == synced


def test_a_workload_under_an_uncovered_owner_is_filed_under_that_root() -> None:
    owner = {
        "apiVersion": "example.com/v1",
        "kind": "Launcher",
        "metadata": {"name": "l", "namespace": "a", "uid": "L"},
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "j",
            "namespace": "a",
            "uid": "J",
            "ownerReferences": [{"apiVersion": "example.com/v1", "kind": "Launcher", "name": "l", "uid": "L"}],
        },
        "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}},
    }
    model = wm.open_objects([owner, job], namespace=None).to_model()
    assert [r.tree.name for r in model.workloads()] == ["j"]
    assert set(model._results) == {"L"}
    model._resolve({"L"})
    assert [r.tree.name for r in model.workloads()] == ["j"]


def test_a_view_of_one_namespace_makes_a_model_of_that_namespace() -> None:
    """`wmap serve -n NS --from-file`: the model holds the view's namespace (and cluster-scoped objects)."""
    example = Path(wm.__file__).parent / "examples" / "ai-cluster.yaml"
    view = wm.open_dump(str(example), namespace="ml-serving")
    served = [(r.tree.namespace, r.tree.name) for r in view.to_model().workloads()]
    assert served == [(t.namespace, t.name) for t in view.workloads()]
    assert served and {ns for ns, _ in served} == {"ml-serving"}
