"""The scheduler kinds the queue model reads, and how a workload names its queue.

A live read lists these kinds when the cluster serves them (``sources/kube/queues.py``); a dump holds them
as any other object. Nothing else in the package depends on a scheduler being installed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workload_map.base.objects import Obj, group_of, meta

KUEUE_GROUP = "kueue.x-k8s.io"
KAI_GROUP = "scheduling.run.ai"
VOLCANO_GROUP = "scheduling.volcano.sh"

# (group, kind, preferred versions newest first, namespaced)
QUEUE_KINDS: tuple[tuple[str, str, tuple[str, ...], bool], ...] = (
    (KUEUE_GROUP, "ClusterQueue", ("v1beta2", "v1beta1"), False),
    (KUEUE_GROUP, "LocalQueue", ("v1beta2", "v1beta1"), True),
    (KUEUE_GROUP, "ResourceFlavor", ("v1beta2", "v1beta1"), False),
    (KUEUE_GROUP, "Cohort", ("v1beta2", "v1alpha1"), False),
    (KUEUE_GROUP, "Workload", ("v1beta2", "v1beta1"), True),
    (KAI_GROUP, "Queue", ("v2",), False),
    (KAI_GROUP, "PodGroup", ("v2alpha2",), True),
    (VOLCANO_GROUP, "Queue", ("v1beta1",), False),
    (VOLCANO_GROUP, "PodGroup", ("v1beta1",), True),
)
QUEUE_GROUPS = frozenset(group for group, *_ in QUEUE_KINDS)

KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KAI_QUEUE_LABEL = "kai.scheduler/queue"
VOLCANO_QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
VOLCANO_JOB = ("batch.volcano.sh", "Job")

SCHEDULERS = ("kueue", "kai", "volcano")


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def named_queue(obj: Obj, pods: Sequence[Obj] = ()) -> tuple[str, str] | None:
    """(scheduler, queue name) a workload carries, or None: Kueue's ``kueue.x-k8s.io/queue-name`` label,
    KAI's ``kai.scheduler/queue`` label (on the workload, else on its pods), Volcano's ``spec.queue`` of a
    Volcano Job or the ``scheduling.volcano.sh/queue-name`` annotation. Kueue first: a workload Kueue admits
    may still be placed by KAI or Volcano, and Kueue's queue is the one that holds it back."""
    labels = meta(obj).get("labels") or {}
    annotations = meta(obj).get("annotations") or {}
    if not isinstance(labels, dict):
        labels = {}
    if not isinstance(annotations, dict):
        annotations = {}
    queue = _string(labels.get(KUEUE_QUEUE_LABEL))
    if queue:
        return "kueue", queue
    queue = _string(labels.get(KAI_QUEUE_LABEL))
    if queue:
        return "kai", queue
    if (group_of(str(obj.get("apiVersion") or "")), obj.get("kind")) == VOLCANO_JOB:
        spec = obj.get("spec")
        queue = _string(spec.get("queue")) if isinstance(spec, dict) else None
        return "volcano", queue or "default"  # Volcano puts a Job without one in its default queue
    queue = _string(annotations.get(VOLCANO_QUEUE_ANNOTATION))
    if queue:
        return "volcano", queue
    for pod in pods:
        pod_labels = meta(pod).get("labels") or {}
        pod_annotations = meta(pod).get("annotations") or {}
        if isinstance(pod_labels, dict) and _string(pod_labels.get(KAI_QUEUE_LABEL)):
            return "kai", str(pod_labels[KAI_QUEUE_LABEL])
        if isinstance(pod_labels, dict) and _string(pod_labels.get(KUEUE_QUEUE_LABEL)):
            return "kueue", str(pod_labels[KUEUE_QUEUE_LABEL])
        if isinstance(pod_annotations, dict) and _string(pod_annotations.get(VOLCANO_QUEUE_ANNOTATION)):
            return "volcano", str(pod_annotations[VOLCANO_QUEUE_ANNOTATION])
    return None
