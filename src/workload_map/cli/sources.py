"""Where a command's objects come from: ``--from-file`` dumps or the live cluster, as a public View.

The one place the CLI opens a :class:`workload_map.View`; commands ask the view everything else.
With ``WMAP_DEBUG_REQUESTS=1`` the API requests a live view made are printed on stderr at the end.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import click

from workload_map.cli.errors import from_library

if TYPE_CHECKING:
    from workload_map import LoadedDefinition, RequestCounter, View

REQUESTS_ENV = "WMAP_DEBUG_REQUESTS"


def open_view(
    from_files: Sequence[str],
    definition_paths: Sequence[str] = (),
    *,
    namespace: str | None = None,
    all_namespaces: bool = False,
    connection: Mapping[str, Any] | None = None,
    kinds: Sequence[str] | None = None,
    describe: tuple[str, str] | None = None,
    capacity: bool | Literal["only"] = False,
) -> View:
    """The View a command reads: dumps (``--from-file``), else the live cluster with kubectl's flags
    (``connection``, see ``options.connection_options``); library errors become one-line CLI errors."""
    import workload_map as wm

    try:
        if from_files:
            return wm.open_dump(
                *from_files,
                definitions=definition_paths,
                namespace=None if all_namespaces else (namespace or "default"),
            )
        params = dict(connection or {})
        view = wm.open_cluster(
            kubeconfig=params.get("kubeconfig"),
            context=params.get("context"),
            cluster=params.get("cluster"),
            user=params.get("user"),
            request_timeout=params.get("request_timeout"),
            timeout=params.get("command_timeout"),
            chunk_size=500 if params.get("chunk_size") is None else int(params["chunk_size"]),
            namespace=namespace,
            all_namespaces=all_namespaces,
            definitions=definition_paths,
            types=kinds,
            workload=f"{describe[0]}/{describe[1]}" if describe else None,
            capacity=capacity,
        )
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    _report_requests_at_exit(view)
    return view


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
    import sys

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
    import workload_map as wm

    try:
        return wm.effective_definitions(definition_paths)
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
