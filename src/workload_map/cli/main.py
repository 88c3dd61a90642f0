"""The ``wmap`` entry point: the command group, error handling, ``version`` and ``completion``.

Only click is imported here at load time; see the package docstring.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

import click

from workload_map.cli.options import output_option
from workload_map.cmdline.errors import CliError, one_line_errors

COMPLETE_VAR = "_WMAP_COMPLETE"
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 110}


class WmapGroup(click.Group):
    """Turns every failure into one ``error:`` line (or a traceback with ``--debug``)."""

    def invoke(self, ctx: click.Context) -> Any:
        with one_line_errors(bool(ctx.params.get("debug"))):
            return super().invoke(ctx)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from workload_map._version import __version__

    click.echo(f"wmap version {__version__}")
    ctx.exit()


@click.group(cls=WmapGroup, context_settings=CONTEXT_SETTINGS)
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Print the wmap version and exit (as `wmap version`).",
)
def cli(debug: bool) -> None:
    """Read any AI workload on Kubernetes through one declarative definition (Karta run.ai/v1alpha1).

    Objects come from the cluster of your kubeconfig (kubectl's --kubeconfig, --context, -n, -A...)
    or, with --from-file, from a dump.

    \b
    Examples:
      wmap get -A
      wmap describe jobset/train -n team-a
      wmap explain lws/llama -n serving
      wmap snapshot -A -o cluster.yaml && wmap get -A --from-file cluster.yaml
      wmap validate my-definition.yaml
    """


@cli.command("version")
@output_option(("text", "json", "yaml"), "text")
def version_cmd(output: str) -> None:
    """Print the wmap version."""
    from workload_map._version import __version__

    if output == "text":
        click.echo(f"wmap version {__version__}")
        return
    from workload_map.cli.output import echo_document

    info = {"version": __version__, "python": ".".join(map(str, sys.version_info[:3]))}
    echo_document(info, output)


@cli.command("completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion_cmd(shell: str) -> None:
    """Print a shell completion script.

    \b
    bash:  source <(wmap completion bash)
    zsh:   source <(wmap completion zsh)
    fish:  wmap completion fish | source
    """
    from click.shell_completion import get_completion_class

    completion_class = get_completion_class(shell)
    if completion_class is None:  # pragma: no cover - Choice already restricts the shells
        raise CliError(f"unsupported shell {shell!r}")
    click.echo(completion_class(cli, {}, "wmap", COMPLETE_VAR).source())


def _register() -> None:
    # Command modules import only click at load time; their bodies import the library.
    from workload_map.cli.commands import (
        auth,
        capacity,
        catalog,
        components,
        definitions,
        describe,
        explain,
        fit,
        gang,
        get,
        queues,
        record,
        serve,
        snapshot,
        update,
        validate,
    )

    for module in (
        get,
        describe,
        explain,
        gang,
        components,
        capacity,
        fit,
        queues,
        update,
        snapshot,
        record,
        catalog,
        definitions,
        validate,
        auth,
        serve,
    ):
        cli.add_command(module.command)


_register()


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> None:
    # SIGTERM's default action skips exit hooks; as an exit they run and end helper processes (the
    # libjq worker) before wmap is gone, as Ctrl-C does.
    # Only from the main thread: a host running the CLI in another thread keeps its own handling.
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "wmap"
    prog_name = "kubectl wmap" if prog == "kubectl-wmap" else "wmap"
    cli.main(args=argv, prog_name=prog_name, complete_var=COMPLETE_VAR)


if __name__ == "__main__":  # pragma: no cover
    main()
