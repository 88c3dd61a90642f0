"""The built-in catalog resolves the built-in example and generated clusters without libjq's worker.

An expression the fast path compiles can still hand one evaluation to libjq at run time (a ``Bail``: a form
whose jq meaning the engine does not settle in-process, such as ``[]?`` applied to several outputs at
once). libjq runs in a worker process, so one such expression anywhere in the catalog costs every ``get``
a process start: the JobSet restart rule written that way made ``get -A`` on 100 workloads ~12% slower.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

import workload_map as wm
from workload_map.jq import program

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "src" / "workload_map" / "examples" / "ai-cluster.yaml"


def _generated(workloads: int, seed: int) -> list[Any]:
    bench = str(REPO / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    objects: list[Any] = importlib.import_module("gen_cluster").generate(workloads, 8, seed, pods_per_workload_target=6)
    return objects


def _example() -> list[Any]:
    with EXAMPLE.open() as handle:
        return [doc for doc in yaml.safe_load_all(handle) if doc]


@pytest.mark.parametrize(
    "objects",
    [
        pytest.param(_example, id="example"),
        *(pytest.param(lambda s=s: _generated(300, s), id=f"seed{s}") for s in (7, 11)),
    ],
)
def test_every_workload_resolves_in_process(objects: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    handed: list[str] = []

    def no_worker(expression: str, value: Any, mode: str) -> list[Any]:
        handed.append(expression)
        raise AssertionError("libjq's worker was asked")

    monkeypatch.setattr(program, "_libjq", no_worker)
    listing = wm.open_objects(objects(), namespace=None).workloads()
    assert listing.workloads
    assert not handed, sorted(set(handed))
