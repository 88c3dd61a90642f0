"""``wmap serve``: keep the cluster's workloads resolved and export them for Prometheus (docs/metrics.md)."""

from __future__ import annotations

from typing import Any

import click

from workload_map.cli.options import connection_options, definitions_option, from_file_option

TOKEN_ENV = "WMAP_SERVE_TOKEN"


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
    "(also $WMAP_SERVE_TOKEN). Use it, or kubectl proxy, whenever --address is not 127.0.0.1.",
)
@from_file_option
@definitions_option
@connection_options
def command(  # noqa: PLR0917 - click passes every option by name
    address: str,
    port: int,
    serve_timeout: float | None,
    token_file: str | None,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    **connection: Any,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Watch the cluster and serve its workloads: a dashboard, a JSON API and Prometheus metrics.

    \b
    One LIST + WATCH per covered kind and for pods; each event re-resolves only the workloads it touches.
    Endpoints: / (dashboard), /api/v1 (JSON API, /api/v1/openapi.json), /metrics (docs/metrics.md),
    /healthz, /readyz. Read-only: nothing served writes to the cluster. With --from-file it serves a dump.
    \b
    Examples:
      wmap serve --port 9400
      wmap serve --from-file src/workload_map/examples/ai-cluster.yaml
      wmap serve --context prod --address 0.0.0.0 --token-file token.txt
    """
    import threading

    import workload_map as wm
    from workload_map.cli.errors import CliError, from_library
    from workload_map.cli.output import emit_warnings
    from workload_map.serve.server import Service

    token = _token(token_file)
    try:
        if from_file:
            model = wm.open_dump(*from_file, definitions=definition_paths, namespace=None).to_model()
        else:
            model = wm.watch_cluster(
                kubeconfig=connection.get("kubeconfig"),
                context=connection.get("context"),
                cluster=connection.get("cluster"),
                user=connection.get("user"),
                request_timeout=connection.get("request_timeout"),
                chunk_size=500 if connection.get("chunk_size") is None else int(connection["chunk_size"]),
                definitions=definition_paths,
                on_notice=lambda line: emit_warnings([line]),  # a watch failing or back: one line per cause
            )
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    service: Service | None = None
    try:
        try:
            service = Service(model, address=address, port=port, token=token)
        except OSError as exc:
            raise CliError(
                "cannot listen", where=f"{address}:{port}", why=exc.strerror or str(exc), hint="choose another --port"
            ) from None
        service.start()
        workloads = len(model.workloads())
        click.echo(
            f"Serving {workloads} workloads on http://{address}:{service.port}/ "
            f"(initial sync {model.sync_seconds or 0:.2f} s)",
            err=True,
        )
        emit_warnings([*model.warnings, *model.gap_warnings()])
        threading.Event().wait(serve_timeout)
    except KeyboardInterrupt:
        pass
    finally:
        if service is not None:
            service.stop()
        model.stop()


def _token(path: str | None) -> str | None:
    import os

    if path is None:
        return os.environ.get(TOKEN_ENV) or None
    with open(path, encoding="utf-8") as handle:
        token = handle.readline().strip()
    if not token:
        raise click.BadParameter(f"{path} is empty", param_hint="'--token-file'")
    return token
