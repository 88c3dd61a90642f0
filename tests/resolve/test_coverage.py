"""Gaps of a partial read (workload_map.base.coverage) as the resolver and `get` treat them, without a cluster.

The live layer records the gaps (tests/live/test_live_gaps.py has the genuine apiserver's RBAC); here a
Snapshot carries them by hand: pods whose owner lies in a gap are no workloads of their own, workloads
whose pods may lie in one have unknown counts, and missing owners are one warning per kind/namespace.
"""

from __future__ import annotations

from typing import Any

import pytest

from helpers import pod
from workload_map.base.coverage import Cause, Coverage, Gap
from workload_map.base.snapshot import Snapshot
from workload_map.catalog import load_builtin
from workload_map.cli.commands.get import row
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import trees_of

RAY = ("ray.io/v1", "RayCluster", "rc")
NS = "team-a"


@pytest.fixture(scope="module")
def catalog() -> list[Any]:
    loaded, _ = load_builtin()
    return list(loaded)


def deployment(name: str, replicas: int, namespace: str = NS) -> list[dict[str, Any]]:
    uid = f"{name}-uid"
    objects: list[dict[str, Any]] = [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace, "uid": uid},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}},
            "status": {"replicas": replicas, "readyReplicas": replicas, "availableReplicas": replicas},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{name}-rs",
                "namespace": namespace,
                "uid": f"{name}-rs-uid",
                "ownerReferences": [
                    {"apiVersion": "apps/v1", "kind": "Deployment", "name": name, "uid": uid, "controller": True}
                ],
            },
            "spec": {"replicas": replicas},
        },
    ]
    for i in range(replicas):
        objects.append(
            pod(
                f"{name}-{i}",
                namespace=namespace,
                owner=("apps/v1", "ReplicaSet", f"{name}-rs"),
                owner_uid=f"{name}-rs-uid",
            )
        )
    return objects


def ray_pods(n: int, namespace: str = NS) -> list[dict[str, Any]]:
    return [pod(f"rc-worker-{i}", namespace=namespace, owner=RAY) for i in range(n)]


def forbidden(group: str, kind: str, resource: str, namespace: str | None = None) -> Gap:
    return Gap(group, kind, resource, namespace, Cause.FORBIDDEN, user="alice")


def test_pods_in_a_forbidden_kind_are_counted_once_not_promoted(catalog: list[Any]) -> None:
    coverage = Coverage([forbidden("ray.io", "RayCluster", "rayclusters.ray.io")])
    view = WorkloadIndex(Snapshot([*deployment("web", 2), *ray_pods(5)], coverage=coverage), catalog)
    assert [w["kind"] for w in view.workloads()] == ["Deployment"]  # no phantom Pod rows
    assert view.warnings == [
        "5 pods in namespace team-a belong to rayclusters.ray.io, which user 'alice' may not list: "
        "not shown as workloads (fix: grant list on rayclusters.ray.io cluster-wide (a ClusterRole))"
    ]


def test_without_the_gap_the_same_pods_are_bare_pods(catalog: list[Any]) -> None:
    """The control: a complete read of the same objects (the owner kind is simply not covered)."""
    view = WorkloadIndex(Snapshot([*deployment("web", 2), *ray_pods(5)]), catalog)
    kinds = [w["kind"] for w in view.workloads()]
    assert kinds.count("Pod") == 5


def test_a_removed_crd_with_its_pods_left(catalog: list[Any]) -> None:
    coverage = Coverage([Gap("ray.io", "RayCluster", "rayclusters.ray.io", None, Cause.NOT_SERVED)])
    view = WorkloadIndex(Snapshot(ray_pods(3), coverage=coverage), catalog)
    assert view.workloads() == []
    assert len(view.warnings) == 1
    assert "3 pods in namespace team-a belong to rayclusters.ray.io" in view.warnings[0]
    assert "install the CRD of rayclusters.ray.io" in view.warnings[0]


