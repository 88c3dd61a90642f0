"""What every part of a draft writes into: the evidence notes and gaps by field path, and the catalog's
definitions it may reuse.
"""

from __future__ import annotations

from collections.abc import Sequence

from workload_map.authoring.evidence import ARRAY, MAP, TODO_MARK, Segments, todo
from workload_map.authoring.render import Path
from workload_map.definition.model import LoadedDefinition
from workload_map.errors import format_path

POD = {"group": "", "version": "v1", "kind": "Pod"}
JOB = {"group": "batch", "version": "v1", "kind": "Job"}


def jq(segments: Segments) -> str:
    out = ""
    for segment in segments:
        if segment in (ARRAY, MAP):
            out += "[]?"
        elif segment.isidentifier():
            out += f".{segment}"
        else:
            out += f'["{segment}"]'
    return out or "."


class Builder:
    def __init__(self, catalog: Sequence[LoadedDefinition]) -> None:
        self.notes: dict[Path, list[str]] = {}
        self.todos: list[str] = []
        self.guesses: list[tuple[str, str]] = []
        self.catalog = catalog

    def note(self, path: Path, confidence: str, *lines: str) -> None:
        self.notes.setdefault(path, []).extend([f"[{confidence}] {lines[0]}", *lines[1:]])
        self.guesses.append((format_path(path), confidence))

    def todo(self, path: Path, what: str, value: str = "empty") -> str:
        self.notes.setdefault(path, []).append(f"{TODO_MARK}: {what}")
        self.todos.append(f"{format_path(path)}: {what}")
        return todo(what, value)

    def covering(self, group: str, kind: str) -> str | None:
        for definition in self.catalog:
            identity = definition.karta.identity
            if identity is not None and (identity.group, identity.kind) == (group, kind):
                return definition.name
        return None

    def catalog_expression(self, gvk: dict[str, str], field_name: str) -> tuple[str, str] | None:
        for definition in self.catalog:
            identity = definition.karta.identity
            root = definition.karta.root
            if identity is None or (identity.group, identity.kind) != (gvk["group"], gvk["kind"]):
                continue
            scale = root.scale_definition
            value = getattr(scale, field_name, None) if scale is not None else None
            if value:
                return value, definition.name
        return None
