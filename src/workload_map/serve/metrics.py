"""The Prometheus exposition of a LiveModel: the versioned interface of docs/metrics.md.

A custom collector reads the model's current answer at every scrape, so a workload that disappears
takes its series with it (no stale series to expire) and every scrape is one consistent state.

What the model cannot read is never exported as a number: a workload whose pods or parts lie in a gap
has ``wmap_workload_incomplete`` series and no series of the counts that are unknown (only ``desired``,
which its spec says), so sums over them are not silently low; the gaps are series of their own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from decimal import Decimal
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.registry import Collector

from workload_map import PodCounts, ResourceStatus, __version__, figures_of
from workload_map.ports.present import gpu_count, holds_gpus
from workload_map.serve.queue_metrics import queue_families

if TYPE_CHECKING:
    from workload_map import WorkloadTree
    from workload_map.ports.live import LiveReader, Resolved
    from workload_map.serve.fleet import Clusters

METRICS_VERSION = "2"  # 2: every series but wmap_build_info carries `cluster`
STATUSES = tuple(status.value for status in ResourceStatus)
POD_STATES = ("desired", "ready", "done", "running", "pending", "succeeded", "failed")
WORKLOAD = ("namespace", "workload_kind", "workload")


def _workload_labels(tree: WorkloadTree) -> list[str]:
    return [tree.namespace, tree.kind, tree.name]


def _gpus(value: Decimal) -> float:
    return float(value)


class FleetCollector(Collector):
    """The series of every cluster's model, each sample with ``cluster`` (the context name) as its first
    label, one family per name; ``wmap_cluster_up`` says which clusters are served (0: not read, and why
    in ``wmap serve``'s warnings and ``/api/v1/fleet``). One cluster is a fleet of one."""

    def __init__(self, clusters: Clusters) -> None:
        self.clusters = clusters  # read at every scrape: a cluster that joins later is exported from then on

    def collect(self) -> Iterator[Metric]:
        build = InfoMetricFamily("wmap_build", "The exporter's version and the metrics interface version.")
        build.add_metric([], {"version": __version__, "metrics_version": METRICS_VERSION})
        yield build
        up = GaugeMetricFamily(
            "wmap_cluster_up",
            "1 per cluster (kubeconfig context) served, 0 for one that could not be read.",
            labels=["cluster"],
        )
        models, failed = self.clusters.served
        merged: dict[str, Metric] = {}
        for cluster, model in models.items():
            up.add_metric([cluster], 1)
            for family in ModelCollector(model).collect():
                into = merged.get(family.name)
                if into is None:
                    into = merged[family.name] = Metric(family.name, family.documentation, family.type, family.unit)
                into.samples += [s._replace(labels={"cluster": cluster, **s.labels}) for s in family.samples]
        for cluster in failed:
            up.add_metric([cluster], 0)
        yield up
        free = GaugeMetricFamily(
            "wmap_cluster_gpus_free",
            "GPUs allocatable and not requested on the nodes of the cluster any pod can use (Ready, not cordoned, "
            "no blocking taint), at its last capacity read.",
            labels=["cluster"],
        )
        for cluster, value in sorted(self.clusters.free_gpus.items()):
            free.add_metric([cluster], value)
        yield free
        yield from queue_families(self.clusters.queues())
        yield from merged.values()


class ModelCollector(Collector):
    """Series for every workload of one model, per pod attribution, and the model's own health
    (without ``cluster``: :class:`FleetCollector` adds it)."""

    def __init__(self, model: LiveReader) -> None:
        self.model = model

    def collect(self) -> Iterator[Metric]:
        resolved = self.model.workloads()
        yield from self._workloads(resolved)
        yield from self._pods(resolved)
        yield from self._resources()

    def _workloads(self, resolved: list[Resolved]) -> Iterator[Metric]:
        info = GaugeMetricFamily(
            "wmap_workload_info",
            "One series per top-level workload (value 1), with its group and definition.",
            labels=[*WORKLOAD, "workload_group", "definition", "definition_origin"],
        )
        status = GaugeMetricFamily(
            "wmap_workload_status",
            "1 for the workload's primary status, 0 for every other status of the vocabulary.",
            labels=[*WORKLOAD, "status"],
        )
        pods = GaugeMetricFamily(
            "wmap_workload_pods",
            "Pods of a workload component by state; desired is what the spec asks for.",
            labels=[*WORKLOAD, "component", "state"],
        )
        requested = GaugeMetricFamily(
            "wmap_workload_gpus_requested",
            "GPUs the component's desired pods request (every replica the spec asks for, less pods that "
            "succeeded; a Completed or Failed workload's active pods only).",
            labels=[*WORKLOAD, "component"],
        )
        in_use = GaugeMetricFamily(
            "wmap_workload_gpus_in_use",
            "GPUs requested by the component's pods that are bound to a node and not finished.",
            labels=[*WORKLOAD, "component"],
        )
        incomplete = GaugeMetricFamily(
            "wmap_workload_incomplete",
            "1 per resource the workload is made of that cannot be read: its pod counts other than desired, "
            "and its GPUs in use, are unknown and not exported.",
            labels=[*WORKLOAD, "resource"],
        )
        not_ready = GaugeMetricFamily(
            "wmap_workload_pods_not_ready",
            "Desired pods neither ready nor done, of a workload that wants to run (0 when Completed, Failed or "
            "Suspended).",
            labels=WORKLOAD,
        )
        problems = GaugeMetricFamily(
            "wmap_workload_pod_problems",
            "Pods of the workload with a problem, by reason (CrashLoopBackOff, ImagePullBackOff, OOMKilled, "
            "Unschedulable...).",
            labels=[*WORKLOAD, "reason"],
        )
        gang = GaugeMetricFamily(
            "wmap_workload_gang_min_members",
            "Minimum members of each gang-scheduling pod group of the workload (docs/gang.md).",
            labels=[*WORKLOAD, "group"],
        )

        resource_of = {gap.why: gap.resource for gap in self.model.coverage}
        for item in resolved:
            tree = item.tree
            labels = _workload_labels(tree)
            info.add_metric([*labels, tree.group, tree.definition.name, tree.definition.origin], 1)
            primary = tree.status.primary.value
            for value in STATUSES:
                status.add_metric([*labels, value], 1 if value == primary else 0)
            for reason in tree.incomplete:
                incomplete.add_metric([*labels, resource_of.get(reason, reason)], 1)
            figures = figures_of(tree)
            if figures.pods_not_ready is not None:
                not_ready.add_metric(labels, figures.pods_not_ready)
            for reason, count in (figures.problems or {}).items():
                problems.add_metric([*labels, reason], count)
            states = ("desired",) if tree.incomplete else POD_STATES
            for component in tree.components:
                if not component.component.has_pods:
                    continue
                counts = component.counts
                for state in states:
                    pods.add_metric([*labels, component.name, state], getattr(counts, state))
                desired = sum((gpu_count(i.desired_requests) for i in component.instances), Decimal(0))
                requested.add_metric([*labels, component.name], _gpus(desired))
                if tree.incomplete:
                    continue
                bound = sum(
                    (p.resources.gpus for i in component.instances for p in i.pods if holds_gpus(p)), Decimal(0)
                )
                in_use.add_metric([*labels, component.name], _gpus(bound))
            if tree.unattributed and not tree.incomplete:  # pods no component claims: component ""
                counts = PodCounts()
                for pod in tree.unattributed:
                    counts.add_pod(pod)
                for state in POD_STATES:
                    pods.add_metric([*labels, "", state], getattr(counts, state))
            for group, min_members in item.gang_groups:
                gang.add_metric([*labels, group], min_members)
        yield from (info, status, pods, requested, in_use, not_ready, problems, incomplete, gang)

    def _pods(self, resolved: list[Resolved]) -> Iterator[Metric]:
        attribution = GaugeMetricFamily(
            "wmap_pod_workload",
            "1 per pod, naming the outermost covered workload it belongs to (every pod counted once).",
            labels=["namespace", "pod", "workload_kind", "workload", "component", "instance"],
        )
        problem = GaugeMetricFamily(
            "wmap_pod_problem",
            "1 per pod with a problem, by reason (CrashLoopBackOff, ImagePullBackOff, OOMKilled, Unschedulable...).",
            labels=["namespace", "pod", "workload_kind", "workload", "reason"],
        )
        restarts = GaugeMetricFamily(
            "wmap_pod_restarts",
            "Container restarts of a pod that restarted (summed over its containers), with the reason its last "
            'container end had (Error, OOMKilled; "" when unknown).',
            labels=["namespace", "pod", "workload_kind", "workload", "last_termination"],
        )
        for item in resolved:
            tree = item.tree
            for pod in tree.all_pods:
                attribution.add_metric(
                    [pod.namespace, pod.name, tree.kind, tree.name, pod.component or "", pod.instance or ""], 1
                )
                if pod.state.problem and not pod.state.terminating:
                    problem.add_metric([pod.namespace, pod.name, tree.kind, tree.name, pod.state.problem], 1)
                if pod.state.restarts:
                    ended = pod.state.last_termination.reason if pod.state.last_termination else ""
                    restarts.add_metric([pod.namespace, pod.name, tree.kind, tree.name, ended], pod.state.restarts)
        yield from (attribution, problem, restarts)

    def _resources(self) -> Iterator[Metric]:
        model = self.model
        now = time.time()
        age = GaugeMetricFamily(
            "wmap_watch_last_event_age_seconds",
            "Seconds since the model last applied an event of this resource (since the initial list if none).",
            labels=["resource"],
        )
        objects = GaugeMetricFamily("wmap_watch_objects", "Objects of this resource in the model.", labels=["resource"])
        readable = GaugeMetricFamily(
            "wmap_watch_resource_readable",
            "1 while the resource can be listed and watched, 0 when forbidden.",
            labels=["resource"],
        )
        events = CounterMetricFamily("wmap_watch_events", "Watch events applied, by type.", labels=["resource", "type"])
        relists = CounterMetricFamily("wmap_watch_relists", "Relists (410 Gone, recovery).", labels=["resource"])
        errors = CounterMetricFamily("wmap_watch_errors", "Failed lists and watches.", labels=["resource"])
        synced = model.sync_seconds
        for name, state in sorted(model.resources.items()):
            since = state.last_event if state.last_event is not None else model.started_at
            age.add_metric([name], max(0.0, now - since) if since else 0.0)
            objects.add_metric([name], state.objects)
            readable.add_metric([name], 1 if state.readable else 0)
            for kind, count in sorted(state.events.items()):
                events.add_metric([name, kind], count)
            relists.add_metric([name], state.relists)
            errors.add_metric([name], state.errors)
        yield from (age, objects, readable, events, relists, errors)
        ready = GaugeMetricFamily(
            "wmap_model_ready",
            "1 while /readyz says ready: synced, the API server answering, something readable; 0: the answer "
            "may be stale (why: /readyz, /api/v1/status).",
        )
        ready.add_metric([], 1 if model.readiness()[0] else 0)
        yield ready
        sync = GaugeMetricFamily("wmap_model_sync_duration_seconds", "Seconds the initial list and resolution took.")
        sync.add_metric([], synced or 0.0)
        yield sync
        resolves = CounterMetricFamily("wmap_model_resolves", "Workload roots re-resolved since start.")
        resolves.add_metric([], model.resolves)
        yield resolves
        yield from self._coverage()
        yield from self._apiserver()

    def _coverage(self) -> Iterator[Metric]:
        labels = ["resource", "namespace", "cause"]
        gap = GaugeMetricFamily(
            "wmap_coverage_gap",
            '1 per resource (and namespace, "" for all) the model cannot read now, by cause: forbidden or not served.',
            labels=labels,
        )
        objects = GaugeMetricFamily(
            "wmap_coverage_gap_objects",
            "Objects read whose owner lies in the gap (pods of an unreadable kind): not counted as workloads.",
            labels=labels,
        )
        for item, count in self.model.gap_objects().items():
            values = [item.resource, item.namespace or "", item.cause.value]
            gap.add_metric(values, 1)
            objects.add_metric(values, count)
        yield from (gap, objects)

    def _apiserver(self) -> Iterator[Metric]:
        age = self.model.last_contact_age()
        if age is None:
            return  # a model read from a dump talks to no API server
        up = GaugeMetricFamily("wmap_apiserver_up", "1 while the API server answers the model's probe in time.")
        up.add_metric([], 0 if self.model.apiserver_error else 1)
        last = GaugeMetricFamily(
            "wmap_apiserver_last_contact_age_seconds",
            "Seconds since the API server last answered: grows while it is frozen or unreachable.",
        )
        last.add_metric([], age)
        yield from (up, last)
