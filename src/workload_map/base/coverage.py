"""What a snapshot could not see: kinds or namespaces that were forbidden, not served, or failed.

A live read is often partial (RBAC, a removed CRD, a failed list). Answers built on a partial read must
say so instead of looking complete: a pod whose owner chain enters a gap is not a top-level workload of
its own, and a workload whose pods or children may lie in a gap has unknown counts, not zeros. The live
layer records each gap while listing (``sources/kube/fetch.py``); the Snapshot carries them
(:attr:`Snapshot.coverage`); the resolver (``resolver.WorkloadIndex``) and the renderers read them.
A dump is complete unless it says otherwise: ``wmap snapshot`` of a partial read writes its gaps as one
``Coverage`` item of the List (:func:`coverage_document`), and reading the dump gives them back
(:func:`take_coverage`), so the dump answers what the live read answered.

Reusable by any reader of a cluster (the watch-driven live model too): nothing here does I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from typing import Any

from workload_map.base.model import Model, field


class Cause(enum.Enum):
    FORBIDDEN = "forbidden"  # RBAC: the user may not list it
    NOT_SERVED = "not served"  # the API server does not serve the kind (its CRD is absent or removed)
    FAILED = "failed"  # the list failed otherwise (timeout, 5xx): unknown, and maybe not for long


class Gap(Model, kw_only=False):
    """One kind in one namespace (``namespace`` None: every namespace) that was not read, and why."""

    group: str
    kind: str
    resource: str  # plural.group as kubectl names it: "rayclusters.ray.io", "pods"
    namespace: str | None
    cause: Cause
    user: str = ""  # who was forbidden, when the server said

    def covers(self, group: str, kind: str, namespace: str) -> bool:
        return (self.group, self.kind) == (group, kind) and (self.namespace is None or self.namespace == namespace)

    @property
    def where(self) -> str:
        # Not "in any namespace": a user refused a cluster-wide list may still list some namespaces.
        return f"in namespace {self.namespace}" if self.namespace else "cluster-wide"

    @property
    def why(self) -> str:
        """``user 'u' may not list rayclusters.ray.io in namespace x`` and the like."""
        if self.cause is Cause.FORBIDDEN:
            who = f"user {self.user!r}" if self.user else "the user"
            return f"{who} may not list {self.resource} {self.where}"
        if self.cause is Cause.NOT_SERVED:
            return f"the API server does not serve {self.resource}"
        return f"listing {self.resource} {self.where} failed"

    @property
    def fix(self) -> str:
        if self.cause is Cause.FORBIDDEN:
            scope = f"in namespace {self.namespace}" if self.namespace else "cluster-wide (a ClusterRole)"
            return f"grant list on {self.resource} {scope}"
        if self.cause is Cause.NOT_SERVED:
            return f"install the CRD of {self.resource}" if self.group else f"the server lacks {self.resource}"
        return "retry the command"


class Coverage(Model, frozen=False, kw_only=False):
    """The gaps of one read; empty means everything needed was read."""

    gaps: list[Gap] = field(default_factory=list)

    def add(self, gap: Gap) -> None:
        if gap not in self.gaps:
            self.gaps.append(gap)

    def extend(self, gaps: Iterable[Gap]) -> None:
        for gap in gaps:
            self.add(gap)

    def __iter__(self) -> Iterator[Gap]:
        return iter(self.gaps)

    def __len__(self) -> int:
        return len(self.gaps)

    @property
    def complete(self) -> bool:
        return not self.gaps

    def gap_for(self, group: str, kind: str, namespace: str) -> Gap | None:
        for gap in self.gaps:
            if gap.covers(group, kind, namespace):
                return gap
        return None

    def forbidden(self) -> list[Gap]:
        return [g for g in self.gaps if g.cause is Cause.FORBIDDEN]

    def failed(self) -> list[Gap]:
        return [g for g in self.gaps if g.cause is Cause.FAILED]


def group_gaps(gaps: Iterable[Gap]) -> list[list[Gap]]:
    """Gaps of one kind, cause and user in several namespaces together (one warning line each group)."""
    groups: dict[tuple[str, str, Cause, str, bool], list[Gap]] = {}
    for gap in gaps:
        groups.setdefault((gap.group, gap.kind, gap.cause, gap.user, gap.namespace is None), []).append(gap)
    return list(groups.values())


def summary(gaps: list[Gap]) -> tuple[str, str]:
    """The why and the fix of a group of gaps (group_gaps): one gap's own, or the namespaces named."""
    first = gaps[0]
    if len(gaps) == 1:
        return first.why, first.fix
    names = sorted(g.namespace or "" for g in gaps)
    where = f"in {len(names)} namespaces ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''})"
    if first.cause is Cause.FORBIDDEN:
        who = f"user {first.user!r}" if first.user else "the user"
        why = f"{who} may not list {first.resource} {where}"
        return why, f"grant list on {first.resource} in those namespaces, or cluster-wide (a ClusterRole)"
    return f"listing {first.resource} {where} failed", first.fix


COVERAGE_API_VERSION = "workload-map/v1alpha1"
COVERAGE_KIND = "Coverage"


def coverage_document(coverage: Coverage) -> dict[str, Any]:
    """The gaps of a read as one object of a dump (``wmap snapshot``)."""
    gaps = [
        {
            "group": g.group,
            "kind": g.kind,
            "resource": g.resource,
            "namespace": g.namespace,
            "cause": g.cause.value,
            **({"user": g.user} if g.user else {}),
        }
        for g in coverage
    ]
    return {"apiVersion": COVERAGE_API_VERSION, "kind": COVERAGE_KIND, "metadata": {"name": "coverage"}, "gaps": gaps}


def take_coverage(objects: Iterable[dict[str, Any]]) -> tuple[Coverage, list[dict[str, Any]], list[str]]:
    """The Coverage items of a dump taken out of its objects: (their gaps, the other objects, warnings about
    gaps that cannot be read)."""
    coverage, rest, warnings = Coverage(), [], []
    causes = {c.value: c for c in Cause}
    for obj in objects:
        if obj.get("apiVersion") != COVERAGE_API_VERSION or obj.get("kind") != COVERAGE_KIND:
            rest.append(obj)
            continue
        for index, raw in enumerate(obj.get("gaps") or []):
            try:
                coverage.add(
                    Gap(
                        str(raw["group"]),
                        str(raw["kind"]),
                        str(raw["resource"]),
                        None if raw.get("namespace") is None else str(raw["namespace"]),
                        causes[str(raw["cause"])],
                        str(raw.get("user") or ""),
                    )
                )
            except (KeyError, TypeError):
                warnings.append(f"Coverage gaps[{index}]: ignoring a gap without group, kind, resource and cause")
    return coverage, rest, warnings


__all__ = [
    "COVERAGE_API_VERSION",
    "COVERAGE_KIND",
    "Cause",
    "Coverage",
    "Gap",
    "coverage_document",
    "group_gaps",
    "summary",
    "take_coverage",
]
