"""Flags shared by several commands, spelled as kubectl spells them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from workload_map.cli.complete import complete_namespace, complete_target
from workload_map.cmdline.cluster_options import (
    chunk_size_of,
    command_timeout_option,
    connection_options as kubectl_connection_options,
)

__all__ = [
    "STATUSES",
    "all_namespaces_option",
    "chunk_size_of",
    "connection_options",
    "definitions_option",
    "fleet_connection_options",
    "fleet_source_options",
    "from_file_option",
    "namespace_option",
    "object_source_options",
    "output_option",
    "target_argument",
]

F = TypeVar("F", bound=Callable[..., Any])

# The ResourceStatus values, spelled out: importing the definition model would add its classes to every
# command's start, `--help` included; tests/cli/test_options.py keeps the two equal.
STATUSES = (
    "Initializing",
    "Running",
    "Completed",
    "Failed",
    "Degraded",
    "Suspended",
    "Suspending",
    "Resuming",
    "Undefined",
)


def from_file_option(func: F) -> F:
    return click.option(
        "--from-file",
        "from_file",
        multiple=True,
        metavar="PATH",
        help="Read objects from a dump instead of a cluster: a YAML/JSON file, a directory, or - for stdin "
        "(repeatable). Karta objects in the dump are used as definitions.",
    )(func)


def definitions_option(func: F) -> F:
    return click.option(
        "--definitions",
        "definition_paths",
        multiple=True,
        metavar="PATH",
        help="Add workload definitions (Karta YAML/JSON file, directory or -); they override built-in ones "
        "for the same kind (repeatable).",
    )(func)


def namespace_option(func: F) -> F:
    return click.option(
        "-n",
        "--namespace",
        metavar="NS",
        default=None,
        shell_complete=complete_namespace,
        help='Namespace (default: the kubeconfig context\'s namespace; "default" with --from-file).',
    )(func)


def target_argument(metavar: str, *, required: bool) -> Callable[[F], F]:
    """``TYPE/NAME``, ``TYPE NAME...``: completes types, names (listed) and ``TYPE/NAME``."""
    return click.argument("target", nargs=-1, required=required, metavar=metavar, shell_complete=complete_target)


def all_namespaces_option(func: F) -> F:
    return click.option("-A", "--all-namespaces", is_flag=True, help="List workloads across all namespaces.")(func)


def output_option(choices: tuple[str, ...], default: str) -> Callable[[F], F]:
    def decorate(func: F) -> F:
        return click.option(
            "-o",
            "--output",
            type=click.Choice(choices),
            default=default,
            show_default=True,
            help="Output format.",
        )(func)

    return decorate


def connection_options(func: F) -> F:
    """kubectl's ``--kubeconfig --context --cluster --user --request-timeout --chunk-size``, and
    ``--timeout`` (the whole command's deadline).

    The command receives them as keyword arguments; pass them on as ``connection=`` to
    ``cli.sources.open_view`` (commands collect them with ``**connection``).
    """
    return command_timeout_option(kubectl_connection_options(func))


def object_source_options(func: F) -> F:
    """``--from-file``, ``--definitions`` and the connection flags used without ``--from-file``."""
    return connection_options(definitions_option(from_file_option(func)))


def fleet_connection_options(func: F) -> F:
    """:func:`connection_options` with ``--context`` repeatable and ``--all-contexts``: what a command that
    reads a fleet declares. Pass its params to ``cli.sources.is_fleet`` / ``cli.sources.open_fleet``."""
    return command_timeout_option(kubectl_connection_options(func, fleet=True))


def fleet_source_options(func: F) -> F:
    """:func:`object_source_options` for a command that reads one cluster, a dump or a fleet."""
    return fleet_connection_options(definitions_option(from_file_option(func)))
