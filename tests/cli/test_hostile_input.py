"""Input found by outside checks to crash a command or give a silently wrong answer: each case is a located
error, a warning or the exact value, never a traceback (docs/cli.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

import workload_map as wm
from workload_map._version import __version__
from workload_map.cli.main import cli
from workload_map.operator.main import command as operator
from workload_map.serve import api

from .conftest import objects

HUGE = 2**64 + 1  # a float would read it as 2**64
NEGATIVE = -(2**63) - 1


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "internal error" not in result.output, result.output
    return result


def with_big_integers() -> list[dict[str, Any]]:
    items = objects()
    train = items[0]
    train["spec"]["roles"][1]["replicas"] = HUGE
    train["status"]["conditions"][0]["observedGeneration"] = NEGATIVE
    train["status"]["huge"] = [HUGE, {"deep": -HUGE}]
    return items


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_integers_beyond_64_bits_print_exactly(tmp_path: Path, defs_file: Path, suffix: str) -> None:
    dump = tmp_path / f"dump{suffix}"
    document = {"apiVersion": "v1", "kind": "List", "items": with_big_integers()}
    dump.write_text(json.dumps(document) if suffix == ".json" else yaml.safe_dump(document))
    source = ["--from-file", str(dump), "--definitions", str(defs_file)]

    listing = invoke("get", "-A", "-o", "json", *source)
    assert listing.exit_code == 0
    rows = {item["workload"]["name"]: item for item in json.loads(listing.stdout)["items"]}
    assert set(rows) == {"train", "broken", "eval", "llm"}
    assert f"worker({HUGE})" in invoke("get", "-A", *source).stdout
    assert str(HUGE) in invoke("get", "-A", "-o", "yaml", *source).stdout

    for output in ("json", "yaml"):
        described = invoke("describe", "minijob/train", "-o", output, *source)
        assert described.exit_code == 0
        tree = json.loads(described.stdout) if output == "json" else yaml.safe_load(described.stdout)
        instances = [i for c in tree["components"] for i in c["instances"] if i["id"] == "worker"]
        assert [i["replicas"]["replicas"] for i in instances] == [HUGE]
    patched = invoke("update", "minijob/train", "--label", "a=b", "-o", "json", *source)
    assert patched.exit_code == 0
    status = json.loads(patched.stdout)["status"]
    assert status["huge"] == [HUGE, {"deep": -HUGE}]
    assert status["conditions"][0]["observedGeneration"] == NEGATIVE


def test_objects_sharing_an_identity_are_named_and_the_others_shown(tmp_path: Path, defs_file: Path) -> None:
    """Two objects of a folder with the same kind, namespace and name: one warning names both places (the
    later one is used, as ``kubectl apply -f DIR`` leaves it); every other workload is listed."""
    folder = tmp_path / "dump"
    folder.mkdir()
    items = objects()
    (folder / "a.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    later = json.loads(json.dumps(items[0]))
    later["metadata"]["labels"] = {"team": "later"}
    (folder / "b.yaml").write_text(yaml.safe_dump(later))
    source = ["--from-file", str(folder), "--definitions", str(defs_file)]
    for output in ("table", "json", "name"):
        result = invoke("get", "-A", "-o", output, *source)
        assert result.exit_code == 0, result.output
        warning = [line for line in result.stderr.splitlines() if "train" in line]
        assert len(warning) == 1, result.stderr
        assert str(folder / "a.json") in warning[0] and str(folder / "b.yaml") in warning[0]
    rows = json.loads(invoke("get", "-A", "-o", "json", *source).stdout)["items"]
    assert sorted(r["workload"]["name"] for r in rows) == ["broken", "eval", "llm", "train"]
    listed = invoke("get", "-A", "-l", "team=later", "-o", "name", *source)
    assert listed.stdout.split() == ["minijob.test.wmap.io/train"]


@pytest.mark.parametrize("scope", [[], ["-A"], ["-n", "default"]])
def test_an_object_without_namespace_is_the_same_as_one_in_default(
    tmp_path: Path, defs_file: Path, scope: list[str]
) -> None:
    """An object without metadata.namespace is in "default" (as kubectl apply puts it): beside the same
    object written with ``namespace: default`` it is one identity given twice, not two workloads of one
    name (get's printer failed with 'zip() argument 2 is longer than argument 1')."""
    folder = tmp_path / "dump"
    folder.mkdir()
    items = objects()
    (folder / "a.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    later = json.loads(json.dumps(items[0]))
    del later["metadata"]["namespace"]
    later["metadata"]["labels"] = {"team": "later"}
    (folder / "b.yaml").write_text(yaml.safe_dump(later))
    source = ["--from-file", str(folder), "--definitions", str(defs_file)]
    for output in ("table", "wide", "json", "name"):
        result = invoke("get", *scope, "-o", output, *source)
        assert result.exit_code == 0, result.output
        warning = [line for line in result.stderr.splitlines() if "train" in line]
        assert len(warning) == 1, result.stderr
        assert str(folder / "a.json") in warning[0] and str(folder / "b.yaml") in warning[0], warning
        assert 'namespace "default"' in warning[0], warning
    rows = json.loads(invoke("get", "-A", "-o", "json", *source).stdout)["items"]
    assert sorted(r["workload"]["name"] for r in rows) == ["broken", "eval", "llm", "train"]
    listed = invoke("get", "-A", "-l", "team=later", "-o", "name", *source)
    assert listed.stdout.split() == ["minijob.test.wmap.io/train"]
    described = invoke("describe", "minijob/train", "-o", "json", *source)
    assert described.exit_code == 0, described.output
    assert json.loads(described.stdout)["workload"]["namespace"] == "default"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("strings.yaml", "- a\n- b\n", "a list"),
        ("number.json", "42\n", "a number"),
        ("scalars.yaml", "just text\n---\n7\n", "a string"),
    ],
)
def test_a_file_without_kubernetes_objects_is_a_located_error(
    tmp_path: Path, dump_file: Path, name: str, content: str, reason: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    for sources in ([str(path)], [str(dump_file), str(path)]):
        result = invoke("get", "-A", *[arg for source in sources for arg in ("--from-file", source)])
        assert result.exit_code == 1, result.output
        assert f"error: cannot read objects ({path}, document 0)" in result.stderr
        assert reason in result.stderr and "No resources found" not in result.output


def test_an_empty_list_is_no_resources(tmp_path: Path) -> None:
    """``kubectl get pods -o json`` of an empty namespace: an empty List, nothing to list (exit 0)."""
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": []}))
    result = invoke("get", "-A", "--from-file", str(path))
    assert result.exit_code == 0, result.output
    assert "No resources found" in result.stderr


def test_junk_beside_objects_is_a_warning(tmp_path: Path, dump_file: Path, defs_file: Path) -> None:
    path = tmp_path / "mixed.yaml"
    path.write_text(yaml.safe_dump(objects()[0]) + "---\n- a\n")
    result = invoke("get", "-A", "-o", "name", "--from-file", str(path), "--definitions", str(defs_file))
    assert result.exit_code == 0
    assert result.stdout.split() == ["minijob.test.wmap.io/train"]
    assert f"{path}, document 1: ignoring a document that is not a Kubernetes object" in result.stderr


def test_version_flag_prints_the_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"wmap version {__version__}\n" == invoke("version").stdout


def test_without_a_kubeconfig_only_commands_that_read_dumps_suggest_from_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {"HOME": str(tmp_path), "KUBECONFIG": "", "KUBERNETES_SERVICE_HOST": ""}.items():
        monkeypatch.setenv(name, value)
    got = invoke("get")
    assert got.exit_code == 1 and "hint: pass --kubeconfig PATH" in got.stderr and "--from-file PATH" in got.stderr
    for result in (
        invoke("snapshot", "-o", str(tmp_path / "x.yaml")),
        invoke("catalog", "diff"),
        CliRunner().invoke(operator, [], prog_name="wmap-operator"),
    ):
        assert result.exit_code == 1, result.output
        assert "no cluster configured" in result.output and "hint: pass --kubeconfig PATH" in result.output
        assert "--from-file" not in result.output


def test_a_mistyped_type_gets_a_suggestion(dump_file: Path, defs_file: Path) -> None:
    source = ["--from-file", str(dump_file), "--definitions", str(defs_file)]
    result = invoke("get", "minijobb", *source)
    assert result.exit_code == 4
    assert 'error: no definition covers type "minijobb"' in result.stderr
    assert "did you mean minijob?" in result.stderr
    assert "did you mean" not in invoke("get", "zzzzzz", *source).stderr
    assert "did you mean jobset?" in invoke("get", "jobsett", "--from-file", str(dump_file)).stderr


def test_library_refuses_an_unknown_status(dump_file: Path, defs_file: Path) -> None:
    view = wm.open_dump(str(dump_file), definitions=[str(defs_file)], namespace=None)
    assert [t.name for t in view.workloads(status="running")] == [t.name for t in view.workloads(status="Running")]
    with pytest.raises(ValueError, match="'runing' is not a status") as refused:
        view.workloads(status="runing")
    assert "Running" in str(refused.value) and "Undefined" in str(refused.value)


def test_validate_of_an_object_dump_is_one_line_suggesting_against(dump_file: Path, defs_file: Path) -> None:
    result = invoke("validate", str(dump_file))
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if str(dump_file) in line]
    assert len(lines) == 1, result.stdout
    assert "not Karta definitions" in lines[0] and "--against" in lines[0]
    assert f"{len(objects())} Kubernetes object(s)" in lines[0] and "MiniJob" in lines[0]
    assert invoke("validate", str(defs_file), "--against", str(dump_file)).exit_code == 0


