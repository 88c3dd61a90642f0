"""bench/authoring_live.py's capture end to end, on an operator the lab has built already (KubeRay: no new Go
build in CI), in a lab of its own as the command runs it: the CRD applied, the operator started from a
run-config, a published sample created, its pods made Ready, and the recording of what the operator did."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from processes import children_of, ended
from workload_map.sources.recording import load_recording

from .conftest import lab_bin
from .operators import kuberay
from .operators._kubebuilder import module_dir

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

# The capture's own import of the lab (tests.lab.lab, not this package's relative name under pytest): its
# LabError and the Lab it is given are one module's.
from tests.lab.lab import Lab  # noqa: E402

from live_build import Built  # noqa: E402
from live_capture import capture  # noqa: E402
from live_config import Kind, RunConfig, captures_of  # noqa: E402

COMMIT = "0" * 40  # the module cache's release stands for the snapshot
WIDGETS = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            }
        ],
    },
}


def test_a_capture_records_what_the_operator_did_with_a_sample(tmp_path: Path, testcluster_bin: Path) -> None:
    binary = lab_bin([kuberay.NAME]) / kuberay.NAME
    source = module_dir(kuberay.MODULE, kuberay.VERSION)
    config = RunConfig(
        path=tmp_path / "ray-project+kuberay.yaml",
        repo="ray-project/kuberay",
        commit=COMMIT,
        package=".",
        kind=Kind("RayCluster", "ray.io"),
        crds=["config/crd/bases/ray.io_rayclusters.yaml"],
        samples=["config/samples/ray-cluster.sample.yaml"],
        args=["--enable-leader-election=false", "--health-probe-bind-address=0", "--metrics-addr=0"],
        before=[WIDGETS],  # served before the operator starts, as a kind of another project would be
    )
    said: list[str] = []
    before = set(children_of(os.getpid()))
    outcomes = capture(
        config,
        Built(binary, source, 0.0, cached=True),
        lab_factory=lambda work: Lab(testcluster_bin, lab_bin, work),
        out_root=tmp_path / "captures",
        quiet_s=5.0,
        max_s=90.0,
        say=said.append,
    )
    left = [pid for pid in set(children_of(os.getpid())) - before if not ended(pid)]
    assert left == [], f"processes of the capture's lab still alive: {left}"
    assert [o.refused for o in outcomes] == [None], said
    (outcome,) = outcomes
    # The sample's head group and one worker: two pods, both made Ready, and the cluster says so.
    assert outcome.kinds == {"RayCluster": 1, "Pod": 2} and (outcome.pods, outcome.ready) == (2, 2), said
    assert "state=ready" in outcome.status
    (path,) = captures_of(tmp_path / "captures", config.repo, COMMIT)
    assert path == outcome.recording and path.name == "ray-cluster.sample-raycluster-kuberay.yaml"
    assert (path.parent / "operator.log").stat().st_size > 0
    recording = load_recording(str(path))
    assert (recording.workload.kind, recording.workload.name) == ("RayCluster", "raycluster-kuberay")
    assert recording.recorded.operator is not None and recording.recorded.operator.name == "ray-project/kuberay"
    states = [e.object.get("status", {}).get("state") for e in recording.events if e.object["kind"] == "RayCluster"]
    assert states[0] is None and states[-1] == "ready"  # created by the capture, made ready by the operator
    pods = {e.object["metadata"]["name"] for e in recording.events if e.object["kind"] == "Pod"}
    owners = {ref["kind"] for e in recording.events for ref in e.object["metadata"].get("ownerReferences", [])}
    assert len(pods) == 2 and owners == {"RayCluster"}
