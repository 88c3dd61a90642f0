"""The workload tree: root -> components -> instances -> replica groups -> pods, and its JSON form.

The JSON form (``WorkloadTree.to_json``) is a documented contract (docs/tree-json.md): field names are
stable within a minor version, so scripts and dashboards can rely on them.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

from workload_map.base.model import Model, field
from workload_map.base.objects import group_of, meta, name_of, namespace_of, version_of
from workload_map.definition.model import GroupVersionKind
from workload_map.resolve.components import Component, Instance
from workload_map.resolve.pods import PlacedPod
from workload_map.resolve.resources import Requests, gpu_count, json_number, pod_resources, scale, sum_requests, to_json
from workload_map.resolve.status import StatusResult
from workload_map.tree.figures import figures_of

TREE_API_VERSION = "workload-map/v1alpha1"


class PodCounts(Model, frozen=False, kw_only=False):
    desired: int = 0
    current: int = 0
    ready: int = 0
    # Desired pods that are Ready or have done their part: Ready pods, plus Succeeded pods for the desired
    # slots no Ready pod fills (docs/semantics.md, "Pod counts of finished pods"). ``get``'s PODS column.
    done: int = 0
    running: int = 0
    pending: int = 0
    succeeded: int = 0
    failed: int = 0

    def add_pod(self, pod: PlacedPod) -> None:
        self.current += 1
        self.ready += pod.state.ready
        self.done += pod.state.ready
        self.running += pod.state.phase == "Running"
        self.pending += pod.state.pending
        self.succeeded += pod.state.phase == "Succeeded"
        self.failed += pod.state.failed

    def merge(self, other: PodCounts) -> None:
        for name in self.FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_json(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.FIELDS}


class InstanceNode(Model, frozen=False, kw_only=False):
    """One component instance with the pods that exist for it.

    ``workload_finished``: the workload's primary status is Completed or Failed, so none of its desired
    pods will run again.
    """

    instance: Instance
    pods: list[PlacedPod] = field(default_factory=list)
    workload_finished: bool = False

    @property
    def per_pod_requests(self) -> Requests:
        template = self.instance.template
        spec = template.get("spec") if template else None
        return pod_resources(spec if isinstance(spec, dict) else None).requests

    @property
    def requesting_pods(self) -> int:
        """Desired pods that still request resources while the workload runs: the desired pods less those a
        Succeeded pod has done, counting a Succeeded pod only for a slot no active pod holds (a Job's
        completions run one parallelism at a time). Kubernetes counts no requests for Succeeded or Failed
        pods."""
        desired = self.instance.desired_pods
        active = sum(1 for p in self.pods if p.state.active)
        succeeded = sum(1 for p in self.pods if p.state.phase == "Succeeded")
        return desired - min(succeeded, max(desired - active, 0))

    @property
    def desired_requests(self) -> Requests:
        """What the instance requests: a finished workload (Completed, Failed) wants no new pod, so only
        its pods still active (a crash-looping server of a Failed service) request anything."""
        if self.workload_finished:
            return self.current_requests
        return scale(self.per_pod_requests, self.requesting_pods)

    @property
    def current_requests(self) -> Requests:
        return sum_requests(p.resources.requests for p in self.pods if p.state.active)

    @property
    def counts(self) -> PodCounts:
        counts = PodCounts(desired=self.instance.desired_pods)
        for pod in self.pods:
            counts.add_pod(pod)
        counts.done += min(counts.succeeded, max(counts.desired - counts.ready, 0))
        return counts

    @property
    def nodes(self) -> list[str]:
        return sorted({p.state.node for p in self.pods if p.state.node})

    def replica_groups(self) -> dict[str | None, list[PlacedPod]]:
        groups: dict[str | None, list[PlacedPod]] = {}
        for pod in sorted(self.pods, key=_pod_order):
            groups.setdefault(pod.replica, []).append(pod)
        return groups

    def to_json(self) -> dict[str, Any]:
        counts = self.counts
        pending = Counter(p.state.pending_reason for p in self.pods if p.state.pending and p.state.pending_reason)
        return {
            "id": self.instance.id,
            "replicas": self.instance.scale.to_json(),
            "desiredPods": self.instance.desired_pods,
            "podTemplate": self.instance.template,
            "resources": {
                "perPod": to_json(self.per_pod_requests),
                "desired": to_json(self.desired_requests),
                "current": to_json(self.current_requests),
            },
            "gpus": {
                "perPod": json_number(gpu_count(self.per_pod_requests)),
                "desired": json_number(gpu_count(self.desired_requests)),
                "current": json_number(gpu_count(self.current_requests)),
            },
            "pods": counts.to_json(),
            "pendingReasons": dict(sorted(pending.items())),
            "nodes": self.nodes,
            "replicaGroups": [
                {"key": key, "pods": [p.name for p in pods], "ready": sum(p.state.ready for p in pods)}
                for key, pods in self.replica_groups().items()
            ],
        }


def _pod_order(pod: PlacedPod) -> tuple[str, str]:
    return (pod.replica or "", pod.name)


class ComponentNode(Model, frozen=False, kw_only=False):
    component: Component
    instances: list[InstanceNode]

    @property
    def name(self) -> str:
        return self.component.name

    @property
    def counts(self) -> PodCounts:
        total = PodCounts()
        for view in self.instances:
            total.merge(view.counts)
        return total

    def to_json(self) -> dict[str, Any]:
        kind: GroupVersionKind | None = self.component.definition.kind
        return {
            "name": self.name,
            "kind": kind.to_json() if kind else None,
            "parent": self.component.parent,
            "depth": self.component.depth,
            "producesPods": self.component.has_pods,
            "error": self.component.error,
            "instances": [i.to_json() for i in self.instances],
            "pods": self.counts.to_json(),
        }


class DefinitionRef(Model, frozen=False, kw_only=False):
    name: str
    origin: str  # builtin | file | cluster
    source: str
    version: str  # the definition's root version (may differ from the workload's)

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "origin": self.origin, "source": self.source, "version": self.version}


class WorkloadTree(Model, frozen=False, kw_only=False):
    workload: dict[str, Any]
    definition: DefinitionRef
    status: StatusResult
    components: list[ComponentNode]
    unattributed: list[PlacedPod]
    warnings: list[str]
    children: list[dict[str, Any]] = field(default_factory=list)  # owned workloads shown under this one
    # Why the pods and parts read may not be all there are (a kind or namespace the read could not see):
    # counts are then unknown, not zeros, and the status is marked incomplete.
    incomplete: list[str] = field(default_factory=list)

    # -- identity
    @property
    def kind(self) -> str:
        return str(self.workload.get("kind") or "")

    @property
    def api_version(self) -> str:
        return str(self.workload.get("apiVersion") or "")

    @property
    def group(self) -> str:
        return group_of(self.api_version)

    @property
    def name(self) -> str:
        return name_of(self.workload)

    @property
    def namespace(self) -> str:
        return namespace_of(self.workload)

    # -- aggregates
    @property
    def pods(self) -> list[PlacedPod]:
        return [p for c in self.components for i in c.instances for p in i.pods]

    @property
    def all_pods(self) -> list[PlacedPod]:
        return self.pods + self.unattributed

    @property
    def counts(self) -> PodCounts:
        total = PodCounts()
        for component in self.components:
            total.merge(component.counts)
        for pod in self.unattributed:
            total.add_pod(pod)
        return total

    @property
    def desired_requests(self) -> Requests:
        return sum_requests(i.desired_requests for c in self.components for i in c.instances)

    @property
    def current_requests(self) -> Requests:
        return sum_requests(p.resources.requests for p in self.all_pods if p.state.active)

    @property
    def gpus(self) -> Decimal:
        return gpu_count(self.desired_requests)

    def role_summary(self) -> list[tuple[str, int]]:
        """(role, desired pods) for every pod-producing component instance: what users call roles."""
        roles = []
        for view in self.components:
            if not view.component.has_pods:
                continue
            for instance_view in view.instances:
                label = instance_view.instance.id if instance_view.instance.id is not None else view.name
                roles.append((label, instance_view.instance.desired_pods))
        return roles

    def to_json(self) -> dict[str, Any]:
        metadata = meta(self.workload)
        counts = self.counts
        figures = figures_of(self)
        return {
            "apiVersion": TREE_API_VERSION,
            "kind": "WorkloadTree",
            "workload": {
                "apiVersion": self.api_version,
                "kind": self.kind,
                "group": self.group,
                "version": version_of(self.api_version),
                "namespace": self.namespace,
                "name": self.name,
                "uid": metadata.get("uid"),
                "creationTimestamp": metadata.get("creationTimestamp"),
            },
            "definition": self.definition.to_json(),
            "status": {"reason": figures.reason, **self.status.to_json()},
            "components": [c.to_json() for c in self.components],
            "pods": [p.to_json() for p in sorted(self.pods, key=lambda p: (p.component or "", p.name))],
            "unattributed": [
                {**p.to_json(), "reason": p.unattributed_reason}
                for p in sorted(self.unattributed, key=lambda p: p.name)
            ],
            "children": [
                {"apiVersion": c.get("apiVersion"), "kind": c.get("kind"), "name": name_of(c)} for c in self.children
            ],
            "totals": {
                "pods": _pod_totals(counts, self.incomplete),
                "gpus": json_number(self.gpus),
                "gpusDesired": json_number(figures.gpus_desired),  # the figure's name; ``gpus`` is the same
                "gpusCurrent": json_number(gpu_count(self.current_requests)),
                "gpusInUse": None if figures.gpus_in_use is None else json_number(figures.gpus_in_use),
                "problems": figures.problems,
                "requests": to_json(self.desired_requests),
                "currentRequests": to_json(self.current_requests),
            },
            "warnings": list(self.warnings),
            **({"incomplete": list(self.incomplete)} if self.incomplete else {}),
        }


def _pod_totals(counts: PodCounts, incomplete: list[str]) -> dict[str, int | None]:
    """Counts of pods seen; with part of the cluster unread only ``desired`` is known (the spec says it),
    the others are null, never the zeros of pods that could not be seen."""
    totals: dict[str, int | None] = dict(counts.to_json())
    if incomplete:
        totals.update({k: None for k in totals if k != "desired"})
    return totals
