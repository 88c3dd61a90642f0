"""The built-in catalog: every ``*.yaml`` under ``catalog/definitions/``, read as package data.

A broken built-in file is a bug in this package. Library callers (and the test-suite) get it raised
loudly by ``builtin_definitions()``; the CLI reads through ``load_builtin()`` and turns the findings
into warnings, because one bad catalog entry must not stop a user from reading every other workload.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from workload_map.definition import compiled
from workload_map.definition.model import Karta, LoadedDefinition
from workload_map.errors import Finding, Location, Severity, WorkloadMapError

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

ORIGIN = "builtin"
_PACKAGE = "workload_map.catalog"
_DIRECTORY = "definitions"


Catalog = tuple[tuple[LoadedDefinition, ...], tuple[Finding, ...]]


@functools.cache
def load_builtin() -> Catalog:
    """Every built-in definition that loads, and a finding for every file or document that does not.

    The whole catalog is one cache entry keyed by every file's name and bytes: a warm process reads no
    YAML and compiles no jq for it (``workload_map.definition.compiled``).
    """
    root = _definitions()
    if not root.is_dir():
        return (), ()
    entries = sorted(root.iterdir(), key=lambda e: e.name)
    files = [(e.name, e.read_bytes()) for e in entries if e.name.endswith(".yaml") and e.is_file()]

    def load() -> tuple[Catalog, tuple[Karta, ...]]:
        from workload_map.definition.loader import load_text  # noqa: PLC0415 (the parser, pydantic and PyYAML only when the catalog is not in the cache)

        loaded: list[LoadedDefinition] = []
        findings: list[Finding] = []
        with compiled.one_entry():
            for name, content in files:
                more, problems = load_text(content, f"builtin:{name}", ORIGIN)
                loaded.extend(more)
                findings.extend(problems)
        return (tuple(loaded), tuple(findings)), tuple(d.karta for d in loaded)

    parts = [part for name, content in files for part in (name, content)]
    return compiled.remembered([b"catalog", *parts], load)


def _definitions() -> Traversable:
    # Installed as files (any pip install), the directory is read with pathlib: importlib.resources loads
    # tempfile, zipfile and shutil with the compression modules, ~6 ms of CPU in every command that reads
    # definitions. A zipped installation goes through importlib.resources.
    here = Path(__file__).parent / _DIRECTORY
    if here.is_dir():
        return here
    from importlib import resources  # noqa: PLC0415 (only for a zipped installation, see above)

    return resources.files(_PACKAGE).joinpath(_DIRECTORY)


def builtin_definitions(*, strict: bool = True) -> list[LoadedDefinition]:
    """The built-in definitions.

    With ``strict`` (the default) a file that does not load, or a definition with a static validation
    error, raises ``WorkloadMapError`` naming every problem.
    """
    loaded, findings = load_builtin()
    if strict:
        problems = [*findings, *_validation_errors()]
        if problems:
            listing = "; ".join(str(f) for f in problems)
            raise WorkloadMapError(f"the built-in catalog is broken: {listing}", Location(f"{_PACKAGE}/{_DIRECTORY}"))
    return list(loaded)


@functools.cache
def _validation_errors() -> tuple[Finding, ...]:
    from workload_map.definition.validate import validate  # noqa: PLC0415 (pydantic only when a definition is parsed from source)

    loaded, _ = load_builtin()
    out: list[Finding] = []
    for definition in loaded:
        out += [f for f in validate(definition.karta, definition.location) if f.severity is Severity.ERROR]
    return tuple(out)
