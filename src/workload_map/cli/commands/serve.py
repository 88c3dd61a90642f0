"""``wmap serve``: keep the cluster's workloads resolved and export them for Prometheus (docs/metrics.md)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.complete import complete_namespace
from workload_map.cli.options import definitions_option, fleet_connection_options, from_file_option

if TYPE_CHECKING:
    from collections.abc import Callable

    from workload_map import ClusterOptions, LiveModel
    from workload_map.serve.fleet import Clusters

TOKEN_ENV = "WMAP_SERVE_TOKEN"
POOL_LABEL = "nvidia.com/gpu.product"  # GPU Feature Discovery's label: the dashboard's GPU pools


@click.command("serve")
@click.option(
    "--address", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every interface)."
)
@click.option("--port", type=click.IntRange(0, 65535), default=9400, show_default=True, help="HTTP port (0: any free).")
@click.option(
    "--serve-timeout",
    type=click.FloatRange(min=0),
    default=None,
    hidden=True,
    help="Stop after SECONDS (tests and scripts).",
)
@click.option(
    "--token-file",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Require this bearer token (the file's first line) on every path but /healthz and /readyz "
    "(also $WMAP_SERVE_TOKEN). Needed whenever --address is not a loopback address.",
)
@click.option(
    "--allow-unauthenticated",
    is_flag=True,
    help="Serve a non-loopback --address without a token (something else must guard the port: a "
    "NetworkPolicy in the cluster). Without it, such a bind is refused.",
)
@click.option(
    "--max-connections",
    type=click.IntRange(min=1),
    default=256,
    show_default=True,
    help="Connections open at once; one more is answered 503 and closed.",
)
@click.option(
    "--idle-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=15.0,
    show_default=True,
    metavar="SECONDS",
    help="Close a connection that has not sent a whole request this long after connecting or after its "
    "last answer (a half-sent request, an idle keep-alive).",
)
@click.option(
    "--capacity-interval",
    type=click.FloatRange(min=0),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="Read each cluster's nodes and the pods bound to them this often, for the free GPUs of "
    "/api/v1/fleet and wmap_cluster_gpus_free (0: never).",
)
@click.option(
    "--queues-interval",
    type=click.FloatRange(min=0),
    default=None,
    hidden=True,
    metavar="SECONDS",
    help="Deprecated and ignored: the queues are watched with the workloads.",
)
@click.option(
    "-n",
    "--namespace",
    metavar="NS",
    default=None,
    shell_complete=complete_namespace,
    help="Serve this namespace only: what a Role there may read (`wmap auth -n NS`). Default: every namespace.",
)
@from_file_option
@definitions_option
@fleet_connection_options
def command(  # noqa: PLR0917 - click passes every option by name
    address: str,
    port: int,
    serve_timeout: float | None,
    token_file: str | None,
    allow_unauthenticated: bool,
    max_connections: int,
    idle_timeout: float,
    capacity_interval: float,
    queues_interval: float | None,
    namespace: str | None,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Watch the cluster and serve its workloads: a dashboard, a JSON API and Prometheus metrics.

    \b
    One LIST + WATCH per covered kind, for pods and for the scheduler queue kinds served (Kueue, KAI,
    Volcano); each event re-resolves only the workloads it touches.
    Endpoints: / (dashboard), /api/v1 (JSON API, /api/v1/openapi.json), /metrics (docs/metrics.md),
    /healthz, /readyz. Read-only: nothing served writes to the cluster. With --from-file it serves a dump.
    A fleet's cluster that cannot be read at start is reported, and retried until it joins.
    \b
    Examples:
      wmap serve --port 9400
      wmap serve --from-file src/workload_map/examples/ai-cluster.yaml
      wmap serve --context prod --address 0.0.0.0 --token-file token.txt
      wmap serve --context east --context west     # a fleet: every series has cluster="<context>"
      wmap serve -n team-a                         # one namespace, under the Role `wmap auth -n team-a` prints
    """
    import threading  # noqa: PLC0415 (a command's --help loads only click)

    from workload_map.cli.output import emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import EXIT_USAGE, CliError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.serve.fleet import poll_capacity, rejoin  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.serve.server import Service  # noqa: PLC0415 (a command's --help loads only click)

    if queues_interval is not None:
        emit_warnings(
            [
                "--queues-interval is deprecated and ignored: wmap serve watches the queue kinds with the "
                "workloads, so the queue figures change with each event (drop the flag)"
            ]
        )
    token = _token(token_file)
    if token is None and not _loopback(address):
        if not allow_unauthenticated:
            raise CliError(
                "refusing to serve without a token",
                where=f"--address {address}",
                why="every peer that reaches this address could read the cluster's workloads",
                hint="give --token-file (or $WMAP_SERVE_TOKEN), keep --address 127.0.0.1 behind kubectl "
                "port-forward, or --allow-unauthenticated where a NetworkPolicy guards the port",
                exit_code=EXIT_USAGE,
            )
        unguarded = f"serving {address} without a token (--allow-unauthenticated)"
        emit_warnings([f"{unguarded}: whoever reaches the port reads the workloads"])
    clusters, watch = _models(from_file, definition_paths, connection, namespace)
    stopped = threading.Event()
    service: Service | None = None
    try:
        try:
            service = Service(
                clusters,
                address=address,
                port=port,
                token=token,
                max_connections=max_connections,
                idle_timeout=idle_timeout,
            )
        except OSError as exc:
            raise CliError(
                "cannot listen", where=f"{address}:{port}", why=exc.strerror or str(exc), hint="choose another --port"
            ) from None
        workloads = sum(len(m.workloads()) for m in clusters.models.values())
        sync = max((m.sync_seconds or 0 for m in clusters.models.values()), default=0.0)
        fleet = len(clusters.names) > 1
        where = f" of {len(clusters.models)} clusters" if fleet else ""
        click.echo(
            f"Serving {workloads} workloads{where} on http://{address}:{service.port}/ (initial sync {sync:.2f} s)",
            err=True,
        )
        clusters.retrying.update(clusters.failed)  # a fleet's cluster not read at start is tried again
        emit_warnings(
            [
                *(f"cluster {name}: {clusters.not_read(name, why)}" for name, why in clusters.failed.items()),
                *(
                    (f"cluster {name}: " if fleet else "") + line
                    for name, model in clusters.models.items()
                    for line in [*model.warnings, *model.gap_warnings()]
                ),
            ]
        )
        service.start()  # after the warnings: once /readyz answers, they are said
        for name in list(clusters.failed):
            threading.Thread(
                target=rejoin,
                args=(clusters, name, watch, stopped),
                kwargs={"notice": lambda n, m: _rejoin_notice(clusters, n, m), "reason": _why},
                name=f"wmap serve start {name}",
                daemon=True,
            ).start()
        if capacity_interval:
            threading.Thread(
                target=poll_capacity,
                args=(clusters, _capacity_reader(from_file, definition_paths, connection), capacity_interval, stopped),
                name="wmap serve capacity",
                daemon=True,
            ).start()
        threading.Event().wait(serve_timeout)
    except KeyboardInterrupt:
        pass
    finally:
        stopped.set()
        if service is not None:
            service.stop()
        for model in clusters.models.values():
            model.stop()


