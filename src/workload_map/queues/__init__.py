"""Queues and quotas of the schedulers present (Kueue, KAI, Volcano) and the workloads queued in them.

A core package: it reads a Snapshot's objects and the workload trees built from it, never a cluster
(docs/queues.md says where every figure comes from).
"""

from workload_map.queues.build import build_queues, queue_names
from workload_map.queues.kinds import QUEUE_GROUPS, QUEUE_KINDS, named_queue
from workload_map.queues.model import STATES, Queue, QueuedWorkload, QueueReport, ResourceQuota

__all__ = [
    "QUEUE_GROUPS",
    "QUEUE_KINDS",
    "STATES",
    "Queue",
    "QueueReport",
    "QueuedWorkload",
    "ResourceQuota",
    "build_queues",
    "named_queue",
    "queue_names",
]
