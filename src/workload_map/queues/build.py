"""The queue report of a snapshot: queues of every scheduler present, workloads attributed to them, figures.

Inputs are a Snapshot's objects and the trees of its top-level workloads (their pods, requests and status);
nothing is read from a cluster here. How each figure is computed is docs/queues.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

from workload_map.base.objects import Obj, group_of, name_of, namespace_of, owner_references
from workload_map.base.snapshot import Snapshot
from workload_map.queues.kinds import KAI_GROUP, KUEUE_GROUP, VOLCANO_GROUP, named_queue
from workload_map.queues.model import (
    ADMITTED,
    FINISHED,
    PENDING,
    RESERVED,
    UNKNOWN,
    Amounts,
    Queue,
    QueuedWorkload,
    QueueReport,
    add,
)
from workload_map.queues.schedulers import (
    kai_pending,
    kai_queues,
    kueue_queues,
    kueue_state,
    kueue_usage,
    spec_queue,
    volcano_queues,
    volcano_state,
)
from workload_map.resolve.pods import PlacedPod
from workload_map.resolve.resources import gpu_count
from workload_map.tree.model import WorkloadTree

Covers = Callable[[str, str], bool]


def build_queues(
    snapshot: Snapshot, trees: Sequence[WorkloadTree], covers: Covers, namespace: str | None = None
) -> QueueReport:
    """Every queue of the snapshot and every top-level workload of ``trees`` that names one (or that a
    scheduler object of the snapshot puts in one). ``covers(group, kind)``: whether a definition covers
    the kind, to find the workload a Kueue Workload or a PodGroup belongs to through its owners;
    ``namespace`` (None: all) narrows the Kueue Workloads no tree owns to the trees' namespace."""
    report = QueueReport()
    warnings = report.warnings
    queues = [
        *kueue_queues(snapshot.of_kind(KUEUE_GROUP, "Cohort"), "Cohort", warnings),
        *kueue_queues(snapshot.of_kind(KUEUE_GROUP, "ClusterQueue"), "ClusterQueue", warnings),
        *kueue_queues(snapshot.of_kind(KUEUE_GROUP, "LocalQueue"), "LocalQueue", warnings),
        *kai_queues(snapshot.of_kind(KAI_GROUP, "Queue"), warnings),
        *volcano_queues(snapshot.of_kind(VOLCANO_GROUP, "Queue"), warnings),
    ]
    by_key = {q.key: q for q in queues}
    for queue in list(queues):  # a cohort named by ClusterQueues needs no Cohort object
        if queue.parent and queue.parent not in by_key and queue.kind == "ClusterQueue":
            cohort = Queue("kueue", "Cohort", queue.parent.rsplit("/", 1)[1], implicit=True)
            by_key[cohort.key] = cohort
            queues.append(cohort)
    report.queues = sorted(queues, key=lambda q: (q.scheduler, q.namespace or "", q.kind, q.name))
    by_key = {q.key: q for q in report.queues}
    for queue in report.queues:
        if queue.parent in by_key:
            by_key[queue.parent].children.append(queue.key)
        elif queue.parent and queue.kind == "LocalQueue":
            warnings.append(f"localqueue {queue.namespace}/{queue.name}: its ClusterQueue {queue.parent} is not there")
            queue.state = queue.state or "ClusterQueueMissing"

    owned = scheduler_objects(snapshot, covers)
    attributed: set[int] = set()
    # as `wmap get -A` sorts them, whichever order the trees were resolved in (a read, the live model)
    for tree in sorted(trees, key=lambda t: (t.namespace, t.name, t.kind)):
        item = _queued(tree, owned, by_key, warnings)
        if item is not None:
            report.workloads.append(item)
            attributed.update(id(o) for o in owned.get(id(tree.workload), []))
    for workload in snapshot.of_kind(KUEUE_GROUP, "Workload"):  # owned by nothing wmap lists
        if id(workload) not in attributed and namespace in (None, namespace_of(workload)):
            report.workloads.append(_kueue_alone(workload, by_key, warnings))
    _usage(report, by_key)
    return report


