"""Where a command's objects come from: ``--from-file`` dumps or the live cluster, as a public View.

The one place the CLI opens a :class:`workload_map.View`; commands ask the view everything else.
With ``WMAP_DEBUG_REQUESTS=1`` the API requests a live view made are printed on stderr at the end.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import click

from workload_map.cmdline.errors import from_library

if TYPE_CHECKING:
    from workload_map import ClusterOptions, Fleet, LoadedDefinition, RequestCounter, View

REQUESTS_ENV = "WMAP_DEBUG_REQUESTS"


def open_view(
    from_files: Sequence[str],
    definition_paths: Sequence[str] = (),
    *,
    namespace: str | None = None,
    all_namespaces: bool = False,
    connection: ClusterOptions | None = None,
    kinds: Sequence[str] | None = None,
    describe: tuple[str, str] | None = None,
    capacity: bool | Literal["only"] = False,
    compact: bool = False,
    queues: bool = False,
    events: bool = False,
) -> View:
    """The View a command reads: dumps (``--from-file``), else the live cluster with kubectl's flags
    (``connection``, from ``options.connection_options``); library errors become one-line CLI errors.
    ``compact``: a command that only resolves workloads reads dumps compact (``open_dump``)."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    try:
        if from_files:
            return wm.open_dump(
                *from_files,
                definitions=definition_paths,
                namespace=None if all_namespaces else (namespace or "default"),
                compact=compact,
            )
        view = wm.open_cluster(
            _scoped(connection, namespace, all_namespaces, definition_paths),
            types=kinds,
            workload=f"{describe[0]}/{describe[1]}" if describe else None,
            capacity=capacity,
            queues=queues,
            events=events,
        )
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    _report_requests_at_exit(view)
    return view


def _scoped(
    connection: ClusterOptions | None, namespace: str | None, all_namespaces: bool, definition_paths: Sequence[str]
) -> ClusterOptions:
    """The command's connection flags with the scope and the definitions it reads."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    return dataclasses.replace(
        connection or wm.ClusterOptions(),
        namespace=namespace,
        all_namespaces=all_namespaces,
        definitions=tuple(definition_paths),
    )


def is_fleet(connection: ClusterOptions | None) -> bool:
    """The flags ask for a fleet: ``--context`` given more than once, or ``--all-contexts``
    (``options.fleet_connection_options``). One ``--context`` is one cluster, as before."""
    return connection is not None and connection.is_fleet


def open_fleet(
    from_files: Sequence[str],
    definition_paths: Sequence[str] = (),
    *,
    namespace: str | None = None,
    all_namespaces: bool = False,
    connection: ClusterOptions | None = None,
    kinds: Sequence[str] | None = None,
    describe: tuple[str, str] | None = None,
    capacity: bool | Literal["only"] = False,
    queues: bool = False,
    events: bool = False,
) -> Fleet:
    """The Fleet the flags name (every cluster read at once; see ``is_fleet``); a cluster not read is in
    ``Fleet.failures``, the caller warns and exits 5. Usage and kubeconfig errors are CLI errors."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    options = connection or wm.ClusterOptions()
    if from_files:
        raise click.UsageError("--context (repeated) and --all-contexts read clusters: they cannot read --from-file")
    if options.cluster or options.user:
        raise click.UsageError("--cluster and --user name one cluster's parts: give them with one --context only")
    if options.all_contexts and (options.contexts or options.context):
        raise click.UsageError("give either --all-contexts or --context, not both")
    try:
        fleet = wm.open_fleet(
            _scoped(options, namespace, all_namespaces, definition_paths),
            types=kinds,
            workload=f"{describe[0]}/{describe[1]}" if describe else None,
            capacity=capacity,
            queues=queues,
            events=events,
        )
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    for view in fleet.views.values():
        _report_requests_at_exit(view)
    return fleet


class FoundTarget(NamedTuple):
    """TYPE/NAME as read: ``(cluster, view, workload)`` for each place that has it (cluster None outside a
    fleet), the read's warnings, and whether the read was partial (exit 5 after printing)."""

    found: list[tuple[str | None, View, dict[str, Any]]]
    warnings: list[str]
    partial: bool


