"""The synthetic cluster generator (bench/gen_cluster.py) and the shipped example it produces."""

from __future__ import annotations

import hashlib
import importlib
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest
import yaml

from gen import frameworks

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "src" / "workload_map" / "examples" / "ai-cluster.yaml"


def _load() -> ModuleType:
    """bench/gen_cluster.py, imported as the benchmarks import it (bench/ on sys.path: it uses bench/gen/)."""
    bench = str(REPO / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    return importlib.import_module("gen_cluster")


gen = _load()

WORKLOAD_KINDS = {
    ("jobset.x-k8s.io", "JobSet"),
    ("trainer.kubeflow.org", "TrainJob"),
    ("kubeflow.org", "PyTorchJob"),
    ("kubeflow.org", "MPIJob"),
    ("batch.volcano.sh", "Job"),
    ("batch", "Job"),
    ("batch", "CronJob"),
    ("ray.io", "RayCluster"),
    ("ray.io", "RayJob"),
    ("ray.io", "RayService"),
    ("serving.kserve.io", "InferenceService"),
    ("serving.kserve.io", "LLMInferenceService"),
    ("serving.knative.dev", "Service"),
    ("apps.nvidia.com", "NIMService"),
    ("apps.nvidia.com", "NIMCache"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
    ("milvus.io", "Milvus"),
    ("grove.io", "PodCliqueSet"),
    ("nvidia.com", "DynamoGraphDeployment"),
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
}


def _gk(o: dict[str, Any]) -> tuple[str, str]:
    api = o["apiVersion"]
    return (api.split("/")[0] if "/" in api else "", o["kind"])


def _top(o: dict[str, Any], by_uid: dict[str, dict[str, Any]]) -> dict[str, Any]:
    seen = 0
    while o["metadata"].get("ownerReferences"):
        (r,) = o["metadata"]["ownerReferences"]
        assert r["controller"] is True and r["blockOwnerDeletion"] is True
        owner = by_uid.get(r["uid"])
        assert owner is not None, f"{o['kind']} {o['metadata']['name']}: owner uid {r['uid']} not in dump"
        assert (owner["kind"], owner["metadata"]["name"], owner["apiVersion"]) == (
            r["kind"],
            r["name"],
            r["apiVersion"],
        )
        assert owner["metadata"].get("namespace") == o["metadata"].get("namespace")
        o = owner
        seen += 1
        assert seen < 10
    return o


@pytest.fixture(scope="module")
def dump() -> list[dict[str, Any]]:
    return gen.generate(300, 6, seed=11)


def test_deterministic_for_a_seed() -> None:
    a = orjson.dumps(gen.generate(60, 4, seed=5))
    assert a == orjson.dumps(gen.generate(60, 4, seed=5))
    assert a != orjson.dumps(gen.generate(60, 4, seed=6))


def test_counts_scale_with_workloads() -> None:
    def tops(objs: list[dict[str, Any]]) -> int:
        return sum(
            1 for o in objs if not o["metadata"].get("ownerReferences") and o["kind"] not in ("Node", "Namespace")
        )

    small, big = gen.generate(50, 3, seed=2), gen.generate(500, 3, seed=2)
    assert tops(small) == 50 and tops(big) == 500
    pods = lambda objs: sum(1 for o in objs if o["kind"] == "Pod")  # noqa: E731
    assert 5 * pods(small) < pods(big) < 20 * pods(small)
    assert 5 * len(small) < len(big) < 20 * len(small)


def test_pods_per_workload_near_target() -> None:
    objs = gen.generate(1000, 10, seed=3)
    per = sum(1 for o in objs if o["kind"] == "Pod") / 1000
    assert 12 <= per <= 30, per


def test_every_framework_and_every_namespace(dump: list[dict[str, Any]]) -> None:
    kinds = {_gk(o) for o in dump if not o["metadata"].get("ownerReferences")}
    assert kinds >= WORKLOAD_KINDS
    namespaces = {o["metadata"]["namespace"] for o in dump if "namespace" in o["metadata"]}
    assert len(namespaces) == 6 and {o["metadata"]["name"] for o in dump if o["kind"] == "Namespace"} == namespaces


def test_uids_unique_and_owner_chains_end_at_a_workload(dump: list[dict[str, Any]]) -> None:
    by_uid = {o["metadata"]["uid"]: o for o in dump}
    assert len(by_uid) == len(dump)
    names = Counter((o["apiVersion"], o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in dump)
    assert max(names.values()) == 1
    for o in dump:
        if o["kind"] in ("Node", "Namespace"):
            continue
        top = _top(o, by_uid)
        assert _gk(top) in WORKLOAD_KINDS, (o["kind"], o["metadata"]["name"], top["kind"])


def test_pods_are_scheduled_or_unschedulable(dump: list[dict[str, Any]]) -> None:
    nodes = {o["metadata"]["name"] for o in dump if o["kind"] == "Node"}
    pending = 0
    for p in (o for o in dump if o["kind"] == "Pod"):
        scheduled = next(c for c in p["status"]["conditions"] if c["type"] == "PodScheduled")
        if scheduled["status"] == "True":
            assert p["spec"]["nodeName"] in nodes
        else:
            pending += 1
            assert "nodeName" not in p["spec"] and p["status"]["phase"] == "Pending"
            assert scheduled["reason"] == "Unschedulable"
            assert scheduled["message"].startswith(f"0/{len(nodes)} nodes are available")
    assert pending > 0
    assert any(
        "nvidia.com/gpu" in c["resources"]["limits"]
        for o in dump
        if o["kind"] == "Pod"
        for c in o["spec"]["containers"]
    )


def _pods_under(objs: list[dict[str, Any]], workload: dict[str, Any]) -> list[dict[str, Any]]:
    by_uid = {o["metadata"]["uid"]: o for o in objs}
    return [o for o in objs if o["kind"] == "Pod" and _top(o, by_uid) is workload]


def _build(framework: str, state: str, shape: dict[str, Any]) -> list[dict[str, Any]]:
    return gen.assemble(gen.Ctx(1), [gen.W(framework, "w", "ns", state, shape)])


def _workload(objs: list[dict[str, Any]]) -> dict[str, Any]:
    (w,) = [o for o in objs if o["metadata"].get("namespace") and not o["metadata"].get("ownerReferences")]
    return w


@pytest.mark.parametrize(
    ("framework", "shape", "expected"),
    [
        (
            "jobset",
            {
                "jobs": [
                    {"name": "driver", "replicas": 1, "parallelism": 1, "gpus": 0},
                    {"name": "workers", "replicas": 3, "parallelism": 4, "gpus": 8},
                ]
            },
            1 + 3 * 4,
        ),
        ("pytorchjob", {"workers": 7, "gpus": 8}, 8),
        ("mpijob", {"workers": 4, "gpus": 8}, 4 + 1),
        (
            "raycluster",
            {
                "groups": [
                    {"name": "a", "replicas": 2, "numOfHosts": 4, "gpus": 8},
                    {"name": "b", "replicas": 3, "numOfHosts": 1, "gpus": 0},
                ]
            },
            1 + 2 * 4 + 3,
        ),
        ("leaderworkerset", {"replicas": 3, "size": 4, "gpus": 8}, 12),
        (
            "volcano-job",
            {"tasks": [{"name": "ps", "replicas": 1, "gpus": 0}, {"name": "worker", "replicas": 5, "gpus": 1}]},
            6,
        ),
        (
            "grove-podcliqueset",
            {
                "replicas": 2,
                "frontend": 1,
                "groups": [
                    {"name": "prefill", "replicas": 2, "leader": 1, "workers": 3, "gpus": 1},
                    {"name": "decode", "replicas": 1, "leader": 1, "workers": 1, "gpus": 1},
                ],
            },
            2 * (1 + 2 * 4 + 1 * 2),
        ),
        (
            "dynamo",
            {
                "frontend": 1,
                "services": [
                    {"name": "VllmPrefillWorker", "sub": "prefill", "replicas": 1, "nodes": 2, "gpus": 8},
                    {"name": "VllmDecodeWorker", "sub": "decode", "replicas": 1, "nodes": 2, "gpus": 8},
                ],
            },
            5,
        ),
        ("nimservice", {"replicas": 2, "pipeline": 2, "gpus": 8}, 4),
        ("kserve-llminferenceservice", {"replicas": 2, "prefill": 1, "size": 1, "gpus": 1}, 2 + 1 + 1),
    ],
)
def test_pod_count_follows_spec_arithmetic(framework: str, shape: dict[str, Any], expected: int) -> None:
    objs = _build(framework, "running", shape)
    assert len(_pods_under(objs, _workload(objs))) == expected


def test_operator_labels_and_names() -> None:
    objs = _build("leaderworkerset", "running", {"replicas": 2, "size": 3, "gpus": 8})
    pods = sorted(o["metadata"]["name"] for o in objs if o["kind"] == "Pod")
    assert pods == ["w-0", "w-0-1", "w-0-2", "w-1", "w-1-1", "w-1-2"]
    worker_sts = next(o for o in objs if o["kind"] == "StatefulSet" and o["metadata"]["name"] == "w-1")
    assert worker_sts["metadata"]["ownerReferences"][0]["kind"] == "Pod"
    objs = _build("jobset", "running", {"jobs": [{"name": "workers", "replicas": 2, "parallelism": 2, "gpus": 8}]})
    p = next(o for o in objs if o["kind"] == "Pod")
    assert p["metadata"]["labels"]["jobset.sigs.k8s.io/jobset-name"] == "w"
    assert p["metadata"]["labels"]["batch.kubernetes.io/job-name"].startswith("w-workers-")
    assert p["metadata"]["ownerReferences"][0]["kind"] == "Job"
    objs = _build("raycluster", "running", {"groups": [{"name": "g", "replicas": 1, "numOfHosts": 2, "gpus": 8}]})
    workers = [o for o in objs if o["kind"] == "Pod" and o["metadata"]["labels"]["ray.io/node-type"] == "worker"]
    assert sorted(o["metadata"]["labels"]["ray.io/replica-host-index"] for o in workers) == ["0", "1"]


def test_example_is_fresh_and_covers_the_kinds() -> None:
    text = EXAMPLE.read_text()
    assert text.startswith("#") and "bench/gen_cluster.py --example" in text.split("apiVersion", 1)[0]
    assert text == gen.dump_yaml(gen.generate_example(), gen.EXAMPLE_HEADER), (
        "regenerate: python bench/gen_cluster.py --example -o " + str(EXAMPLE.relative_to(REPO))
    )
    items = yaml.safe_load(text)["items"]
    kinds = {_gk(o) for o in items}
    assert {
        ("jobset.x-k8s.io", "JobSet"),
        ("kubeflow.org", "PyTorchJob"),
        ("kubeflow.org", "MPIJob"),
        ("ray.io", "RayCluster"),
        ("ray.io", "RayJob"),
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
        ("serving.kserve.io", "InferenceService"),
        ("nvidia.com", "DynamoGraphDeployment"),
        ("serving.knative.dev", "Service"),
        ("apps.nvidia.com", "NIMService"),
        ("apps", "Deployment"),
        ("batch", "Job"),
    } <= kinds
    by_uid = {o["metadata"]["uid"]: o for o in items}
    rayjob = next(o for o in items if o["kind"] == "RayJob")
    assert any(
        o["kind"] == "RayCluster"
        and o["metadata"].get("ownerReferences", [{}])[0].get("uid") == rayjob["metadata"]["uid"]
        for o in items
    )
    lws = next(o for o in items if o["kind"] == "LeaderWorkerSet")
    assert lws["spec"]["replicas"] == 2 and lws["spec"]["leaderWorkerTemplate"]["size"] == 2
    assert len([o for o in items if o["kind"] == "Pod" and _top(o, by_uid) is lws]) == 4
    dgd = next(o for o in items if o["kind"] == "DynamoGraphDeployment")
    types = {
        o["metadata"]["labels"].get(
            "nvidia.com/dynamo-sub-component-type", o["metadata"]["labels"]["nvidia.com/dynamo-component-type"]
        )
        for o in items
        if o["kind"] == "Pod" and _top(o, by_uid) is dgd
    }
    assert types == {"frontend", "prefill", "decode"}
    phases = Counter(o["status"]["phase"] for o in items if o["kind"] == "Pod")
    assert phases["Failed"] and phases["Succeeded"] and phases["Pending"]
    assert any(
        c.get("reason") == "Unschedulable" for o in items if o["kind"] == "Pod" for c in o["status"]["conditions"]
    )
    assert any(o["spec"].get("suspend") is True for o in items if o["kind"] == "Job")
    assert len({o["metadata"]["namespace"] for o in items if o["kind"] == "Pod"}) >= 2


# sha256 of dump_json(generate(40, 4, 7, pods_per_workload_target=8)); the same before and after the generator
# was split into bench/gen/. A deliberate change to the output updates it (bench dumps are keyed by the
# sources' fingerprint, bench_common.generator_fingerprint, and regenerate by themselves).
PINNED_DIGEST = "557883ad2f78f679c7bcf40901bf6921fc4ffecca0359ede8ab1afe1356508d1"


def test_output_is_pinned() -> None:
    data = gen.dump_json(gen.generate(40, 4, 7, pods_per_workload_target=8))
    assert hashlib.sha256(data).hexdigest() == PINNED_DIGEST, "the generator's output changed for the same seed"


def test_one_module_per_framework_in_a_fixed_order() -> None:
    """Each framework's builder lives in its own module of bench/gen/frameworks (a module may hold the kinds of
    one project, e.g. KubeRay's three); generate() goes through them in the written-out ORDER."""

    assert list(gen.FRAMEWORKS) == list(frameworks.ORDER)
    assert len(gen.FRAMEWORKS) == len(WORKLOAD_KINDS)
    package = REPO / "bench" / "gen" / "frameworks"
    modules = {p.stem for p in package.glob("*.py")} - {"__init__"}
    homes = {name: f.build.__module__ for name, f in gen.FRAMEWORKS.items()}
    assert all(home.startswith("gen.frameworks.") for home in homes.values()), homes
    assert {home.rsplit(".", 1)[1] for home in homes.values()} == modules  # no module without a framework
    for path in (REPO / "bench" / "gen").rglob("*.py"):
        assert len(path.read_text().splitlines()) < 800, f"{path}: split it"
