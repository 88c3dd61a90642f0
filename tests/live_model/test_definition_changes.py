"""DefinitionChanges: only a Karta spec change (a new generation), an added or a deleted Karta is news."""

from __future__ import annotations

import queue
from typing import Any

from workload_map.live.kartas import DefinitionChanges
from workload_map.sources.kube.discovery import ServedResource
from workload_map.sources.kube.fetch import ListResult

KARTAS = ServedResource("run.ai", "v1alpha1", "Karta", "kartas", False)


def _karta(name: str, generation: int, **status: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "generation": generation, "labels": {"x": "y"}}, "status": status}


def test_status_and_label_writes_are_not_changes_a_new_generation_is_announced_once() -> None:
    out: queue.Queue[Any] = queue.Queue()
    changes = DefinitionChanges([_karta("a", 1)], out)
    changes.put(("RELISTED", ListResult(KARTAS, None, [_karta("a", 1, conditions=[{"type": "Ready"}])], "9", 0), ""))
    changes.put(("MODIFIED", _karta("a", 1, conditions=[]), None))
    changes.put(("FAILED", None, RuntimeError("forbidden")))
    assert out.empty() and changes.empty()
    changes.put(("MODIFIED", _karta("a", 2), None))
    changes.put(("ADDED", _karta("b", 1), None))
    assert [out.get_nowait()] == [("DEFINITIONS", None, None)] and out.empty()


def test_an_added_or_deleted_karta_is_a_change() -> None:
    for event in (("ADDED", _karta("b", 1), None), ("DELETED", _karta("a", 1), None)):
        out: queue.Queue[Any] = queue.Queue()
        DefinitionChanges([_karta("a", 1)], out).put(event)
        assert out.get_nowait() == ("DEFINITIONS", None, None)
    out = queue.Queue()
    DefinitionChanges([_karta("a", 1)], out).put(("RELISTED", ListResult(KARTAS, None, [], "9", 0), ""))
    assert out.get_nowait() == ("DEFINITIONS", None, None)
