"""Drafts from the upstream CRDs and samples in ../shared/corpus, read in place: each loads, validates
and resolves every sample; the structural facts of the well-typed ones are the operators' own."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.corpus import CORPUS, corpus_files, corpus_objects

from workload_map.authoring import Draft, Sample, draft
from workload_map.catalog import builtin_definitions
from workload_map.checks.samples import run_samples
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.definition.validate import validate
from workload_map.errors import Location, Severity
from workload_map.sources.documents import Document

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not checked out")
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the CRDs are megabytes of YAML


@functools.cache
def _documents(relative: str) -> list[Any]:
    return list(yaml.load_all((CORPUS / relative).read_text(), Loader=LOADER))


def _crds() -> list[tuple[str, int]]:
    out = []
    for path in sorted(CORPUS.glob("*/crd/*.y*ml")):
        for index, doc in enumerate(_documents(str(path.relative_to(CORPUS)))):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                out.append((str(path.relative_to(CORPUS)), index))
    return out


def _draft(relative: str, index: int = 0) -> tuple[Draft, list[Sample]]:
    doc = _documents(relative)[index]
    framework = relative.split("/", maxsplit=1)[0]
    samples = [Sample(o.obj, o.label) for f in corpus_files(framework) for o in corpus_objects(f)]
    return draft(doc, samples, catalog=builtin_definitions(), sources=[relative]), samples


def _loaded(result: Draft) -> LoadedDefinition:
    karta, findings = definition_from_dict(yaml.safe_load(result.text), Location("draft"))
    assert karta is not None, [str(f) for f in findings]
    assert [str(f) for f in validate(karta) if f.severity is Severity.ERROR] == []
    return LoadedDefinition(karta, Location("draft"))


@pytest.mark.parametrize(("relative", "index"), _crds(), ids=str)
def test_every_corpus_crd_drafts_a_valid_definition_that_resolves_its_samples(relative: str, index: int) -> None:
    result, samples = _draft(relative, index)
    definition = _loaded(result)
    todos = [f for f in validate(definition.karta) if "left to do" in f.message]
    assert len(todos) == len(result.todos)  # every TODO written is one validate reports
    docs = [Document(s.obj, Location(s.location)) for s in samples]
    for sample in run_samples(definition, docs):
        assert sample.problems == [], (sample.location, sample.problems)


def _child(result: Draft, name: str) -> dict[str, Any]:
    children = result.karta["spec"]["structureDefinition"]["childComponents"]
    return dict(next(c for c in children if c["name"] == name))


def test_pytorchjob_roles_are_the_replica_spec_map() -> None:
    result, _ = _draft("pytorchjob/crd/kubeflow.org_pytorchjobs.yaml")
    role = _child(result, "pytorchReplica")
    assert role["specDefinition"] == {"podTemplateSpecPath": ".spec.pytorchReplicaSpecs[]?.template"}
    assert role["scaleDefinition"]["replicasPath"] == ".spec.pytorchReplicaSpecs[]? | (.replicas // 1)"
    root = result.karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["suspendDefinition"]["suspendActions"] == [{"path": ".spec.runPolicy.suspend", "value": "true"}]


def test_jobset_reuses_the_catalog_job_count_for_its_job_templates() -> None:
    result, _ = _draft("jobset/crd/jobset.x-k8s.io_jobsets.yaml")
    job = _child(result, "replicatedJob")
    assert job["kind"] == {"group": "batch", "version": "v1", "kind": "Job"}
    assert job["specDefinition"] == {"podTemplateSpecPath": ".spec.replicatedJobs[]?.template.spec.template"}
    assert "batch-job-v1 replicasPath" in result.text
    replicas = job["scaleDefinition"]["replicasPath"]
    assert replicas.startswith(".spec.replicatedJobs[]? | (.replicas // 1) * (.template |")


def test_raycluster_worker_groups_count_hosts() -> None:
    result, _ = _draft("raycluster/crd/ray.io_rayclusters.yaml")
    worker = _child(result, "workerGroup")
    assert worker["instanceIdPath"] == ".spec.workerGroupSpecs[]? | .groupName"
    replicas = worker["scaleDefinition"]["replicasPath"]
    assert replicas == ".spec.workerGroupSpecs[]? | (.replicas // 0) * (.numOfHosts // 1)"


def test_schema_less_argo_workflow_finds_containers_in_the_samples() -> None:
    result, _ = _draft("argo-workflow/crd/argoproj.io_workflows-minimal.yaml")
    template = _child(result, "template")
    fragments = {"containerPath": ".spec.templates[]?.container"}
    assert template["specDefinition"] == {"fragmentedPodSpecDefinition": fragments}
    assert "x-kubernetes-preserve-unknown-fields" in result.text


def test_notebook_pod_spec_is_on_the_root() -> None:
    result, _ = _draft("notebook/crd/kubeflow.org_notebooks.yaml")
    root = result.karta["spec"]["structureDefinition"]["rootComponent"]
    assert root["specDefinition"] == {"podSpecPath": ".spec.template.spec"}


def test_corpus_root_is_where_the_tests_say() -> None:
    assert Path(CORPUS / "README.md").is_file()
