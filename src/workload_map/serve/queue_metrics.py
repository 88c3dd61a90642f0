"""The ``wmap_queue_*`` series of docs/metrics.md: each cluster's last queue report (docs/queues.md).

Labels follow kube-state-metrics' order: ``cluster``, then the object (``scheduler``, ``queue_kind``,
``namespace`` (a LocalQueue's; "" for cluster-scoped queues), ``queue``), then the dimension (``flavor``,
``resource``, ``state``). A figure the queue does not set (no quota, no limit) has no series: absent, never 0.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from prometheus_client.core import GaugeMetricFamily, Metric

if TYPE_CHECKING:
    from workload_map import Queue, QueueReport

QUEUE = ("cluster", "scheduler", "queue_kind", "namespace", "queue")
STATES = ("Admitted", "QuotaReserved", "Pending", "Inactive", "Finished", "Unknown")

# name -> (help, ResourceQuota attribute)
_PER_RESOURCE = {
    "wmap_queue_quota": ("What the queue is entitled to: Kueue nominalQuota, KAI quota, Volcano deserved.", "quota"),
    "wmap_queue_limit": (
        "The most the queue may use: Kueue nominalQuota + borrowingLimit (the quota without a cohort), KAI limit, "
        "Volcano capability.",
        "limit",
    ),
    "wmap_queue_guarantee": ("Volcano's guarantee: reserved for the queue, never lent.", "guarantee"),
    "wmap_queue_used": (
        "What the queue's workloads hold: Kueue the quota reserved by their admissions; KAI and Volcano the "
        "requests of their pods bound to nodes (the queues below it included).",
        "used",
    ),
    "wmap_queue_borrowed": ("Used over quota, for a queue in a cohort or under a parent queue.", "borrowed"),
    "wmap_queue_reported_used": (
        "The scheduler's own figure of what the queue uses: Kueue flavorsReservation, KAI and Volcano "
        "status.allocated.",
        "reported_used",
    ),
}


def _labels(cluster: str, queue: Queue) -> list[str]:
    return [cluster, queue.scheduler, queue.kind, queue.namespace or "", queue.name]


def queue_families(reports: Mapping[str, QueueReport]) -> Iterator[Metric]:
    """One family per name over every cluster's report (cluster -> its last report)."""
    per_resource = {
        name: GaugeMetricFamily(name, text, labels=[*QUEUE, "flavor", "resource"])
        for name, (text, _) in _PER_RESOURCE.items()
    }
    info = GaugeMetricFamily(
        "wmap_queue_info", "One series per queue (value 1), with its parent queue's key.", labels=[*QUEUE, "parent"]
    )
    workloads = GaugeMetricFamily(
        "wmap_queue_workloads",
        "Workloads in the queue (and the queues below it) by admission state (docs/queues.md).",
        labels=[*QUEUE, "state"],
    )
    waiting = GaugeMetricFamily(
        "wmap_queue_gpus_waiting", "GPUs the queue's waiting workloads ask for.", labels=list(QUEUE)
    )
    in_use = GaugeMetricFamily(
        "wmap_queue_gpus_in_use",
        "GPUs of the queue's workloads' pods bound to nodes and not finished.",
        labels=list(QUEUE),
    )
    for cluster, report in sorted(reports.items()):
        for queue in report.queues:
            labels = _labels(cluster, queue)
            info.add_metric([*labels, queue.parent or ""], 1)
            for state in STATES:
                workloads.add_metric([*labels, state], queue.count(state))
            waiting.add_metric(labels, float(queue.gpus_waiting))
            in_use.add_metric(labels, float(queue.gpus_in_use))
            for figures in queue.resources:
                for name, (_, attribute) in _PER_RESOURCE.items():
                    value = getattr(figures, attribute)
                    if value is not None:
                        per_resource[name].add_metric([*labels, figures.flavor, figures.resource], float(value))
    yield info
    yield from per_resource.values()
    yield workloads
    yield waiting
    yield in_use
