"""Running definition expressions on objects and turning failures into located warnings.

Resolution never stops at a failing expression: the failure is recorded against the definition
field that holds the expression and the object it ran on, and resolution goes on with what it has.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workload_map.base.model import Model, field
from workload_map.errors import Finding, Location, Severity
from workload_map.jq import JqError, compile_expression


class Diagnostics(Model, frozen=False, kw_only=False):
    """Warnings gathered while resolving one workload."""

    subject: str  # e.g. "jobset/default/train"
    definition: Location = field(default_factory=Location)
    findings: list[Finding] = field(default_factory=list)

    def warn(self, message: str, path: Sequence[str | int] = (), expression: str | None = None) -> None:
        location = self.definition.child(*path) if path else self.definition
        self.findings.append(Finding(location, f"{self.subject}: {message}", Severity.WARNING, expression))

    def messages(self) -> list[str]:
        return [str(f) for f in self.findings]


def run(expression: str, value: Any) -> tuple[list[Any], JqError | None]:
    """All outputs of an expression, or the error it raised (never raises itself)."""
    try:
        return compile_expression(expression).all(value), None
    except JqError as exc:
        return [], exc


def run_checked(
    expression: str, value: Any, diagnostics: Diagnostics, path: Sequence[str | int], what: str
) -> list[Any] | None:
    outputs, error = run(expression, value)
    if error is not None:
        diagnostics.warn(f"{what} failed: {error}", path, expression)
        return None
    return outputs