def test_forbidden_pods_make_counts_unknown_not_zero(catalog: list[Any]) -> None:
    objects = [o for o in deployment("web", 3) if o["kind"] != "Pod"]  # the pods could not be read
    other = deployment("api", 2, namespace="team-b")
    coverage = Coverage([forbidden("", "Pod", "pods", NS)])
    view = WorkloadIndex(Snapshot([*objects, *other], coverage=coverage), catalog)
    trees, _ = trees_of(view, view.workloads())
    by_name = {t.name: t for t in trees}
    web, api = by_name["web"], by_name["api"]
    assert web.incomplete and not api.incomplete  # only the namespace of the gap
    cells = row(web, wide=False, with_namespace=False)
    assert cells[2].endswith(" (incomplete)") and cells[4] == "?/3"
    assert row(api, wide=False, with_namespace=False)[4] == "2/2"
    totals = web.to_json()["totals"]["pods"]
    assert totals["desired"] == 3 and totals["ready"] is None and totals["current"] is None
    assert web.to_json()["incomplete"] == ["user 'alice' may not list pods in namespace team-a"]
    assert "incomplete" not in api.to_json()
    assert view.warnings == [
        "User 'alice' may not list pods in namespace team-a: pod counts of the workloads there are unknown "
        "(fix: grant list on pods in namespace team-a)"
    ]


def test_missing_owners_are_one_line_per_kind_and_namespace(catalog: list[Any]) -> None:
    orphans = [pod(f"job-pod-{i}", owner=("batch/v1", "Job", f"gone-{i}")) for i in range(40)]
    orphans += [pod("elsewhere", namespace="other", owner=("batch/v1", "Job", "gone-x"))]
    view = WorkloadIndex(Snapshot(orphans), catalog)
    lines = [w for w in view.warnings if "missing Job owner" in w]
    assert len(lines) == 2
    assert lines[0].startswith("40 objects in namespace default with a missing Job owner (e.g. owner Job/gone-")
    assert lines[0].endswith("deleted, or created after the list was read")
    verbose = view.missing_owner_warnings(verbose=True)
    assert all(f"Job/gone-{i} " in verbose[0] for i in range(40))


def test_describe_says_nothing_about_owners_of_its_kind_it_read_by_name(catalog: list[Any]) -> None:
    """`describe deployment/web` reads Deployments by name but every ReplicaSet of the namespace: the
    ReplicaSet of Deployment api has an owner the read left out, not a missing one."""
    web, api = deployment("web", 2), deployment("api", 1)
    objects = [*web, api[1]]  # web, its ReplicaSet and pods; api's ReplicaSet (its pods are not selected)
    listed = [("apps", "Deployment"), ("apps", "ReplicaSet"), ("", "Pod")]
    view = WorkloadIndex(Snapshot(objects, listed=listed, named={("apps", "Deployment"): ["web"]}), catalog)
    assert view.warnings == []
    (workload,) = view.find(view.registry.resolve_type("deployment"), "web", NS)
    assert [p["metadata"]["name"] for p in view.pods_of(workload)] == ["web-0", "web-1"]
    # The workload described, deleted after its ReplicaSet was listed, is missing indeed.
    gone = WorkloadIndex(Snapshot(objects[1:], listed=listed, named={("apps", "Deployment"): ["web"]}), catalog)
    (line,) = [w for w in gone.warnings if "missing Deployment owner" in w]
    assert "owner Deployment/web of" in line and line.endswith("deleted, or created after the list was read")


def test_a_narrowed_read_says_nothing_about_kinds_it_did_not_list(catalog: list[Any]) -> None:
    """`get deployments`: pods of other owners were listed, their owners were not: out of scope."""
    objects = [*deployment("web", 2), *[pod(f"j-{i}", owner=("batch/v1", "Job", "j")) for i in range(9)]]
    listed = [("apps", "Deployment"), ("apps", "ReplicaSet"), ("", "Pod")]
    view = WorkloadIndex(Snapshot(objects, listed=listed), catalog)
    assert view.warnings == []
    full = WorkloadIndex(Snapshot(objects), catalog)  # the same objects read as everything: the owner is missing
    assert [w for w in full.warnings if "missing Job owner" in w]
