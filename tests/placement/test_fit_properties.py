"""Properties of fit on generated clusters: never more than the free capacity, exact for one pod shape,
gang groups placed whole, and the capacity model never changed by a fit."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings, strategies as st

import workload_map as wm
from workload_map.placement.claims import NodeClaim

GPU = "nvidia.com/gpu"


def _node(index: int, gpus: int, used: int) -> tuple[dict[str, object], dict[str, object] | None]:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"n{index:02d}"},
        "status": {
            "allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110", GPU: str(gpus)},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }
    pod = None
    if used:
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{index:02d}", "namespace": "other"},
            "spec": {
                "nodeName": f"n{index:02d}",
                "containers": [{"name": "c", "resources": {"limits": {GPU: str(used)}}}],
            },
            "status": {"phase": "Running"},
        }
    return node, pod


clusters = st.lists(st.tuples(st.sampled_from([0, 4, 8]), st.integers(0, 8)), min_size=1, max_size=12)


def _capacity(spec: list[tuple[int, int]]) -> wm.Capacity:
    nodes, pods = [], []
    for index, (gpus, used) in enumerate(spec):
        node, pod = _node(index, gpus, min(used, gpus))
        nodes.append(node)
        if pod is not None:
            pods.append(pod)
    return wm.Capacity.from_objects(nodes, pods)


def _workload(shapes: list[tuple[int, int]], gang: bool) -> wm.WorkloadRequirements:
    components = [
        wm.ComponentRequirement(f"c{i}", f"c{i}", None, replicas, {GPU: Decimal(gpus), "cpu": Decimal(1)}, NodeClaim())
        for i, (gpus, replicas) in enumerate(shapes)
    ]
    groups = [wm.GangGroupRequirement("all", sum(r for _, r in shapes), {c.name: c.replicas for c in components})]
    return wm.WorkloadRequirements("v1", "Test", "team", "w", components, groups if gang else [])


@settings(max_examples=150, deadline=None)
@given(clusters, st.lists(st.tuples(st.integers(1, 8), st.integers(1, 6)), min_size=1, max_size=3), st.booleans())
def test_fit_never_places_more_than_is_free(
    spec: list[tuple[int, int]], shapes: list[tuple[int, int]], gang: bool
) -> None:
    capacity = _capacity(spec)
    before = [dict(n.free) for n in capacity.nodes]
    workload = _workload(shapes, gang)
    result = wm.fit(workload, capacity, max_copies=50)
    assert [dict(n.free) for n in capacity.nodes] == before
    assert result.copies * workload.gpus <= capacity.gpus_free
    if result.first_copy is not None:
        placed = sum(sum(c.values()) for c in result.first_copy.nodes.values())
        assert placed == workload.pods  # a copy is whole
        for node, pods in result.first_copy.nodes.items():
            model = capacity.node(node)
            assert model is not None
            gpus = sum(shapes[int(c[1:])][0] * n for c, n in pods.items())
            assert gpus <= model.gpus_free  # per node packing
        assert result.first_copy.gpus_left == capacity.gpus_free - workload.gpus
    else:
        assert result.blocking is not None and result.blocking.kind == "room"


@settings(max_examples=150, deadline=None)
@given(clusters, st.integers(1, 8), st.integers(1, 6))
def test_one_pod_shape_is_counted_exactly(spec: list[tuple[int, int]], gpus: int, replicas: int) -> None:
    """Identical pods can use every node's room: copies = (sum of per-node room) // replicas."""
    capacity = _capacity(spec)
    room = sum(int(n.gpus_free // gpus) for n in capacity.nodes)
    result = wm.fit(_workload([(gpus, replicas)], gang=True), capacity, max_copies=1000)
    assert result.copies == room // replicas


def _requirements(groups: dict[str, dict[str, int]], shapes: dict[str, int]) -> wm.WorkloadRequirements:
    counts: dict[str, int] = {}
    for members in groups.values():
        for name, n in members.items():
            counts[name] = counts.get(name, 0) + n
    components = [
        wm.ComponentRequirement(name, name, None, counts[name], {GPU: Decimal(gpus)}, NodeClaim())
        for name, gpus in shapes.items()
    ]
    gangs = [wm.GangGroupRequirement(g, sum(m.values()), m) for g, m in groups.items()]
    return wm.WorkloadRequirements("v1", "Test", "team", "w", components, gangs)


def test_gang_groups_of_different_sizes_largest_first_and_whole() -> None:
    """A group of 3 x 4 GPUs and a group of 1 x 8 GPUs. Free 8, 8, 4: the big group goes first (12 GPUs),
    best fit puts one pod on the 4-GPU node and two on one 8-GPU node; the small group takes the other
    8-GPU node: one copy on all three nodes, nothing left."""
    workload = _requirements({"big": {"a": 3}, "small": {"b": 1}}, {"a": 4, "b": 8})
    result = wm.fit(workload, _capacity([(8, 0), (8, 0), (8, 4)]))
    assert result.copies == 1
    assert result.first_copy is not None
    assert {n: dict(p) for n, p in result.first_copy.nodes.items()} == {
        "n00": {"a": 2},
        "n01": {"b": 1},
        "n02": {"a": 1},
    }
    assert result.first_copy.gpus_left == 0
    # Free 8, 8, 8: the first copy leaves 4 on one node; the second copy's big group finds room for one pod
    # of its three, so no part of the second copy is placed (the verdict names the big group).
    result = wm.fit(workload, _capacity([(8, 0), (8, 0), (8, 0)]))
    assert result.copies == 1 and result.first_copy is not None and result.first_copy.gpus_left == 4
    assert result.blocking is not None
    assert result.blocking.message == (
        "a: 3 pods x 4 GPUs need room for 3; the 3 matching nodes have room for 1; gang group big needs all its "
        "3 members at once"
    )
    assert (result.blocking.group, result.blocking.component) == ("big", "a")
    # The small group alone would still fit there: a copy is whole or nothing.
    assert wm.fit(_requirements({"small": {"b": 1}}, {"b": 8}), _capacity([(8, 4), (8, 4), (8, 0)])).copies == 1


def test_counting_stops_at_max_copies() -> None:
    result = wm.fit(_workload([(1, 1)], gang=False), _capacity([(8, 0)] * 4), max_copies=10)
    assert (result.copies, result.capped) == (10, True)
    assert result.verdict().startswith("fits: at least 10 complete copies")


ZONES = ("a", "b", "c")
TAINTS = (None, "gpu", "dedicated")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(ZONES), st.sampled_from(TAINTS), st.booleans(), st.integers(0, 8)), max_size=10),
    st.sampled_from((None, *ZONES)),
    st.sampled_from((None, "in-ab", "not-c")),
    st.booleans(),
    st.integers(1, 4),
)
def test_every_pod_lands_on_a_node_its_claim_allows(
    nodes: list[tuple[str, str | None, bool, int]],
    zone: str | None,
    affinity: str | None,
    tolerate: bool,
    replicas: int,
) -> None:
    objects = []
    for index, (node_zone, taint, cordoned, free) in enumerate(nodes):
        spec: dict[str, object] = {"unschedulable": cordoned}
        if taint == "dedicated":
            spec["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
        elif taint == "gpu":
            spec["taints"] = [{"key": GPU, "value": "present", "effect": "NoSchedule"}]
        objects.append({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"n{index:02d}", "labels": {"zone": node_zone}},
            "spec": spec,
            "status": {"allocatable": {"cpu": "8", "pods": "110", GPU: str(free)},
                       "conditions": [{"type": "Ready", "status": "True"}]},
        })  # fmt: skip
    expressions = {
        "in-ab": {"key": "zone", "operator": "In", "values": ["a", "b"]},
        "not-c": {"key": "zone", "operator": "NotIn", "values": ["c"]},
    }
    terms = {"nodeSelectorTerms": [{"matchExpressions": [expressions[affinity]]}]} if affinity else None
    claim = NodeClaim(
        {"zone": zone} if zone else {},
        [{"key": "dedicated", "operator": "Exists"}] if tolerate else [],
        terms,
    )
    component = wm.ComponentRequirement("w", "w", None, replicas, {GPU: Decimal(1)}, claim)
    result = wm.fit(wm.WorkloadRequirements("v1", "T", "ns", "x", [component]), wm.Capacity.from_objects(objects, []))
    allowed = {
        f"n{i:02d}"
        for i, (node_zone, taint, cordoned, _) in enumerate(nodes)
        if not cordoned
        and (zone is None or node_zone == zone)
        and (affinity != "in-ab" or node_zone in ("a", "b"))
        and (affinity != "not-c" or node_zone != "c")
        and (taint != "dedicated" or tolerate)  # the GPU taint is tolerated by the GPU request itself
    }
    room = sum(free for i, (_, _, _, free) in enumerate(nodes) if f"n{i:02d}" in allowed)
    assert result.copies == min(room // replicas, 1000)
    if result.first_copy is not None:
        assert set(result.first_copy.nodes) <= allowed
