"""``wmap-operator`` (``python -m workload_map.operator``): the operator process.

Every replica serves the admission webhooks (TLS) and the health endpoints; the replica holding the Lease runs
the Karta controller. SIGTERM/SIGINT stop it gracefully: the controller stops taking work, the Lease is
released, the servers shut down.

Outside a cluster (a kubeconfig on a laptop) two defaults differ from a pod's, because a pod's would not work
there: the Lease goes to the kubeconfig context's namespace (which exists), and the admission webhooks are off
(the API server cannot call back into a laptop, and patching the cluster's webhook configurations with a local
CA would break the in-cluster operator's). Reconciling never waits for webhook certificates: they are set up
in the background and ``/readyz`` says what is missing. A startup problem (no cluster, a missing namespace, a
busy port) ends the process before anything is written, with one ``error: <what> (<where>): <why>`` line and
exit code 1, as ``wmap`` does (docs/cli.md).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import signal
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import click

from workload_map import ClusterOptions
from workload_map.cmdline.cluster_options import connection_options
from workload_map.cmdline.errors import CliError, one_line_errors
from workload_map.operator import admission, certs, logs
from workload_map.operator.cluster_definitions import ClusterDefinitions
from workload_map.operator.controller import KartaController
from workload_map.operator.gang import GangController
from workload_map.operator.kube import KARTAS, operator_connection
from workload_map.operator.leader import LeaseElector
from workload_map.operator.pod_attach import PodAttacher
from workload_map.operator.server import Handler, HealthServer, WebhookServer
from workload_map.ports.definitions import LIMITS, builtin_definitions
from workload_map.ports.kube import ClusterError, Connection, list_all

log = logging.getLogger("workload_map.operator")


CERT_RETRY_MAX_SECONDS = 60.0


@dataclass
class OperatorConfig:
    namespace: str | None = None  # None: the connection's namespace (kubeconfig context's; in a pod, its own)
    namespace_origin: str = "--namespace"  # where ``namespace`` came from, for error messages
    connection: ClusterOptions = field(default_factory=ClusterOptions)
    identity: str = field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}")
    lease_name: str = "workload-map-operator"
    lease_seconds: int = 15
    events_namespace: str = "default"
    health_host: str = "0.0.0.0"
    health_port: int = 8081
    webhook_host: str = "0.0.0.0"
    webhooks: bool = True
    webhook_port: int = 9443  # 0 disables the webhook server too
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
    # jq budgets of the definitions' expressions (workload_map.jq.limits; the CLI's defaults). The chart
    # sets the worker's memory below the container's limit: a hostile expression kills its worker, never
    # the operator.
    jq_timeout_seconds: float = LIMITS.timeout_seconds
    jq_memory_mb: int = LIMITS.worker_memory_bytes // (1024 * 1024)


class Operator:
    def __init__(self, config: OperatorConfig, connection: Connection | None = None) -> None:
        self.config = config
        self.conn = connection or operator_connection(options=config.connection)
        self.namespace = config.namespace or self.conn.namespace
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
            self.namespace,
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
        self._served_cert: bytes | None = None
        self._cert_error: str | None = None  # the last certificate setup failure, for /readyz

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
            return False, "webhook certificate not loaded" + (f": {self._cert_error}" if self._cert_error else "")
        if self.definitions is not None and not self.definitions.synced.is_set():
            return False, "cluster Karta definitions not loaded"
        if self.elector.leading and self.controller is not None and not self.controller.synced.is_set():
            return False, "controller cache not synced"
        if self.elector.leading and self.config.gang_controller and (self.gang is None or not self.gang.is_synced()):
            return False, "gang controller cache not synced"
        return True, "leader" if self.elector.leading else "standby"

    # -- webhooks
    def _list_kartas(self) -> list[dict[str, Any]]:
        return list_all(self.conn, KARTAS, None).items

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
        hosts = certs.service_hosts(cfg.service_name, self.namespace, cfg.extra_hosts)
        store = certs.SecretCertStore(
            self.conn, self.namespace, cfg.cert_secret, hosts, rotate_before=dt.timedelta(days=cfg.rotate_before_days)
        )
        bundle, changed = store.ensure()
        if changed or not self.webhooks.loaded or self._served_cert != bundle.cert_pem:
            self.webhooks.load(bundle.cert_pem, bundle.key_pem)
            self._served_cert = bundle.cert_pem
        patched = certs.patch_ca_bundle(self.conn, bundle.ca_bundle, cfg.validating_webhook, cfg.mutating_webhook)
        if patched:
            log.info("caBundle patched", extra={"configurations": patched})

    def _cert_loop(self) -> None:
        """Set up the webhook certificate, serve once it is loaded, then check it every ``cert_check_seconds``.

        Runs beside the controller (never before it): a Secret that cannot be written yet delays only the
        webhooks, retried with backoff; ``/readyz`` carries the last error meanwhile.
        """
        assert self.webhooks is not None
        retry = 1.0
        while not self.stop_event.is_set():
            try:
                self._ensure_certs()
            except Exception as exc:
                self._cert_error = str(exc)
                log.warning(
                    "certificate setup failed, retrying" if not self.webhooks.loaded else "certificate check failed",
                    extra={"error": str(exc), "retry_in": retry},
                )
                wait, retry = retry, min(retry * 2, CERT_RETRY_MAX_SECONDS)
            else:
                self._cert_error = None
                if not self.webhooks.serving:
                    self.webhooks.start()
                    log.info("webhooks serving", extra={"port": self.webhooks.port})
                wait, retry = self.config.cert_check_seconds, 1.0
            if self.stop_event.wait(wait):
                return

    # -- lifecycle
    @property
    def serves_webhooks(self) -> bool:
        return self.config.webhooks and self.config.webhook_port != 0

    def start(self) -> None:
        """Bind the ports and check the namespaces (a problem raises CliError, nothing has started), then start
        the webhook certificate loop, the Karta definitions watch and leader election side by side."""
        cfg = self.config
        try:
            if cfg.health_port:
                probes = {"/healthz": self._healthz, "/readyz": self._readyz}
                self.health = _listen(
                    lambda: HealthServer(cfg.health_host, cfg.health_port, probes),
                    cfg.health_host,
                    cfg.health_port,
                    "--health-port",
                )
            if self.serves_webhooks:
                routes: dict[str, Handler] = {"/validate-karta": self._validate, "/mutate-karta": self._mutate}
                if cfg.gang_controller:
                    routes["/mutate-pod"] = self._mutate_pod
                self.webhooks = _listen(
                    lambda: WebhookServer(cfg.webhook_host, cfg.webhook_port, routes),
                    cfg.webhook_host,
                    cfg.webhook_port,
                    "--webhook-port",
                )
            self._check_namespaces()
        except BaseException:
            self._close_servers()
            raise
        if self.health is not None:
            self.health.start()
        if self.webhooks is not None:
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
                "namespace": self.namespace,
                "cluster": self.conn.server,
                "webhooks": self.serves_webhooks,
                "webhook_port": self.webhooks.port if self.webhooks else None,
                "health_port": self.health.port if self.health else None,
            },
        )

    def _check_namespaces(self) -> None:
        """The Lease's namespace and the Events' namespace must exist: without them nothing can be written.

        Checked once at start: a user on a laptop gets an answer instead of a process that retries forever.
        """
        cfg = self.config
        if cfg.namespace:
            lease_origin = cfg.namespace_origin
        elif self.conn.context:
            lease_origin = f"the namespace of kubeconfig context {self.conn.context!r}"
        else:
            lease_origin = "the pod's namespace"
        keeps = "its leader-election Lease" + (
            " and webhook certificate Secret" if self.serves_webhooks and cfg.cert_mode == "self" else ""
        )
        wanted = [
            (self.namespace, lease_origin, "--namespace", f"the operator keeps {keeps} there"),
            (cfg.events_namespace, "--events-namespace", "--events-namespace", "the Events about Kartas go there"),
        ]
        checked: set[str] = set()
        for name, origin, flag, why in wanted:
            if name in checked:
                continue
            checked.add(name)
            try:
                self.conn.request("GET", f"/api/v1/namespaces/{name}", what=f"namespace {name}")
            except ClusterError as exc:
                if exc.status == 403:  # not allowed to look: the first write will tell
                    log.info("cannot check the namespace exists", extra={"namespace": name, "error": str(exc)})
                    continue
                if exc.status == 404:
                    raise CliError(
                        f"namespace {name!r} not found",
                        where=f"{origin}, cluster {self.conn.server}",
                        why=why,
                        hint=f"create it (kubectl create namespace {name}) or name an existing one with {flag}",
                    ) from None
                raise CliError(exc.message, hint=exc.hint) from None

    def _close_servers(self) -> None:
        for server in (self.webhooks, self.health):
            if server is not None:
                server.stop()

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
        self._close_servers()
        log.info("operator stopped")


ServerT = TypeVar("ServerT", HealthServer, WebhookServer)


def _listen(bind: Callable[[], ServerT], host: str, port: int, flag: str) -> ServerT:
    """A server bound to its port, or the one-line error a busy or unusable port deserves."""
    try:
        return bind()
    except OSError as exc:
        raise CliError(
            f"cannot listen on {host}:{port}",
            where=flag,
            why=exc.strerror or str(exc),
            hint=f"another process (another operator?) may hold the port: pick a free one with {flag} PORT, "
            "or 0 to turn that server off",
        ) from None


def in_pod() -> bool:
    """Whether this process runs in a Kubernetes pod (the kubelet sets the variable in every container)."""
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST"))


def apply_jq_limits(config: OperatorConfig) -> None:
    """The process-wide jq budgets (every evaluation reads workload_map.jq.LIMITS)."""
    LIMITS.timeout_seconds = config.jq_timeout_seconds
    LIMITS.worker_memory_bytes = config.jq_memory_mb * 1024 * 1024


def run(config: OperatorConfig) -> int:
    """Run the operator until SIGTERM/SIGINT; startup problems raise CliError (exit 1)."""
    logs.setup(config.log_level)
    apply_jq_limits(config)
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


CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 110}


@click.command("wmap-operator", context_settings=CONTEXT_SETTINGS)
@connection_options
@click.option(
    "-n",
    "--namespace",
    metavar="NS",
    envvar="POD_NAMESPACE",
    show_envvar=True,
    help="Namespace of the leader-election Lease and the webhook certificate Secret "
    "[default: the kubeconfig context's namespace; in a pod, the pod's].",
)
@click.option(
    "--identity",
    metavar="NAME",
    envvar="POD_NAME",
    show_envvar=True,
    help="Leader-election identity of this replica [default: <hostname>-<pid>].",
)
@click.option("--lease-name", metavar="NAME", default="workload-map-operator", show_default=True, help="Lease name.")
@click.option(
    "--lease-seconds",
    type=click.IntRange(min=2),
    default=15,
    show_default=True,
    help="Lease duration: a standby takes over this long after the leader stops renewing.",
)
@click.option(
    "--events-namespace",
    metavar="NS",
    default="default",
    show_default=True,
    help="Where Events about (cluster-scoped) Kartas are written; kubectl describe looks in default.",
)
@click.option(
    "--resync-seconds",
    type=click.FloatRange(min=1),
    default=300.0,
    show_default=True,
    help="Reconcile every Karta at least this often.",
)
@click.option("--health-host", metavar="ADDR", default="0.0.0.0", show_default=True, help="Address of the probes.")
@click.option(
    "--health-port",
    type=click.IntRange(0, 65535),
    default=8081,
    show_default=True,
    help="Port of /healthz and /readyz (0: no health server).",
)
@click.option(
    "--webhooks/--no-webhooks",
    default=None,
    help="Serve the Karta admission webhooks [default: in a pod yes; outside a cluster no, the API server "
    "cannot reach this host].",
)
@click.option("--webhook-host", metavar="ADDR", default="0.0.0.0", show_default=True, help="Address of the webhooks.")
@click.option(
    "--webhook-port",
    type=click.IntRange(0, 65535),
    default=9443,
    show_default=True,
    help="TLS port of the admission webhooks (0: none, as --no-webhooks).",
)
@click.option(
    "--cert-mode",
    type=click.Choice(["self", "files"]),
    default="self",
    show_default=True,
    help="self: generate and rotate a CA and serving certificate in --cert-secret; files: read --cert-dir "
    "(cert-manager).",
)
@click.option(
    "--cert-secret",
    metavar="NAME",
    default="workload-map-webhook-tls",
    show_default=True,
    help="Secret (in --namespace) holding the self-managed certificates.",
)
@click.option(
    "--cert-dir", metavar="DIR", default="/tls", show_default=True, help="tls.crt and tls.key for --cert-mode files."
)
@click.option(
    "--service-name",
    metavar="NAME",
    default="workload-map-webhook",
    show_default=True,
    help="Service the API server calls the webhooks through (the certificate's DNS names).",
)
@click.option(
    "--extra-host",
    "extra_hosts",
    metavar="HOST",
    multiple=True,
    help="Extra DNS name or IP address of the serving certificate (repeatable).",
)
@click.option(
    "--validating-webhook",
    metavar="NAME",
    default="workload-map",
    show_default=True,
    help='ValidatingWebhookConfiguration whose caBundle is kept current ("": none).',
)
@click.option(
    "--mutating-webhook",
    metavar="NAME",
    default="workload-map",
    show_default=True,
    help='MutatingWebhookConfiguration whose caBundle is kept current ("": none).',
)
@click.option(
    "--cert-check-seconds",
    type=click.FloatRange(min=1),
    default=3600.0,
    show_default=True,
    help="How often the certificate is checked for renewal.",
)
@click.option(
    "--rotate-before-days",
    type=click.FloatRange(min=0),
    default=30.0,
    show_default=True,
    help="Reissue the serving certificate this long before it expires.",
)
@click.option(
    "--gang-controller",
    is_flag=True,
    help="Create Volcano/coscheduling PodGroups for workloads in namespaces labelled "
    "workload-map.run.ai/gang-controller, and serve /mutate-pod.",
)
@click.option(
    "--gang-default-scheduler",
    type=click.Choice(["volcano", "coscheduling"]),
    default="volcano",
    show_default=True,
    help="The scheduler for namespaces whose label value is 'true' or empty.",
)
@click.option(
    "--gang-debounce-seconds",
    type=click.FloatRange(min=0),
    default=1.0,
    show_default=True,
    help="At most one PodGroup reconcile per workload this often.",
)
@click.option(
    "--jq-timeout-seconds",
    type=click.FloatRange(min=0.01),
    default=LIMITS.timeout_seconds,
    show_default=True,
    help="Time limit of one jq evaluation of a definition's expression (as in wmap).",
)
@click.option(
    "--jq-memory-mb",
    type=click.IntRange(min=64),
    default=LIMITS.worker_memory_bytes // (1024 * 1024),
    show_default=True,
    help="Address-space limit of the jq worker process; keep it below the container's memory limit.",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"], case_sensitive=False),
    envvar="LOG_LEVEL",
    show_envvar=True,
    default="info",
    show_default=True,
    help="Level of the JSON logs on stderr.",
)
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.version_option(None, "--version", package_name="workload-map", message="%(prog)s version %(version)s")
@click.pass_context
def command(ctx: click.Context, /, debug: bool, **params: Any) -> None:
    """The workload-map operator: reconciles Karta objects (status conditions Validated, CRDExists, Ready,
    index labels, Events) and, in a cluster, serves their admission webhooks (docs/operator.md).

    \b
    Outside a cluster, with your kubeconfig:
      wmap-operator --kubeconfig ~/.kube/config
    reconciles at once; the Lease goes to the context's namespace and the webhooks stay off.
    """
    with one_line_errors(debug):
        ctx.exit(run(_config(ctx, params)))


def _config(ctx: click.Context, p: dict[str, Any]) -> OperatorConfig:
    from_env = ctx.get_parameter_source("namespace") is click.core.ParameterSource.ENVIRONMENT
    webhooks = in_pod() if p["webhooks"] is None else bool(p["webhooks"])
    config = OperatorConfig(
        namespace=p["namespace"] or None,
        namespace_origin="$POD_NAMESPACE" if from_env else "--namespace",
        connection=p["connection"],
        lease_name=p["lease_name"],
        lease_seconds=p["lease_seconds"],
        events_namespace=p["events_namespace"],
        health_host=p["health_host"],
        health_port=p["health_port"],
        webhooks=webhooks,
        webhook_host=p["webhook_host"],
        webhook_port=p["webhook_port"],
        cert_mode=p["cert_mode"],
        cert_secret=p["cert_secret"],
        cert_dir=p["cert_dir"],
        service_name=p["service_name"],
        extra_hosts=tuple(p["extra_hosts"]),
        validating_webhook=p["validating_webhook"] or None,
        mutating_webhook=p["mutating_webhook"] or None,
        cert_check_seconds=p["cert_check_seconds"],
        rotate_before_days=p["rotate_before_days"],
        resync_seconds=p["resync_seconds"],
        log_level=p["log_level"],
        gang_controller=p["gang_controller"],
        gang_default_scheduler=p["gang_default_scheduler"],
        gang_debounce_seconds=p["gang_debounce_seconds"],
        jq_timeout_seconds=p["jq_timeout_seconds"],
        jq_memory_mb=p["jq_memory_mb"],
    )
    if p["identity"]:
        config.identity = p["identity"]
    return config


def main(argv: Sequence[str] | None = None) -> None:
    command.main(args=list(argv) if argv is not None else None, prog_name="wmap-operator")
