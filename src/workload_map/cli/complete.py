"""Shell completion of TYPE, NAME and namespaces (click ``shell_complete`` callbacks).

Types come from the definitions (built-in, ``--definitions``, Karta objects of ``--from-file``) and,
live, from aggregated discovery (two requests: the cluster's plurals and short names). Names and
namespaces are listed: one list request of the TYPE's resource (or of namespaces), or read from
``--from-file``. A callback never raises: any failure completes nothing. Every request has a short
timeout (``--request-timeout``, else 3s).

Only click is imported at load time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

    from workload_map import LoadedDefinition
    from workload_map.ports.definitions import DefinitionRegistry
    from workload_map.ports.kube import Connection

COMPLETION_TIMEOUT = "3s"
LIST_LIMIT = 500
ONE_NAME_COMMANDS = ("describe", "explain", "gang", "update")


def complete_target(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """``wmap get <TAB>``: types; ``wmap get jobset <TAB>`` / ``jobset/<TAB>``: names."""
    try:
        return _items(_target_words(ctx, incomplete))
    except Exception:
        return []


def complete_namespace(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    try:
        return _items(n for n in namespaces(ctx.params) if n.startswith(incomplete))
    except Exception:
        return []


def _items(words: Any) -> list[CompletionItem]:
    from click.shell_completion import CompletionItem  # noqa: PLC0415 (a command's --help loads only click)

    return [CompletionItem(w) for w in sorted(set(words))]


def _target_words(ctx: click.Context, incomplete: str) -> list[str]:
    params = ctx.params
    done = [str(w) for w in params.get("target") or ()]
    if not done:
        if "/" in incomplete:
            type_name, _, prefix = incomplete.partition("/")
            return [f"{type_name}/{n}" for n in names(params, type_name) if n.startswith(prefix)]
        low = incomplete.lower()
        return [t for t in types(params) if t.lower().startswith(low)]
    if "/" in done[0] or (ctx.command.name in ONE_NAME_COMMANDS and len(done) >= 2):
        return []
    return [n for n in names(params, done[0]) if n.startswith(incomplete) and n not in done[1:]]


# --------------------------------------------------------------------------- sources


def _registry(params: Mapping[str, Any], connection: Connection | None) -> DefinitionRegistry:
    from workload_map.ports.commands import builtin_with_warnings, definition_files, read_documents, split_dump  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.definitions import DefinitionRegistry  # noqa: PLC0415 (a command's --help loads only click)

    builtin, _ = builtin_with_warnings()
    cluster: list[LoadedDefinition] = []
    if params.get("from_file"):
        _, cluster, _ = split_dump(read_documents(params["from_file"]))
    definitions = [*builtin, *cluster, *definition_files(params.get("definition_paths") or ())]
    if connection is None:
        return DefinitionRegistry(definitions)
    from workload_map.ports.kube import LiveRegistry, discover  # noqa: PLC0415 (a command's --help loads only click)

    return LiveRegistry(definitions, discover(connection, ()))


def _connect(params: Mapping[str, Any]) -> Connection | None:
    """A connection for completion, or None with ``--from-file`` or when none can be made."""
    if params.get("from_file"):
        return None
    try:
        from workload_map.cmdline.cluster_options import cluster_options_of  # noqa: PLC0415 (a command's --help loads only click)
        from workload_map.ports.kube import connect  # noqa: PLC0415 (a command's --help loads only click)

        options = cluster_options_of(params)
        return connect(
            dataclasses.replace(
                options,
                namespace=params.get("namespace"),
                request_timeout=options.request_timeout or COMPLETION_TIMEOUT,
            )
        )
    except Exception:
        return None


def types(params: Mapping[str, Any]) -> list[str]:
    """Plurals and short names of every covered kind (``plural.group`` when a plural is ambiguous)."""
    connection = _connect(params)
    try:
        try:
            registry = _registry(params, connection)
        except Exception:
            registry = _registry(params, None)  # discovery failed: the definitions' own names
    finally:
        if connection is not None:
            connection.close()
    kinds = registry.kinds()
    plurals: dict[str, int] = {}
    for info in kinds:
        plurals[info.plural] = plurals.get(info.plural, 0) + 1
    out: set[str] = set()
    for info in kinds:
        out.add(info.plural if plurals[info.plural] == 1 else f"{info.plural}.{info.group}")
        out.update(info.short_names)
    return sorted(out)


def names(params: Mapping[str, Any], type_name: str) -> list[str]:
    """Names of the workloads of ``type_name`` in the namespace in scope (every namespace with -A)."""
    from workload_map.ports.objects import group_of, name_of, namespace_of  # noqa: PLC0415 (a command's --help loads only click)

    connection = _connect(params)
    try:
        registry = _registry(params, connection)
        info = registry.resolve_type(type_name)
        if info is None:
            return []
        all_namespaces = bool(params.get("all_namespaces"))
        if connection is None:
            from workload_map.ports.commands import read_documents, split_dump  # noqa: PLC0415 (a command's --help loads only click)

            objects, _, _ = split_dump(read_documents(params.get("from_file") or ()))
            ns = params.get("namespace") or "default"
            return [
                name_of(o)
                for o in objects
                if (group_of(str(o.get("apiVersion") or "")), o.get("kind")) == (info.group, info.kind)
                and (all_namespaces or namespace_of(o) == ns)
                and name_of(o)
            ]
        from workload_map.ports.kube import LiveRegistry, list_all  # noqa: PLC0415 (a command's --help loads only click)

        assert isinstance(registry, LiveRegistry)
        resource = registry.discovery.resource(info.group, info.kind, info.versions)
        if resource is None:
            return []
        ns = None if all_namespaces else connection.namespace
        listed = list_all(connection, resource, ns, chunk_size=LIST_LIMIT)
        return [name_of(o) for o in listed.items]
    finally:
        if connection is not None:
            connection.close()


def namespaces(params: Mapping[str, Any]) -> list[str]:
    """Namespaces of the cluster (one list), or of the objects in ``--from-file``."""
    connection = _connect(params)
    if connection is None:
        if not params.get("from_file"):
            return []
        from workload_map.ports.commands import read_documents, split_dump  # noqa: PLC0415 (a command's --help loads only click)
        from workload_map.ports.objects import namespace_of  # noqa: PLC0415 (a command's --help loads only click)

        objects, _, _ = split_dump(read_documents(params["from_file"]))
        return sorted({namespace_of(o) for o in objects})
    try:
        doc = connection.get("/api/v1/namespaces", {"limit": LIST_LIMIT}, what="namespaces") or {}
        return sorted(str((item.get("metadata") or {}).get("name")) for item in doc.get("items") or [])
    finally:
        connection.close()
