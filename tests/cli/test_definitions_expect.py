"""`wmap definitions test DEF --samples ... --expect FILE`: expectations kept beside unmodified samples and
recordings (upstream corpus samples and lab recordings read in place), naming components or instances."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from tests.corpus import CORPUS, REPO_ROOT

from workload_map.cli.main import cli

JOBSET_EXAMPLES = CORPUS / "jobset" / "examples"
RECORDING = REPO_ROOT / "tests" / "lab" / "recordings" / "jobset" / "restart-then-failed.yaml"
needs_corpus = pytest.mark.skipif(not JOBSET_EXAMPLES.is_dir(), reason="the shared corpus is not checked out")


def expectations(tmp_path: Path, *items: dict[str, Any]) -> Path:
    path = tmp_path / "expect.yaml"
    document = {"apiVersion": "workload-map.run.ai/v1alpha1", "kind": "Expectations", "expectations": list(items)}
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def definitions_test(*args: str) -> Result:
    result = CliRunner().invoke(cli, ["definitions", "test", *args])
    assert "internal error" not in result.output, result.output
    return result


@needs_corpus
def test_expectations_beside_unmodified_upstream_samples(tmp_path: Path) -> None:
    before = {p.name: p.read_bytes() for p in JOBSET_EXAMPLES.iterdir()}
    expect = expectations(
        tmp_path,
        # as get shows it: COMPONENTS "workers(4) driver(1)" (instances of the replicatedJob component)
        # spec only: Initializing (was Undefined before docs/semantics.md "JobSet" read a JobSet before its status)
        {"workload": "jobset/paralleljobs", "expect": {"primary": "Initializing", "pods": {"workers": 4, "driver": 1}}},
        {"workload": "jobsets.jobset.x-k8s.io/group-example", "namespace": "default", "expect": {"desiredPods": 4}},
        {"workload": "jobset/pytorch", "expect": {"pods": {"replicatedJob": 4, "replicatedJob/workers": 4}}},
    )
    result = definitions_test("jobset", "--samples", str(JOBSET_EXAMPLES), "--expect", str(expect))
    assert result.exit_code == 0, result.output
    assert "expect pods.workers: 4 -> 4 ok" in result.output
    assert "expect pods.driver: 1 -> 1 ok" in result.output
    assert "expect pods.replicatedJob/workers: 4 -> 4 ok" in result.output
    assert "6 sample(s), 3 with expectations, 0 failed" in result.output
    assert {p.name: p.read_bytes() for p in JOBSET_EXAMPLES.iterdir()} == before  # read in place, untouched

    wrong = expectations(tmp_path, {"workload": "jobset/paralleljobs", "expect": {"pods": {"workers": 3}}})
    failed = definitions_test("jobset", "--samples", str(JOBSET_EXAMPLES / "paralleljobs.yaml"), "--expect", str(wrong))
    assert failed.exit_code == 1
    assert "FAIL  jobset.jobset.x-k8s.io/paralleljobs in default" in failed.output
    assert "expect pods.workers: 3 -> 4 MISMATCH" in failed.output


@needs_corpus
def test_an_expectation_that_names_no_sample_fails(tmp_path: Path) -> None:
    expect = expectations(
        tmp_path,
        {"workload": "jobset/paralleljob", "expect": {"primary": "Running"}},  # misspelt name
        {"workload": "jobset/paralleljobs", "namespace": "ml", "expect": {"primary": "Undefined"}},  # other ns
        {"workload": "deployment/paralleljobs", "expect": {"primary": "Undefined"}},  # another kind
    )
    result = definitions_test(
        "jobset", "--samples", str(JOBSET_EXAMPLES / "paralleljobs.yaml"), "--expect", str(expect), "-o", "json"
    )
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    failures = {s["workload"]: s["problems"] for s in report["samples"] if s["verdict"] == "FAIL"}
    assert failures == {
        "jobset/paralleljob": ["no sample of JobSet.jobset.x-k8s.io is named jobset/paralleljob"],
        "jobset/paralleljobs in ml": ["no sample of JobSet.jobset.x-k8s.io is named jobset/paralleljobs in ml"],
        "deployment/paralleljobs": [
            "'deployment' does not name JobSet.jobset.x-k8s.io, the kind definition "
            "jobset-x-k8s-io-jobset-v1alpha2 reads"
        ],
    }


def test_checkpoints_beside_a_lab_recording_name_instances(tmp_path: Path) -> None:
    before = RECORDING.read_bytes()
    expect = expectations(
        tmp_path,
        {
            "workload": "jobset/train",
            "namespace": "lab-jobset-failure",
            "after": 19,
            "name": "both workers ready",
            "expect": {"primary": "Running", "pods": {"workers": 2}, "podsReady": {"workers": 2}, "gpusCurrent": 4},
        },
        {"workload": "jobset/train", "after": 0, "expect": {"podsCurrent": {"workers": 1}}},  # wrong on purpose
    )
    result = definitions_test("jobset", "--samples", str(RECORDING), "--expect", str(expect))
    assert result.exit_code == 1, result.output
    assert "PASS  jobset.jobset.x-k8s.io/train in lab-jobset-failure" in result.output
    assert "checkpoint 'both workers ready', after 19 event(s)" in result.output
    assert "expect podsReady.workers: 2 -> 2 ok" in result.output
    assert "checkpoint 'after 0', after 0 event(s)" in result.output
    # the recording's own checkpoints still run beside the file's
    assert "checkpoint 'every job ready'" in result.output
    assert RECORDING.read_bytes() == before

    late = expectations(tmp_path, {"workload": "jobset/train", "after": 10_000, "expect": {"primary": "Failed"}})
    out_of_range = definitions_test("jobset", "--samples", str(RECORDING), "--expect", str(late))
    assert out_of_range.exit_code == 1
    assert "after 10000 is out of range: the recording in" in out_of_range.output


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"kind": "Expectations", "apiVersion": "workload-map.run.ai/v1alpha1", "expectations": {}}, "must be a list"),
        (
            {"kind": "Expectations", "apiVersion": "workload-map.run.ai/v1alpha1", "expectations": [{"workload": "x"}]},
            "workload must be TYPE/NAME",
        ),
        (
            {
                "kind": "Expectations",
                "apiVersion": "workload-map.run.ai/v1alpha1",
                "expectations": [{"workload": "job/a", "expect": {"primery": "Running"}}],
            },
            "unknown key(s) ['primery']",
        ),
        ({"kind": "Job", "apiVersion": "batch/v1"}, "not an Expectations document"),
    ],
)
def test_a_malformed_expectations_file_is_a_located_error(tmp_path: Path, document: Any, message: str) -> None:
    samples = tmp_path / "job.yaml"
    samples.write_text(yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a"}}))
    path = tmp_path / "expect.yaml"
    path.write_text(yaml.safe_dump(document))
    result = definitions_test("job", "--samples", str(samples), "--expect", str(path))
    assert result.exit_code == 1, result.output
    assert str(path) in result.output and message in result.output
