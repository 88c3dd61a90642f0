"""``wmap record TYPE/NAME``: watch one workload and write its transitions as a Recording."""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING

import click

from workload_map.cli.options import STATUSES, definitions_option, namespace_option, target_argument
from workload_map.cmdline.cluster_options import connection_options as kubectl_connection_options

if TYPE_CHECKING:
    from workload_map import ClusterOptions
    from workload_map.ports.commands import RecordEnd, StatusChange

_ENDS = {
    "until": "reached {status}",
    "timeout": "--timeout passed",
    "max-events": "--max-events reached",
    "deleted": "the workload was deleted",
    "stopped": "stopped",
    "interrupted": "interrupted",
}


@click.command("record")
@target_argument("TYPE/NAME | TYPE NAME", required=True)
@namespace_option
@click.option(
    "-o",
    "--output",
    "output_file",
    metavar="FILE",
    default=None,
    help="Write the recording to FILE as it is made (default: stdout); Ctrl-C keeps what was recorded.",
)
@click.option(
    "--timeout",
    "record_timeout",
    metavar="DURATION",
    default=None,
    help='Stop recording after DURATION ("30s", "10m"; default: none).',
)
@click.option(
    "--until",
    type=click.Choice(STATUSES, case_sensitive=False),
    default=None,
    help="Stop once the workload's primary status is STATUS.",
)
@click.option("--max-events", type=click.IntRange(min=1), default=None, help="Stop after N recorded events.")
@definitions_option
@kubectl_connection_options
def command(  # noqa: PLR0917 - the command's options
    target: tuple[str, ...],
    namespace: str | None,
    output_file: str | None,
    record_timeout: str | None,
    until: str | None,
    max_events: int | None,
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (cmdline.cluster_options.connection_options)
) -> None:
    """Record one workload's transitions: watch it, its children and its pods, and write the Recording.

    The workload is read once (its root, the child kinds its definition names, its pods, and the Events
    about them); then every change to them is written, with the time it was seen, as it happens. Each
    change of the workload's status is printed on stderr. The recording ends with --until, --timeout,
    --max-events, Ctrl-C or when the workload is deleted; the file is a valid recording at every moment.
    Check a definition against it with: wmap definitions test DEF --samples FILE (docs/authoring.md).
    Exit status: 0 recorded (also on Ctrl-C); 1 --until not reached, or the watch failed (what was
    recorded is kept); 2 usage; 3 workload not found; 4 no definition for TYPE.

    \b
    Examples:
      wmap record jobset/pi -n team-a -o pi.yaml --until Completed --timeout 10m
      wmap record pytorchjob train --max-events 200 > train.yaml
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import open_view  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.workloads import find_one, kind_name, one_target  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import CliError, from_library  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.commands import RecordEnd, Recorder  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.kube import parse_timeout  # noqa: PLC0415 (a command's --help loads only click)

    try:
        timeout = parse_timeout(record_timeout, "--timeout")
    except wm.WorkloadMapError as exc:
        raise click.BadParameter(exc.message + (f"; {exc.hint}" if exc.hint else ""), param_hint="--timeout") from None
    view = open_view((), definition_paths, namespace=namespace, connection=connection, describe=one_target(target))
    try:
        root = find_one(view, target)
        source = view.live_source
        if source is None:  # pragma: no cover - open_view without --from-file is always live
            raise CliError("wmap record needs a live cluster")
        emit_warnings(view.warnings)
        out = _open(output_file)
        name = kind_name(root)
        try:
            recorder = Recorder(source, root, out)
        except wm.WorkloadMapError as exc:
            raise from_library(exc) from None
        emit_warnings(recorder.warnings)
        failure: wm.WorkloadMapError | None = None
        try:
            end = recorder.run(
                until=until,
                timeout=timeout,
                max_events=max_events,
                on_status=lambda change: _print_status(name, change),
                on_warnings=emit_warnings,
            )
        except KeyboardInterrupt:  # Ctrl-C ends a recording, as it ends a watch: what was recorded is kept
            end = RecordEnd("interrupted", recorder.writer.events, recorder.status.primary)
        except wm.WorkloadMapError as exc:
            end, failure = RecordEnd("failed", recorder.writer.events, recorder.status.primary), exc
        recorder.close()
        if out is not sys.stdout:
            out.close()
    finally:
        view.close()
    where = f" to {output_file}" if output_file else ""
    if failure is not None:
        click.echo(f"recorded {end.events} event(s) of {name}{where} before the watch failed", err=True)
        raise from_library(failure) from None
    _summary(name, end, where)
    if until is not None and end.reason not in ("until", "interrupted"):
        raise click.exceptions.Exit(1)


def _open(output_file: str | None) -> IO[str]:
    from workload_map.cmdline.errors import CliError  # noqa: PLC0415 (a command's --help loads only click)

    if output_file is None or output_file == "-":
        return sys.stdout
    try:
        return open(output_file, "w", encoding="utf-8")
    except OSError as exc:
        raise CliError("cannot write the recording", where=output_file, why=exc.strerror or str(exc)) from None


def _print_status(name: str, change: StatusChange) -> None:
    if change.primary is None:
        text = "deleted" if change.error == "deleted" else f"status not resolved: {change.error}"
    else:
        extra = [m for m in change.matched if m != change.primary]
        text = change.primary + (f" (also {', '.join(extra)})" if extra else "")
    sys.stdout.flush()
    click.echo(f"{change.at}  {name}  {text}  after {change.events} event(s)", err=True)


def _summary(name: str, end: RecordEnd, where: str) -> None:
    why = _ENDS.get(end.reason, end.reason).format(status=end.status)
    click.echo(f"recorded {end.events} event(s) of {name}{where}: {why}", err=True)
