"""Finding the workload a command names and resolving its tree."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.errors import CliError, not_found
from workload_map.cli.kinds import resolve_kind, split_target, type_label

if TYPE_CHECKING:
    from workload_map.resolver import ClusterView
    from workload_map.tree.model import WorkloadTree

DEFAULT_NAMESPACE = "default"


def one_target(target: Sequence[str]) -> tuple[str, str]:
    """``(TYPE, NAME)`` of ``TYPE/NAME`` or ``TYPE NAME``; a usage error otherwise."""
    type_name, names = split_target(target)
    if type_name is None or len(names) != 1:
        raise click.UsageError("name one workload: TYPE/NAME or TYPE NAME")
    return type_name, names[0]


def find_one(view: ClusterView, target: Sequence[str], namespace: str | None) -> dict[str, Any]:
    """The workload named by ``TYPE/NAME`` or ``TYPE NAME`` in ``namespace`` (default "default")."""
    type_name, name = one_target(target)
    kind = resolve_kind(view.registry, type_name)
    ns = namespace or DEFAULT_NAMESPACE
    found = view.find(kind, name, ns)
    if not found:
        raise not_found(type_label(kind), name, ns)
    return found[0]


def tree_of(view: ClusterView, workload: dict[str, Any]) -> WorkloadTree:
    from workload_map.snapshot import key_of

    try:
        return view.tree(workload)
    except (LookupError, RecursionError, ValueError, TypeError) as exc:
        raise CliError("cannot resolve workload", where=str(key_of(workload)), why=str(exc)) from None


def kind_name(workload: dict[str, Any]) -> str:
    """``-o name`` form: ``<kind>.<group>/<name>``, ``pod/<name>`` for the core group."""
    from workload_map.snapshot import group_of, name_of

    kind = str(workload.get("kind") or "").lower()
    group = group_of(str(workload.get("apiVersion") or ""))
    return f"{kind}.{group}/{name_of(workload)}" if group else f"{kind}/{name_of(workload)}"
