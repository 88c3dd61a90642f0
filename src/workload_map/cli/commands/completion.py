"""``wmap completion SHELL``: the shell's completion script (names come from cli.main's command table)."""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

from workload_map.cli.main import cli
from workload_map.cli.program import COMPLETE_VAR
from workload_map.cmdline.errors import CliError


@click.command("completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def command(shell: str) -> None:
    """Print a shell completion script.

    \b
    bash:  source <(wmap completion bash)
    zsh:   source <(wmap completion zsh)
    fish:  wmap completion fish | source
    """
    completion_class = get_completion_class(shell)
    if completion_class is None:  # pragma: no cover - Choice already restricts the shells
        raise CliError(f"unsupported shell {shell!r}")
    click.echo(completion_class(cli, {}, "wmap", COMPLETE_VAR).source())
