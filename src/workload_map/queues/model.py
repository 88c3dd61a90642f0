"""The queue model: schedulers' queues, their quotas and usage, and the workloads queued in them.

One vocabulary for three schedulers (docs/queues.md): a :class:`Queue` is a Kueue ClusterQueue, LocalQueue
or Cohort, a KAI Queue or a Volcano Queue; a :class:`QueuedWorkload` is a workload wmap lists with the
queue it names and the scheduler's own verdict on it. Figures a scheduler publishes in its status are
kept apart (``reported``) from those wmap computes from the objects (workloads' admissions, pods), so the
two can be compared.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from workload_map.base.model import Model, field
from workload_map.resolve.resources import is_gpu_resource

Amounts = dict[str, Decimal]  # resource name -> quantity

# Workload admission states, across schedulers (docs/queues.md "Admission").
ADMITTED = "Admitted"  # the scheduler let it run (Kueue Admitted, KAI pods bound, Volcano Inqueue/Running)
RESERVED = "QuotaReserved"  # Kueue: quota reserved, admission checks pending
PENDING = "Pending"  # waiting for quota or room
INACTIVE = "Inactive"  # Kueue: spec.active false (deactivated)
FINISHED = "Finished"
UNKNOWN = "Unknown"  # names a queue, but the scheduler's object for it is not there (yet)
STATES = (ADMITTED, RESERVED, PENDING, INACTIVE, FINISHED, UNKNOWN)


def number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def gpus(amounts: Amounts) -> Decimal:
    return sum((v for k, v in amounts.items() if is_gpu_resource(k)), Decimal(0))


def _amounts_json(amounts: Amounts) -> dict[str, int | float]:
    return {name: number(value) for name, value in sorted(amounts.items())}


def add(into: Amounts, more: Amounts, factor: Decimal = Decimal(1)) -> None:
    for name, value in more.items():
        into[name] = into.get(name, Decimal(0)) + value * factor


class ResourceQuota(Model, frozen=False, kw_only=False):
    """One resource of a queue (of one Kueue flavor; ``flavor`` is "" for KAI and Volcano).

    ``quota``: what the queue is entitled to (Kueue nominalQuota, KAI quota, Volcano deserved); ``limit``:
    the most it may use (Kueue nominalQuota + borrowingLimit, KAI limit, Volcano capability; None: no
    limit); ``guarantee``: Volcano's reserved share; ``lending_limit``: Kueue's lendingLimit.
    ``used``: what wmap computes the queue holds (Kueue: quota reserved by its workloads' admissions; KAI
    and Volcano: requests of its workloads' pods bound to nodes); ``admitted``: Kueue, of admitted
    workloads only; ``borrowed``: ``used`` over ``quota`` when the queue may borrow (a cohort, a parent).
    ``reported_*``: the scheduler's own status (None: it publishes none)."""

    resource: str
    flavor: str = ""
    quota: Decimal | None = None
    limit: Decimal | None = None
    guarantee: Decimal | None = None
    lending_limit: Decimal | None = None
    over_quota_weight: Decimal | None = None
    used: Decimal = Decimal(0)
    admitted: Decimal = Decimal(0)
    borrowed: Decimal = Decimal(0)
    reported_used: Decimal | None = None
    reported_admitted: Decimal | None = None
    reported_borrowed: Decimal | None = None

    def to_json(self) -> dict[str, Any]:
        def opt(value: Decimal | None) -> int | float | None:
            return None if value is None else number(value)

        return {
            "resource": self.resource,
            "flavor": self.flavor,
            "quota": opt(self.quota),
            "limit": opt(self.limit),
            "guarantee": opt(self.guarantee),
            "lendingLimit": opt(self.lending_limit),
            "overQuotaWeight": opt(self.over_quota_weight),
            "used": number(self.used),
            "admitted": number(self.admitted),
            "borrowed": number(self.borrowed),
            "reported": {
                "used": opt(self.reported_used),
                "admitted": opt(self.reported_admitted),
                "borrowed": opt(self.reported_borrowed),
            },
        }


class QueuedWorkload(Model, frozen=False, kw_only=False):
    """A workload and its queue: ``queue`` is the name the workload carries (a Kueue LocalQueue, a KAI or
    Volcano Queue), ``queue_key`` the :attr:`Queue.key` it counts in (a Kueue ClusterQueue) or None when
    that queue is not there. ``state`` is one of :data:`STATES`; ``reason``/``message`` the scheduler's
    own words (a Kueue Workload condition, a KAI PodGroup scheduling condition, a Volcano PodGroup
    condition). ``gpus``: what wmap computes it asks for; ``gpus_in_use``: GPUs of its pods bound to nodes
    and not finished; ``usage``: what it holds of its queue, per flavor and resource (Kueue: its admission's
    resource usage; KAI and Volcano: the requests of its pods bound to nodes)."""

    namespace: str
    kind: str
    group: str
    name: str
    scheduler: str
    queue: str
    queue_key: str | None = None
    state: str = UNKNOWN
    reason: str = ""
    message: str = ""
    status: str = ""  # wmap's primary status
    gpus: Decimal = Decimal(0)
    gpus_in_use: Decimal = Decimal(0)
    usage: dict[str, Amounts] = field(default_factory=dict)  # flavor ("" for KAI and Volcano) -> amounts
    scheduler_object: str = ""  # the object the state is read from: "workload.kueue.x-k8s.io/job-train-1a2b3"

    @property
    def waiting(self) -> bool:
        return self.state in (PENDING, RESERVED, UNKNOWN)

    def to_json(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "kind": self.kind,
            "group": self.group,
            "name": self.name,
            "scheduler": self.scheduler,
            "queue": self.queue,
            "queueKey": self.queue_key,
            "state": self.state,
            "reason": self.reason,
            "message": self.message,
            "status": self.status,
            "gpus": number(self.gpus),
            "gpusInUse": number(self.gpus_in_use),
            "usage": {flavor: _amounts_json(amounts) for flavor, amounts in sorted(self.usage.items())},
            "schedulerObject": self.scheduler_object,
        }


class Queue(Model, frozen=False, kw_only=False):
    """One queue of one scheduler. ``key`` is unique in a report: ``scheduler/kind/name`` for cluster-scoped
    queues, ``scheduler/kind/namespace/name`` for LocalQueues. ``parent`` is the key of the queue above
    (a Cohort, a parent queue, a LocalQueue's ClusterQueue) or None."""

    scheduler: str
    kind: str
    name: str
    namespace: str | None = None
    parent: str | None = None
    resources: list[ResourceQuota] = field(default_factory=list)
    weight: Decimal | None = None  # Volcano weight
    state: str = ""  # Volcano's Open/Closed; Kueue's Active condition reason when not active
    implicit: bool = False  # a Kueue cohort named by ClusterQueues without a Cohort object
    children: list[str] = field(default_factory=list)
    workloads: list[QueuedWorkload] = field(default_factory=list)  # its own and those of queues below
    reported_counts: dict[str, int] = field(default_factory=dict)  # the scheduler's counters (pendingWorkloads...)

    @property
    def key(self) -> str:
        if self.namespace:
            return f"{self.scheduler}/{self.kind}/{self.namespace}/{self.name}"
        return f"{self.scheduler}/{self.kind}/{self.name}"

    def resource(self, name: str, flavor: str = "") -> ResourceQuota:
        for item in self.resources:
            if (item.resource, item.flavor) == (name, flavor):
                return item
        item = ResourceQuota(name, flavor)
        self.resources.append(item)
        return item

    def total(self, attribute: str, *, gpu_only: bool = True) -> Decimal | None:
        """A figure summed over flavors and, with ``gpu_only``, over GPU resources; None if no resource has it."""
        values = [
            getattr(r, attribute)
            for r in self.resources
            if (is_gpu_resource(r.resource) or not gpu_only) and getattr(r, attribute) is not None
        ]
        return sum(values, Decimal(0)) if values else None

    def count(self, state: str) -> int:
        return sum(1 for w in self.workloads if w.state == state)

    @property
    def admitted(self) -> int:
        return sum(1 for w in self.workloads if w.state == ADMITTED)

    @property
    def running(self) -> int:
        return sum(1 for w in self.workloads if w.state == ADMITTED and w.status == "Running")

    @property
    def waiting(self) -> int:
        return sum(1 for w in self.workloads if w.waiting)

    @property
    def gpus_in_use(self) -> Decimal:
        return sum((w.gpus_in_use for w in self.workloads), Decimal(0))

    @property
    def gpus_waiting(self) -> Decimal:
        return sum((w.gpus for w in self.workloads if w.waiting), Decimal(0))

    def to_json(self) -> dict[str, Any]:
        def opt(value: Decimal | None) -> int | float | None:
            return None if value is None else number(value)

        return {
            "key": self.key,
            "scheduler": self.scheduler,
            "kind": self.kind,
            "name": self.name,
            "namespace": self.namespace,
            "parent": self.parent,
            "children": list(self.children),
            "implicit": self.implicit,
            "state": self.state,
            "weight": opt(self.weight),
            "gpus": {
                "quota": opt(self.total("quota")),
                "limit": opt(self.total("limit")),
                "used": opt(self.total("used")),
                "borrowed": opt(self.total("borrowed")),
                "inUse": number(self.gpus_in_use),
                "waiting": number(self.gpus_waiting),
            },
            "workloads": {
                "admitted": self.admitted,
                "running": self.running,
                "waiting": self.waiting,
                "byState": {state: self.count(state) for state in STATES if self.count(state)},
            },
            "reportedCounts": dict(sorted(self.reported_counts.items())),
            "resources": [r.to_json() for r in sorted(self.resources, key=lambda r: (r.flavor, r.resource))],
            "queued": [
                {"namespace": w.namespace, "kind": w.kind, "name": w.name, "state": w.state} for w in self.workloads
            ],
        }


class QueueReport(Model, frozen=False, kw_only=False):
    """Every queue found (hierarchy in ``parent``/``children``), every workload that names a queue, and
    what could not be read or attributed (one line each)."""

    queues: list[Queue] = field(default_factory=list)
    workloads: list[QueuedWorkload] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def queue(self, key: str) -> Queue | None:
        return next((q for q in self.queues if q.key == key), None)

    def find(self, name: str, scheduler: str | None = None) -> list[Queue]:
        """Queues called ``name`` (or ``namespace/name`` for a LocalQueue, or a full key)."""
        out = []
        for queue in self.queues:
            if scheduler is not None and queue.scheduler != scheduler:
                continue
            names = {queue.name, queue.key}
            if queue.namespace:
                names.add(f"{queue.namespace}/{queue.name}")
            if name in names:
                out.append(queue)
        return out

    def roots(self) -> list[Queue]:
        return [q for q in self.queues if q.parent is None or self.queue(q.parent) is None]

    def workload(self, namespace: str, kind: str, name: str) -> QueuedWorkload | None:
        return next((w for w in self.workloads if (w.namespace, w.kind, w.name) == (namespace, kind, name)), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "queues": [q.to_json() for q in self.queues],
            "workloads": [w.to_json() for w in self.workloads],
            "warnings": list(self.warnings),
        }
