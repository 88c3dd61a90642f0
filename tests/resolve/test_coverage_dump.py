"""Gaps written into a dump and read back (coverage.coverage_document / take_coverage), gaps of one kind in
many namespaces as one line (group_gaps / summary), and a static live model keeping a dump's gaps.

The live side (wmap snapshot as a limited user, get --from-file) is tests/live/test_live_gaps.py; here the
dump is built in memory from the same functions, so every reader of dumps is checked without a cluster.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_coverage import deployment, forbidden, ray_pods

import workload_map as wm
from workload_map.api.snapshot_export import snapshot_document
from workload_map.base.coverage import Cause, Coverage, Gap, coverage_document, group_gaps, summary, take_coverage
from workload_map.resolve.workloads import gap_warnings

GAP = forbidden("ray.io", "RayCluster", "rayclusters.ray.io")


def test_gaps_survive_a_dump_round_trip() -> None:
    coverage = Coverage([GAP, Gap("", "Pod", "pods", "team-b", Cause.FORBIDDEN)])
    back, rest, warnings = take_coverage([coverage_document(coverage), {"kind": "Pod"}])
    assert back.gaps == coverage.gaps and rest == [{"kind": "Pod"}] and warnings == []


def test_a_malformed_gap_is_one_warning_not_an_error() -> None:
    document = {
        **coverage_document(Coverage([GAP])),
        "gaps": [{"kind": "RayCluster"}, *coverage_document(Coverage([GAP]))["gaps"]],
    }
    back, _, warnings = take_coverage([document])
    assert back.gaps == [GAP]
    assert warnings == ["Coverage gaps[0]: ignoring a gap without group, kind, resource and cause"]


def test_a_dump_of_a_partial_read_answers_as_that_read(tmp_path: Path) -> None:
    """The dump of a read that could not list RayClusters: its pods are no rows, and the one line says why."""
    objects = [*deployment("web", 2), *ray_pods(5)]
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(snapshot_document(objects, coverage=Coverage([GAP]))))
    view = wm.open_dump(str(path), namespace=None)
    assert [t.kind for t in view.workloads()] == ["Deployment"]
    assert view.coverage.gaps == [GAP]
    assert [w for w in view.warnings if "rayclusters" in w] == [
        "5 pods in namespace team-a belong to rayclusters.ray.io, which user 'alice' may not list: "
        "not shown as workloads (fix: grant list on rayclusters.ray.io cluster-wide (a ClusterRole))"
    ]
    complete = tmp_path / "complete.json"
    complete.write_text(json.dumps(snapshot_document(objects)))  # no gaps: no Coverage item at all
    assert [i["kind"] for i in json.loads(complete.read_text())["items"]].count("Coverage") == 0
    assert [t.kind for t in wm.open_dump(str(complete), namespace=None).workloads()].count("Pod") == 5


def test_serve_from_a_dump_keeps_its_gaps(tmp_path: Path) -> None:
    objects: list[dict[str, Any]] = [*deployment("web", 2), *ray_pods(5)]
    model = wm.open_objects([snapshot_document(objects, coverage=Coverage([GAP]))], namespace=None).to_model()
    assert [r.tree.kind for r in model.workloads()] == ["Deployment"]
    assert model.gap_objects() == {GAP: 5}
    ready, reason = model.readiness()
    assert ready and reason == "ready, partial: user 'alice' may not list rayclusters.ray.io cluster-wide"


def test_one_kind_forbidden_in_many_namespaces_is_one_line() -> None:
    gaps = [Gap("", "Pod", "pods", ns, Cause.FORBIDDEN, user="alice") for ns in ("d", "a", "c", "b")]
    assert group_gaps([*gaps, GAP]) == [gaps, [GAP]]
    why, fix = summary(gaps)
    assert why == "user 'alice' may not list pods in 4 namespaces (a, b, c, ...)"
    assert fix == "grant list on pods in those namespaces, or cluster-wide (a ClusterRole)"
    assert summary([GAP]) == (GAP.why, GAP.fix)
    assert gap_warnings(gaps, {}) == [
        "User 'alice' may not list pods in 4 namespaces (a, b, c, ...): pod counts of the workloads there are "
        "unknown (fix: grant list on pods in those namespaces, or cluster-wide (a ClusterRole))"
    ]


def test_kinds_refused_alike_are_one_line() -> None:
    """A namespaced Role: every kind refused in the same namespaces, nothing of them seen."""
    kinds = [("apps", "Deployment", "deployments.apps"), ("batch", "Job", "jobs.batch")]
    gaps = [Gap(g, k, r, ns, Cause.FORBIDDEN, user="alice") for g, k, r in kinds for ns in ("a", "b")]
    assert gap_warnings(gaps, {}) == [
        "User 'alice' may not list deployments.apps, jobs.batch in 2 namespaces (a, b): their workloads there "
        "are not shown, and those made of them are incomplete (fix: grant list on them in those namespaces, or "
        "cluster-wide (a ClusterRole))"
    ]
    assert gap_warnings(gaps[:2], {}) == [
        "User 'alice' may not list deployments.apps in 2 namespaces (a, b): Deployment workloads there are not "
        "shown, and those made of them are incomplete (fix: grant list on deployments.apps in those namespaces, "
        "or cluster-wide (a ClusterRole))"
    ]
