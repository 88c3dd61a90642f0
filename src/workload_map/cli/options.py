"""Flags shared by several commands, spelled as kubectl spells them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

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
    return click.option("-n", "--namespace", metavar="NS", default=None, help='Namespace (default "default").')(func)


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


def object_source_options(func: F) -> F:
    return definitions_option(from_file_option(func))