def test_serve_refuses_an_unknown_status(dump_file: Path, defs_file: Path) -> None:
    """``/api/v1/workloads?status=runing`` is a bad filter (400), not an empty list, as the library says."""

    model = wm.open_dump(str(dump_file), definitions=[str(defs_file)], namespace=None).to_model()
    running = [item["name"] for item in api.workloads(model, status="running")["items"]]
    assert sorted(running) == ["eval", "llm", "train"]
    with pytest.raises(ValueError, match="'runing' is not a status"):
        api.workloads(model, status="runing")


def test_kinds_whose_names_differ_only_in_case_are_two_rows(tmp_path: Path) -> None:
    """MiniJob and Minijob are two kinds (Kubernetes kinds are case-sensitive): an object of each with the
    same namespace and name is two workloads, not a printer failure ('zip() argument 2 is longer')."""
    source = []
    for kind, name in (("MiniJob", "upper-j"), ("Minijob", "lower-j")):
        definition = tmp_path / f"{kind}.yaml"
        definition.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "run.ai/v1alpha1",
                    "kind": "Karta",
                    "metadata": {"name": name},
                    "spec": {
                        "structureDefinition": {
                            "rootComponent": {
                                "name": "root",
                                "kind": {"group": "test.wmap.io", "version": "v1", "kind": kind},
                                "specDefinition": {"podTemplateSpecPath": ".spec.template"},
                                "statusDefinition": {"statusMappings": {"running": [{"byPhase": "x"}]}},
                            }
                        }
                    },
                }
            )
        )
        dump = tmp_path / f"{kind}-object.yaml"
        dump.write_text(
            yaml.safe_dump(
                {"apiVersion": "test.wmap.io/v1", "kind": kind, "metadata": {"name": "same", "namespace": "ns"}}
            )
        )
        source += ["--definitions", str(definition), "--from-file", str(dump)]
    for output in ("table", "wide", "name", "json"):
        result = invoke("get", "-A", "-o", output, *source)
        assert result.exit_code == 0, result.output
    rows = invoke("get", "-A", *source).stdout.splitlines()[1:]
    assert sorted(row.split()[2] for row in rows) == ["MiniJob", "Minijob"]
