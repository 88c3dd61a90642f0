from __future__ import annotations

from decimal import Decimal

from workload_map.resolve.resources import _pod_resources, gpu_count, is_gpu_resource, pod_resources


def c(name: str, requests: dict | None = None, limits: dict | None = None, **extra: object) -> dict:
    resources = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    return {"name": name, "resources": resources, **extra}


def test_sum_of_app_containers_with_limits_defaulting_requests() -> None:
    spec = {
        "containers": [
            c("a", requests={"cpu": "500m"}, limits={"cpu": "1", "nvidia.com/gpu": 2}),
            c("b", limits={"memory": "1Gi"}),
        ]
    }
    requests = pod_resources(spec).requests
    assert requests == {"cpu": Decimal("0.5"), "memory": Decimal(2**30), "nvidia.com/gpu": Decimal(2)}


def test_init_containers_take_the_max_and_sidecars_add() -> None:
    spec = {
        "containers": [c("app", requests={"cpu": "1", "memory": "1Gi"})],
        "initContainers": [
            c("sidecar", requests={"cpu": "200m", "memory": "64Mi"}, restartPolicy="Always"),
            c("setup", requests={"cpu": "3"}),
        ],
    }
    requests = pod_resources(spec).requests
    # app 1 + sidecar 0.2 = 1.2 cpu; setup step = 3 + sidecar 0.2 = 3.2 cpu -> max 3.2
    assert requests["cpu"] == Decimal("3.2")
    assert requests["memory"] == Decimal(2**30 + 64 * 2**20)


def test_init_container_before_sidecar_does_not_include_it() -> None:
    spec = {
        "containers": [c("app", requests={"cpu": "1"})],
        "initContainers": [
            c("setup", requests={"cpu": "2"}),
            c("sidecar", requests={"cpu": "500m"}, restartPolicy="Always"),
        ],
    }
    assert pod_resources(spec).requests["cpu"] == Decimal(2)


def test_pod_level_resources_and_overhead() -> None:
    spec = {
        "resources": {"requests": {"cpu": "4"}, "limits": {"memory": "8Gi"}},
        "containers": [c("app", requests={"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": 1})],
        "overhead": {"cpu": "100m"},
    }
    requests = pod_resources(spec).requests
    assert requests["cpu"] == Decimal("4.1")
    assert requests["memory"] == Decimal(8 * 2**30)
    assert requests["nvidia.com/gpu"] == Decimal(1)


def test_gpu_names_and_dra_claims() -> None:
    assert is_gpu_resource("nvidia.com/gpu") and is_gpu_resource("amd.com/gpu") and is_gpu_resource("intel.com/gpu")
    assert not is_gpu_resource("nvidia.com/mig-1g.5gb")
    spec = {
        "containers": [c("a", limits={"amd.com/gpu": 2, "nvidia.com/mig-3g.20gb": 1})],
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-claim"}],
    }
    result = pod_resources(spec)
    assert gpu_count(result.requests) == 2
    assert result.resource_claims == 1


def test_bad_quantities_are_problems_not_crashes() -> None:
    result = pod_resources({"containers": [c("a", requests={"cpu": "lots"}), "junk"], "initContainers": "x"})
    assert result.requests == {}
    assert any("cpu" in p for p in result.problems)
    assert any("initContainers" in p for p in result.problems)
    assert pod_resources(None).requests == {}


SHAPES = [
    {"containers": [c("a", requests={"cpu": "1"}, limits={"nvidia.com/gpu": "8"})], "nodeName": "n1"},
    {"containers": [c("a", requests={"cpu": "1"}, limits={"nvidia.com/gpu": "8"})], "nodeName": "n2"},
    {"containers": [c("a", requests={"cpu": "1"}, limits={"nvidia.com/gpu": 8})]},  # a number: not remembered
    {"containers": [c("a", requests={"cpu": "1"}, limits={"nvidia.com/gpu": True})]},  # not a quantity
    {"containers": [c("a", requests={"cpu": "lots"})]},  # a problem that names the container
    {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]},  # ... one without a name: '?'
    {"containers": [{"name": None, "resources": {"requests": {"cpu": "lots"}}}]},  # ... a null name: None
    {"containers": [c("?", requests={"cpu": "lots"})]},
    {
        "containers": [c("app", requests={"cpu": "1"})],
        "initContainers": [c("init", requests={"cpu": "4"}), c("side", requests={"cpu": "1"}, restartPolicy="Always")],
    },
    {"containers": [c("app", requests={"cpu": "1"})], "initContainers": [c("init", requests={"cpu": "4"})]},
    {
        "containers": [c("app", requests={"cpu": "1"})],
        "resources": {"requests": {"cpu": "2"}},
        "overhead": {"cpu": "1"},
    },
    {"containers": [c("app", requests={"cpu": "1"})], "resources": "odd", "overhead": ["odd"]},
    {"containers": [c("app", requests={"cpu": "1"})], "resourceClaims": [{"name": "gpu"}]},
    {"containers": [c("app", requests={"cpu": "1"}), "not a container"], "initContainers": {}},
    {"containers": "not a list"},
    {"containers": [c({"a": 1}, requests={"cpu": "1"})]},  # type: ignore[arg-type] - a name that is no text
]


def test_remembered_shapes_give_what_computing_gives() -> None:
    """pod_resources remembers each container shape: the same answers (problems included, with the
    container's name), a copy every time, whatever the order the shapes come in."""
    for spec in [*SHAPES, *reversed(SHAPES), *SHAPES]:
        first = pod_resources(spec)
        assert first == _pod_resources(spec), spec
        first.requests["cpu"] = Decimal(99)
        first.problems.append("changed by a caller")
        assert pod_resources(spec) == _pod_resources(spec), spec
