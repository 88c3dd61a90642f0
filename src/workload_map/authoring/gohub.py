"""Kinds that point at the drafted kind by name (``--api-source``): the hub idiom.

Some operators make one kind a hub that only names a system (``Farm``) and let other kinds of the same API
join it: each member kind's spec holds a reference to the hub by name (``Farm FarmReference `json:"farm"```,
``FarmReference{Name string}``), its own controller finds the hub by that name (a field
index, not an owner reference) and makes the pods. The hub owns no pods and none of those objects; a definition
of the hub has no pod to read, and its pods are defined by the member kinds' own definitions.
"""

from __future__ import annotations

from pathlib import Path

from workload_map.authoring.gocode import GoCode, kind_code
from workload_map.authoring.goread import GoType, bare_type, go_type_name

# How a member kind names its hub: a struct ``<Hub>Reference`` (or ``<Hub>Ref``) of the hub's name.
REFERENCE_SUFFIXES = ("Reference", "Ref")


def _spec(declared: GoType, types: dict[str, GoType]) -> GoType | None:
    spec = next((f for f in declared.fields if f.json == "spec"), None)
    return types.get(bare_type(spec.type_expr)[1]) if spec is not None else None


def members_naming(root: Path | GoCode, kind: str, version: str) -> list[str]:
    """The other kinds of the kind's API folder whose spec holds a reference to it by name, in the order
    declared (empty when the source does not declare the kind, or no kind points at it)."""
    kind = go_type_name(kind)
    code = kind_code(root, kind, version)
    if code is None:
        return []
    program, _, declared = code
    folder = declared.file.directory
    types = {name: t for (directory, name), t in program.package.types.items() if directory == folder}
    references = {f"{kind}{suffix}" for suffix in REFERENCE_SUFFIXES}
    named = [
        t
        for t in types.values()
        if t.name in references
        and t.underlying == "struct"
        and any("Name" in f.names and f.type_expr == "string" for f in t.fields)
    ]
    if not named:
        return []
    out: list[tuple[str, int, str]] = []
    for candidate in types.values():
        is_kind = any(not f.names and f.type_expr.endswith("TypeMeta") for f in candidate.fields)
        spec = _spec(candidate, types) if is_kind and candidate is not declared else None
        if spec is not None and any(bare_type(f.type_expr)[1] in references for f in spec.fields):
            out.append((candidate.file.path, candidate.line, candidate.name))
    return [name for _, _, name in sorted(out)]
