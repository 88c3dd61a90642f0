"""Located findings and errors shared by every layer.

A user must always learn which file, which document, which field and which expression went wrong;
these types carry that location from the layer that notices a problem to the CLI that prints it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from workload_map.base.model import Model


def format_path(parts: Sequence[str | int]) -> str:
    """``("spec", "childComponents", 2, "podSelector")`` -> ``spec.childComponents[2].podSelector``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


class Location(Model, kw_only=False):
    source: str = ""
    document: int | None = None
    path: str = ""

    def child(self, *parts: str | int) -> Location:
        suffix = format_path(parts)
        if not self.path:
            path = suffix
        elif suffix.startswith("["):
            path = self.path + suffix
        else:
            path = f"{self.path}.{suffix}" if suffix else self.path
        return Location(self.source, self.document, path)

    def __str__(self) -> str:
        parts = []
        if self.source:
            parts.append(self.source)
        if self.document is not None:
            parts.append(f"document {self.document}")
        if self.path:
            parts.append(self.path)
        return ", ".join(parts)


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Finding(Model, kw_only=False):
    location: Location
    message: str
    severity: Severity = Severity.ERROR
    expression: str | None = None

    def __str__(self) -> str:
        where = str(self.location)
        text = f"{self.severity.value}: {self.message}"
        if self.expression is not None:
            text += f" (expression: {self.expression})"
        return f"{where}: {text}" if where else text


@dataclass
class WorkloadMapError(Exception):
    """An error a user can act on: what failed, where, and why."""

    message: str
    location: Location = field(default_factory=Location)
    hint: str | None = None
    detail: str = ""  # why, when the message says only what failed ("cannot load definitions")

    def __str__(self) -> str:
        where = str(self.location)
        text = f"{self.message} ({where})" if where else self.message
        if self.detail:
            text += f": {self.detail}"
        return f"{text}; {self.hint}" if self.hint else text


class DocumentError(WorkloadMapError):
    """A file or stream could not be read as YAML/JSON documents."""


class NotFoundError(WorkloadMapError):
    """A workload named by type and name does not exist in the namespace asked for."""


class UnknownTypeError(WorkloadMapError):
    """No definition covers the TYPE a caller named (kind, plural, short name, kind.group)."""


class AmbiguousTypeError(WorkloadMapError):
    """The TYPE a caller named matches kinds of several groups; ``hint`` names one qualified spelling."""


class ResolveError(WorkloadMapError):
    """A workload's definition could not be applied to it (a jq expression failed on this object)."""
