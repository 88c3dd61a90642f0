"""Which definitions are in effect: the built-in catalog, Karta objects found with the objects, and files.

Precedence for the same root group/version/kind: built-in < Karta objects of a dump or the cluster
(origin "cluster") < definition files the caller names (origin "file").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from workload_map.base.objects import ObjectKey, key_of
from workload_map.definition.registry import DefinitionRegistry
from workload_map.errors import DocumentError, Location, Severity, WorkloadMapError
from workload_map.sources.documents import is_empty_list, read_source

if TYPE_CHECKING:
    from workload_map.definition.model import LoadedDefinition
    from workload_map.sources.documents import Document

KARTA_API_VERSION = "run.ai/v1alpha1"
KARTA_KIND = "Karta"


def builtin_with_warnings() -> tuple[list[LoadedDefinition], list[str]]:
    """Built-in definitions; a broken built-in file becomes a warning, never a failure."""
    from workload_map.catalog import load_builtin  # noqa: PLC0415 (the catalog loads only when definitions are needed)

    loaded, findings = load_builtin()
    return list(loaded), [f"built-in catalog: {f}" for f in findings]


def definition_files(paths: Sequence[str]) -> list[LoadedDefinition]:
    """Definition files (origin "file"). The caller named them, so a broken one is an error."""
    if not paths:
        return []
    from workload_map.definition.loader import load_paths  # noqa: PLC0415 (pydantic only when a definition is parsed from source)

    # What `wmap validate` calls an error is one here too (docs/cli.md): never a definition used anyway.
    loaded, findings = load_paths(paths, origin="file", checked=True)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if errors:
        first = errors[0]
        where = (first.location.source, first.location.document)
        named = [d.name for d in loaded if (d.location.source, d.location.document) == where]
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        raise WorkloadMapError(
            f"cannot load definition {named[0]!r}" if named else "cannot load definitions",
            first.location,
            hint=f"run: wmap validate {' '.join(paths)}",
            detail=first.message + more,
        )
    return loaded


def as_definitions(given: Iterable[str | LoadedDefinition | Any]) -> list[LoadedDefinition]:
    """Paths, LoadedDefinitions and Karta models, in the caller's order, as LoadedDefinitions."""
    from workload_map.definition.model import Karta, LoadedDefinition  # noqa: PLC0415 (the definition model only when definitions are given)

    out: list[LoadedDefinition] = []
    paths: list[str] = []
    for item in given:
        if isinstance(item, str):
            paths.append(item)
        elif isinstance(item, LoadedDefinition):
            out.append(item)
        elif isinstance(item, Karta):
            out.append(LoadedDefinition(item, Location("<library>"), "file"))
        else:
            raise TypeError(f"a definition is a path, a LoadedDefinition or a Karta, not {type(item).__name__}")
    return [*definition_files(paths), *out]


def read_documents(paths: Sequence[str], transform: Callable[[Any], Any] | None = None) -> list[Document]:
    """Every YAML/JSON document of the files, directories or ``-`` (stdin) given, located; ``transform``
    replaces each object as it is read (a JSON List is then read item by item)."""

    docs: list[Document] = []
    for path in paths:
        try:
            found = read_source(path, transform)
        except DocumentError as exc:
            raise WorkloadMapError("cannot read objects", exc.location, detail=exc.message) from None
        if not found:
            raise WorkloadMapError("cannot read objects", Location(path), detail="no YAML or JSON objects found")
        docs.extend(doc for doc in found if not is_empty_list(doc.data))  # a List of nothing: nothing to add
    return docs


def _is_karta(data: Any) -> bool:
    return isinstance(data, dict) and data.get("apiVersion") == KARTA_API_VERSION and data.get("kind") == KARTA_KIND


