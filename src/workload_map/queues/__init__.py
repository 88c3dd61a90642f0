"""Queues and quotas of the schedulers present (Kueue, KAI, Volcano) and the workloads queued in them.

A core package: it reads a Snapshot's objects and the workload trees built from it, never a cluster
(docs/queues.md says where every figure comes from).

Exports resolve lazily (PEP 562, as ``workload_map``'s do): ``wmap get`` asks which API groups hold queue kinds
(``kinds``) and loads neither the queue model nor its builders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.base.lazy import lazy_exports

if TYPE_CHECKING:
    from workload_map.queues.build import build_queues as build_queues, queue_names as queue_names
    from workload_map.queues.kinds import (
        QUEUE_GROUPS as QUEUE_GROUPS,
        QUEUE_KINDS as QUEUE_KINDS,
        named_queue as named_queue,
    )
    from workload_map.queues.model import (
        STATES as STATES,
        Queue as Queue,
        QueuedWorkload as QueuedWorkload,
        QueueReport as QueueReport,
        ResourceQuota as ResourceQuota,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    "workload_map.queues.build": ("build_queues", "queue_names"),
    "workload_map.queues.kinds": ("QUEUE_GROUPS", "QUEUE_KINDS", "named_queue"),
    "workload_map.queues.model": ("STATES", "Queue", "QueuedWorkload", "QueueReport", "ResourceQuota"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)  # noqa: PLE0605 - derived from the one table above; type checkers read the imports


__getattr__ = lazy_exports(__name__, _MODULE_OF, globals())
