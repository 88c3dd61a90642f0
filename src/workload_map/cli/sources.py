"""Where definitions and objects come from: the one place that builds a ClusterView.

Objects come from dumps (``--from-file``) or, without it, from the live cluster
(``workload_map.cluster.live_source``): everything above (get, describe, explain, gang, update)
only sees the ClusterView and the namespace in scope (:class:`Objects`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.errors import CliError

DEFAULT_NAMESPACE = "default"

if TYPE_CHECKING:
    from workload_map.cluster import LiveSource, RequestCounter
    from workload_map.definition.loader import LoadedDefinition
    from workload_map.resolver import ClusterView
    from workload_map.sources.documents import Document

KARTA_API_VERSION = "run.ai/v1alpha1"
KARTA_KIND = "Karta"


def builtin_with_warnings() -> tuple[list[LoadedDefinition], list[str]]:
    """Built-in definitions; a broken built-in file becomes a warning, never a failure."""
    from workload_map.catalog import load_builtin

    loaded, findings = load_builtin()
    return list(loaded), [f"built-in catalog: {f}" for f in findings]


def user_definitions(paths: Sequence[str]) -> list[LoadedDefinition]:
    """``--definitions`` files (origin "file"). The user named them, so a broken one is an error."""
    if not paths:
        return []
    from workload_map.definition.loader import load_paths
    from workload_map.errors import Severity

    loaded, findings = load_paths(paths, origin="file")
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        raise CliError(
            "cannot load definitions",
            where=str(first.location),
            why=first.message + more,
            hint=f"run: wmap validate {' '.join(paths)}",
        )
    return loaded


def read_documents(paths: Sequence[str]) -> list[Document]:
    from workload_map.errors import DocumentError
    from workload_map.sources.documents import read_source

    docs: list[Document] = []
    for path in paths:
        try:
            found = read_source(path)
        except DocumentError as exc:
            raise CliError("cannot read objects", where=str(exc.location), why=exc.message) from None
        if not found:
            raise CliError("cannot read objects", where=path, why="no YAML or JSON objects found")
        docs.extend(found)
    return docs


def _is_karta(data: Any) -> bool:
    return isinstance(data, dict) and data.get("apiVersion") == KARTA_API_VERSION and data.get("kind") == KARTA_KIND


def split_dump(docs: Iterable[Document]) -> tuple[list[dict[str, Any]], list[LoadedDefinition], list[str]]:
    """Objects, the Karta definitions found among them (origin "cluster") and warnings."""
    from workload_map.definition.loader import LoadedDefinition, definition_from_dict

    objects: list[dict[str, Any]] = []
    definitions: list[LoadedDefinition] = []
    warnings: list[str] = []
    for doc in docs:
        if _is_karta(doc.data):
            karta, problems = definition_from_dict(doc.data, doc.location)
            if karta is None:
                name = (doc.data.get("metadata") or {}).get("name") or "?"
                for problem in problems:
                    warnings.append(f"ignoring Karta {name!r} from the input: {problem}")
            else:
                definitions.append(LoadedDefinition(karta, doc.location, "cluster"))
            continue
        if isinstance(doc.data, dict) and doc.data.get("kind"):
            objects.append(doc.data)
        else:
            warnings.append(f"{doc.location}: ignoring a document that is not a Kubernetes object")
    return objects, definitions, warnings


REQUESTS_ENV = "WMAP_DEBUG_REQUESTS"


@dataclass
class Objects:
    """What an object-reading command works on: the view, the namespace in scope and, live, the source.

    ``namespace`` is None with ``-A``; otherwise ``-n``, else the kubeconfig context's namespace
    (live) or ``default`` (dumps). Use as a context manager: leaving it closes the connection and,
    with ``WMAP_DEBUG_REQUESTS=1``, prints the API requests made on stderr.
    """

    view: ClusterView
    namespace: str | None
    live: LiveSource | None = None
    _closed: bool = False

    def __enter__(self) -> Objects:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (idempotent); the request summary is printed when the command ends."""
        if self.live is None or self._closed:
            return
        self._closed = True
        self.live.connection.close()
        if os.environ.get(REQUESTS_ENV, "") not in ("", "0"):
            counter = self.live.connection.counter
            ctx = click.get_current_context(silent=True)
            if ctx is None:
                print_requests(counter)
            else:
                ctx.call_on_close(lambda: print_requests(counter))