def split_dump(docs: Iterable[Document]) -> tuple[list[dict[str, Any]], list[LoadedDefinition], list[str]]:
    """Objects, the Karta definitions found among them (origin "cluster") and warnings."""
    from workload_map.definition.model import LoadedDefinition  # noqa: PLC0415 (the definition model only when a dump is read)

    objects: list[dict[str, Any]] = []
    definitions: list[LoadedDefinition] = []
    warnings: list[str] = []
    seen = _Identities(objects)
    not_objects: dict[str, Document] = {}  # source -> its first document that is not a Kubernetes object
    with_objects: set[str] = set()
    for doc in docs:
        if isinstance(doc.data, dict) and doc.data.get("kind"):
            with_objects.add(doc.source)
        if _is_karta(doc.data):
            from workload_map.definition.loader import checked_definition, first_of  # noqa: PLC0415 (the parser and pydantic only when the dump holds a definition)

            # A broken Karta is left out (the built-in definition of its kind stays), as live (cluster.fetch).
            karta, problems = checked_definition(doc.data, doc.location)
            if karta is None or problems:
                name = (doc.data.get("metadata") or {}).get("name") or "?"
                warnings.append(f"ignoring Karta {name!r} from the input: {first_of(problems)}")
            else:
                definitions.append(LoadedDefinition(karta, doc.location, "cluster"))
            continue
        if isinstance(doc.data, dict) and doc.data.get("kind"):
            seen.add(doc)
        else:
            not_objects.setdefault(doc.source, doc)
            warnings.append(f"{doc.location}: ignoring a document that is not a Kubernetes object")
    for source, doc in not_objects.items():
        if source not in with_objects:  # nothing of it is an object: not a dump (kubectl refuses it too)
            raise WorkloadMapError(
                "cannot read objects",
                doc.location,
                detail=f"not a Kubernetes object but {_what(doc.data)}: a dump holds objects with apiVersion and kind",
            )
    return objects, definitions, [*warnings, *seen.warnings()]


def _what(data: Any) -> str:
    if isinstance(data, dict):
        return "a mapping without kind"
    if isinstance(data, list):
        return "a list"
    if isinstance(data, bool) or data is None:
        return f"the value {str(data).lower() if data is not None else 'null'}"
    if isinstance(data, int | float):
        return "a number"
    return "a string" if isinstance(data, str) else f"a {type(data).__name__}"


class _Identities:
    """Objects by kind, namespace and name. A cluster holds one object per identity; a dump holding two
    (a folder with an object in two files) keeps the later one, as ``kubectl apply -f`` would leave the
    cluster, and says so once per pair of files: a duplicated dump is one line, not one per object."""

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self.objects = objects
        self._where: dict[ObjectKey, tuple[int, Document]] = {}
        self._collisions: dict[tuple[str, str], list[tuple[ObjectKey, Document, Document]]] = {}
        self._nameless: list[Document] = []

    def add(self, doc: Document) -> None:
        data = doc.data
        meta = data.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        if not isinstance(name, str) or not name:
            # No cluster holds an object without a name (the API server refuses it), and two of them
            # would be one identity listed twice: left out, said once.
            self._nameless.append(doc)
            return
        # The identity the snapshot and every reader use (objects.key_of): an object without a namespace is
        # in "default", so it and the same object written with `namespace: default` are one object.
        key = key_of(data)
        found = self._where.get(key)
        if found is None:
            self._where[key] = (len(self.objects), doc)
            self.objects.append(data)
            return
        index, earlier = found
        self.objects[index] = data
        self._where[key] = (index, doc)
        pair = (earlier.location.source, doc.location.source)
        self._collisions.setdefault(pair, []).append((key, earlier, doc))

    def warnings(self) -> list[str]:
        out = []
        for (first, second), collisions in self._collisions.items():
            key, earlier, later = collisions[0]
            what = f"{key.kind.lower()}.{key.group}" if key.group else key.kind.lower()
            stated = [_stated_namespace(d) for d in (earlier, later)]
            scope = f' in namespace "{key.namespace}"' if any(stated) else ""
            example = f'{what} "{key.name}"{scope}'
            places = f"{earlier.location} and {later.location}"
            if any(stated) and not all(stated):
                places += f'; an object without a namespace is in "{key.namespace}"'
            if len(collisions) == 1:
                out.append(f"{example} is given twice ({places}): the later one is used, as kubectl apply -f would")
            else:
                files = f"{first} and {second}" if first != second else first
                out.append(
                    f"{len(collisions)} objects are given twice with the same kind, namespace and name, in {files}"
                    f" (e.g. {example}: {places}): the later ones are used, as kubectl apply -f would"
                )
        if self._nameless:
            unnamed = self._nameless[0]
            count = len(self._nameless)
            out.append(
                f"{count} object{'s' if count > 1 else ''} without metadata.name left out"
                f" (e.g. {unnamed.data.get('kind')} at {unnamed.location}): every Kubernetes object has a name"
            )
        return out


def _stated_namespace(doc: Document) -> bool:
    meta = doc.data.get("metadata")
    return isinstance(meta, dict) and bool(meta.get("namespace"))


def effective_definitions(
    definitions: Iterable[str | LoadedDefinition | Any] = (),
) -> tuple[list[LoadedDefinition], list[str]]:
    """The definitions in effect without reading any objects (built-in overridden by ``definitions``),
    and the warnings of the built-in catalog."""

    builtin, warnings = builtin_with_warnings()
    registry = DefinitionRegistry([*builtin, *as_definitions(definitions)])
    return registry.definitions, warnings
