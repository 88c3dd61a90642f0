"""Hostile definitions and files through the CLI: rejected with a located reason, or stopped at run time
by the jq engine's budgets (bench/JQ_ENGINE.md, "Sandbox and bounds") with the other workloads resolved."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from tests.cli.conftest import DEFINITIONS, objects

from workload_map.cli.main import cli

CATALOG = Path(__file__).resolve().parents[2] / "src" / "workload_map" / "catalog" / "definitions"
EXAMPLE = CATALOG.parents[1] / "examples" / "ai-cluster.yaml"

# The Group definition's status expression, which each case replaces with a hostile one.
GROUP_EXPRESSION = "'.status.readyReplicas == .spec.replicas'"
EXPECTED = {("default", "train"), ("default", "broken"), ("research", "eval"), ("serving", "llm")}


def definitions_with(expression: str) -> str:
    assert GROUP_EXPRESSION in DEFINITIONS
    return DEFINITIONS.replace(GROUP_EXPRESSION, "'" + expression.replace("'", "''") + "'")


def hostile_objects() -> list[dict[str, Any]]:
    items = objects()
    for item in items:
        if item["kind"] == "Group":
            # Runtime sizes an expression may turn into work: a repetition count, a list to multiply.
            item["spec"].update({"big": 1e9, "list": list(range(2000))})
    return items


def invoke(tmp_path: Path, *args: str, definitions: str | None = None, dump: Any = None) -> Result:
    argv = list(args)
    if dump is not None:
        (tmp_path / "dump.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": dump}))
        argv += ["--from-file", str(tmp_path / "dump.json")]
    if definitions is not None:
        (tmp_path / "defs.yaml").write_text(definitions)
        argv += ["--definitions", str(tmp_path / "defs.yaml")]
    result = CliRunner().invoke(cli, argv)
    # A crash is an exception other than click's exit; its message would be a traceback.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def listed(result: Result) -> dict[tuple[str, str], dict[str, Any]]:
    rows = json.loads(result.stdout)
    return {(row["workload"]["namespace"], row["workload"]["name"]): row for row in rows["items"]}


STATIC = [
    ("[range(1e9)] | length > 0", "range"),
    ("def f: [f]; f", "f/0"),
    ("def f(x): x | f(x); f(.)", "f/1"),
    ("[repeat(.)] | length > 0", "repeat"),
    ("[..] | length > 0", ".."),
    ("$ENV.HOME", "$ENV"),
    ("env.HOME", "env"),
    ("input", "input"),
    ("[inputs] | length", "inputs"),
    ("debug", "debug"),
    ("stderr", "stderr"),
    ("input_filename", "input_filename"),
    ("$__loc__", "$__loc__"),
    ("halt_error", "halt_error"),
    ('import "x" as x; .', "import"),
    (".status.readyReplicas |= 1", "|="),
    ("[limit(1e9; recurse)] | length > 0", "recurse"),
    ('"\\(env)"', "env"),
]


@pytest.mark.parametrize(("expression", "construct"), STATIC)
def test_rejected_at_validation_with_location(tmp_path: Path, expression: str, construct: str) -> None:
    path = tmp_path / "defs.yaml"
    path.write_text(definitions_with(expression))
    result = invoke(tmp_path, "validate", str(path))
    assert result.exit_code == 1
    line = next(line for line in result.output.splitlines() if "sandbox" in line)
    assert str(path) in line
    assert "statusMappings.running[0]" in line
    assert f"'{construct}'" in line


SYNTAX = [(".status.readyReplicas == (", "syntax error"), ("[.a", "syntax error"), (".a | ]", "syntax error")]
TOO_LONG = "(" + " or ".join(f"(.status.readyReplicas == {n})" for n in range(150_000)) + ")"  # 4.5 MB


@pytest.mark.parametrize(("expression", "reason"), [*STATIC[:8], *SYNTAX, (TOO_LONG, "characters, over the")])
def test_rejected_expression_in_a_definitions_file_is_its_validate_error(
    tmp_path: Path, expression: str, reason: str
) -> None:
    """``--definitions`` names the caller's own file: an expression ``validate`` calls an error (a syntax error,
    a construct the sandbox refuses, an expression past the length limit) makes it an error, at its field,
    before any workload is read; the same finding as validate's, not a silently Undefined workload."""
    path = tmp_path / "defs.yaml"
    path.write_text(definitions_with(expression))
    validated = invoke(tmp_path, "validate", str(path))
    assert len(validated.stdout) < 2000  # a refused expression of megabytes is quoted by its start
    finding = next(line for line in validated.stdout.splitlines() if reason in line)
    field = "spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0].byExpression.expression"
    assert f"{path}, document 1, {field}: error:" in finding
    for command in (["get", "-A"], ["describe", "group/llm", "-n", "serving"]):
        result = invoke(tmp_path, *command, definitions=definitions_with(expression), dump=objects())
        assert result.exit_code == 1, result.output
        assert not result.stdout
        error = result.stderr.splitlines()[0]
        assert error.startswith(f"error: cannot load definition 'test-wmap-io-group-v1' ({path}, document 1, {field}):")
        assert reason in error


