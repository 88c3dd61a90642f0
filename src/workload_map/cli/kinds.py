"""Turning what the user typed (``TYPE``, ``TYPE/NAME``, ``TYPE NAME``) into a kind and names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from workload_map.cli.errors import EXIT_NO_DEFINITION, CliError

if TYPE_CHECKING:
    from workload_map.registry import DefinitionRegistry, KindInfo


def split_target(args: Sequence[str]) -> tuple[str | None, list[str]]:
    """``()`` -> (None, []); ``("jobset",)``; ``("jobset/a",)``; ``("jobset", "a", "b")``."""
    if not args:
        return None, []
    first, rest = args[0], list(args[1:])
    if "/" in first:
        type_name, _, name = first.partition("/")
        if not type_name or not name:
            raise click.UsageError(f"invalid TYPE/NAME {first!r}")
        if rest:
            raise click.UsageError("give either TYPE/NAME or TYPE NAME..., not both")
        return type_name, [name]
    for name in rest:
        if "/" in name:
            raise click.UsageError(f"invalid NAME {name!r}: TYPE is already given")
    return first, rest


def resolve_kind(registry: DefinitionRegistry, type_name: str) -> KindInfo:
    from workload_map.registry import AmbiguousType

    try:
        info = registry.resolve_type(type_name)
    except AmbiguousType as exc:
        candidates = ", ".join(sorted(c.display for c in exc.candidates))
        raise CliError(
            f'type "{type_name}" is ambiguous',
            why=f"it matches {candidates}",
            hint="name the group too, e.g. " + sorted(f"{c.plural}.{c.group}" for c in exc.candidates)[0],
        ) from None
    if info is None:
        raise CliError(
            f'no definition covers type "{type_name}"',
            hint="list the covered types with: wmap definitions (or add one with --definitions FILE)",
            exit_code=EXIT_NO_DEFINITION,
        )
    return info


def type_label(info: KindInfo) -> str:
    """What error messages call a kind: the lower-case ``kind.group`` kubectl prints."""
    return info.display.lower()
