"""``python -m workload_map.operator``: the operator process.

Every replica serves the admission webhooks (TLS) and the health endpoints; the replica holding the Lease runs
the Karta controller. SIGTERM/SIGINT stop it gracefully: the controller stops taking work, the Lease is
released, the servers shut down.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.catalog import builtin_definitions
from workload_map.cluster.connection import Connection
from workload_map.crd import GROUP, PLURAL, VERSION
from workload_map.operator import admission, certs, logs
from workload_map.operator.controller import KartaController
from workload_map.operator.gang import ClusterDefinitions, GangController, PodAttacher
from workload_map.operator.kube import list_all, operator_connection
from workload_map.operator.leader import LeaseElector
from workload_map.operator.server import Handler, HealthServer, WebhookServer

log = logging.getLogger("workload_map.operator")


@dataclass
class OperatorConfig:
    namespace: str = "workload-map"
    kubeconfig: str | None = None
    context: str | None = None
    identity: str = field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}")
    lease_name: str = "workload-map-operator"
    lease_seconds: int = 15
    events_namespace: str = "default"
    health_host: str = "0.0.0.0"
    health_port: int = 8081
    webhook_host: str = "0.0.0.0"
    webhook_port: int = 9443  # 0 disables the webhook server
    cert_mode: str = "self"  # self | files
    cert_secret: str = "workload-map-webhook-tls"
    cert_dir: str = "/tls"  # files mode: tls.crt / tls.key (cert-manager)
    service_name: str = "workload-map-webhook"
    extra_hosts: Sequence[str] = ()
    validating_webhook: str | None = "workload-map"
    mutating_webhook: str | None = "workload-map"
    cert_check_seconds: float = 3600.0
    rotate_before_days: float = 30.0
    resync_seconds: float = 300.0
    log_level: str = "info"
    gang_controller: bool = False  # PodGroups + /mutate-pod for namespaces that opt in
    gang_default_scheduler: str = "volcano"  # for the opt-in label value "true"
    gang_debounce_seconds: float = 1.0


class Operator:
    def __init__(self, config: OperatorConfig, connection: Connection | None = None) -> None:
        self.config = config
        self.conn = connection or operator_connection(config.kubeconfig, config.context)
        self.stop_event = threading.Event()
        self.controller: KartaController | None = None
        self.gang: GangController | None = None
        self._gang_thread: threading.Thread | None = None
        self.attacher: PodAttacher | None = None
        # Built-in catalog + the cluster's valid Kartas (watched on every replica: the pod webhook needs them).
        self.definitions: ClusterDefinitions | None = None
        if config.gang_controller:
            self.definitions = ClusterDefinitions(self.conn, builtin_definitions())
            self.attacher = PodAttacher(
                self.conn, self.definitions.definitions, default_scheduler=config.gang_default_scheduler
            )
            self.definitions.subscribe(self.attacher.set_definitions)
        self._controller_stop: threading.Event | None = None
        self._controller_thread: threading.Thread | None = None
        self.webhooks: WebhookServer | None = None
        self.health: HealthServer | None = None
        self.elector = LeaseElector(
            self.conn,
            config.namespace,
            config.lease_name,
            config.identity,
            lease_seconds=config.lease_seconds,
            renew_seconds=max(config.lease_seconds / 3, 1.0),
            on_start=self._start_controller,
            on_stop=self._stop_controller,
        )
        self._threads: list[threading.Thread] = []  # /healthz: all must be alive
        self._unjoined: set[str] = set()  # names of the threads stop() does not wait for
        self._cert_mtime = 0.0

    # -- leader callbacks
    def _start_controller(self) -> None:
        self._controller_stop = threading.Event()
        self.controller = KartaController(
            self.conn, namespace=self.config.events_namespace, resync=self.config.resync_seconds
        )
        self._controller_thread = threading.Thread(
            target=self.controller.run, args=(self._controller_stop,), name="controller", daemon=True
        )
        self._controller_thread.start()
        if self.config.gang_controller:
            assert self.definitions is not None
            self.gang = GangController(
                self.conn,
                self.definitions.definitions,
                default_scheduler=self.config.gang_default_scheduler,
                debounce=self.config.gang_debounce_seconds,
                rediscover=min(self.config.resync_seconds, 60.0),
                cluster_definitions=self.definitions,
            )
            self._gang_thread = threading.Thread(
                target=self.gang.run, args=(self._controller_stop,), name="gang-controller", daemon=True
            )
            self._gang_thread.start()

    def _stop_controller(self) -> None:
        if self._controller_stop is not None:
            self._controller_stop.set()
        if self._controller_thread is not None:
            self._controller_thread.join(timeout=10)
        if self._gang_thread is not None:
            self._gang_thread.join(timeout=10)
        self.gang = None

    # -- probes
    def _healthz(self) -> tuple[bool, str]:
        dead = [t.name for t in self._threads if not t.is_alive()]
        if dead and not self.stop_event.is_set():
            return False, "dead threads: " + ", ".join(dead)
        return True, "ok"

    def _readyz(self) -> tuple[bool, str]:
        if self.stop_event.is_set():
            return False, "shutting down"
        if self.webhooks is not None and not self.webhooks.loaded:
            return False, "webhook certificate not loaded"
        if self.definitions is not None and not self.definitions.synced.is_set():
            return False, "cluster Karta definitions not loaded"
        if self.elector.leading and self.controller is not None and not self.controller.synced.is_set():
            return False, "controller cache not synced"
        if self.elector.leading and self.config.gang_controller and (self.gang is None or not self.gang.is_synced()):
            return False, "gang controller cache not synced"
        return True, "leader" if self.elector.leading else "standby"

    # -- webhooks
    def _list_kartas(self) -> list[dict[str, Any]]:
        items, _ = list_all(self.conn, f"/apis/{GROUP}/{VERSION}/{PLURAL}")
        return items

    def _validate(self, body: dict[str, Any]) -> dict[str, Any]:
        request = body.get("request") or {}
        result = admission.validate_karta(request, self._list_kartas)
        log.info(
            "admission",
            extra={
                "webhook": "validate-karta",
                "karta": request.get("name"),
                "operation": request.get("operation"),
                "allowed": result["allowed"],
            },
        )
        return admission.review(body, result)

    def _mutate(self, body: dict[str, Any]) -> dict[str, Any]:
        return admission.review(body, admission.mutate_karta(body.get("request") or {}))

    def _mutate_pod(self, body: dict[str, Any]) -> dict[str, Any]:
        request = body.get("request") or {}
        if self.attacher is None:
            return admission.review(body, admission.response(str(request.get("uid", "")), True))
        return admission.review(body, self.attacher.mutate(request))

    def _ensure_certs(self) -> None:
        cfg = self.config
        assert self.webhooks is not None
        if cfg.cert_mode == "files":
            cert, key = os.path.join(cfg.cert_dir, "tls.crt"), os.path.join(cfg.cert_dir, "tls.key")
            mtime = max(os.path.getmtime(cert), os.path.getmtime(key))
            if mtime != self._cert_mtime:
                self.webhooks.load_files(cert, key)
                self._cert_mtime = mtime
                log.info("webhook certificate loaded from files", extra={"dir": cfg.cert_dir})
            return
        hosts = certs.service_hosts(cfg.service_name, cfg.namespace, cfg.extra_hosts)
        store = certs.SecretCertStore(
            self.conn, cfg.namespace, cfg.cert_secret, hosts, rotate_before=dt.timedelta(days=cfg.rotate_before_days)
        )
        bundle, changed = store.ensure()
        if changed or not self.webhooks.loaded or getattr(self, "_served_cert", None) != bundle.cert_pem:
            self.webhooks.load(bundle.cert_pem, bundle.key_pem)
            self._served_cert = bundle.cert_pem
        patched = certs.patch_ca_bundle(self.conn, bundle.ca_bundle, cfg.validating_webhook, cfg.mutating_webhook)
        if patched:
            log.info("caBundle patched", extra={"configurations": patched})

    def _cert_loop(self) -> None:
        while not self.stop_event.wait(self.config.cert_check_seconds):
            try:
                self._ensure_certs()
            except Exception as exc:
                log.warning("certificate check failed", extra={"error": str(exc)})

    # -- lifecycle
    def start(self) -> None:
        cfg = self.config
        self.health = HealthServer(
            cfg.health_host, cfg.health_port, {"/healthz": self._healthz, "/readyz": self._readyz}
        )
        self.health.start()
        if cfg.webhook_port:
            routes: dict[str, Handler] = {"/validate-karta": self._validate, "/mutate-karta": self._mutate}
            if cfg.gang_controller:
                routes["/mutate-pod"] = self._mutate_pod
            self.webhooks = WebhookServer(cfg.webhook_host, cfg.webhook_port, routes)
            for attempt in range(30):
                try:
                    self._ensure_certs()
                    break
                except Exception as exc:
                    log.warning("certificate setup failed, retrying", extra={"error": str(exc), "attempt": attempt})
                    if self.stop_event.wait(2.0):
                        return
            self.webhooks.start()
            self._spawn(self._cert_loop, "certs")
        if self.definitions is not None:
            definitions = self.definitions
            # A watch sits in a long read and sees stop_event on its next line: not joined on shutdown.
            self._spawn(lambda: definitions.run(self.stop_event), "karta-definitions", join=False)
        self._spawn(lambda: self.elector.run(self.stop_event), "leader-election")
        log.info(
            "operator started",
            extra={
                "identity": cfg.identity,
                "namespace": cfg.namespace,
                "webhook_port": self.webhooks.port if self.webhooks else None,
                "health_port": self.health.port,
            },
        )

    def _spawn(self, target: Any, name: str, *, join: bool = True) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        t.start()
        self._threads.append(t)
        if not join:
            self._unjoined.add(name)

    def stop(self) -> None:
        log.info("operator stopping")
        self.stop_event.set()
        for t in self._threads:
            if t.name not in self._unjoined:
                t.join(timeout=15)
        if self.webhooks:
            self.webhooks.stop()
        if self.health:
            self.health.stop()
        log.info("operator stopped")


def parse_args(argv: Sequence[str] | None = None) -> OperatorConfig:
    env = os.environ.get
    p = argparse.ArgumentParser(prog="python -m workload_map.operator", description=__doc__)
    p.add_argument("--kubeconfig", default=env("KUBECONFIG") or None)
    p.add_argument("--context")
    p.add_argument(
        "--namespace",
        default=env("POD_NAMESPACE", "workload-map"),
        help="namespace of the Lease and the certificate Secret (default: $POD_NAMESPACE)",
    )
    p.add_argument("--identity", default=env("POD_NAME") or None)
    p.add_argument("--lease-name", default="workload-map-operator")
    p.add_argument("--lease-seconds", type=int, default=15)
    p.add_argument(
        "--events-namespace",
        default="default",
        help="where Events about (cluster-scoped) Kartas are written; kubectl describe looks in default",
    )
    p.add_argument("--health-port", type=int, default=8081)
    p.add_argument("--health-host", default="0.0.0.0")
    p.add_argument("--webhook-port", type=int, default=9443, help="0 disables the webhook server")
    p.add_argument("--webhook-host", default="0.0.0.0")
    p.add_argument(
        "--cert-mode",
        choices=["self", "files"],
        default="self",
        help="self: generate and rotate a CA + serving cert; files: read --cert-dir (cert-manager)",
    )
    p.add_argument("--cert-secret", default="workload-map-webhook-tls")
    p.add_argument("--cert-dir", default="/tls")
    p.add_argument("--service-name", default="workload-map-webhook")
    p.add_argument("--extra-host", action="append", default=[], help="extra SAN (DNS name or IP) for the serving cert")
    p.add_argument("--validating-webhook", default="workload-map", help="ValidatingWebhookConfiguration to patch")
    p.add_argument("--mutating-webhook", default="workload-map", help="MutatingWebhookConfiguration to patch")
    p.add_argument("--cert-check-seconds", type=float, default=3600.0)
    p.add_argument("--rotate-before-days", type=float, default=30.0)
    p.add_argument("--resync-seconds", type=float, default=300.0)
    p.add_argument("--log-level", default=env("LOG_LEVEL", "info"))
    p.add_argument(
        "--gang-controller",
        action="store_true",
        help="create Volcano/coscheduling PodGroups for workloads in namespaces labelled "
        "workload-map.run.ai/gang-controller, and serve /mutate-pod",
    )
    p.add_argument(
        "--gang-default-scheduler",
        choices=["volcano", "coscheduling"],
        default="volcano",
        help="the scheduler for namespaces whose label value is 'true' or empty",
    )
    p.add_argument("--gang-debounce-seconds", type=float, default=1.0)
    a = p.parse_args(argv)
    config = OperatorConfig(
        namespace=a.namespace,
        kubeconfig=a.kubeconfig,
        context=a.context,
        lease_name=a.lease_name,
        lease_seconds=a.lease_seconds,
        events_namespace=a.events_namespace,
        health_host=a.health_host,
        health_port=a.health_port,
        webhook_host=a.webhook_host,
        webhook_port=a.webhook_port,
        cert_mode=a.cert_mode,
        cert_secret=a.cert_secret,
        cert_dir=a.cert_dir,
        service_name=a.service_name,
        extra_hosts=a.extra_host,
        validating_webhook=a.validating_webhook or None,
        mutating_webhook=a.mutating_webhook or None,
        cert_check_seconds=a.cert_check_seconds,
        rotate_before_days=a.rotate_before_days,
        resync_seconds=a.resync_seconds,
        log_level=a.log_level,
        gang_controller=a.gang_controller,
        gang_default_scheduler=a.gang_default_scheduler,
        gang_debounce_seconds=a.gang_debounce_seconds,
    )
    if a.identity:
        config.identity = a.identity
    return config


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_args(argv)
    logs.setup(config.log_level)
    operator = Operator(config)
    done = threading.Event()

    def _signal(signum: int, _frame: Any) -> None:
        log.info("signal received", extra={"signal": signal.Signals(signum).name})
        done.set()

    signal.signal(signal.SIGTERM, _signal)
    signal.signal(signal.SIGINT, _signal)
    operator.start()
    while not done.wait(1.0):
        pass
    operator.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
