"""``wmap catalog install|diff``: the built-in catalog as Karta objects on a cluster."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

import click

from workload_map.cli.options import connection_options as connection_flags

if TYPE_CHECKING:
    from workload_map import ClusterOptions
    from workload_map.ports.kube import Connection

T = TypeVar("T")


@click.group("catalog")
def command() -> None:
    """Install the built-in definitions on a cluster as Karta objects (kartas.run.ai), or compare them.

    \b
    Examples:
      wmap catalog install --dry-run            # what would change, validated by the API server
      wmap catalog install RayJob lws           # only these kinds
      wmap catalog diff                         # exit 1 when the cluster differs from the catalog
    """


def _connect(options: ClusterOptions) -> Connection:
    from workload_map import WorkloadMapError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import CliError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.kube import connect  # noqa: PLC0415 (a command's --help loads only click)

    try:
        return connect(options)
    except WorkloadMapError as exc:
        raise CliError(exc.message, where=str(exc.location), hint=exc.hint) from None


def _run(what: str, work: Callable[[], T]) -> T:
    """Run one catalog operation with a spinner on a terminal; API errors become one-line CLI errors."""
    from workload_map import WorkloadMapError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import stderr_is_tty  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import CliError  # noqa: PLC0415 (a command's --help loads only click)

    try:
        if not stderr_is_tty():
            return work()
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn  # noqa: PLC0415 (a command's --help loads only click)

        from workload_map.cli.output import console  # noqa: PLC0415 (a command's --help loads only click)

        columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
        with Progress(*columns, console=console(sys.stderr), transient=True) as progress:
            progress.add_task(what, total=None)
            return work()
    except WorkloadMapError as exc:
        raise CliError(exc.message, where=str(exc.location), hint=exc.hint) from None


def _check_kinds(kinds: Sequence[str]) -> None:
    """An unknown KIND is exit 4 (no definition covers the type), before any request is made."""
    from workload_map import WorkloadMapError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import CliError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.commands import select  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.definitions import builtin_definitions  # noqa: PLC0415 (a command's --help loads only click)

    try:
        select(builtin_definitions(), kinds)
    except WorkloadMapError as exc:
        raise CliError(exc.message, exit_code=4, hint="wmap definitions lists them") from None


@command.command("install")
@click.argument("kinds", nargs=-1, metavar="[KIND...]")
@click.option("--dry-run", is_flag=True, help="Server-side dry run: the API server validates, nothing is stored.")
@connection_flags
def install(kinds: tuple[str, ...], dry_run: bool, connection: ClusterOptions) -> None:
    """Server-side apply the built-in definitions (all, or the given kinds) with their index labels."""
    from workload_map.ports.commands import install as apply_catalog  # noqa: PLC0415 (a command's --help loads only click)

    _check_kinds(kinds)
    conn = _connect(connection)
    try:
        results = _run("applying the catalog", lambda: apply_catalog(conn, kinds, dry_run=dry_run))
    finally:
        conn.close()
    suffix = " (server dry run)" if dry_run else ""
    for result in results:
        click.echo(f"karta.run.ai/{result.name} {result.action}{suffix}")


@command.command("diff")
@click.argument("kinds", nargs=-1, metavar="[KIND...]")
@connection_flags
def diff(kinds: tuple[str, ...], connection: ClusterOptions) -> None:
    """Show how the cluster's Kartas differ from the built-in catalog (exit 1 when they differ, as kubectl diff)."""
    from workload_map.ports.commands import diff as diff_catalog  # noqa: PLC0415 (a command's --help loads only click)

    _check_kinds(kinds)
    conn = _connect(connection)
    try:
        entries = _run("comparing the catalog", lambda: diff_catalog(conn, kinds))
    finally:
        conn.close()
    differs = False
    for entry in entries:
        if entry.state == "same":
            continue
        differs = True
        if entry.state == "missing":
            click.echo(f"karta.run.ai/{entry.name} ({entry.kind}): missing on the cluster")
        else:
            click.echo(entry.diff, nl=False)
    if differs:
        sys.exit(1)
