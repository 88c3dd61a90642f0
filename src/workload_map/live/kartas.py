"""Telling the live model that the cluster's Karta definitions changed.

A Karta watch feeds ``DefinitionChanges`` instead of the model's queue: it keeps each Karta's
``metadata.generation`` (the API server bumps it on spec changes only, so the operator's status and label
writes are not changes) and puts one ``("DEFINITIONS", None, None)`` on the model's queue the first time
the set differs from the one the model was read with. The model then reads the cluster again with the new
definitions (``LiveModel._reload``) and starts a new watch from the new set.
"""

from __future__ import annotations

import queue
from collections.abc import Iterable
from typing import Any

from workload_map.base.objects import Obj


def _generations(kartas: Iterable[Obj]) -> dict[str, Any]:
    return {str((k.get("metadata") or {}).get("name")): (k.get("metadata") or {}).get("generation") for k in kartas}


class DefinitionChanges(queue.Queue[Any]):
    """A queue that keeps nothing: the Karta watcher's events update the current set, and a difference
    from ``baseline`` is announced once on ``out``."""

    def __init__(self, baseline: Iterable[Obj], out: queue.Queue[Any]) -> None:
        super().__init__()
        self.baseline = _generations(baseline)
        self.current = dict(self.baseline)
        self.out = out
        self.announced = False

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        kind, payload, _extra = item
        if kind == "RELISTED":
            self.current = _generations(payload.items)
        elif kind in ("ADDED", "MODIFIED"):
            self.current.update(_generations([payload]))
        elif kind == "DELETED":
            self.current.pop(str((payload.get("metadata") or {}).get("name")), None)
        else:
            return  # FAILED: a Karta watch that cannot read changes nothing; the watcher retries
        if self.current != self.baseline and not self.announced:
            self.announced = True
            self.out.put(("DEFINITIONS", None, None))


__all__ = ["DefinitionChanges"]
