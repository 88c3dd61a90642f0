"""The console script ends without freeing what ``get`` read (cli/process_exit.py): the same output, exit
code and exit hooks as an interpreter exit, and the interpreter's exit whenever that cannot be told."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from workload_map.cli import process_exit
from workload_map.cli.main import cli

# The console script, with os._exit reported (what it was called with, what get kept) and an exit hook.
SCRIPT = """
import atexit, os, sys
real_exit = os._exit
def reported(code):
    from workload_map.cli import process_exit
    sys.stderr.write(f"os._exit({code}) kept={len(process_exit._Process.kept)}\\n")
    sys.stderr.flush()
    real_exit(code)
os._exit = reported
atexit.register(lambda: sys.stderr.write("exit hook ran\\n"))
sys.argv = ["wmap", *sys.argv[1:]]
from workload_map.cli.main import main
main()
"""


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_get_exits_without_teardown_with_the_whole_output(dump_file: Path, defs_file: Path) -> None:
    args = ["get", "-A", "--from-file", str(dump_file), "--definitions", str(defs_file)]
    result = _script(*args)
    in_process = CliRunner().invoke(cli, args)
    assert result.returncode == in_process.exit_code == 0
    assert result.stdout == in_process.stdout  # flushed whole before the process ended
    assert "os._exit(0) kept=2" in result.stderr  # the view and the trees were never freed
    assert "exit hook ran" in result.stderr


def test_exit_codes_and_messages_are_the_interpreters(dump_file: Path, defs_file: Path) -> None:
    args = ["get", "-A", "--from-file", str(dump_file), "--definitions", str(defs_file), "-o", "bogus"]
    bad = _script(*args)
    assert bad.returncode == CliRunner().invoke(cli, args).exit_code == 2
    missing = _script("get", "widgets", "--from-file", str(dump_file))
    assert missing.returncode == 4
    assert "exit hook ran" in missing.stderr
    usage = _script("get", "--bogus-flag")
    assert usage.returncode == 2
    assert "No such option" in usage.stderr


def test_in_process_keeps_nothing(dump_file: Path, defs_file: Path) -> None:
    result = CliRunner().invoke(cli, ["get", "-A", "--from-file", str(dump_file), "--definitions", str(defs_file)])
    assert result.exit_code == 0
    assert process_exit._Process.kept == []


def test_a_command_that_kept_nothing_exits_through_the_interpreter(dump_file: Path) -> None:
    # Nothing read was kept (the workload is missing), so the interpreter ends the process as always and
    # flushes and closes whatever a command left open (wmap record's file when SIGTERM ends it).
    missing = _script("get", "widgets", "--from-file", str(dump_file))
    assert missing.returncode == 4
    assert "os._exit" not in missing.stderr
    assert "exit hook ran" in missing.stderr
