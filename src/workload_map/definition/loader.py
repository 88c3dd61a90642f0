"""Turning documents into Karta definitions, with located, actionable errors.

Loading is strict: an unknown field is reported with the fields allowed at that place (and the
closest one when it looks misspelt) instead of being dropped.
"""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from workload_map.definition import compiled
from workload_map.definition.model import API_VERSION, KIND, Karta, LoadedDefinition
from workload_map.errors import DocumentError, Finding, Location, Severity
from workload_map.sources.documents import (
    STDIN,
    Document,
    file_content,
    is_empty_list,
    parse_file,
    parse_text,
    read_source,
)


def definition_from_dict(data: Any, location: Location) -> tuple[Karta | None, list[Finding]]:
    """Parse one object as a Karta; on failure every problem is returned, each with its field path.

    A Karta loaded before (the same content, by this code version) comes from the on-disk cache, with
    its jq expressions already compiled (``workload_map.definition.compiled``).
    """

    return compiled.definition(data, functools.partial(_parse, data, location))


def _parse(data: Any, location: Location) -> tuple[Karta | None, list[Finding]]:
    if not isinstance(data, dict):
        return None, [Finding(location, f"expected a Karta object (a mapping), got {type(data).__name__}")]
    findings: list[Finding] = []
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if api_version != API_VERSION:
        findings.append(
            Finding(location.child("apiVersion"), f"apiVersion must be '{API_VERSION}', got {api_version!r}")
        )
    if kind != KIND:
        findings.append(Finding(location.child("kind"), f"kind must be '{KIND}', got {kind!r}"))
    if findings:
        return None, findings
    from pydantic import ValidationError  # noqa: PLC0415 (pydantic only when a definition is parsed from source)

    from workload_map.definition import schema  # noqa: PLC0415 (pydantic only when a definition is parsed from source)

    try:
        karta = schema.parse(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        # A union reports one error per branch; keep the first per location.
        seen: set[tuple[str | int, ...]] = set()
        for error in errors:
            loc = tuple(error["loc"])
            if loc in seen:
                continue
            seen.add(loc)
            findings.append(Finding(location.child(*loc), schema.describe(error)))
        return None, findings + _semantic_findings(data, errors, location)
    except RecursionError:
        return None, [Finding(location, "definition is nested too deeply")]
    return karta, []


def _semantic_findings(data: dict[str, Any], errors: list[Any], location: Location) -> list[Finding]:
    """The validator's findings on the document without the fields the schema refused.

    An unknown or mistyped field must not hide the rest of what is wrong with a definition: the author
    fixes everything in one round. Refused fields are removed (their paths stay the same, so the
    findings point into the document as written); when that cannot give a loadable definition (a
    required field is missing or a list item itself is refused) only the schema findings stand.
    """
    from pydantic import ValidationError  # noqa: PLC0415 (pydantic only when a definition is parsed from source)

    from workload_map.definition import schema  # noqa: PLC0415 (pydantic only when a definition is parsed from source)
    from workload_map.definition.validate import validate  # noqa: PLC0415 (pydantic only when a definition is parsed from source)

    pruned = copy.deepcopy(data)
    for error in errors:
        loc = tuple(error["loc"])
        if error["type"] == "missing" or not loc:
            return []
        parent: Any = pruned
        for part in loc[:-1]:
            try:
                parent = parent[part]
            except (KeyError, IndexError, TypeError):
                return []
        if not isinstance(parent, dict):
            return []
        parent.pop(loc[-1], None)
    try:
        karta = schema.parse(pruned)
    except (ValidationError, RecursionError):
        return []
    return validate(karta, location)


def checked_definition(data: Any, location: Location) -> tuple[Karta | None, list[Finding]]:
    """:func:`definition_from_dict`, then the static validator's errors: a definition ``wmap validate``
    reports an error for (a jq expression that does not compile, a construct the sandbox refuses, ...) is
    not to be used, so a caller uses the Karta only when there are no findings (it may come with them).
    Remembered like :func:`definition_from_dict`: a warm process neither loads nor validates it again."""

    return compiled.definition(data, functools.partial(_checked, data, location), tag=b"checked-karta")


def _checked(data: Any, location: Location) -> tuple[Karta | None, list[Finding]]:
    from workload_map.definition.validate import validate  # noqa: PLC0415 (pydantic only when a definition is parsed from source)

    karta, problems = _parse(data, location)
    if karta is None or problems:
        return karta, problems
    return karta, [f for f in validate(karta, location) if f.severity is Severity.ERROR]


def first_of(findings: list[Finding]) -> str:
    """The first finding, and how many more there are."""
    more = f" (and {len(findings) - 1} more problem(s))" if len(findings) > 1 else ""
    return f"{findings[0]}{more}" if findings else "cannot be read"


def load_documents(
    docs: Iterable[Document], origin: str = "file", *, checked: bool = False
) -> tuple[list[LoadedDefinition], list[Finding]]:
    """The definitions of the documents and the findings on them; ``checked``: the static validator's
    errors too (:func:`checked_definition`), a definition with errors still listed."""
    loaded: list[LoadedDefinition] = []
    findings: list[Finding] = []
    read = checked_definition if checked else definition_from_dict
    foreign: dict[str, list[Document]] = {}  # other Kubernetes objects, by file: one finding each
    for doc in docs:
        if _foreign(doc.data):
            foreign.setdefault(doc.source, []).append(doc)
            continue
        karta, problems = read(doc.data, doc.location)
        findings.extend(problems)
        if karta is not None:
            loaded.append(LoadedDefinition(karta, doc.location, origin))
    for found in foreign.values():
        kinds = sorted({f"{d.data['kind']} {d.data.get('apiVersion') or ''}".strip() for d in found})
        shown = ", ".join(kinds[:3]) + (", ..." if len(kinds) > 3 else "")
        findings.append(
            Finding(
                found[0].location,
                f"{len(found)} Kubernetes object(s) that are not Karta definitions ({shown}): objects to check "
                "definitions on go to --against (wmap validate), objects to read to --from-file",
            )
        )
    return loaded, findings


def _foreign(data: Any) -> bool:
    """Another kind of Kubernetes object (a dump given where definitions are read): neither its kind nor its
    apiVersion says Karta, so field-by-field findings would only say that, once per object."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("kind"), str)
        and data["kind"] != KIND
        and data.get("apiVersion") != API_VERSION
    )


def _load_source(
    source: str, read: Callable[[], list[Document]], origin: str, *, checked: bool = False
) -> tuple[list[LoadedDefinition], list[Finding]]:
    try:
        docs = [doc for doc in read() if not is_empty_list(doc.data)]
    except DocumentError as exc:
        return [], [Finding(exc.location, exc.message)]
    if not docs:
        return [], [Finding(Location(source), "no documents found")]
    return load_documents(docs, origin, checked=checked)


def load_text(content: bytes, source: str, origin: str = "file") -> tuple[list[LoadedDefinition], list[Finding]]:
    """Definitions from the bytes of one stream named ``source`` (e.g. package data)."""
    return _load_source(source, lambda: parse_text(content, source), origin)


def load_paths(
    paths: Iterable[str], origin: str = "file", *, checked: bool = False
) -> tuple[list[LoadedDefinition], list[Finding]]:
    """Definitions from files, directories or stdin (``-``); unreadable sources become findings;
    ``checked``: the static validator's errors too (see :func:`load_documents`).

    A file that loaded cleanly before (the same path and bytes) comes from the on-disk cache whole: a
    warm process neither parses its YAML nor validates nor compiles it.
    """
    loaded: list[LoadedDefinition] = []
    findings: list[Finding] = []
    for path in paths:
        if path != STDIN and os.path.isfile(path):
            more, problems = _load_file(path, origin, checked=checked)
        else:
            more, problems = _load_source(path, functools.partial(read_source, path), origin, checked=checked)
        loaded.extend(more)
        findings.extend(problems)
    return loaded, findings


def _load_file(path: str, origin: str, *, checked: bool) -> tuple[list[LoadedDefinition], list[Finding]]:
    file = Path(path)
    try:
        content = file_content(file)
    except DocumentError as exc:
        return [], [Finding(exc.location, exc.message)]

    def parse() -> tuple[tuple[list[LoadedDefinition], list[Finding]], tuple[Karta, ...]]:
        with compiled.one_entry():  # the file is the entry, not each of its documents
            more, problems = _load_source(path, functools.partial(parse_file, file, content), origin, checked=checked)
        return (more, problems), () if problems else tuple(d.karta for d in more)

    return compiled.remembered([b"checked-file" if checked else b"file", path, origin, content], parse)