def test_a_broken_karta_in_a_dump_does_not_replace_the_builtin_one(tmp_path: Path) -> None:
    """A Karta of the dump whose expression does not compile is ignored with a warning naming it: the
    built-in definition of its kind stays in effect, and every workload reads as without that Karta."""
    builtin = (CATALOG / "batch-job-v1.yaml").read_text()
    broken = builtin.replace("(.spec.parallelism // 1) as $p", "(.spec.parallelism // 1 as $p", 1)
    assert broken != builtin
    (tmp_path / "plain.yaml").write_text(EXAMPLE.read_text())
    (tmp_path / "with-karta.yaml").write_text(EXAMPLE.read_text() + "\n---\n" + broken)
    plain = invoke(tmp_path, "get", "-A", "-o", "json", "--from-file", str(tmp_path / "plain.yaml"))
    result = invoke(tmp_path, "get", "-A", "-o", "json", "--from-file", str(tmp_path / "with-karta.yaml"))
    assert result.exit_code == 0 == plain.exit_code
    assert json.loads(result.stdout) == json.loads(plain.stdout)
    assert any(job["workload"]["kind"] == "Job" for job in json.loads(result.stdout)["items"])
    warnings = [line for line in result.stderr.splitlines() if "batch-job-v1" in line]
    assert len(warnings) == 1, result.stderr
    assert "ignoring Karta 'batch-job-v1'" in warnings[0] and "replicasPath" in warnings[0]
    assert "syntax error" in warnings[0]


RUNTIME = [
    '"x" * .spec.big | length > 0',  # a 1 GB string: over the worker's memory or the time limit
    "[.spec.list[] as $a | .spec.list[] as $b | .spec.list[]] | length > 0",  # 8e9 outputs
    "[.spec.list[] as $a | .spec.list[] | tostring] | add | length > 0",  # 4e6 strings, then a 15 MB one
    "reduce .spec.list[] as $x ([0]; . + .) | length > 0",  # doubling 2000 times
    "[.spec.list | tojson | tojson | tojson | tojson | tojson | tojson | tojson | tojson] | length > 0",
]


@pytest.mark.parametrize("expression", RUNTIME)
def test_runtime_blowup_stopped_others_resolved(tmp_path: Path, expression: str) -> None:
    definitions = definitions_with(expression)
    validated = tmp_path / "check.yaml"
    validated.write_text(definitions)
    assert invoke(tmp_path, "validate", str(validated)).exit_code == 0  # nothing static to reject
    result = invoke(tmp_path, "get", "-A", "-o", "json", definitions=definitions, dump=hostile_objects())
    assert result.exit_code == 0
    rows = listed(result)
    assert set(rows) == EXPECTED
    assert rows[("default", "train")]["status"]["primary"] == "Running"
    llm = rows[("serving", "llm")]
    # The expression either finished within the budgets (its result is then a boolean) or was stopped.
    if llm["status"]["primary"] == "Undefined":
        assert "group.test.wmap.io/llm in serving" in result.stderr
        assert "limit" in result.stderr or "exceed" in result.stderr


def billion_laughs() -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


