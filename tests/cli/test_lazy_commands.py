"""`wmap --help` lists commands from cli.main's table without importing them: the table must say what they do."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from workload_map.cli import commands, main as cli_main


@pytest.mark.parametrize("name", sorted(cli_main.LAZY_COMMANDS))
def test_each_help_line_is_the_commands_own(name: str) -> None:
    module, help_line = cli_main.LAZY_COMMANDS[name]
    with click.Context(cli_main.cli) as ctx:
        command = cli_main.cli.get_command(ctx, name)
    assert command is not None and command.name == name
    assert command.callback is not None and command.callback.__module__ == module
    assert help_line == command.get_short_help_str(10**6)


def test_every_command_module_is_in_the_table() -> None:
    modules = {m for m, _ in cli_main.LAZY_COMMANDS.values()}
    package = commands.__path__[0]
    listed = {
        f"workload_map.cli.commands.{p.removesuffix('.py')}"
        for p in __import__("os").listdir(package)
        if p.endswith(".py") and p != "__init__.py"
    }
    # sub-commands of a group (definitions new/test, catalog's) are loaded by their group, not listed here
    subcommands = {"workload_map.cli.commands.definitions_new", "workload_map.cli.commands.definitions_testing"}
    assert listed - subcommands == modules


def test_help_imports_no_command() -> None:
    code = (
        "import sys\n"
        "from workload_map.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('workload_map.cli.commands.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
