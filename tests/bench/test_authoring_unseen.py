"""bench/score_authoring.py --unseen scores each field right, wrong or missing, from a git snapshot of upstream."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.authoring import fixtures

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import authoring_unseen  # noqa: E402
import score_authoring  # noqa: E402

CRD = fixtures.crd(
    "example.com",
    "Worker",
    {"replicas": {"type": "integer"}, "suspend": {"type": "boolean"}, "template": fixtures.TEMPLATE},
    {"phase": {"type": "string", "enum": ["Pending", "Running", "Succeeded", "Wobbly"]}},
)
SAMPLE = {
    "apiVersion": "example.com/v1",
    "kind": "Worker",
    "metadata": {"name": "w"},
    "spec": {"replicas": 3, "template": {"spec": {"containers": [fixtures.container("main")]}}},
}


def _snapshot(root: Path) -> str:
    repo = root / "example+worker" / "repo"
    repo.mkdir(parents=True)
    (repo / "crd.yaml").write_text(yaml.safe_dump(CRD))
    (repo / "samples").mkdir()
    (repo / "samples" / "w.yaml").write_text(yaml.safe_dump(SAMPLE))
    (repo / "samples" / "chart.yaml").write_text("spec: {{ .Values.spec }}\n  bad: [\n")  # a template, not YAML
    env = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    subprocess.run(["git", "-C", str(repo), *env, "commit", "-qm", "x"], check=True)
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_each_field_is_right_wrong_or_missing(tmp_path: Path) -> None:
    commit = _snapshot(tmp_path / "mirror")
    expectations = tmp_path / "worker.yaml"
    expectations.write_text(
        yaml.safe_dump(
            {
                "name": "Worker",
                "repo": "example/worker",
                "commit": commit,
                "crd": "crd.yaml",
                "samples": ["samples/*.yaml"],
                "components": [{"owner": ["Pod"], "template": ".spec.template", "replicas": ".spec.replicas // 1"}],
                "phasePath": ".status.phase",
                "statuses": [
                    {"phase": "Running", "status": ["running"]},  # the draft's word: right
                    {"phase": "Succeeded", "status": ["failed"]},  # the draft says completed: wrong
                    {"phase": "Wobbly", "status": ["degraded"]},  # no word for it, left to place: missing
                ],
                "suspend": None,  # the draft suspends with .spec.suspend: wrong
            }
        )
    )
    mirror = authoring_unseen.Mirror(tmp_path / "mirror")
    result, made = authoring_unseen.score(expectations, mirror, score_authoring._tree)
    assert made is not None
    tallies = {name: (t.right, t.wrong, t.missing) for name, t in result.tallies.items()}
    assert tallies == {
        "components": (1, 0, 0),
        "templates": (1, 0, 0),
        "replicas": (1, 0, 0),
        "statuses": (1, 1, 1),
        "suspend": (0, 1, 0),
    }
    assert result.samples == 1 and made.name == "example-com-worker-v1"
    assert "samples/chart.yaml is not YAML (a template): not a sample" in result.notes
    assert "phase Succeeded mapped to ['completed'], expected ['failed']" in result.notes
    row = authoring_unseen.table([result]).splitlines()[2]
    assert row == "| Worker (Worker.example.com) | 1 | 1 | 1/1 | 1/1 | 1/1 | 1/3 (1 gap) | 0/1 | 4/7 |"


def test_a_failing_draft_leaves_every_field_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commit = _snapshot(tmp_path / "mirror")
    expectations = tmp_path / "worker.yaml"
    want = {"name": "Worker", "repo": "example/worker", "commit": commit, "crd": "crd.yaml"}
    want |= {"samples": ["samples/*.yaml"], "suspend": None}
    want["components"] = [{"owner": ["Pod"], "template": None, "replicas": ".spec.replicas"}]
    want["statuses"] = [{"phase": "Running", "status": ["running"]}]
    expectations.write_text(yaml.safe_dump(want))

    def broken(*_: object, **__: object) -> None:
        raise KeyError("spec")

    monkeypatch.setattr(authoring_unseen, "draft", broken)
    mirror = authoring_unseen.Mirror(tmp_path / "mirror")
    result, made = authoring_unseen.score(expectations, mirror, score_authoring._tree)
    assert made is None and result.notes == ["the drafting failed: KeyError: 'spec'"]
    assert {name: (t.right, t.wrong, t.missing) for name, t in result.tallies.items()} == {
        "components": (0, 0, 1),
        "templates": (0, 0, 1),
        "replicas": (0, 0, 1),
        "statuses": (0, 0, 1),
        "suspend": (0, 0, 1),
    }


def test_a_bundle_of_crds_gives_the_samples_kind() -> None:
    other = fixtures.crd("example.com", "Gadget", {"size": {"type": "integer"}}, {})
    bundle = yaml.safe_dump_all([other, CRD, {"apiVersion": "v1", "kind": "Namespace"}])
    sample = authoring_unseen.Sample(SAMPLE, "w.yaml")
    assert authoring_unseen._crd(bundle, [sample], "crds.yaml")["spec"]["names"]["kind"] == "Worker"
    with pytest.raises(ValueError, match=r"crds\.yaml: 0 CustomResourceDefinitions match the samples' kinds"):
        authoring_unseen._crd(bundle, [], "crds.yaml")


def test_round_picks_one_round_of_expectations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    commit = _snapshot(tmp_path / "mirror")
    for round_name, name in (("round1", "Seen worker"), ("round2", "Blind worker")):
        (tmp_path / "expect" / round_name).mkdir(parents=True)
        (tmp_path / "expect" / round_name / "worker.yaml").write_text(
            yaml.safe_dump(
                {
                    "name": name,
                    "repo": "example/worker",
                    "commit": commit,
                    "crd": "crd.yaml",
                    "samples": ["samples/*.yaml"],
                    "components": [{"owner": ["Pod"], "template": ".spec.template", "replicas": ".spec.replicas"}],
                    "statuses": [],
                    "suspend": ".spec.suspend",
                }
            )
        )
    monkeypatch.setattr(authoring_unseen, "EXPECTATIONS", tmp_path / "expect")
    mirror = str(tmp_path / "mirror")

    assert score_authoring.main(["--unseen", "--mirror", mirror, "--round", "round2"]) == 0
    out = capsys.readouterr().out
    assert "round2:" in out and "Blind worker" in out
    assert "round1:" not in out and "Seen worker" not in out

    assert score_authoring.main(["--unseen", "--mirror", mirror]) == 0  # every round, as before
    out = capsys.readouterr().out
    assert "Seen worker" in out and "Blind worker" in out

    assert score_authoring.main(["--unseen", "--mirror", mirror, "--round", "round9"]) == 2
    assert "no round round9" in capsys.readouterr().err


def test_go_sources_unpack_the_go_files_and_the_small_manifests(tmp_path: Path) -> None:
    repo = tmp_path / "mirror" / "example+op" / "repo"
    (repo / "manifests").mkdir(parents=True)
    (repo / "main.go").write_text("package main\n")
    (repo / "manifests" / "deployment.yaml").write_text("kind: Deployment\n")
    (repo / "crds.yaml").write_text("x: " + "y" * authoring_unseen.MANIFEST_BYTES)  # a CRD's size: left out
    (repo / "README.md").write_text("docs\n")
    env = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    subprocess.run(["git", "-C", str(repo), *env, "commit", "-qm", "x"], check=True)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    mirror = authoring_unseen.Mirror(tmp_path / "mirror", tmp_path / "scratch")
    out = mirror.go_sources("example/op", commit.stdout.strip())
    unpacked = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert unpacked == ["main.go", "manifests/deployment.yaml"]


def _component(spec_definition: dict[str, object]) -> dict[str, object]:
    kind = {"group": "apps", "version": "v1", "kind": "StatefulSet"}
    return {"name": "c", "kind": kind, "specDefinition": spec_definition}


@pytest.mark.parametrize(
    ("spec_definition", "expected", "verdict"),
    [
        # The operator builds the pod from scattered fields: a draft that says so (reads the pod from no path) is right.
        ({"fragmentedPodSpecDefinition": {}}, None, "right"),
        ({"podTemplateSpecPath": "empty  # TODO(wmap): where is the pod?"}, None, "missing"),
        ({"podTemplateSpecPath": ".spec.override.template"}, None, "wrong"),
        ({"fragmentedPodSpecDefinition": {"containersPath": ".spec.sidecars"}}, None, "wrong"),
        # An expected path: named right, named otherwise or none at all wrong, a gap missing.
        ({"podTemplateSpecPath": ".spec.template"}, ".spec.template", "right"),
        ({"podTemplateSpecPath": ".spec.other"}, ".spec.template", "wrong"),
        ({"fragmentedPodSpecDefinition": {}}, ".spec.template", "wrong"),
        ({"podSpecPath": "empty  # TODO(wmap): where?"}, ".spec.template", "missing"),
    ],
)
def test_a_pod_the_operator_builds_is_right_without_a_path(
    spec_definition: dict[str, object], expected: str | None, verdict: str
) -> None:
    drafted = authoring_unseen._template(_component(spec_definition))
    assert authoring_unseen.template_verdict(drafted, expected) == verdict
