from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from workload_map.cli.main import cli

from .conftest import DEFINITIONS

BROKEN = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: broken}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {group: x.io, version: v1, kind: Thing}
      statusDefinition:
        statusMappings:
          running:
            - byExpression: {expression: 'env.HOME', expectedResult: "x"}
    childComponents:
      - name: a
        ownerRef: root
        specDefinition: {podTemplateSpecPath: '.spec | ('}
      - name: a
        ownerRef: nobody
"""

MISSPELT = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: misspelt}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {group: x.io, version: v1, kind: Thing}
      scaleDefinition: {replicaPath: .spec.replicas}
      statusDefinition:
        statusMappings:
          running: [{byPhase: Running}]
        phaseDefinition: {path: .status.phase}
"""


def validate(*args: str) -> Result:
    return CliRunner().invoke(cli, ["validate", *args])


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_valid_exit_0(tmp_path: Path) -> None:
    result = validate(write(tmp_path, "ok.yaml", DEFINITIONS))
    assert result.exit_code == 0, result.output
    assert "definition 'test-wmap-io-minijob-v1' is valid" in result.stdout
    assert "document 1: definition 'test-wmap-io-group-v1' is valid" in result.stdout


def test_usage_exit_2() -> None:
    assert validate().exit_code == 2
    assert validate("-o", "xml", "x.yaml").exit_code == 2


def test_findings_are_located(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.yaml", BROKEN)
    result = validate(path)
    assert result.exit_code == 1
    out = result.stdout
    prefix = f"{path}, document 0, spec.structureDefinition."
    assert f"{prefix}childComponents[1].name: error: duplicate component name 'a'" in out
    assert f"{prefix}childComponents[1].ownerRef: error: ownerRef 'nobody' names no component" in out
    assert (
        f"{prefix}rootComponent.statusDefinition.statusMappings.running[0].byExpression.expression: "
        "error: sandbox: 'env'" in out
    )
    assert "(expression: env.HOME)" in out
    assert f"{prefix}childComponents[0].specDefinition.podTemplateSpecPath: error: syntax:" in out
    assert "4 errors in 1 source(s)" in result.stderr


def test_unknown_field_did_you_mean(tmp_path: Path) -> None:
    path = write(tmp_path, "misspelt.yaml", MISSPELT)
    result = validate(path)
    assert result.exit_code == 1
    assert (
        f"{path}, document 0, spec.structureDefinition.rootComponent.scaleDefinition.replicaPath: "
        "error: unknown field 'replicaPath'; did you mean 'replicasPath'?"
    ) in result.stdout


GANG_ONLY = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: gang-only}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {group: x.io, version: v1, kind: Thing}
      statusDefinition: {statusMappings: {}}
    childComponents:
      - {name: pods, kind: {group: "", version: v1, kind: Pod}, ownerRef: root}
  optimizationInstructions:
    gangScheduling:
      podGroups: [{name: all, members: [{componentName: pods}]}]
"""


def test_gang_only_definition_is_valid_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "gang.yaml", GANG_ONLY)
    result = validate(path)
    assert result.exit_code == 0, result.output
    assert "statusMappings: warning: statusMappings maps no status; every workload will be Undefined" in result.stdout
    assert "definition 'gang-only' is valid" in result.stdout


def test_unknown_field_and_semantic_findings_in_one_pass(tmp_path: Path) -> None:
    text = MISSPELT.replace(
        "running: [{byPhase: Running}]", "running: [{byExpression: {expression: input, expectedResult: x}}]"
    )
    text += "    childComponents:\n      - {name: c, ownerRef: nobody}\n"
    path = write(tmp_path, "both.yaml", text)
    result = validate(path)
    assert result.exit_code == 1
    out = result.stdout
    assert "scaleDefinition.replicaPath: error: unknown field 'replicaPath'" in out
    assert "childComponents[0].ownerRef: error: ownerRef 'nobody' names no component" in out
    assert "byExpression.expression: error: sandbox: 'input'" in out
    assert "3 errors in 1 source(s)" in result.stderr


def test_json_report(tmp_path: Path) -> None:
    result = validate("-o", "json", write(tmp_path, "broken.yaml", BROKEN))
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["valid"] is False
    assert report["definitions"][0]["name"] == "broken"
    paths = {f["path"] for f in report["findings"]}
    assert "spec.structureDefinition.childComponents[1].ownerRef" in paths
    assert all(f["document"] == 0 for f in report["findings"])


def test_yaml_syntax_error_and_empty_file(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.yaml", "a: [1\nb: 2\n")
    empty = write(tmp_path, "empty.yaml", "")
    result = validate(bad, empty)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines == [
        f"{bad}: error: YAML syntax error at line 2, column 2: did not find expected ',' or ']'",
        f"{empty}: error: file is empty",
    ]
    assert "Traceback" not in result.output


def test_stdin(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["validate", "-"], input=DEFINITIONS)
    assert result.exit_code == 0
    assert "<stdin>, document 0: definition 'test-wmap-io-minijob-v1' is valid" in result.stdout


def test_against_samples(tmp_path: Path, dump_file: Path) -> None:
    result = validate(write(tmp_path, "ok.yaml", DEFINITIONS), "--against", str(dump_file))
    assert result.exit_code == 0, result.output
