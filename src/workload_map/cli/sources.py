"""Where definitions and objects come from: the one place that builds a ClusterView.

Today objects come from dumps (``--from-file``). The live-cluster layer plugs in at
``_live_snapshot``: everything above (get, describe, explain, update) only sees the ClusterView.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from workload_map.cli.errors import CliError

if TYPE_CHECKING:
    from workload_map.definition.loader import LoadedDefinition
    from workload_map.resolver import ClusterView
    from workload_map.snapshot import Snapshot
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


def _live_snapshot() -> tuple[Snapshot, list[LoadedDefinition], list[str]]:
    """Objects from a live cluster. Not in this build: the live layer replaces this function."""
    from workload_map.errors import WorkloadMapError

    raise WorkloadMapError(
        "no object source: live cluster access is not available in this build yet",
        hint="pass --from-file PATH with a dump (e.g. kubectl get jobsets,jobs,pods -A -o yaml > dump.yaml)",
    )


def cluster_view(from_files: Sequence[str], definition_paths: Sequence[str] = ()) -> ClusterView:
    """A ClusterView over the chosen object source with every definition that applies.

    Precedence for the same root group/version/kind: built-in < Karta objects in the input
    (origin "cluster") < ``--definitions`` files (origin "file"). Loading problems that do not stop
    the command are left in ``view.warnings``.
    """
    from workload_map.resolver import ClusterView
    from workload_map.snapshot import Snapshot

    builtin, warnings = builtin_with_warnings()
    user = user_definitions(definition_paths)
    if from_files:
        objects, cluster_definitions, dump_warnings = split_dump(read_documents(from_files))
        snapshot = Snapshot(objects)
        warnings += dump_warnings
    else:
        try:
            snapshot, cluster_definitions, live_warnings = _live_snapshot()
        except Exception as exc:
            from workload_map.errors import WorkloadMapError

            if isinstance(exc, WorkloadMapError):
                raise CliError(exc.message, where=str(exc.location), hint=exc.hint) from None
            raise
        warnings += live_warnings
    view = ClusterView(snapshot, [*builtin, *cluster_definitions, *user])
    view.warnings[:0] = warnings
    return view


def definitions_only(definition_paths: Sequence[str]) -> tuple[list[LoadedDefinition], list[str]]:
    """Effective definitions (built-in overridden by files) without reading any objects."""
    from workload_map.registry import DefinitionRegistry

    builtin, warnings = builtin_with_warnings()
    registry = DefinitionRegistry([*builtin, *user_definitions(definition_paths)])
    return registry.definitions, warnings
