"""A draft's gaps (docs/definition-format.md, "Gaps in a draft"): what `wmap definitions new` cannot infer is one
marked expression that changes no count and blocks no command, each reported once by `wmap validate`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result
from tests.authoring import fixtures

from workload_map.cli.main import cli

# Roles in nested lists (stages of tasks): no field names a task, so the instance ids are a gap; two roles
# and no sample pod, so the pod labels are gaps too.
MESH = fixtures.crd(
    "example.com",
    "Mesh",
    {
        "head": {"type": "object", "properties": {"template": fixtures.TEMPLATE}},
        "stages": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "tasks": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"replicas": {"type": "integer"}, "template": fixtures.TEMPLATE},
                        },
                    }
                },
            },
        },
    },
    {"phase": {"type": "string"}},
)
# No pod template anywhere (a VM-like kind): where the pods come from is a gap.
MACHINE = fixtures.crd(
    "example.com",
    "Machine",
    {"running": {"type": "boolean"}, "cpu": {"type": "integer"}},
    {"printableStatus": {"type": "string"}},
)


def _template(container: str) -> dict[str, Any]:
    return {"metadata": {}, "spec": {"containers": [{"name": container, "image": "busybox"}]}}


def _pod(name: str, owner: dict[str, Any], container: str) -> dict[str, Any]:
    meta = owner["metadata"]
    reference = {"apiVersion": "example.com/v1", "kind": owner["kind"], "name": meta["name"], "uid": meta["uid"]}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ns", "ownerReferences": [{**reference, "controller": True}]},
        "spec": {"containers": [{"name": container, "image": "busybox"}], "nodeName": "n1"},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }


MESH_OBJECT = {
    "apiVersion": "example.com/v1",
    "kind": "Mesh",
    "metadata": {"name": "m", "namespace": "ns", "uid": "u-m"},
    "spec": {
        "head": {"template": _template("head")},
        "stages": [
            {"tasks": [{"replicas": 2, "template": _template("a")}, {"replicas": 1, "template": _template("b")}]},
            {"tasks": [{"replicas": 3, "template": _template("c")}]},
        ],
    },
    "status": {"phase": "Running"},
}
MACHINE_OBJECT = {
    "apiVersion": "example.com/v1",
    "kind": "Machine",
    "metadata": {"name": "vm", "namespace": "ns", "uid": "u-vm"},
    "spec": {"running": True, "cpu": 2},
    "status": {"printableStatus": "Running"},
}


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert "internal error" not in result.output, result.output
    return result


def draft(tmp_path: Path, crd: dict[str, Any], obj: dict[str, Any], pods: list[dict[str, Any]]) -> tuple[Path, Path]:
    (tmp_path / "crd.yaml").write_text(yaml.safe_dump(crd))
    (tmp_path / "sample.yaml").write_text(yaml.safe_dump(obj))
    (tmp_path / "dump.yaml").write_text(yaml.safe_dump_all([obj, *pods]))
    out = tmp_path / "draft.yaml"
    drafted = invoke(
        "definitions", "new", "--crd", str(tmp_path / "crd.yaml"), "--sample", str(tmp_path / "sample.yaml")
    )
    assert drafted.exit_code == 0, drafted.output
    out.write_text(drafted.stdout)
    return out, tmp_path / "dump.yaml"


def gap_fields(validated: Result) -> list[str]:
    return [
        line.split(": warning: ")[0].rsplit(", ", 1)[1]
        for line in validated.output.splitlines()
        if "left to do" in line
    ]


def test_gaps_of_nested_roles_change_no_count_and_block_no_update(tmp_path: Path) -> None:
    pods = [_pod(n, MESH_OBJECT, c) for n, c in (("m-head", "head"), ("m-a-0", "a"), ("m-b-0", "b"), ("m-c-0", "c"))]
    definition, dump = draft(tmp_path, MESH, MESH_OBJECT, pods)
    text = definition.read_text()
    karta = yaml.safe_load(text)
    children = karta["spec"]["structureDefinition"]["childComponents"]
    index = {c["name"]: i for i, c in enumerate(children)}
    task = children[index["task"]]
    # the gap is an expression ending in a marked comment: positions for the ids, `empty` for the pod labels
    assert task["instanceIdPath"].startswith("[.spec.stages[]?.tasks[]?] | keys[] | tostring  # TODO(wmap): ")
    assert task["podSelector"]["componentInstanceSelector"]["idPath"].startswith("empty  # TODO(wmap): ")
    assert '"TODO(wmap)' not in text  # no string literal: it would match every pod and name an instance

    source = ["--definitions", str(definition), "--from-file", str(dump)]
    described = invoke("describe", "mesh/m", "-n", "ns", "-o", "json", *source)
    assert described.exit_code == 0, described.output
    tree = json.loads(described.stdout)
    counts = {c["name"]: [(i["id"], i["desiredPods"]) for i in c["instances"]] for c in tree["components"]}
    assert counts["head"] == [(None, 1)] and counts["task"] == [("0", 2), ("1", 1), ("2", 3)], counts
    assert tree["totals"]["pods"]["desired"] == 7
    # a selector left to do claims no pod: every pod is unattributed, and says why
    assert len(tree["unattributed"]) == 4 and not tree["pods"]
    assert all("left to do: TODO(wmap)" in p["reason"] for p in tree["unattributed"]), tree["unattributed"]
    assert "TODO" not in invoke("get", "-A", *source).stdout

    updated = invoke("update", "mesh/m", "-n", "ns", "--scheduler-name", "kai", "--dry-run", "-o", "json", *source)
    assert updated.exit_code == 0, updated.output
    spec = json.loads(updated.stdout)["spec"]
    assert spec["head"]["template"]["spec"]["schedulerName"] == "kai"
    assert [t["template"]["spec"]["schedulerName"] for s in spec["stages"] for t in s["tasks"]] == ["kai"] * 3

    validated = invoke("validate", str(definition), "--against", str(dump))
    assert validated.exit_code == 0, validated.output
    root = "spec.structureDefinition.rootComponent"
    components = "spec.structureDefinition.childComponents"
    head, tasks = f"{components}[{index['head']}]", f"{components}[{index['task']}]"
    assert gap_fields(validated) == [
        f"{root}.statusDefinition.statusMappings.failed[0].byExpression.expression",
        f"{head}.podSelector.componentTypeSelector.keyPath",
        f"{tasks}.instanceIdPath",
        f"{tasks}.podSelector.componentTypeSelector.keyPath",
        f"{tasks}.podSelector.componentInstanceSelector.idPath",
    ]
    assert validated.output.count("warning") == 5, validated.output  # one each, nothing else


def test_a_kind_without_a_pod_template_is_one_gap(tmp_path: Path) -> None:
    definition, dump = draft(tmp_path, MACHINE, MACHINE_OBJECT, [_pod("virt-launcher-vm", MACHINE_OBJECT, "compute")])
    root = yaml.safe_load(definition.read_text())["spec"]["structureDefinition"]["rootComponent"]
    assert root["specDefinition"]["podTemplateSpecPath"].startswith("empty  # TODO(wmap): where the pods come from")

    validated = invoke("validate", str(definition), "--against", str(dump))
    assert validated.exit_code == 0, validated.output
    template_field = "spec.structureDefinition.rootComponent.specDefinition.podTemplateSpecPath"
    # one warning for the template gap: not also "not a jq path expression" or "resolves to nothing"
    assert [line for line in validated.output.splitlines() if "specDefinition" in line] == [
        line for line in validated.output.splitlines() if f"{template_field}: warning: left to do" in line
    ]
    assert len([f for f in gap_fields(validated) if f == template_field]) == 1

    source = ["--definitions", str(definition), "--from-file", str(dump)]
    listed = invoke("get", "-A", "-o", "json", *source)
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout)["items"][0]["totals"]["pods"]["ready"] == 1  # the pod is the root's
    updated = invoke("update", "machine/vm", "-n", "ns", "--scheduler-name", "kai", "--dry-run", *source)
    assert updated.exit_code == 1
    assert "nothing to update: component 'machine': where its pods come from is left to do" in updated.output


def test_a_gap_written_as_a_string_literal_is_named_as_such(tmp_path: Path) -> None:
    """Drafts written before gaps were jq comments carry `"TODO(wmap): ..."` literals, which claim every pod:
    validate says how to write them."""
    definition = tmp_path / "old-draft.yaml"
    karta = {
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "metadata": {"name": "example-com-machine-v1"},
        "spec": {
            "structureDefinition": {
                "rootComponent": {
                    "name": "machine",
                    "kind": {"group": "example.com", "version": "v1", "kind": "Machine"},
                    "statusDefinition": {"statusMappings": {"running": [{"byPhase": "x"}]}},
                },
                "childComponents": [
                    {
                        "name": "pods",
                        "ownerRef": "machine",
                        "specDefinition": {"podTemplateSpecPath": ".spec.template"},
                        "podSelector": {"componentTypeSelector": {"keyPath": '"TODO(wmap): the pod label"'}},
                    },
                    {
                        "name": "other",
                        "ownerRef": "machine",
                        "specDefinition": {"podTemplateSpecPath": ".spec.other"},
                        "podSelector": {"componentTypeSelector": {"keyPath": "empty  # TODO(wmap): the pod label"}},
                    },
                ],
            }
        },
    }
    definition.write_text(yaml.safe_dump(karta))
    validated = invoke("validate", str(definition))
    assert validated.exit_code == 0, validated.output
    lines = [line for line in validated.output.splitlines() if "left to do" in line]
    assert len(lines) == 2
    assert "childComponents[0]" in lines[0] and "this gap is a string literal" in lines[0]
    assert "'empty  # TODO(wmap): ...'" in lines[0]
    assert "string literal" not in lines[1]
