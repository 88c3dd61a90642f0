"""Leader election with a coordination.k8s.io/v1 Lease (the same protocol as client-go's leaderelection).

Only the leader runs the controller; every replica serves the webhooks and health endpoints. On a graceful
shutdown the leader releases the Lease so a standby takes over immediately instead of after the lease expires.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable
from typing import Any

from workload_map.ports.kube import ClusterError, Connection

log = logging.getLogger("workload_map.operator.leader")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _fmt(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


class LeaseElector:
    def __init__(
        self,
        conn: Connection,
        namespace: str,
        name: str,
        identity: str,
        *,
        lease_seconds: int = 15,
        renew_seconds: float = 5.0,
        on_start: Callable[[], None],
        on_stop: Callable[[], None],
    ) -> None:
        self.conn = conn
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self.lease_seconds = lease_seconds
        self.renew_seconds = renew_seconds
        self.on_start = on_start
        self.on_stop = on_stop
        self.leading = False
        self._last_renew: dt.datetime | None = None

    @property
    def path(self) -> str:
        return f"/apis/coordination.k8s.io/v1/namespaces/{self.namespace}/leases/{self.name}"

    def _deadline(self) -> float:
        """Seconds the next Lease request may take: while leading, no longer than the leader may go on without
        a renewal (client-go's renew deadline), so a frozen API server makes it step down before the lease
        lapses and another replica takes over; else one renew interval."""
        if self.leading and self._last_renew is not None:
            left = self._last_renew + dt.timedelta(seconds=self.lease_seconds - self.renew_seconds) - _now()
            return max(0.5, left.total_seconds())
        return max(1.0, self.renew_seconds)

    def _try(self) -> bool:
        now = _now()
        timeout = self._deadline()
        try:
            lease = self.conn.request("GET", self.path, what=f"lease {self.namespace}/{self.name}", timeout=timeout)
        except ClusterError as exc:
            if exc.status != 404:
                raise
            body = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": self.name, "namespace": self.namespace},
                "spec": self._spec(now, now, 0),
            }
            try:
                self.conn.request(
                    "POST",
                    f"/apis/coordination.k8s.io/v1/namespaces/{self.namespace}/leases",
                    body=body,
                    timeout=timeout,
                )
                return True
            except ClusterError as exc2:
                if exc2.status == 409:
                    return False
                raise
        spec: dict[str, Any] = lease.get("spec") or {}
        holder = spec.get("holderIdentity") or ""
        renewed = _parse(spec.get("renewTime")) or _parse(spec.get("acquireTime"))
        duration = int(spec.get("leaseDurationSeconds") or self.lease_seconds)
        expired = renewed is None or now > renewed + dt.timedelta(seconds=duration)
        if holder and holder != self.identity and not expired:
            return False
        transitions = int(spec.get("leaseTransitions") or 0)
        acquire = _parse(spec.get("acquireTime")) if holder == self.identity else now
        if holder != self.identity:
            transitions += 1
        lease["spec"] = self._spec(acquire or now, now, transitions)
        try:
            # resourceVersion in lease: optimistic concurrency
            self.conn.request("PUT", self.path, body=lease, timeout=self._deadline())
        except ClusterError as exc:
            if exc.status == 409:
                return False
            raise
        return True

    def _spec(self, acquire: dt.datetime, renew: dt.datetime, transitions: int) -> dict[str, Any]:
        return {
            "holderIdentity": self.identity,
            "leaseDurationSeconds": self.lease_seconds,
            "acquireTime": _fmt(acquire),
            "renewTime": _fmt(renew),
            "leaseTransitions": transitions,
        }

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                ok = self._try()
            except Exception as exc:
                log.warning("lease update failed", extra={"error": str(exc)})
                ok = False
                # keep leading only while our last renewal is still within the lease duration
                if (
                    self.leading
                    and self._last_renew
                    and _now() < self._last_renew + dt.timedelta(seconds=self.lease_seconds - self.renew_seconds)
                ):
                    ok = True
            else:
                if ok:
                    self._last_renew = _now()
            if ok and not self.leading:
                self.leading = True
                log.info("became leader", extra={"identity": self.identity, "lease": self.name})
                self.on_start()
            elif not ok and self.leading:
                self.leading = False
                log.warning("lost leadership", extra={"identity": self.identity})
                self.on_stop()
            stop.wait(self.renew_seconds if self.leading else max(self.renew_seconds / 2, 1.0))
        if self.leading:
            self.leading = False
            self.on_stop()
            self.release()

    def release(self) -> None:
        try:
            lease = self.conn.request("GET", self.path)
            if (lease.get("spec") or {}).get("holderIdentity") == self.identity:
                lease["spec"]["holderIdentity"] = None
                lease["spec"]["leaseDurationSeconds"] = 1
                self.conn.request("PUT", self.path, body=lease)
                log.info("lease released", extra={"lease": self.name})
        except Exception as exc:
            log.warning("lease release failed", extra={"error": str(exc)})
