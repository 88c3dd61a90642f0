"""``wmap snapshot``: save everything the covered workloads need into ONE file ``--from-file`` reads."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.options import (
    all_namespaces_option,
    connection_options as connection_flags,
    definitions_option,
    namespace_option,
)

if TYPE_CHECKING:
    from workload_map import ClusterOptions
    from workload_map.ports.kube import Connection, LiveOptions, LiveSource


@click.command("snapshot")
@namespace_option
@all_namespaces_option
@click.option(
    "-o",
    "--output",
    "path",
    required=True,
    metavar="FILE",
    help="File to write: JSON for *.json, YAML otherwise; - writes YAML to stdout.",
)
@definitions_option
@connection_flags
def command(
    namespace: str | None,
    all_namespaces: bool,
    path: str,
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Save the cluster's workloads, the objects between them and their pods, the pods and the
    cluster's Karta definitions into one List file, so that every command can later read it with
    --from-file FILE (same output as live).

    \b
    Examples:
      wmap snapshot -A -o cluster.yaml
      wmap snapshot -n team-a -o team-a.json --context prod
      wmap get -A --from-file cluster.yaml
    """
    from workload_map import WorkloadMapError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import emit_warnings, stderr_is_tty  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import REQUESTS_ENV, print_requests  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import CliError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.commands import snapshot_document, with_capacity, write_snapshot  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.kube import connect, live_options  # noqa: PLC0415 (a command's --help loads only click)

    cluster = dataclasses.replace(
        connection, namespace=namespace, all_namespaces=all_namespaces, definitions=_definitions(definition_paths)
    )
    try:
        conn = connect(cluster)
    except WorkloadMapError as exc:
        raise CliError(exc.message, where=str(exc.location), hint=exc.hint) from None
    options = live_options(cluster, connection=conn)
    options.queues = True  # the schedulers' queue objects served, for `wmap queues --from-file`
    try:
        source = _list(options, conn) if stderr_is_tty() else _live(options)
        objects, capacity_warnings = with_capacity(source)
        if path == "-":
            from workload_map.cli.output import echo_document  # noqa: PLC0415 (a command's --help loads only click)

            echo_document(snapshot_document(objects, source.karta_objects, source.snapshot.coverage), "yaml")
            count = len(objects) + len(source.karta_objects)
        else:
            try:
                count = write_snapshot(path, objects, source.karta_objects, source.snapshot.coverage)
            except OSError as exc:
                raise CliError("cannot write the snapshot", where=path, why=exc.strerror or str(exc)) from None
        scope = "all namespaces" if source.namespace is None else f"namespace {source.namespace}"
        if path != "-":
            click.echo(f"Wrote {count} objects ({scope}) to {path}", err=True)
        # What could not be read, said as get says it; the file records it too (a Coverage item).
        gaps = source.index().gap_warnings()
        emit_warnings([*source.warnings, *gaps, *capacity_warnings])
        if source.snapshot.coverage.forbidden() or source.snapshot.coverage.failed():
            from workload_map.cmdline.errors import EXIT_PARTIAL  # noqa: PLC0415 (a command's --help loads only click)

            raise click.exceptions.Exit(EXIT_PARTIAL)
    finally:
        conn.close()
        if os.environ.get(REQUESTS_ENV, "") not in ("", "0"):
            print_requests(conn.counter)


def _live(options: LiveOptions) -> LiveSource:
    from workload_map import WorkloadMapError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import CliError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.kube import live_source  # noqa: PLC0415 (a command's --help loads only click)

    try:
        return live_source(options)
    except WorkloadMapError as exc:
        raise CliError(exc.message, where=str(exc.location), hint=exc.hint) from None


def _list(options: LiveOptions, conn: Connection) -> LiveSource:
    """``_live`` with a progress display on stderr (a terminal only): requests made and objects read."""
    from rich.progress import Progress, ProgressColumn, SpinnerColumn, Task, TextColumn, TimeElapsedColumn  # noqa: PLC0415 (a command's --help loads only click)
    from rich.text import Text  # noqa: PLC0415 (a command's --help loads only click)

    from workload_map.cli.output import console  # noqa: PLC0415 (a command's --help loads only click)

    class Requests(ProgressColumn):
        def render(self, task: Task) -> Text:
            return Text(f"{conn.counter.total()} requests")

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        Requests(),
        TimeElapsedColumn(),
        console=console(sys.stderr),
        transient=True,
    ) as progress:
        progress.add_task("listing workloads, their objects and pods", total=None)
        return _live(options)


def _definitions(paths: tuple[str, ...]) -> list[Any]:
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import from_library  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.commands import definition_files  # noqa: PLC0415 (a command's --help loads only click)

    try:
        return definition_files(paths)
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
