"""The ``wmap`` entry point: the command group, its table of commands and error handling.

Only click is imported here at load time; see the package docstring.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.process_exit import ending_here, exit_without_teardown
from workload_map.cli.program import COMPLETE_VAR, MAX_CONTENT_WIDTH, prog_name

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": MAX_CONTENT_WIDTH}


class WmapGroup(click.Group):
    """Turns every failure into one ``error:`` line (or a traceback with ``--debug``)."""

    def invoke(self, ctx: click.Context) -> Any:
        from workload_map.cmdline.errors import one_line_errors  # noqa: PLC0415 (not for --help: it never invokes)

        with one_line_errors(bool(ctx.params.get("debug"))):
            return super().invoke(ctx)


# The commands, loaded when one runs: `wmap --help` and completion of command names list them from this table
# without importing a command module (and the library behind it); tests/cli/test_lazy_commands.py holds each
# help line equal to the command's own. A command module is still imported for its own --help, so it loads only
# click at import and the library in the command's body (each such import says so on its line).
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "get": (
        "workload_map.cli.commands.get",
        "List workloads: one row per top-level workload, or every workload of TYPE.",
    ),
    "describe": (
        "workload_map.cli.commands.describe",
        (
            "Show one workload: its components, instances, replicas and pods, why it has its status, and what"
            " it requests."
        ),
    ),
    "explain": (
        "workload_map.cli.commands.explain",
        (
            "Explain a workload's status: the phase, the conditions, and every mapped status with each "
            "matcher's checks (expected and actual)."
        ),
    ),
    "gang": (
        "workload_map.cli.commands.gang",
        (
            "Show the gang groups of a workload as KAI Scheduler's Karta grouper computes them: names, "
            "members, minimum sizes, which members are missing or pending and why, and the minimum resources."
        ),
    ),
    "components": (
        "workload_map.cli.commands.components",
        (
            "List a workload's pod-producing components as multi-cluster schedulers take them: name, "
            "replicas, per-pod resource requests, node claim (nodeSelector, tolerations, required node "
            "affinity) and gang minimum members, with the gang groups."
        ),
    ),
    "capacity": (
        "workload_map.cli.commands.capacity",
        (
            "Show what the cluster has free: nodes (allocatable, taints, cordoned, Ready), minus the "
            "effective requests of the non-terminal pods bound to them, per pool and in total, and namespace "
            "ResourceQuotas (those of -n NS, or of every namespace with -A)."
        ),
    ),
    "fit": (
        "workload_map.cli.commands.fit",
        (
            "Say whether a workload fits on the cluster now and how many complete copies would: every gang "
            "group placed whole or not at all, per-pod requests, nodeSelector, required node affinity, taints"
            " and tolerations, per-node packing and the namespace's ResourceQuotas."
        ),
    ),
    "queues": (
        "workload_map.cli.commands.queues",
        "Show the queues of the schedulers installed (Kueue ClusterQueues, Cohorts and LocalQueues, KAI "
        "Queues, Volcano Queues) as a tree: quota and limit, GPUs their admitted workloads hold, GPUs borrowed "
        "over quota, workloads admitted and waiting, and the GPUs the waiting ones ask for.",
    ),
    "update": (
        "workload_map.cli.commands.update",
        (
            "Update the pod templates of a workload (scheduler, labels, annotations, priority class, "
            "resources, image, node selector, tolerations, affinity, resource claims) at the places its "
            "definition says they live, or suspend/resume it."
        ),
    ),
    "snapshot": (
        "workload_map.cli.commands.snapshot",
        (
            "Save the cluster's workloads, the objects between them and their pods, the pods and the "
            "cluster's Karta definitions into one List file, so that every command can later read it with "
            "--from-file FILE (same output as live)."
        ),
    ),
    "record": (
        "workload_map.cli.commands.record",
        "Record one workload's transitions: watch it, its children and its pods, and write the Recording.",
    ),
    "catalog": (
        "workload_map.cli.commands.catalog",
        "Install the built-in definitions on a cluster as Karta objects (kartas.run.ai), or compare them.",
    ),
    "definitions": (
        "workload_map.cli.commands.definitions",
        ("The workload definitions in effect (list, show); drafting one (new) and testing it against samples."),
    ),
    "validate": (
        "workload_map.cli.commands.validate",
        "Validate workload definitions (Karta YAML/JSON files, directories, or - for stdin).",
    ),
    "auth": (
        "workload_map.cli.commands.auth",
        "Print the minimal Role/ClusterRole for wmap, ready for kubectl apply.",
    ),
    "serve": (
        "workload_map.cli.commands.serve",
        "Watch the cluster and serve its workloads: a dashboard, a JSON API and Prometheus metrics.",
    ),
    "version": ("workload_map.cli.commands.version", "Print the wmap version."),
    "completion": ("workload_map.cli.commands.completion", "Print a shell completion script."),
}


class LazyCommands(WmapGroup):
    """A group whose commands of LAZY_COMMANDS are imported only when one is asked for by name."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            module = importlib.import_module(LAZY_COMMANDS[cmd_name][0])
            self.add_command(module.command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def _short_help(self, ctx: click.Context, name: str, limit: int = 45) -> str | None:
        if name in LAZY_COMMANDS and name not in self.commands:
            return click.Command(name, help=LAZY_COMMANDS[name][1]).get_short_help_str(limit)
        command = self.get_command(ctx, name)
        return None if command is None or command.hidden else command.get_short_help_str(limit)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))  # click's own width for the help column
        rows = [(name, line) for name in names if (line := self._short_help(ctx, name, limit))]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        # Command names come from the table; options and arguments of a command are completed by the
        # command itself once its name is typed (click resolves it through get_command).
        from click.shell_completion import CompletionItem  # noqa: PLC0415 (only when completing)

        items = [
            CompletionItem(name, help=self._short_help(ctx, name))
            for name in self.list_commands(ctx)
            if name.startswith(incomplete)
        ]
        if incomplete.startswith("-") or not items:
            items += click.Command.shell_complete(self, ctx, incomplete)
        return items


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return

    from workload_map import __version__  # noqa: PLC0415 (importlib.metadata only for the version)

    click.echo(f"wmap version {__version__}")
    ctx.exit()


@click.group(cls=LazyCommands, context_settings=CONTEXT_SETTINGS)
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


def group_help(prog: str) -> tuple[str, int]:
    """What ``PROG --help`` prints (click's help option echoes the context's help and a newline), and the width
    click's formatter wrapped it at: for the help cache (``workload_map.cli.entry``)."""
    ctx = click.Context(cli, info_name=prog, **cli.context_settings)
    return ctx.get_help() + "\n", ctx.make_formatter().width


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> None:
    # SIGTERM's default action skips exit hooks; as an exit they run and end helper processes (the
    # libjq worker) before wmap is gone, as Ctrl-C does.
    # Only the main thread may set a handler (ValueError elsewhere): a host running the CLI in another thread
    # keeps its own handling.
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGTERM, _exit_on_sigterm)
    if argv is None:  # the console script: the process ends with the command
        ending_here()
    try:
        cli.main(args=argv, prog_name=prog_name(), complete_var=COMPLETE_VAR)
    except SystemExit as done:
        if argv is None:
            exit_without_teardown(done)
        raise


if __name__ == "__main__":  # pragma: no cover
    main()
