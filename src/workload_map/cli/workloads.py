"""Finding the workload a command names through the View, with the CLI's usage errors and exit codes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from workload_map.cmdline.errors import from_library

if TYPE_CHECKING:
    from workload_map import View, WorkloadTree


def one_target(target: Sequence[str]) -> tuple[str, str]:
    """``(TYPE, NAME)`` of ``TYPE/NAME`` or ``TYPE NAME``; a usage error otherwise."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    try:
        return wm.one_target(target)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def find_one(view: View, target: Sequence[str]) -> dict[str, Any]:
    """The workload named by ``TYPE/NAME`` or ``TYPE NAME`` in the view's namespace (default "default")."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    try:
        return view.find(one_target(target))
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None


def tree_of(view: View, workload: dict[str, Any]) -> WorkloadTree:
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    try:
        return view.workload(workload)
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None


def partial_read(view: View) -> bool:
    """Whether a kind or namespace of the view was forbidden or failed (exit 5 after printing)."""
    return bool(view.coverage.forbidden() or view.coverage.failed())


def exit_if_partial(view: View) -> None:
    """After printing what was read: exit 5 (docs/cli.md) when a kind or namespace of it was forbidden or
    failed; the warnings have said which and the fix."""
    from workload_map.cmdline.errors import EXIT_PARTIAL  # noqa: PLC0415 (a command's --help loads only click)

    if partial_read(view):
        raise click.exceptions.Exit(EXIT_PARTIAL)


def kind_name(workload: dict[str, Any]) -> str:
    """``-o name`` form: ``<kind>.<group>/<name>``, ``pod/<name>`` for the core group."""
    from workload_map.ports.objects import group_of, name_of  # noqa: PLC0415 (a command's --help loads only click)

    kind = str(workload.get("kind") or "").lower()
    group = group_of(str(workload.get("apiVersion") or ""))
    return f"{kind}.{group}/{name_of(workload)}" if group else f"{kind}/{name_of(workload)}"
