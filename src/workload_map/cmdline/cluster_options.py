"""kubectl's connection flags for every command line (``wmap``, ``wmap-operator``), given to the command as
one :class:`workload_map.ClusterOptions`.

Only click and the ClusterOptions class are imported at module load.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import click

from workload_map.api.clusters import DEFAULT_CHUNK_SIZE, ClusterOptions

F = TypeVar("F", bound=Callable[..., Any])

# The click params the connection flags declare; the command gets them as one ``connection`` argument.
CONNECTION_PARAMS = (
    "kubeconfig",
    "context",
    "all_contexts",
    "cluster",
    "user",
    "request_timeout",
    "chunk_size",
    "command_timeout",
)


def connection_options(func: F, *, fleet: bool = False) -> F:
    """``--kubeconfig --context --cluster --user --request-timeout --chunk-size`` (kubectl's names), given
    to the command as ``connection``, a :class:`ClusterOptions` (:func:`cluster_options_of` its params).

    ``fleet``: ``--context`` may be repeated and ``--all-contexts`` is added. ``--timeout``
    (:func:`command_timeout_option`), when a command declares it on top, goes into the same value.
    """

    @functools.wraps(func)
    def command(*args: Any, **params: Any) -> Any:
        connection = cluster_options_of(params)
        for name in CONNECTION_PARAMS:
            params.pop(name, None)
        return func(*args, connection=connection, **params)

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
    decorated: Any = command
    for decorate in reversed(decorators):
        decorated = decorate(decorated)
    return decorated  # type: ignore[no-any-return]


def command_timeout_option(func: F) -> F:
    """``--timeout``: the deadline of a whole command (``wmap``'s one-shot reads; not the operator's)."""
    return click.option(
        "--timeout",
        "command_timeout",
        metavar="DURATION",
        default=None,
        help='Time for the whole command, retries of a throttled server included ("30s", "2m"; default: none).',
    )(func)


def cluster_options_of(params: Mapping[str, Any]) -> ClusterOptions:
    """The ClusterOptions of a command's connection flags: the one place they become one (commands get it
    from :func:`connection_options`; shell completion, which sees the raw params, calls this). The scope
    (``-n``, ``-A``) and ``--definitions`` are the command's own flags: it adds them to the value, as a
    command reading a dump uses them too."""
    value = params.get("context")
    # a fleet command's repeatable --context: once is one cluster; more often, a fleet
    given = [str(c) for c in value] if isinstance(value, (tuple, list)) else [] if value is None else [str(value)]
    return ClusterOptions(
        kubeconfig=params.get("kubeconfig"),
        context=given[0] if len(given) == 1 else None,
        contexts=tuple(given) if len(given) > 1 else (),
        all_contexts=bool(params.get("all_contexts")),
        cluster=params.get("cluster"),
        user=params.get("user"),
        request_timeout=params.get("request_timeout"),
        timeout=params.get("command_timeout"),
        chunk_size=chunk_size_of(params),
    )


def chunk_size_of(params: Mapping[str, Any]) -> int:
    """``--chunk-size`` of a command's params (0: no paging); 500, the flag's default, when it has none
    (a command reading files, or a library caller passing partial params)."""
    value = params.get("chunk_size")
    return DEFAULT_CHUNK_SIZE if value is None else int(value)