def open_target(
    from_files: Sequence[str],
    definition_paths: Sequence[str],
    target: Sequence[str],
    *,
    namespace: str | None,
    connection: ClusterOptions | None,
) -> FoundTarget:
    """The one workload a command such as ``gang`` or ``components`` works on, from one cluster (or dumps)
    or from every cluster of the fleet the flags name; everything is read before it returns."""
    from workload_map.cli.workloads import find_one, one_target, partial_read  # noqa: PLC0415 (a command's --help loads only click)

    if is_fleet(connection):
        fleet = open_fleet(
            from_files, definition_paths, namespace=namespace, connection=connection, describe=one_target(target)
        )
        fleet.close()  # everything is read
        found: list[tuple[str | None, View, dict[str, Any]]] = [
            (cluster, fleet.view(cluster), obj) for cluster, obj in fleet_found(fleet, one_target(target))
        ]
        return FoundTarget(found, list(fleet.warnings), fleet.partial)
    view = open_view(
        from_files, definition_paths, namespace=namespace, connection=connection, describe=one_target(target)
    )
    view.close()  # everything is read: the rest works on what was read
    return FoundTarget([(None, view, find_one(view, target))], list(view.warnings), partial_read(view))


def fleet_found(fleet: Fleet, target: tuple[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """``(cluster, workload)`` of TYPE/NAME in every cluster of the fleet read that has it; when none has it,
    the clusters not read are warned about and it is not found (exit 3), or no cluster was read (exit 1)."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import CliError  # noqa: PLC0415 (a command's --help loads only click)

    require_some(fleet)
    try:
        found = fleet.find(target)
    except wm.WorkloadMapError as exc:
        emit_warnings(fleet.warnings)
        error = from_library(exc)
        if isinstance(exc, wm.NotFoundError):
            error.what = f"{error.what} of any cluster ({', '.join(fleet.views)})"
        raise CliError(
            error.what, where=error.where, why=error.why, hint=error.hint, exit_code=error.exit_code
        ) from None
    return found


def require_some(fleet: Fleet) -> None:
    """No cluster of the fleet could be read: the warnings say why, and it is an error (exit 1)."""
    from workload_map.cli.output import emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import CliError  # noqa: PLC0415 (a command's --help loads only click)

    if not fleet.views:
        emit_warnings(fleet.warnings)
        raise CliError(f"no cluster of the fleet could be read ({', '.join(fleet.clusters)})")


def fleet_exit(fleet: Fleet) -> None:
    """Exit 5 (partial result) when a cluster, or part of one, could not be read (after printing)."""
    from workload_map.cmdline.errors import EXIT_PARTIAL  # noqa: PLC0415 (a command's --help loads only click)

    if fleet.partial:
        raise click.exceptions.Exit(EXIT_PARTIAL)


def _report_requests_at_exit(view: View) -> None:
    counter = view.requests
    if counter is None or os.environ.get(REQUESTS_ENV, "") in ("", "0"):
        return
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return
    ctx.call_on_close(lambda: print_requests(counter))


def print_requests(counter: RequestCounter) -> None:
    """``Requests: N (GET a, LIST b)`` (``, retried R`` after 429/5xx) and one line per request, on stderr."""
    import sys  # noqa: PLC0415 (a command's --help loads only click)

    sys.stdout.flush()
    verbs: dict[str, int] = {}
    for (verb, _path), count in sorted(counter.counts.items()):
        verbs[verb] = verbs.get(verb, 0) + count
    summary = ", ".join(f"{verb} {count}" for verb, count in sorted(verbs.items()))
    retried = f", retried {counter.retries}" if counter.retries else ""
    click.echo(f"Requests: {counter.total()} ({summary}){retried}", err=True)
    for verb, path, query in list(counter.log):
        click.echo(f"  {verb} {path}" + (f"?{query}" if query else ""), err=True)


def definitions_only(definition_paths: Sequence[str]) -> tuple[list[LoadedDefinition], list[str]]:
    """Effective definitions (built-in overridden by files) without reading any objects."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    try:
        return wm.effective_definitions(definition_paths)
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