def queue_names(snapshot: Snapshot, trees: Sequence[WorkloadTree], covers: Covers) -> list[str | None]:
    """The queue each workload of ``trees`` is in, by name (what ``get``'s QUEUE column and ``--queue``
    show), or None: the name :func:`workload_queue` gives, as the report lists it."""
    owned = scheduler_objects(snapshot, covers)
    named = (workload_queue(tree, owned.get(id(tree.workload), [])) for tree in trees)
    return [found[1] if found is not None else None for found in named]


def workload_queue(tree: WorkloadTree, objects: Sequence[Obj]) -> tuple[str, str] | None:
    """(scheduler, queue name) of a workload: the queue it or its pods name (:func:`named_queue`), else the
    one its scheduler objects (``objects``: its Kueue Workload, its PodGroups) name; None when none does."""
    named = named_queue(tree.workload, [p.obj for p in tree.all_pods])
    if named is not None:
        return named
    for scheduler, group in (("kueue", KUEUE_GROUP), ("kai", KAI_GROUP), ("volcano", VOLCANO_GROUP)):
        obj = _of(objects, group, "Workload" if scheduler == "kueue" else "PodGroup")
        queue = spec_queue(obj) if obj is not None else None
        if queue:
            return scheduler, queue
    return None


def scheduler_objects(snapshot: Snapshot, covers: Covers) -> dict[int, list[Obj]]:
    """id(top-level workload) -> its Kueue Workloads and PodGroups, through owner references."""
    out: dict[int, list[Obj]] = {}
    for group, kind in ((KUEUE_GROUP, "Workload"), (KAI_GROUP, "PodGroup"), (VOLCANO_GROUP, "PodGroup")):
        for obj in snapshot.of_kind(group, kind):
            owners = [
                o
                for o in snapshot.owner_chain(obj).owners
                if covers(group_of(str(o.get("apiVersion") or "")), str(o.get("kind") or ""))
            ]
            if owners:
                out.setdefault(id(owners[-1]), []).append(obj)
    return out


def _of(objects: Sequence[Obj], group: str, kind: str) -> Obj | None:
    found = [o for o in objects if (group_of(str(o.get("apiVersion") or "")), o.get("kind")) == (group, kind)]
    return found[-1] if found else None


def _queued(
    tree: WorkloadTree, owned: dict[int, list[Obj]], by_key: dict[str, Queue], warnings: list[str]
) -> QueuedWorkload | None:
    objects = owned.get(id(tree.workload), [])
    kueue_workload = _of(objects, KUEUE_GROUP, "Workload")
    kai_group = _of(objects, KAI_GROUP, "PodGroup")
    volcano_group = _of(objects, VOLCANO_GROUP, "PodGroup")
    named = workload_queue(tree, objects)
    if named is None:
        return None
    scheduler, queue_name = named
    bound = [p for p in tree.all_pods if p.state.active and p.state.node]
    item = QueuedWorkload(
        namespace=tree.namespace,
        kind=tree.kind,
        group=tree.group,
        name=tree.name,
        scheduler=scheduler,
        queue=queue_name,
        status=tree.status.primary.value,
        gpus=tree.gpus,
        gpus_in_use=sum((gpu_count(p.resources.requests) for p in bound), Decimal(0)),
    )
    finished = item.status in ("Completed", "Failed")
    if scheduler == "kueue":
        local = by_key.get(f"kueue/LocalQueue/{item.namespace}/{queue_name}")
        item.queue_key = local.key if local is not None else None
        if kueue_workload is None:
            item.state = FINISHED if finished else UNKNOWN
            item.reason = "" if finished else "NoWorkload"
            item.message = "" if finished else "Kueue has made no Workload object for it (yet)"
        else:
            _read_kueue(item, kueue_workload, by_key, warnings)
        return item
    key = f"{scheduler}/Queue/{queue_name}"
    item.queue_key = key if key in by_key else None
    item.usage = {"": _bound_requests(bound)} if bound else {}
    if finished:
        item.state, item.reason = FINISHED, item.status
    elif scheduler == "kai":
        item.scheduler_object = _object_name(kai_group, "podgroup.scheduling.run.ai")
        if bound:
            item.state, item.reason = ADMITTED, "Scheduled"
        else:
            item.state = PENDING if kai_group is not None else UNKNOWN
            item.reason, item.message = kai_pending(kai_group)
            if kai_group is None:
                item.reason, item.message = "NoPodGroup", "KAI's pod grouper has made no PodGroup for it (yet)"
    elif volcano_group is not None:
        item.scheduler_object = _object_name(volcano_group, "podgroup.scheduling.volcano.sh")
        item.state, item.reason, item.message = volcano_state(volcano_group)
    else:
        item.state = ADMITTED if bound else UNKNOWN
        item.reason = "Scheduled" if bound else "NoPodGroup"
    return item


