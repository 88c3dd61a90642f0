"""`wmap definitions new`: a commented draft on stdout, its TODOs on stderr and reported by `wmap validate`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from tests.authoring import fixtures

from workload_map.cli.main import cli


def _files(tmp_path: Path, pods: bool) -> tuple[str, str]:
    crd = tmp_path / "crd.yaml"
    crd.write_text(yaml.safe_dump(fixtures.TRAINRUN))
    run = fixtures.trainrun(expect={"primary": "Running", "pods": {"role": 4}})
    sample = tmp_path / "samples.yaml"
    sample.write_text(yaml.safe_dump_all([run, *(fixtures.trainrun_pods(run) if pods else [])]))
    return str(crd), str(sample)


def test_the_draft_passes_its_samples_without_edits(tmp_path: Path) -> None:
    crd, sample = _files(tmp_path, pods=True)
    runner = CliRunner()
    out = tmp_path / "draft.yaml"
    result = runner.invoke(cli, ["definitions", "new", "--crd", crd, "--sample", sample, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "Drafted example-com-trainrun-v1 to" in result.stderr and "0 TODO(s)" in result.stderr
    assert out.read_text().startswith("# Draft definition for TrainRun.example.com v1")
    tested = runner.invoke(cli, ["definitions", "test", str(out), "--samples", sample])
    assert tested.exit_code == 0, tested.output
    assert tested.stdout.startswith("PASS ")


def test_todos_go_to_stderr_and_validate_reports_them_located(tmp_path: Path) -> None:
    crd, sample = _files(tmp_path, pods=False)
    runner = CliRunner()
    result = runner.invoke(cli, ["definitions", "new", "--crd", crd, "--sample", sample])
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(result.stdout)["kind"] == "Karta"
    assert "1 TODO(s)" in result.stderr
    field = "spec.structureDefinition.childComponents[0].podSelector.componentInstanceSelector.idPath"
    assert f"TODO {field}" in result.stderr
    draft = tmp_path / "draft.yaml"
    draft.write_text(result.stdout)
    validated = runner.invoke(cli, ["validate", str(draft)])
    assert validated.exit_code == 0, validated.output  # a TODO is a warning: the draft loads and reads
    assert (
        "document 0, spec.structureDefinition.childComponents[0].podSelector.componentInstanceSelector.idPath: "
        "warning: left to do (drafted by wmap definitions new): the pod label that names this pod's instance"
    ) in validated.output


def test_bad_input_is_one_located_error(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["definitions", "new"]).exit_code == 2
    not_crd = tmp_path / "x.yaml"
    not_crd.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    result = runner.invoke(cli, ["definitions", "new", "--crd", str(not_crd)])
    assert result.exit_code == 1
    assert "no CustomResourceDefinition found" in result.stderr and str(not_crd) in result.stderr
    assert "Traceback" not in result.output


def test_samples_alone_say_the_kind(tmp_path: Path) -> None:
    _crd, sample = _files(tmp_path, pods=True)
    result = CliRunner().invoke(cli, ["definitions", "new", "--sample", sample])
    assert result.exit_code == 0, result.output
    draft = yaml.safe_load(result.stdout)
    root = draft["spec"]["structureDefinition"]["rootComponent"]
    assert root["kind"] == {"group": "example.com", "version": "v1", "kind": "TrainRun"}
    (role,) = draft["spec"]["structureDefinition"]["childComponents"]
    assert role["specDefinition"] == {"podTemplateSpecPath": ".spec.roleSpecs[]?.template"}
    assert role["podSelector"]["componentInstanceSelector"] == {"idPath": '.metadata.labels["example.com/role"]'}


def test_a_file_of_several_crds_is_chosen_by_the_samples_or_refused(tmp_path: Path) -> None:
    crds = tmp_path / "crds.yaml"
    crds.write_text(yaml.safe_dump_all([fixtures.TRAINRUN, fixtures.CLUSTER]))
    _crd, sample = _files(tmp_path, pods=False)
    runner = CliRunner()
    chosen = runner.invoke(cli, ["definitions", "new", "--crd", str(crds), "--sample", sample])
    assert chosen.exit_code == 0, chosen.output
    assert "Drafted example-com-trainrun-v1" in chosen.stderr
    refused = runner.invoke(cli, ["definitions", "new", "--crd", str(crds)])
    assert refused.exit_code == 1
    assert "the file holds 2 CRDs (Fleet, TrainRun)" in refused.stderr and str(crds) in refused.stderr


def test_a_kind_the_catalog_covers_is_drafted_with_a_warning(tmp_path: Path) -> None:
    crd = (
        Path(__file__).resolve().parents[2].parent
        / "shared"
        / "corpus"
        / "jobset"
        / "crd"
        / "jobset.x-k8s.io_jobsets.yaml"
    )
    if not crd.is_file():
        pytest.skip("../shared/corpus is not checked out")
    result = CliRunner().invoke(cli, ["definitions", "new", "--crd", str(crd)])
    assert result.exit_code == 0, result.output
    assert "Warning: the built-in catalog already covers this kind (jobset-x-k8s-io-jobset-v1alpha2)" in result.stderr
