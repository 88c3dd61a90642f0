"""The installed console script, run as a user runs it: exit codes, no tracebacks, fast help."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import WMAP, run_wmap

HEAVY = ("rich", "yaml", "kubernetes", "pydantic", "orjson", "jq")


def test_help_imports_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "from workload_map.cli.main import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
        "sys.stderr.write(repr(heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Commands:" in result.stdout
    assert result.stderr == "[]"


@pytest.mark.parametrize("command", ["get", "describe", "validate", "completion"])
def test_command_help_imports_nothing_heavy(command: str) -> None:
    code = (
        "import sys\n"
        "from workload_map.cli.main import main\n"
        "try:\n"
        f"    main([{command!r}, '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"sys.stderr.write(repr(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stderr == "[]"


def test_console_scripts_installed() -> None:
    assert WMAP.exists()
    assert (WMAP.parent / "kubectl-wmap").exists()
    result = run_wmap("version")
    assert result.returncode == 0
    assert result.stdout.startswith("wmap version ")


def test_exit_codes_and_no_traceback(dump_file: Path, defs_file: Path, tmp_path: Path) -> None:
    src = ["--from-file", str(dump_file), "--definitions", str(defs_file)]
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("a: [1\n")
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    cases = [
        (["get", *src], 0),
        (["get", "minijob/nope", *src], 3),
        (["describe", "minijob/nope", *src], 3),
        (["get", "widgets", *src], 4),
        (["get", "--bogus-flag"], 2),
        (["get", "--from-file", str(bad_yaml)], 1),
        (["get", "--from-file", str(empty)], 1),
        (["get", "--from-file", str(tmp_path / "missing.yaml")], 1),
        (["get"], 1),  # no --from-file and no kubeconfig
        (["validate", str(bad_yaml)], 1),
        (["validate", str(defs_file)], 0),
        (["validate"], 2),
    ]
    # No kubeconfig anywhere and not in a cluster: without --from-file there is no object source.
    no_cluster = {"HOME": str(tmp_path), "KUBECONFIG": "", "KUBERNETES_SERVICE_HOST": ""}
    for args, code in cases:
        result = run_wmap(*args, env=no_cluster)
        assert result.returncode == code, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr, args
    result = run_wmap("get", "--from-file", str(bad_yaml))
    assert result.stderr.splitlines() == [
        f"error: cannot read objects ({bad_yaml}): YAML syntax error at line 2, column 1: "
        "did not find expected ',' or ']'"
    ]
    result = run_wmap("get", "--from-file", str(empty))
    assert result.stderr.splitlines() == [f"error: cannot read objects ({empty}): file is empty"]
    result = run_wmap("get", env=no_cluster)
    assert result.stderr.startswith("error: no cluster configured: no kubeconfig found")
    assert "--from-file" in result.stderr


def test_debug_shows_traceback(tmp_path: Path) -> None:
    result = run_wmap("--debug", "get", "--from-file", str(tmp_path / "missing.yaml"))
    assert result.returncode == 1
    assert "Traceback" in result.stderr
    assert "error: cannot read objects" in result.stderr


def test_warnings_after_output(dump_file: Path, defs_file: Path, tmp_path: Path) -> None:
    orphan = tmp_path / "orphan.json"
    orphan.write_text(
        '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "lost", "ownerReferences": '
        '[{"apiVersion": "test.wmap.io/v1", "kind": "MiniJob", "name": "gone", "uid": "x"}]}}'
    )
    result = subprocess.run(
        [
            str(WMAP),
            "get",
            "-A",
            "--from-file",
            str(dump_file),
            "--from-file",
            str(orphan),
            "--definitions",
            str(defs_file),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    lines = result.stdout.splitlines()
    first_warning = next(i for i, line in enumerate(lines) if line.startswith("Warning: "))
    assert lines[0].startswith("NAMESPACE")
    assert all(line.startswith("Warning: ") for line in lines[first_warning:])
    assert first_warning == 1 + 4 + 1  # header, four workloads, then the bare pod "lost" as its own row


def _run_in_pty(args: list[str], env: dict[str, str]) -> str:
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [str(WMAP), *args], stdout=follower, stderr=subprocess.DEVNULL, env={**os.environ, **env}
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    finally:
        os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def test_colour_only_on_tty_and_no_color(dump_file: Path, defs_file: Path) -> None:
    args = ["describe", "minijob/train", "-o", "tree", "--from-file", str(dump_file), "--definitions", str(defs_file)]
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm-256color"
    coloured = _run_in_pty(args, {**env})
    assert "\x1b[" in coloured
    plain = _run_in_pty(args, {**env, "NO_COLOR": "1"})
    assert "\x1b[" not in plain
    assert "MiniJob/train" in plain
    piped = run_wmap(*args)
    assert "\x1b[" not in piped.stdout


def test_completion_scripts() -> None:
    for shell in ("bash", "zsh", "fish"):
        result = run_wmap("completion", shell)
        assert result.returncode == 0
        assert "_WMAP_COMPLETE" in result.stdout
    assert run_wmap("completion", "tcsh").returncode == 2


def test_stdin_dump(defs_file: Path, dump_file: Path) -> None:
    result = run_wmap(
        "get", "-o", "name", "--from-file", "-", "--definitions", str(defs_file), stdin=dump_file.read_text()
    )
    assert result.returncode == 0
    assert "minijob.test.wmap.io/train" in result.stdout.splitlines()


# Never needed by a dump-mode `get -o json` once the definitions are cached: the Kubernetes client and
# the live layer, the operator, the CRD generator, rich (tables, progress), PyYAML (a JSON dump), libjq
# and its worker (every expression of this dump runs in process), purejq (ASTs come from the cache),
# and importlib.metadata (pydantic loads it, and only a definition parsed from source loads pydantic).
NOT_FOR_DUMP_GET = (
    "kubernetes",
    "urllib3",
    "workload_map.sources.kube.live",
    "workload_map.sources.kube.connection",
    "workload_map.operator",
    "workload_map.crd",
    "rich",
    "yaml",
    "jq",
    "workload_map.jq._isolated",
    "purejq",
    "importlib.metadata",
)


def _modules_after(argv: list[str]) -> list[str]:
    code = (
        "import json, sys\n"
        "from workload_map.cli.main import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.startswith("{"), result.stdout[:200]
    modules: list[str] = json.loads(result.stderr)
    return modules


def test_dump_get_json_imports_only_what_it_needs(dump_file: Path, defs_file: Path, tmp_path: Path) -> None:
    argv = ["get", "-A", "-o", "json", "--from-file", str(dump_file), "--definitions", str(defs_file)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WMAP_CACHE_DIR", str(tmp_path / "cache"))
        cold = _modules_after(argv)  # first call: compiles and stores the definitions
        warm = _modules_after(argv)
    # libjq validated the definitions on their first load in its bounded worker, never in this process
    assert "workload_map.jq.program" in cold and "jq" not in cold
    unwanted = sorted(m for m in warm if any(m == n or m.startswith(n + ".") for n in NOT_FOR_DUMP_GET))
    assert unwanted == []
    assert "workload_map.resolve.workloads" in warm  # it did resolve, from the cached model: no parser
    assert "pydantic" not in warm and "workload_map.definition.schema" not in warm