def _object_name(obj: Obj | None, kind: str) -> str:
    return f"{kind}/{name_of(obj)}" if obj is not None else ""


def _bound_requests(pods: Sequence[PlacedPod]) -> Amounts:
    out: Amounts = {}
    for pod in pods:
        add(out, pod.resources.requests)
    return out


def _read_kueue(item: QueuedWorkload, workload: Obj, by_key: dict[str, Queue], warnings: list[str]) -> None:
    item.scheduler_object = _object_name(workload, "workload.kueue.x-k8s.io")
    item.state, item.reason, item.message = kueue_state(workload)
    cluster_queue, usage = kueue_usage(workload, warnings)
    if item.state in (ADMITTED, RESERVED):
        item.usage = usage
    local = by_key.get(f"kueue/LocalQueue/{item.namespace}/{item.queue}")
    admitted_in = f"kueue/ClusterQueue/{cluster_queue}" if cluster_queue else None
    if local is not None and (admitted_in is None or local.parent == admitted_in):
        item.queue_key = local.key
    elif admitted_in in by_key:  # its LocalQueue is gone or points elsewhere: the quota is the admitting one's
        item.queue_key = admitted_in
    else:
        item.queue_key = None


def _kueue_alone(workload: Obj, by_key: dict[str, Queue], warnings: list[str]) -> QueuedWorkload:
    """A Kueue Workload whose owner is no workload wmap lists (a kind no definition covers, or gone)."""
    refs = owner_references(workload)
    owner = refs[0] if refs else {}
    item = QueuedWorkload(
        namespace=namespace_of(workload),
        kind=str(owner.get("kind") or "Workload"),
        group=group_of(str(owner.get("apiVersion") or "kueue.x-k8s.io/v1beta2")),
        name=str(owner.get("name") or name_of(workload)),
        scheduler="kueue",
        queue=spec_queue(workload) or "",
    )
    _read_kueue(item, workload, by_key, warnings)
    return item


def _usage(report: QueueReport, by_key: dict[str, Queue]) -> None:
    """Workloads into their queue and every queue above it; what they hold into each queue's figures;
    parents' quotas summed from their children where they set none; borrowing."""
    for item in report.workloads:
        key = item.queue_key
        seen: set[str] = set()
        while key is not None and key in by_key and key not in seen:
            seen.add(key)
            queue = by_key[key]
            queue.workloads.append(item)
            if item.state in (ADMITTED, RESERVED):
                for flavor, amounts in item.usage.items():
                    for resource, value in amounts.items():
                        figures = queue.resource(resource, flavor)
                        figures.used += value
                        if item.state == ADMITTED:
                            figures.admitted += value
            key = queue.parent
    for queue in _bottom_up(report.queues, by_key):
        if queue.kind != "Cohort" and not queue.implicit:
            continue
        for child_key in queue.children:  # a cohort's quota is what its members lend it, plus its own
            child = by_key[child_key]
            for figures in child.resources:
                if figures.quota is not None:
                    mine = queue.resource(figures.resource, figures.flavor)
                    mine.quota = (mine.quota or Decimal(0)) + figures.quota
    for queue in report.queues:
        if queue.parent is None or queue.kind == "LocalQueue":
            continue
        for figures in queue.resources:
            if figures.quota is not None and figures.used > figures.quota:
                figures.borrowed = figures.used - figures.quota


def _bottom_up(queues: list[Queue], by_key: dict[str, Queue]) -> list[Queue]:
    depth: dict[str, int] = {}

    def level(queue: Queue) -> int:
        if queue.key not in depth:
            depth[queue.key] = 0  # a cycle stops here
            parent = by_key.get(queue.parent or "")
            depth[queue.key] = level(parent) + 1 if parent is not None else 0
        return depth[queue.key]

    return sorted(queues, key=lambda q: -level(q))
