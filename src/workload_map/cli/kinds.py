"""Turning what the user typed (``TYPE``, ``TYPE/NAME``, ``TYPE NAME``) into a kind and names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from workload_map.cmdline.errors import from_library

if TYPE_CHECKING:
    from workload_map import KindInfo, View


def split_target(args: Sequence[str]) -> tuple[str | None, list[str]]:
    """``()`` -> (None, []); ``("jobset",)``; ``("jobset/a",)``; ``("jobset", "a", "b")``; usage errors."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    try:
        return wm.split_target(args)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def resolve_kind(view: View, type_name: str) -> KindInfo:
    """The kind TYPE names; ambiguous (exit 1) and uncovered (exit 4) types as CLI errors."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    try:
        return view.kind(type_name)
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None


def type_label(info: KindInfo) -> str:
    """What error messages call a kind: the lower-case ``kind.group`` kubectl prints."""
    return info.display.lower()
