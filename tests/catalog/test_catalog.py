"""The built-in catalog against the upstream corpus and the hand-written expectations.

Every definition loads and validates; every corpus object of every framework resolves without
warnings to the desired pods, roles, GPUs and status written in tests/catalog/expectations; pods
built as each operator labels them land on the right component, instance and replica.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any

import pytest
from expectations import Case, PodCase, cases, covered_labels, definitions_of, expectation_files, pod_cases

from corpus import CORPUS, corpus_files, corpus_objects
from workload_map.base.snapshot import Snapshot
from workload_map.catalog import builtin_definitions
from workload_map.checks.expressions import check_against
from workload_map.definition.model import slug
from workload_map.definition.registry import DefinitionRegistry
from workload_map.definition.validate import validate
from workload_map.errors import Location, Severity
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.sources.documents import Document
from workload_map.tree.build import tree_of

CATALOG = builtin_definitions()
REGISTRY = DefinitionRegistry(CATALOG)
BY_NAME = {d.name: d for d in CATALOG}

# Folders of the shared corpus and the expectation file that covers each.
FRAMEWORK_FOLDERS = sorted(p.name for p in CORPUS.iterdir() if (p / "FACTS.md").exists())
# Frameworks the corpus holds for authoring definitions, outside the catalog until a definition for them
# lands (with its expectation file, which removes the folder from this set).
AUTHORING_ONLY: set[str] = set()
CATALOG_FOLDERS = [f for f in FRAMEWORK_FOLDERS if f not in AUTHORING_ONLY]


def _namespaced(obj: dict[str, Any]) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    obj.setdefault("metadata", {}).setdefault("namespace", "default")
    return obj


def _tree(case_obj: dict[str, Any], extra: list[dict[str, Any]] = ()):  # type: ignore[assignment]
    view = WorkloadIndex(Snapshot([_namespaced(case_obj), *[_namespaced(o) for o in extra]]), REGISTRY)
    workload = view.snapshot.objects[0]
    return view, tree_of(view, workload)


def test_every_catalog_file_is_named_by_the_slug_rule() -> None:
    for definition in CATALOG:
        identity = definition.karta.identity
        assert identity is not None
        assert definition.name == slug(identity), definition.location
        assert str(definition.location).startswith(f"builtin:{definition.name}.yaml")


def test_every_framework_folder_has_expectations_covering_every_object() -> None:
    covered = covered_labels()
    stems = {p.stem for p in expectation_files()}
    missing_files = [f for f in CATALOG_FOLDERS if f not in stems]
    assert not missing_files, f"no expectations for corpus folders: {missing_files}"
    stale = sorted(AUTHORING_ONLY & stems)
    assert not stale, f"authoring-only folders that now have expectations (remove them from AUTHORING_ONLY): {stale}"
    missing = [
        o.label
        for f in CATALOG_FOLDERS
        for rel in corpus_files(f)
        for o in corpus_objects(rel)
        if o.label not in covered
    ]
    assert not missing, f"corpus objects without expectations: {missing}"


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.id)
def test_corpus_object_resolves_as_expected(case: Case) -> None:
    expect = case.expect
    if REGISTRY.for_object(case.obj)[0] is None:
        # Documents that are not workloads (a Service beside an LWS): nothing may claim them.
        assert (expect.get("desiredPods"), expect.get("components")) == (0, {}), f"no definition covers {case.label}"
        return
    _view, tree = _tree(case.obj)
    assert tree.warnings == [], tree.warnings
    result = tree.to_json()
    if "desiredPods" in expect:
        assert result["totals"]["pods"]["desired"] == expect["desiredPods"]
    if "components" in expect:
        per_component = {
            c["name"]: sum(i["desiredPods"] for i in c["instances"]) for c in result["components"] if c["producesPods"]
        }
        assert per_component == expect["components"]
    for component, instances in (expect.get("instances") or {}).items():
        [found] = [c for c in result["components"] if c["name"] == component]
        assert {i["id"]: i["desiredPods"] for i in found["instances"]} == instances
    if "gpus" in expect:
        assert result["totals"]["gpus"] == expect["gpus"]
    if "status" in expect:
        assert result["status"]["primary"] == expect["status"], (expect.get("why"), result["status"]["matched"])


@pytest.mark.parametrize("case", pod_cases(), ids=lambda c: c.id)
def test_operator_pods_land_on_the_right_component(case: PodCase) -> None:
    view, tree = _tree(case.workload, [*case.children, case.pod])
    pod_name = case.pod["metadata"]["name"]
    placed = [p for p in tree.all_pods if p.name == pod_name]
    assert placed, f"pod {pod_name} did not reach the workload (warnings: {view.warnings})"
    [pod] = placed
    assert pod.unattributed_reason is None or case.expect["component"] is None, pod.unattributed_reason
    assert pod.component == case.expect["component"]
    assert pod.instance == case.expect.get("instance")
    assert pod.replica == case.expect.get("replica")


# Pod fields whose source is not shaped like the pod field (a conversion, not a location): read-only by
# design, and the validator says so. Everything else of every catalog definition is writable.
READ_ONLY_BY_DESIGN = {
    # Spark's memory/cores/memoryOverhead/gpu become ResourceRequirements by the operator's arithmetic.
    ("sparkoperator-k8s-io-sparkapplication-v1beta2", "driver", "resourcesPath"),
    ("sparkoperator-k8s-io-sparkapplication-v1beta2", "executor", "resourcesPath"),
    # Dynamo v1alpha1's {cpu, memory, gpu, gpuType} resources become ResourceRequirements.
    ("nvidia-com-dynamographdeployment-v1alpha1", "service", "resourcesPath"),
    # Tekton builds the pod's containers from steps and sidecars: prefixed names, computeResources as resources.
    ("tekton-dev-taskrun-v1", "taskrun", "containersPath"),
    ("tekton-dev-taskrun-v1beta1", "taskrun", "containersPath"),
    ("tekton-dev-pipelinerun-v1", "task", "containersPath"),
    ("tekton-dev-pipelinerun-v1beta1", "task", "containersPath"),
}
# Definitions whose operator writes no status at all: mapping nothing is the truthful answer, and the
# validator's "every workload will be Undefined" warning is expected for them and for no other.
UNDEFINED_BY_DESIGN = {
    # The Dask operator never populates a DaskWorkerGroup's status (a free object).
    "kubernetes-dask-org-daskworkergroup-v1",
}


@pytest.mark.parametrize("definition", CATALOG, ids=lambda d: d.name)
def test_catalog_definition_is_valid(definition: Any) -> None:
    findings = validate(definition.karta, definition.location)
    read_only = {
        (definition.name, c.name, str(f.location.path).rsplit(".", 1)[-1])
        for f in findings
        if f.severity is Severity.WARNING and "read-only" in f.message
        for c in definition.karta.components
        if f"component {c.name!r} is read-only" in f.message
    }
    expected = {key for key in READ_ONLY_BY_DESIGN if key[0] == definition.name}
    assert read_only == expected
    undefined = [
        f for f in findings if f.severity is Severity.WARNING and "every workload will be Undefined" in f.message
    ]
    assert bool(undefined) == (definition.name in UNDEFINED_BY_DESIGN)
    others = [
        str(f)
        for f in findings
        if f not in undefined and not (f.severity is Severity.WARNING and "read-only" in f.message)
    ]
    assert others == []


def _documents_for(stem: str) -> list[Document]:
    docs: list[Document] = []
    for case in cases():
        if case.file == stem:
            docs.append(Document(case.obj, Location(case.label)))
    for case in pod_cases():
        if case.file == stem:
            docs.append(Document(case.pod, Location(case.id)))
    return docs


@pytest.mark.parametrize("stem", [p.stem for p in expectation_files()])
def test_validate_against_every_object_of_the_framework(stem: str) -> None:
    docs = _documents_for(stem)
    problems: dict[str, list[str]] = defaultdict(list)
    for name in definitions_of(stem):
        assert name in BY_NAME, f"{stem}: unknown definition {name}"
        for finding in check_against(BY_NAME[name], docs):
            if finding.severity is Severity.ERROR:
                problems[name].append(str(finding))
    assert dict(problems) == {}


def test_unknown_version_resolves_through_group_and_kind_with_a_warning() -> None:
    obj = copy.deepcopy(corpus_objects("jobset/examples/paralleljobs.yaml")[0].obj)
    obj["apiVersion"] = "jobset.x-k8s.io/v1"
    _, tree = _tree(obj)
    assert tree.counts.desired == 5
    assert any("served at v1" in w and "v1alpha2" in w for w in tree.warnings), tree.warnings


def test_job_means_batch_job_like_kubectl_and_the_volcano_one_by_group() -> None:
    assert REGISTRY.resolve_type("job").group == "batch"
    assert REGISTRY.resolve_type("jobs").group == "batch"
    assert REGISTRY.resolve_type("jobs.batch.volcano.sh").group == "batch.volcano.sh"
    assert REGISTRY.resolve_type("vcjob").group == "batch.volcano.sh"
