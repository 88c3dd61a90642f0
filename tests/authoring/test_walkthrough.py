"""docs/authoring.md's walkthrough as a test: the corpus Dask CRD (a kind outside the catalog), a captured
DaskCluster with its owners and pods; the draft's tree matches the samples with no structural edit, and
once its one status TODO is filled the expectation annotation passes."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from tests.corpus import CORPUS

import workload_map as wm
from workload_map.checks.samples import run_samples
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.errors import Location
from workload_map.sources.documents import Document

DASK = CORPUS / "dask-cluster"
pytestmark = pytest.mark.skipif(not DASK.is_dir(), reason="../shared/corpus is not checked out")


def _ref(owner: dict[str, Any]) -> list[dict[str, Any]]:
    meta = owner["metadata"]
    return [
        {
            "apiVersion": owner["apiVersion"],
            "kind": owner["kind"],
            "name": meta["name"],
            "uid": meta["uid"],
            "controller": True,
        }
    ]


def _obj(api: str, kind: str, name: str, owner: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": name, "namespace": "team-a", "uid": f"u-{name}", "ownerReferences": _ref(owner)},
    }


def _captured() -> list[dict[str, Any]]:
    """What `kubectl get daskcluster,daskworkergroup,deploy,rs,pods -o yaml` shows (FACTS.md's ownership)."""
    root = yaml.safe_load((DASK / "examples" / "simplecluster.yaml").read_text())
    root["metadata"].update(namespace="team-a", uid="u-root")
    expect = {"primary": "Running", "pods": {"scheduler": 1, "worker": 2}}
    root["metadata"]["annotations"]["workload-map.run.ai/expect"] = json.dumps(expect)
    root["status"] = {"phase": "Running"}
    group = _obj("kubernetes.dask.org/v1", "DaskWorkerGroup", "simple-default", root)
    objects = [root, group]

    def chain(owner: dict[str, Any], name: str, labels: dict[str, str], template: dict[str, Any]) -> None:
        deployment = _obj("apps/v1", "Deployment", name, owner)
        replicaset = _obj("apps/v1", "ReplicaSet", f"{name}-5d8f", deployment)
        pod = _obj("v1", "Pod", f"{name}-5d8f-a", replicaset)
        pod["metadata"]["labels"] = {**labels, "pod-template-hash": "5d8f"}
        pod["spec"] = template["spec"]
        objects.extend([deployment, replicaset, pod])

    labels = {"dask.org/cluster-name": "simple"}
    chain(root, "simple-scheduler", {**labels, "dask.org/component": "scheduler"}, root["spec"]["scheduler"])
    for i in range(2):
        worker = {**labels, "dask.org/component": "worker", "dask.org/workergroup-name": "simple-default"}
        chain(group, f"simple-default-worker-{i}", worker, root["spec"]["worker"])
    return objects


def test_from_an_unknown_crd_to_a_passing_sample(tmp_path: Any) -> None:
    captured = tmp_path / "captured.yaml"
    objects = _captured()
    captured.write_text(yaml.safe_dump_all(objects))
    made = wm.draft_definition(str(DASK / "crd" / "daskcluster.yaml"), [str(captured)])
    assert (made.samples, made.pods) == (1, 3)
    # the one thing left is a status nothing in the samples shows
    assert [t.split(":")[0] for t in made.todos] == [
        "spec.structureDefinition.rootComponent.statusDefinition.statusMappings.failed"
    ]
    docs = [Document(o, Location(str(captured), i)) for i, o in enumerate(objects)]
    karta, findings = definition_from_dict(yaml.safe_load(made.text), Location("dask.yaml"))
    assert karta is not None, findings
    (unedited,) = run_samples(LoadedDefinition(karta, Location("dask.yaml")), docs)
    assert unedited.pods == {"scheduler": (1, 1), "worker": (2, 2)}
    assert unedited.tree is not None and unedited.tree["unattributed"] == []
    # the reviewer fills the TODO from the operator's phases (FACTS.md: Error on an invalid name)
    data = yaml.safe_load(made.text)
    data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]["failed"] = [
        {"byPhase": "Error"}
    ]
    karta, findings = definition_from_dict(data, Location("dask.yaml"))
    assert karta is not None, findings
    (finished,) = run_samples(LoadedDefinition(karta, Location("dask.yaml")), docs)
    assert finished.verdict == "PASS", finished.checks