def print_requests(counter: RequestCounter) -> None:
    """``Requests: N (GET a, LIST b)`` and one line per request, on stderr."""
    import sys

    sys.stdout.flush()
    verbs: dict[str, int] = {}
    for (verb, _path), count in sorted(counter.counts.items()):
        verbs[verb] = verbs.get(verb, 0) + count
    summary = ", ".join(f"{verb} {count}" for verb, count in sorted(verbs.items()))
    click.echo(f"Requests: {counter.total()} ({summary})", err=True)
    for verb, path, query in list(counter.log):
        click.echo(f"  {verb} {path}" + (f"?{query}" if query else ""), err=True)


def open_objects(
    from_files: Sequence[str],
    definition_paths: Sequence[str] = (),
    *,
    namespace: str | None = None,
    all_namespaces: bool = False,
    connection: Mapping[str, Any] | None = None,
    kinds: Sequence[str] | None = None,
    describe: tuple[str, str] | None = None,
) -> Objects:
    """The objects a command reads: from dumps (``--from-file``), else from the live cluster.

    Precedence for the same root group/version/kind: built-in < Karta objects of the dump or the
    cluster (origin "cluster") < ``--definitions`` files (origin "file"). Live, ``kinds`` narrows
    the listing to some types (``get TYPE``) and ``describe`` = (TYPE, NAME) reads only what one
    workload needs; ``connection`` holds the kubectl flags (``options.connection_options``).
    Problems that do not stop the command are left in ``view.warnings``.
    """
    from workload_map.resolver import ClusterView

    user = user_definitions(definition_paths)
    if from_files:
        from workload_map._gc import bulk_load
        from workload_map.snapshot import Snapshot

        builtin, warnings = builtin_with_warnings()
        with bulk_load():  # one GC pause and one freeze for reading, splitting and indexing the dump
            objects, cluster_definitions, dump_warnings = split_dump(read_documents(from_files))
            view = ClusterView(Snapshot(objects), [*builtin, *cluster_definitions, *user])
        view.warnings[:0] = [*warnings, *dump_warnings]
        return Objects(view, None if all_namespaces else (namespace or DEFAULT_NAMESPACE))

    from workload_map.cluster import live_source
    from workload_map.cluster.cli_support import live_options
    from workload_map.errors import WorkloadMapError

    try:
        options = live_options(
            dict(connection or {}),
            namespace=namespace,
            all_namespaces=all_namespaces,
            kinds=list(kinds) if kinds else None,
            describe=describe,
            definitions=user,
        )
        source = live_source(options)
    except WorkloadMapError as exc:
        raise CliError(exc.message, where=str(exc.location), hint=exc.hint) from None
    view = ClusterView(source.snapshot, source.registry)
    view.warnings[:0] = source.warnings
    return Objects(view, None if all_namespaces else source.connection.namespace, source)


def cluster_view(from_files: Sequence[str], definition_paths: Sequence[str] = ()) -> ClusterView:
    """A ClusterView over the chosen object source (see :func:`open_objects`), namespace ``default``."""
    with open_objects(from_files, definition_paths) as objects:
        return objects.view


def definitions_only(definition_paths: Sequence[str]) -> tuple[list[LoadedDefinition], list[str]]:
    """Effective definitions (built-in overridden by files) without reading any objects."""
    from workload_map.registry import DefinitionRegistry

    builtin, warnings = builtin_with_warnings()
    registry = DefinitionRegistry([*builtin, *user_definitions(definition_paths)])
    return registry.definitions, warnings
