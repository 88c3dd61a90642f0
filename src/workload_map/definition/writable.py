"""Which parts of a definition ``wmap update`` can write through: its spec and suspend paths.

A write needs the locations an expression addresses (``path(EXPR)``), which only jq path
expressions have. A component whose pod-spec paths are computed (object construction, ``to_entries``,
label merging, ...) still reads fine but is read-only for updates; a suspend action whose path is
computed cannot suspend. Both are warnings that name the expression and the construct
(``workload_map.jq.pathexpr`` decides, statically).
"""

from __future__ import annotations

from collections.abc import Iterator

from workload_map.definition.expressions import iter_expressions
from workload_map.definition.model import Karta
from workload_map.errors import Finding, Location, Severity
from workload_map.jq import JqError
from workload_map.jq.pathexpr import path_problem

_SPEC_FIELDS = frozenset({"podTemplateSpecPath", "podSpecPath", "metadataPath"})


def _written(path: tuple[str | int, ...]) -> str | None:
    """What a write through the expression at ``path`` is for, or None if nothing is written there."""
    if "specDefinition" in path and (path[-1] in _SPEC_FIELDS or "fragmentedPodSpecDefinition" in path):
        return "pod-spec updates"
    if "suspendDefinition" in path and path[-1] == "path":
        return "suspend/resume"
    return None


def read_only_findings(karta: Karta, location: Location | None = None) -> Iterator[Finding]:
    """One warning per spec or suspend path that is not a path expression (expressions that do not
    compile are the validator's errors already, so they are skipped here)."""
    location = location or Location()
    for ref in iter_expressions(karta):
        purpose = _written(ref.path)
        if purpose is None:
            continue
        try:
            problem = path_problem(ref.expression)
        except JqError:
            continue
        if problem is None:
            continue
        field_name = str(ref.path[-1])
        yield Finding(
            location.child(*ref.path),
            f"component {ref.component!r} is read-only for {purpose}: {field_name} is not a jq path expression, "
            f"so it addresses no location to write ({problem})",
            Severity.WARNING,
            ref.expression,
        )


__all__ = ["read_only_findings"]