BAD_FILES = {
    "billion-laughs.yaml": (billion_laughs().encode(), "YAML aliases expand to more than"),
    "karta-bomb.yaml": (
        DEFINITIONS.split("---")[0].encode()
        + b"  optimizationInstructions: &o0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
        + b"".join(
            f"  x{level}: &o{level} [".encode() + b", ".join([f"*o{level - 1}".encode()] * 10) + b"]\n"
            for level in range(1, 8)
        ),
        "YAML aliases expand to more than",
    ),
    "invalid-utf8.yaml": (DEFINITIONS.encode().replace(b"minijob", b"mini\xff\xfejob", 1), "UTF-8"),
    "control-character.yaml": (b'apiVersion: v1\nkind: Pod\nmetadata: {name: "a\x01"}\n', "line 3, column"),
    "invalid-utf8.json": (b'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "\xff"}}', "UTF-8"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_files_rejected_with_reason(tmp_path: Path, name: str) -> None:
    content, reason = BAD_FILES[name]
    path = tmp_path / name
    path.write_bytes(content)
    for args in (
        ["validate", str(path)],
        ["get", "-A", "--from-file", str(path)],
        ["get", "-A", "--definitions", str(path), "--from-file", str(tmp_path / "dump.json")],
    ):
        (tmp_path / "dump.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects()}))
        result = invoke(tmp_path, *args)
        assert result.exit_code == 1, (args, result.output)
        assert str(path) in result.output
        assert reason in result.output


def test_small_aliases_still_read(tmp_path: Path) -> None:
    path = tmp_path / "defs.yaml"
    shared = DEFINITIONS.replace(
        "- byPhase: Running", "- &running {byPhase: Running}\n          degraded:\n            - *running", 1
    )
    assert shared != DEFINITIONS
    path.write_text(shared)
    assert invoke(tmp_path, "validate", str(path)).exit_code == 0


def test_fifty_megabyte_files(tmp_path: Path) -> None:
    """Files are read whole (cost linear in size, no size limit: dumps of 100 MB are normal); a 50 MB
    definition file and a 50 MB dump object neither fail nor hide a workload."""
    padding = "y" * (50 * 1024 * 1024)
    huge_definitions = DEFINITIONS.replace(
        "metadata: {name: test-wmap-io-group-v1}",
        "metadata: {name: test-wmap-io-group-v1, annotations: {padding: '" + padding + "'}}",
    )
    items = objects()
    items.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"}, "data": {"x": padding}})
    result = invoke(tmp_path, "get", "-A", "-o", "json", definitions=huge_definitions, dump=items)
    assert result.exit_code == 0
    assert set(listed(result)) == EXPECTED


# libjq computes constant parts of an expression while compiling it: the syntax check alone of this one
# allocates a gigabyte (two such terms, two), whatever the object. 44 characters, nothing to sandbox.
# Two gigabytes, past the worker's 1 GiB address space on any machine: a single gigabyte fits beside a lean
# worker's own few tens of MiB on some machines, and then compiles (CI did, in under the time limit).
FOLDED = '"aaaa" * 500000000 | length'
FOLDED_TWICE = '("aaaa" * 250000000) + ("bbbb" * 250000000) | length'
_PEAK = """
import atexit, sys
report = sys.argv.pop(1)
def _peak():
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(report, "w") as out:
        out.write(peak)
atexit.register(_peak)
from workload_map.cli.main import main
main()
"""


def _under_one_gigabyte() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def wmap_bounded(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """``wmap ARGS`` in a process of its own under a 1 GiB address-space limit (as a container's memory
    limit would stop it), and that process's own peak resident memory in KiB (its jq worker apart)."""
    peak = tmp_path / "peak"
    result = subprocess.run(
        [sys.executable, "-c", _PEAK, str(peak), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_under_one_gigabyte,
        env={**os.environ, "WMAP_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result, int(peak.read_text()) if peak.exists() else -1


@pytest.mark.parametrize("expression", [FOLDED, FOLDED_TWICE])
def test_compile_time_blowup_is_a_located_finding_and_the_process_stays_small(tmp_path: Path, expression: str) -> None:
    path = tmp_path / "defs.yaml"
    path.write_text(definitions_with(expression))
    result, peak_kib = wmap_bounded(tmp_path, "validate", str(path))
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    line = next(line for line in (result.stdout + result.stderr).splitlines() if "jq compilation" in line)
    assert str(path) in line
    assert "statusMappings.running[0]" in line
    assert "limit" in line
    assert 0 < peak_kib < 400 * 1024  # the gigabyte was the worker's to allocate, not this process's

    # --definitions names the caller's file: what validate calls an error is one there (docs/cli.md).
    (tmp_path / "dump.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects()}))
    args = ["get", "-A", "-o", "json", "--definitions", str(path), "--from-file", str(tmp_path / "dump.json")]
    result, peak_kib = wmap_bounded(tmp_path, *args)
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert result.stderr.startswith(f"error: cannot load definition 'test-wmap-io-group-v1' ({path}, document 1,")
    assert "jq compilation" in result.stderr
    assert 0 < peak_kib < 400 * 1024

    # The same Kartas in a dump: the broken one is left out with a warning, the others resolve.
    kartas = list(yaml.safe_load_all(definitions_with(expression)))
    (tmp_path / "dump.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects() + kartas}))
    result, peak_kib = wmap_bounded(tmp_path, "get", "-A", "-o", "json", "--from-file", str(tmp_path / "dump.json"))
    assert result.returncode == 0, (result.returncode, result.stderr)
    rows = {(r["workload"]["namespace"], r["workload"]["name"]): r for r in json.loads(result.stdout)["items"]}
    assert {("default", "train"), ("default", "broken"), ("research", "eval")} <= set(rows)
    assert rows[("default", "train")]["status"]["primary"] == "Running"
    refused = [line for line in result.stderr.splitlines() if "ignoring Karta 'test-wmap-io-group-v1'" in line]
    assert len(refused) == 1 and "jq compilation" in refused[0], result.stderr
    assert 0 < peak_kib < 400 * 1024