def _rejoin_notice(clusters: Clusters, name: str, model: LiveModel | None) -> None:
    """One line when a cluster not read at start fails for a new reason, and when it is read at last
    (then its own warnings, as a cluster read at start has them said)."""
    from workload_map.cli.output import emit_warnings  # noqa: PLC0415 (a command's --help loads only click)

    if model is None:
        emit_warnings([f"cluster {name}: {clusters.not_read(name, clusters.failed.get(name, ''))}"])
        return
    count = len(model.workloads())
    emit_warnings(
        [
            f"cluster {name}: read after failing at start, served now: {count} workload{'' if count == 1 else 's'}",
            *(f"cluster {name}: {line}" for line in [*model.warnings, *model.gap_warnings()]),
        ]
    )


def _why(exc: Exception) -> str:
    """A failed start in one line, as a lone read says it (``not read: <this>``)."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    if isinstance(exc, wm.WorkloadMapError):
        return exc.message + (f": {exc.detail}" if exc.detail else "")
    return f"{type(exc).__name__}: {exc}"


def _models(
    from_file: tuple[str, ...], definition_paths: tuple[str, ...], connection: ClusterOptions, namespace: str | None
) -> tuple[Clusters, Callable[[str], LiveModel]]:
    """One started model per cluster, the clusters started at the same time, and how to start one again
    (a cluster of a fleet that cannot be read at start is left out and said, then retried; none at all
    is an error). A lone cluster is named by its context."""
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415 (a command's --help loads only click)

    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import CliError, from_library  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.serve.fleet import Clusters  # noqa: PLC0415 (a command's --help loads only click)

    def watch(context: str | None) -> LiveModel:
        prefix = f"cluster {context}: " if connection.is_fleet else ""
        return wm.watch_cluster(
            dataclasses.replace(connection.for_context(context), namespace=namespace, definitions=definition_paths),
            on_notice=lambda line: emit_warnings([prefix + line]),  # a watch failing or back: one line per cause
            queues=True,  # the Queues page, /api/v1/queues and wmap_queue_* change with each event too
        )

    contexts = list(connection.contexts) or ([connection.context] if connection.context else [])
    try:
        if from_file:
            if connection.is_fleet:
                raise click.UsageError("--context (repeated) and --all-contexts serve clusters, not --from-file")
            return Clusters(
                {"": wm.open_dump(*from_file, definitions=definition_paths, namespace=namespace).to_model()}
            ), watch
        if not connection.is_fleet:
            model = watch(connection.one_context())
            name = model.source.connection.context if model.source is not None else None
            return Clusters({name or "": model}), watch
        if connection.cluster or connection.user:
            raise click.UsageError("--cluster and --user name one cluster's parts: give them with one --context only")
        if connection.all_contexts:
            if contexts:
                raise click.UsageError("give either --all-contexts or --context, not both")
            contexts = connection.fleet_contexts()
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    models: dict[str, LiveModel] = {}
    failed: dict[str, str] = {}

    def start(context: str) -> None:
        try:
            models[context] = watch(context)
        except wm.WorkloadMapError as exc:
            failed[context] = _why(exc)

    with ThreadPoolExecutor(max_workers=max(1, len(contexts)), thread_name_prefix="wmap serve start") as pool:
        list(pool.map(start, contexts))
    if not models:
        for name, why in failed.items():
            click.echo(f"Warning: cluster {name}: not read: {why}", err=True)
        raise CliError(f"no cluster of the fleet could be read ({', '.join(contexts)})")
    return Clusters(
        {c: models[c] for c in contexts if c in models}, {c: failed[c] for c in contexts if c in failed}, order=contexts
    ), watch


def _capacity_reader(
    from_file: tuple[str, ...], definition_paths: tuple[str, ...], connection: ClusterOptions
) -> Callable[[str], dict[str, Any]]:
    """The GPU figures of one cluster (total, in use, free, per GPU product), from the capacity model of
    ``wmap capacity`` (nodes, the pods bound to them)."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    def read(cluster: str) -> dict[str, Any]:
        if from_file:
            view = wm.open_dump(*from_file, definitions=definition_paths, namespace=None)
        else:
            # every namespace's pods hold node resources; the command's --timeout bounds no capacity read
            whole = dataclasses.replace(connection.for_context(cluster or None), all_namespaces=True, timeout=None)
            view = wm.open_cluster(whole, capacity="only")
        with view:
            total, pools = wm.gpu_figures(view.capacity(), POOL_LABEL)
            return {"total": total.to_json(), "pools": [p.to_json() for p in pools]}

    return read


def _loopback(address: str) -> bool:
    import ipaddress  # noqa: PLC0415 (a command's --help loads only click)

    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:  # a host name: it may resolve to any interface
        return False


def _token(path: str | None) -> str | None:
    import os  # noqa: PLC0415 (a command's --help loads only click)

    if path is None:
        return os.environ.get(TOKEN_ENV) or None
    with open(path, encoding="utf-8") as handle:
        token = handle.readline().strip()
    if not token:
        raise click.BadParameter(f"{path} is empty", param_hint="'--token-file'")
    return token
