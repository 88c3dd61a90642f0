"""Glue for the CLI: kubectl's connection flags (``cli/options.py``) and LiveOptions from click params.

Only click is imported at module load; the live layer is imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from workload_map.base.snapshot import Snapshot
    from workload_map.definition.loader import LoadedDefinition
    from workload_map.sources.kube import LiveOptions

F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_CHUNK_SIZE = 500  # kubectl's --chunk-size default


def connection_options(func: F, *, fleet: bool = False) -> F:
    """``--kubeconfig --context --cluster --user --request-timeout --chunk-size`` (kubectl's names).

    ``fleet``: ``--context`` may be repeated (the command gets a tuple) and ``--all-contexts`` is added.
    """
    if fleet:
        context = click.option(
            "--context",
            metavar="NAME",
            multiple=True,
            help="The kubeconfig context to use; repeat it to read several clusters at once (a fleet).",
        )
    else:
        context = click.option("--context", metavar="NAME", default=None, help="The kubeconfig context to use.")
    decorators = [
        click.option("--kubeconfig", metavar="PATH", default=None, help="Path to the kubeconfig file to use."),
        context,
        *(
            [
                click.option(
                    "--all-contexts",
                    is_flag=True,
                    help="Read every context of the kubeconfig at once (a fleet); a CLUSTER column comes first.",
                )
            ]
            if fleet
            else []
        ),
        click.option("--cluster", metavar="NAME", default=None, help="The kubeconfig cluster to use."),
        click.option("--user", metavar="NAME", default=None, help="The kubeconfig user to use."),
        click.option(
            "--request-timeout",
            metavar="DURATION",
            default=None,
            help='Time to wait for one request ("5s", "1m"; 0 = no timeout). Default: 30s.',
        ),
        click.option(
            "--chunk-size",
            type=click.IntRange(min=0),
            default=DEFAULT_CHUNK_SIZE,
            show_default=True,
            help="Objects per list page (0: no paging).",
        ),
    ]
    for decorate in reversed(decorators):
        func = decorate(func)
    return func


def command_timeout_option(func: F) -> F:
    """``--timeout``: the deadline of a whole command (``wmap``'s one-shot reads; not the operator's)."""
    return click.option(
        "--timeout",
        "command_timeout",
        metavar="DURATION",
        default=None,
        help='Time for the whole command, retries of a throttled server included ("30s", "2m"; default: none).',
    )(func)


def live_options(params: dict[str, Any], *, namespace: str | None, all_namespaces: bool, **extra: Any) -> LiveOptions:
    """LiveOptions from a command's click params (the names ``connection_options`` declares)."""
    from workload_map.sources.kube import LiveOptions

    return LiveOptions(
        kubeconfig=params.get("kubeconfig"),
        context=single_context(params.get("context")),
        cluster=params.get("cluster"),
        user=params.get("user"),
        request_timeout=params.get("request_timeout"),
        timeout=params.get("command_timeout"),
        chunk_size=chunk_size_of(params),
        namespace=namespace,
        all_namespaces=all_namespaces,
        **extra,
    )


def chunk_size_of(params: Mapping[str, Any]) -> int:
    """``--chunk-size`` of a command's params (0: no paging); 500, the flag's default, when it has none
    (a command reading files, or a library caller passing partial params)."""
    value = params.get("chunk_size")
    return DEFAULT_CHUNK_SIZE if value is None else int(value)


def single_context(value: Any) -> str | None:
    """The one context of ``--context``: a fleet command's repeatable flag holds a tuple (empty: none)."""
    if isinstance(value, (tuple, list)):
        return str(value[0]) if value else None
    return None if value is None else str(value)


def live_snapshot(options: LiveOptions | None = None) -> tuple[Snapshot, list[LoadedDefinition], list[str]]:
    """Objects, cluster Karta definitions and warnings of the live cluster (the CLI itself uses
    ``cli/sources.py:open_view``, which keeps the LiveSource).

    Reads the click context's params when ``options`` is None (namespace, -A, connection flags).
    """
    from workload_map.sources.kube import live_source

    if options is None:
        ctx = click.get_current_context(silent=True)
        params = dict(ctx.params) if ctx is not None else {}
        options = live_options(
            params, namespace=params.get("namespace"), all_namespaces=bool(params.get("all_namespaces"))
        )
    source = live_source(options)
    source.connection.close()
    return source.snapshot, source.cluster_definitions, source.warnings
