"""What the live model cannot see, and getting it back: gaps that are retried, and a frozen API server.

The model tracks gaps with the CLI's own code (``workload_map.base.coverage``, ``sources.kube.fetch.gap_of``,
``resolve.workloads.gap_warnings``): a kind that is forbidden or no longer served is a Gap, pods whose owner
chain enters it are not workloads of their own, workloads made of it have unknown counts. Unlike one
command, the model lives on: an informer that lists first (``Informer(..., list_first=True)``) keeps
listing a kind that could not be read (capped exponential backoff with jitter, as every informer), so a
permission granted later, or a CRD installed again, is picked up without a restart; a ``KindPoller`` asks
discovery now and then for the covered kinds the server did not serve at start (their CRDs not installed
yet), so an operator installed while the model runs is watched from then on. An ``ApiserverProbe`` asks the
API server for ``/version`` at a fixed interval with a short timeout: a frozen server (its port still
accepts, nothing answers) never ends a watch by itself, so only a request that must answer tells it apart
from a quiet cluster.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import TYPE_CHECKING, Any

from workload_map.base.coverage import Cause, Gap
from workload_map.sources.kube.connection import ClusterError
from workload_map.sources.kube.fetch import ListResult, gap_of

if TYPE_CHECKING:
    from workload_map.sources.kube.connection import Connection

PROBE_SECONDS = 5.0  # how often the API server is asked
PROBE_TIMEOUT = 5.0  # seconds it has to answer


def gap_of_failure(listed: ListResult, error: Exception) -> Gap | None:
    """The gap a failed list or watch opens: forbidden (403), or a custom resource no longer served (404).
    Other failures (timeouts, 5xx, a restarting server) leave the objects in place, stale, and are retried."""
    status = getattr(error, "status", 0)
    resource = listed.resource
    if status == 403:
        return gap_of(resource, listed.namespace, Cause.FORBIDDEN, str(getattr(error, "message", error)))
    if status == 404 and resource.group:
        return gap_of(resource, listed.namespace, Cause.NOT_SERVED)
    return None


KIND_POLL_SECONDS = 30.0  # how often discovery is asked for kinds not served at start


class KindPoller(threading.Thread):
    """Discovery every ``interval`` seconds while some covered kinds are not served; puts ``("SERVED",
    resource, None)`` on the model's queue once for each that appears, then forgets it (a CRD deleted later
    is a watch's 404, which opens a gap its watcher retries). Discovery needs no permission beyond being
    authenticated, so this adds nothing to the service's RBAC; with aggregated discovery a round is two GETs.
    """

    def __init__(
        self,
        connection: Connection,
        missing: dict[tuple[str, str], list[str]],
        out: queue.Queue[Any],
        stop: threading.Event,
        *,
        interval: float = KIND_POLL_SECONDS,
    ) -> None:
        super().__init__(daemon=True, name="wmap kind poller")
        self.connection = connection
        self.missing = dict(missing)  # (group, kind) -> the versions definitions exist for
        self.out = out
        self.stop_event = stop
        self.interval = interval

    def poll(self) -> None:
        """One round: announce the missing kinds discovery serves now."""
        from workload_map.sources.kube.discovery import discover

        try:
            discovery = discover(self.connection, groups={group for group, _ in self.missing})
        except ClusterError:
            return  # the probe tells a failing server; the next round asks again
        for (group, kind), versions in list(self.missing.items()):
            resource = discovery.resource(group, kind, versions)
            if resource is not None and resource.can("list"):
                del self.missing[(group, kind)]
                self.out.put(("SERVED", resource, None))

    def run(self) -> None:
        while self.missing and not self.stop_event.wait(self.interval):
            self.poll()


class ApiserverProbe(threading.Thread):
    """``GET /version`` every ``interval`` seconds; puts ``("CONTACT", error or None, time)`` on the model's
    queue only when the answer changes (reachable <-> not), and keeps ``last_contact`` current."""

    def __init__(
        self,
        connection: Connection,
        out: queue.Queue[Any],
        stop: threading.Event,
        *,
        interval: float = PROBE_SECONDS,
        timeout: float = PROBE_TIMEOUT,
    ) -> None:
        super().__init__(daemon=True, name="wmap apiserver probe")
        self.connection = connection
        self.out = out
        self.stop_event = stop
        self.interval = interval
        self.timeout = timeout
        self.last_contact: float | None = time.time()  # the initial list just answered
        self.error: str | None = None

    def check(self) -> str | None:
        """None when the API server answered within the timeout, else why not."""
        try:
            response = self.connection.open("GET", "/version", timeout=self.timeout, what="/version")
            try:
                response.read()
            finally:
                response.release_conn()
        except ClusterError as exc:
            if "timed out" in exc.message:  # the probe's own timeout, not --request-timeout's
                return f"no answer to GET /version within {self.timeout:g}s ({self.connection.server})"
            return exc.message
        except Exception as exc:  # a read that times out after the headers came
            return f"{type(exc).__name__}: {exc}"
        return None

    def run(self) -> None:
        while not self.stop_event.wait(self.interval):
            error = self.check()
            if error is None:
                self.last_contact = time.time()
            if error != self.error:
                self.error = error
                self.out.put(("CONTACT", error, None))


__all__ = ["ApiserverProbe", "KindPoller", "gap_of_failure"]
