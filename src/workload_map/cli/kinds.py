"""Turning what the user typed (``TYPE``, ``TYPE/NAME``, ``TYPE NAME``) into a kind and names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from workload_map.cmdline.errors import EXIT_NO_DEFINITION, CliError, from_library

if TYPE_CHECKING:
    from workload_map import KindInfo, LoadedDefinition, View


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


def definition_named(definitions: list[LoadedDefinition], name: str) -> LoadedDefinition:
    """The definition a user named: by metadata.name, or by any TYPE spelling of the kind it covers (the
    newest version of it)."""
    for definition in definitions:
        if definition.name == name:
            return definition
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    try:
        info = wm.open_objects([], definitions, builtin=False).kind(name)
    except wm.WorkloadMapError:
        raise CliError(
            f'no definition named or covering "{name}"',
            hint="list them with: wmap definitions",
            exit_code=EXIT_NO_DEFINITION,
        ) from None

    def covers(definition: LoadedDefinition) -> bool:
        gvk = definition.karta.identity
        return gvk is not None and (gvk.group, gvk.kind) == (info.group, info.kind)

    matches = [d for d in definitions if covers(d)]
    return sorted(matches, key=lambda d: d.karta.identity.version if d.karta.identity else "")[-1]
