"""What ``wmap serve`` answers over one or several clusters: a live model per kubeconfig context.

One cluster is a fleet of one: every row carries its ``cluster``, and the answers of a single cluster are
those of its model. Over several, the workload list is every model's rows (``?cluster=`` narrows it),
``/api/v1/fleet`` sums each cluster up (GPUs requested and in use, workloads by status, free GPUs when the
capacity was read), and a cluster that could not be read is listed with why, never hidden, and its
start is tried again until it joins (:func:`rejoin`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from workload_map import WorkloadTotals, figures_of
from workload_map.ports.live import RetryPolicy
from workload_map.serve import api

if TYPE_CHECKING:
    from workload_map import QueueReport
    from workload_map.ports.live import LiveReader

POLL_SECONDS = 0.2  # how often a fleet's event stream looks for a change of any model


def poll_capacity(
    clusters: Clusters, read: Callable[[str], dict[str, Any]], interval: float, stop: threading.Event
) -> None:
    """Read each served cluster's GPU figures (``total`` and ``pools``, placement/figures.py) now and every
    ``interval`` seconds until ``stop`` (a thread's target). A failed read keeps the last value and says why
    in ``capacity_errors``."""

    def figures(name: str) -> dict[str, Any]:
        value = read(name)
        clusters.free_gpus[name] = float(value["total"]["free"])
        return value

    _poll(clusters, figures, (clusters.gpu_figures, clusters.capacity_read, clusters.capacity_errors), interval, stop)


def _poll(
    clusters: Clusters,
    read: Callable[[str], Any],
    into: tuple[dict[str, Any], dict[str, float], dict[str, str]],
    interval: float,
    stop: threading.Event,
) -> None:
    values, read_at, errors = into
    while True:
        for name in list(clusters.models):
            try:
                values[name] = read(name)
                read_at[name] = time.time()
                errors.pop(name, None)
            except Exception as exc:  # one cluster's failed read must not end the others'
                errors[name] = f"{type(exc).__name__}: {exc}"
        if stop.wait(interval):
            return


REJOIN = RetryPolicy(base=0.5, cap=30.0)  # a cluster not read at start: as a failing watch backs off


def rejoin(
    clusters: Clusters,
    name: str,
    start: Callable[[str], LiveReader],
    stop: threading.Event,
    *,
    notice: Callable[[str, LiveReader | None], None],
    reason: Callable[[Exception], str] = str,
) -> None:
    """Start cluster ``name``'s model again and again (capped exponential backoff with jitter) until it is
    read, then serve it (a thread's target, one per cluster not read at start). ``reason`` words a failed
    start; ``notice`` hears of a new cause of failure (no model) and of the join (the model), once each,
    never once per try."""
    clusters.retrying.add(name)
    attempt = 0
    while True:
        attempt += 1
        if stop.wait(REJOIN.delay(attempt, None)):
            return
        try:
            model = start(name)
        except Exception as exc:  # whatever a start raises, the cluster stays listed as not read, with why
            why = reason(exc)
            if why != clusters.failed.get(name):
                clusters.still_failing(name, why)
                notice(name, None)
            continue
        if stop.is_set():  # serve ended while this start was under way
            model.stop()
            return
        clusters.join(name, model)
        notice(name, model)
        return


class Clusters:
    """The models served, by cluster (context) name in the order asked, and the clusters not read
    (name -> the one-line error). ``free_gpus`` holds each cluster's free GPUs when its capacity was read.

    Thread-safe for one writer per cluster (:func:`rejoin`): a cluster that joins replaces both maps at
    once, so a reader that takes :attr:`served` sees it either served or not read, never both or neither."""

    def __init__(
        self,
        models: Mapping[str, LiveReader],
        failed: Mapping[str, str] | None = None,
        free_gpus: Mapping[str, float] | None = None,
        order: list[str] | None = None,
    ) -> None:
        self.order = list(order) if order is not None else [*models, *(failed or {})]
        self.served: tuple[dict[str, LiveReader], dict[str, str]] = (dict(models), dict(failed or {}))
        self._lock = threading.Lock()
        # Kept current by whoever reads capacity (``wmap serve --capacity-interval``): the same dict objects.
        self.free_gpus = dict(free_gpus or {})
        # cluster -> {"total": GpuFigures JSON, "pools": [...]} at its last capacity read
        self.gpu_figures: dict[str, dict[str, Any]] = {}
        self.capacity_read: dict[str, float] = {}  # cluster -> wall-clock time of its last capacity read
        self.capacity_errors: dict[str, str] = {}  # cluster -> why its last capacity read failed
        self.retrying: set[str] = set()  # clusters not read whose start is being tried again (rejoin)

    @property
    def models(self) -> dict[str, LiveReader]:
        return self.served[0]

    @property
    def failed(self) -> dict[str, str]:
        return self.served[1]

    @property
    def names(self) -> list[str]:
        return list(self.order)

    def join(self, name: str, model: LiveReader) -> None:
        """A cluster not read at start is served from now on (in its place in the order asked)."""
        with self._lock:
            models, failed = self.served
            joined = {**models, name: model}
            self.served = (
                {n: joined[n] for n in self.order if n in joined},
                {n: why for n, why in failed.items() if n != name},
            )
            self.retrying.discard(name)

    def still_failing(self, name: str, why: str) -> None:
        with self._lock:
            models, failed = self.served
            self.served = (models, {**failed, name: why})

    def not_read(self, name: str, why: str) -> str:
        return f"not read: {why}" + (" (retrying)" if name in self.retrying else "")

    @property
    def single(self) -> LiveReader | None:
        """The model when exactly one cluster is served and none failed (the answers are its own)."""
        models, failed = self.served
        return next(iter(models.values())) if len(models) == 1 and not failed else None

    @property
    def version(self) -> int:
        return sum(m.version for m in self.models.values())

    def wait_for_version(self, version: int, timeout: float) -> bool:
        single = self.single
        if single is not None:
            return single.wait_for_version(version, timeout)
        deadline = time.monotonic() + timeout
        while self.version <= version:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(POLL_SECONDS, left))
        return True

    def readiness(self) -> tuple[bool, str]:
        """One cluster: its model's. Several: ready while any cluster is served and synced; every cluster
        that is not fully served says why, after its name."""
        single = self.single
        if single is not None:
            return single.readiness()
        models, failed = self.served
        lines: list[str] = []
        ready_any = False
        for name, model in models.items():
            ready, reason = model.readiness()
            ready_any = ready_any or ready
            if reason != "ready":
                lines.append(f"cluster {name}: {reason}")
        lines += [f"cluster {name}: {self.not_read(name, why)}" for name, why in failed.items()]
        if not ready_any:
            return False, "; ".join(lines) or "syncing"
        return True, "ready" + (", partial: " + "; ".join(lines) if lines else "")

    def workloads(self, cluster: str | None = None, **filters: Any) -> dict[str, Any]:
        """``GET /api/v1/workloads``: every model's rows (``cluster`` first); ValueError for a bad filter
        or an unknown cluster."""
        if cluster is not None and cluster not in self.names:
            raise ValueError(f"no cluster {cluster!r}: served are {', '.join(self.names)}")
        models, failed = self.served
        single = self.single is not None
        items: list[dict[str, Any]] = []
        gaps: list[dict[str, Any]] = []
        warnings: list[str] = []
        stale: list[str] = []
        errors: list[ValueError] = []
        for name, model in models.items():
            if cluster is not None and name != cluster:
                continue
            try:
                answer = api.workloads(model, **filters)
            except ValueError as exc:  # a TYPE one cluster's definitions do not cover
                errors.append(exc)
                continue
            items += [{"cluster": name, **item} for item in answer["items"]]
            gaps += [{"cluster": name, **gap} for gap in answer["coverage"]["gaps"]]
            warnings += _said(single, name, answer["coverage"]["warnings"])
            stale += _said(single, name, answer["stale"])
        if errors and not items and len(errors) == len(models):
            raise errors[0]
        warnings += [f"cluster {name}: {self.not_read(name, why)}" for name, why in failed.items()]
        return {
            "apiVersion": api.API_VERSION,
            "kind": "WorkloadList",
            "version": sum(m.version for m in models.values()),
            "clusters": self.names,
            "coverage": {"complete": not gaps and not failed, "gaps": gaps, "warnings": warnings},
            "stale": stale,  # watches failing now (docs/cli.md, wmap serve): what may be out of date
            "items": items,
        }

    def workload(self, namespace: str, type_name: str, name: str, cluster: str | None = None) -> dict[str, Any] | None:
        """One workload's document, from ``cluster`` or the first cluster that has it."""
        for served, model in self.models.items():
            if cluster is not None and served != cluster:
                continue
            found = api.workload(model, namespace, type_name, name)
            if found is not None:
                found["row"] = {"cluster": served, **found["row"]}
                return {"cluster": served, **found}
        return None

    def status(self) -> dict[str, Any]:
        """``GET /api/v1/status``: one cluster's own status; over several, the fleet's readiness with
        every cluster's status in ``clusters`` and the lines of all of them at the top."""
        single = self.single
        if single is not None:
            answer = api.status(single)
            answer["clusters"] = [{"cluster": self.names[0], **_brief(answer)}]
            return answer
        models, failed = self.served
        ready, reason = self.readiness()
        per = {name: api.status(model) for name, model in models.items()}
        answering = all(s["apiserver"]["answering"] for s in per.values())
        return {
            "apiVersion": api.API_VERSION,
            "kind": "Status",
            "version": sum(m.version for m in models.values()),
            "ready": ready,
            "reason": reason,
            "apiserver": {
                "answering": answering,
                "error": "; ".join(
                    f"cluster {n}: {s['apiserver']['error']}" for n, s in per.items() if s["apiserver"]["error"]
                )
                or None,
                "lastContactAge": max((s["apiserver"]["lastContactAge"] or 0.0 for s in per.values()), default=None),
            },
            "coverage": {
                "complete": all(s["coverage"]["complete"] for s in per.values()) and not failed,
                "gaps": [{"cluster": n, **g} for n, s in per.items() for g in s["coverage"]["gaps"]],
                "warnings": [
                    *(f"cluster {n}: {self.not_read(n, why)}" for n, why in failed.items()),
                    *(f"cluster {n}: {w}" for n, s in per.items() for w in s["coverage"]["warnings"]),
                ],
            },
            "stale": [f"cluster {n}: {line}" for n, s in per.items() for line in s.get("stale") or []],
            "clusters": [
                {"cluster": n, **_brief(per[n])}
                if n in per
                else {"cluster": n, "served": False, "ready": False, "reason": self.not_read(n, failed[n])}
                for n in self.order
                if n in per or n in failed
            ],
        }

    def summary(self) -> dict[str, Any]:
        """``GET /api/v1/fleet``: per cluster (in the order asked), its workloads' figures summed
        (docs/semantics.md "Figures": by status, GPUs requested by running workloads, GPUs in use, pods ready),
        its GPU capacity (total, in use, free, free on tainted nodes, per pool; null unless read), and why a
        cluster is not served (``retrying``: its start is tried again, and it joins once it is read)."""

        models, failed = self.served
        rows = []
        for name in self.order:
            model = models.get(name)
            if model is None:
                if name in failed:
                    rows.append(
                        {
                            "cluster": name,
                            "served": False,
                            "ready": False,
                            "reason": self.not_read(name, failed[name]),
                            "retrying": name in self.retrying,
                            "workloads": None,
                            "byStatus": {},
                            "gpusRequested": None,
                            "gpusInUse": None,
                            "gpusFree": None,
                            "capacity": None,
                            "capacityAge": None,
                            "capacityError": None,
                        }
                    )
                continue
            ready, reason = model.readiness()
            totals = WorkloadTotals.of(figures_of(item.tree) for item in model.workloads()).to_json()
            rows.append(
                {
                    "cluster": name,
                    "served": True,
                    "ready": ready,
                    "reason": reason,
                    "retrying": False,
                    **totals,
                    "gpusFree": self.free_gpus.get(name),
                    "capacity": self.gpu_figures.get(name),
                    "capacityAge": (time.time() - self.capacity_read[name]) if name in self.capacity_read else None,
                    "capacityError": self.capacity_errors.get(name),
                }
            )
        version = sum(m.version for m in models.values())
        return {"apiVersion": api.API_VERSION, "kind": "Fleet", "version": version, "clusters": rows}

    def queue_reports(self, cluster: str | None = None) -> dict[str, Any]:
        """``GET /api/v1/queues``: per cluster served (or only ``cluster``), the queue report of its model's
        current state (docs/queues.md; the queue kinds are watched with the workloads; null when its model
        watches none), the model's ``version`` and what may be out of date now (``stale``, as the workloads')."""
        rows = []
        for name, model in self.models.items():
            if cluster is not None and name != cluster:
                continue
            report = model.queues()
            rows.append(
                {
                    "cluster": name,
                    "version": model.version,
                    "stale": model.problems(),
                    **(report.to_json() if report is not None else {"queues": None, "workloads": None, "warnings": []}),
                }
            )
        return {"apiVersion": api.API_VERSION, "kind": "QueueList", "clusters": rows}

    def queues(self) -> dict[str, QueueReport]:
        """Each served cluster's current queue report (the clusters whose model watches the queue kinds)."""
        reports = {name: model.queues() for name, model in self.models.items()}
        return {name: report for name, report in reports.items() if report is not None}


def _said(single: bool, name: str, lines: list[str]) -> list[str]:
    return list(lines) if single else [f"cluster {name}: {line}" for line in lines]


def _brief(status: dict[str, Any]) -> dict[str, Any]:
    return {"served": True, "ready": status["ready"], "reason": status["reason"]}
