"""``wmap queues``: the schedulers' queues as a tree, with quota, usage and what waits (docs/queues.md)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.options import fleet_source_options, output_option

if TYPE_CHECKING:
    from workload_map import ClusterOptions, Queue, QueuedWorkload, QueueReport

HEADERS: tuple[str, ...] = ("SCHEDULER", "QUEUE", "KIND", "GPU QUOTA", "GPU LIMIT", "GPUS USED", "BORROWED")
HEADERS += ("ADMITTED", "WAITING", "GPUS WAITING")
WIDE = ("GPUS IN USE", "RUNNING", "WEIGHT", "CPU QUOTA", "CPU USED", "MEMORY QUOTA", "MEMORY USED", "REPORTED GPUS")
WORKLOAD_HEADERS = ("NAMESPACE", "WORKLOAD", "QUEUE", "STATE", "STATUS", "GPUS", "GPUS IN USE", "REASON")


@click.command("queues")
@click.argument("names", nargs=-1, metavar="[QUEUE]...")
@click.option("-n", "--namespace", metavar="NS", default=None, help="Count only the workloads of this namespace.")
@click.option(
    "--scheduler", type=click.Choice(("kueue", "kai", "volcano")), default=None, help="Only this scheduler's queues."
)
@click.option("--workloads", "show_workloads", is_flag=True, help="Also list every queued workload and why it waits.")
@output_option(("table", "wide", "json", "yaml"), "table")
@fleet_source_options
def command(  # noqa: PLR0917 - click passes every option by name
    names: tuple[str, ...],
    namespace: str | None,
    scheduler: str | None,
    show_workloads: bool,
    output: str,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Show the queues of the schedulers installed (Kueue ClusterQueues, Cohorts and LocalQueues, KAI
    Queues, Volcano Queues) as a tree: quota and limit, GPUs their admitted workloads hold, GPUs borrowed
    over quota, workloads admitted and waiting, and the GPUs the waiting ones ask for.

    \b
    Queues are cluster-wide: every namespace is read unless -n NS narrows the workloads counted.
    QUEUE names a queue (a LocalQueue as NS/NAME) and shows it with the queues below it.
    --workloads lists each queued workload: its state (Admitted, QuotaReserved, Pending, Inactive,
    Finished, Unknown) and the scheduler's reason (a Kueue Workload condition, a KAI or Volcano PodGroup
    condition). docs/queues.md says where every figure comes from.
    \b
    Examples:
      wmap queues
      wmap queues team-a --workloads
      wmap queues --scheduler kai -o wide
      wmap queues --all-contexts -o json
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import as_list, echo_document, echo_table, emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import fleet_exit, is_fleet, open_fleet, open_view, require_some  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import from_library  # noqa: PLC0415 (a command's --help loads only click)

    scope: dict[str, Any] = {"namespace": namespace, "all_namespaces": namespace is None, "connection": connection}
    reports: list[tuple[str | None, QueueReport]] = []
    fleet = None
    warnings: list[str] = []
    try:
        if is_fleet(connection):
            fleet = open_fleet(from_file, definition_paths, **scope, queues=True)
            fleet.close()
            require_some(fleet)
            reports = list(fleet.queues(namespace=namespace).items())
            warnings = list(fleet.warnings)
        else:
            view = open_view(from_file, definition_paths, **scope, queues=True)
            view.close()
            reports = [(None, view.queues(namespace=namespace))]
            warnings = list(view.warnings)  # as get says them; a refused queue kind is in the report's
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    selected = [(cluster, _selected(report, names, scheduler)) for cluster, report in reports]
    for cluster, (report, _, missing) in selected:
        prefix = f"cluster {cluster}: " if cluster is not None else ""
        warnings += [prefix + w for w in report.warnings]
        warnings += [f"{prefix}queue {name!r} not found" for name in missing]
    fleet_mode = fleet is not None
    if output in ("json", "yaml"):
        documents = []
        for cluster, (report, queues, _) in selected:
            keys = {q.key for q in queues}
            document = {
                "queues": [q.to_json() for q in queues],
                "workloads": [w.to_json() for w in report.workloads if w.queue_key in keys or not names],
                "warnings": report.warnings,
            }
            documents.append({"cluster": cluster, **document} if fleet_mode else document)
        echo_document(as_list(documents) if fleet_mode else documents[0], output)
    else:
        wide = output == "wide"
        heads = (("CLUSTER",) if fleet_mode else ()) + HEADERS + (WIDE if wide else ())
        rows = []
        for cluster, (_, queues, _) in selected:
            for prefix, queue in _walk(queues):
                row = _row(queue, prefix, wide)
                rows.append([cluster or "", *row] if fleet_mode else row)
        if rows:
            echo_table(heads, rows)
        else:
            click.echo("No queues found (no Kueue, KAI or Volcano queue is served, or none matches).", err=True)
        if show_workloads:
            lines = []
            for cluster, (report, queues, _) in selected:
                keys = {q.key for q in queues}
                for item in report.workloads:
                    if item.queue_key in keys or (not names and scheduler in (None, item.scheduler)):
                        row = _workload_row(item)
                        lines.append([cluster or "", *row] if fleet_mode else row)
            if lines:
                click.echo("")
                echo_table((("CLUSTER",) if fleet_mode else ()) + WORKLOAD_HEADERS, lines)
    emit_warnings(warnings)  # a refused queue kind is the read's warning and the report's: said once
    if fleet is not None:
        fleet_exit(fleet)
    if any(missing for _, (_, _, missing) in selected):
        raise click.exceptions.Exit(1)  # kubectl get's NotFound


def _selected(
    report: QueueReport, names: tuple[str, ...], scheduler: str | None
) -> tuple[QueueReport, list[Queue], list[str]]:
    """The queues asked for (with the queues below them), in report order, and the names not found."""
    if not names:
        return report, [q for q in report.queues if scheduler in (None, q.scheduler)], []
    keys: set[str] = set()
    missing = []
    for name in names:
        found = report.find(name, scheduler)
        if not found:
            missing.append(name)
        stack = [q.key for q in found]
        while stack:
            key = stack.pop()
            if key not in keys:
                keys.add(key)
                queue = report.queue(key)
                stack.extend(queue.children if queue is not None else [])
    return report, [q for q in report.queues if q.key in keys], missing


def _walk(queues: list[Queue]) -> list[tuple[str, Queue]]:
    """Depth-first from the queues whose parent is not shown: (tree prefix, queue)."""
    shown = {q.key: q for q in queues}
    out: list[tuple[str, Queue]] = []

    def visit(queue: Queue, prefix: str, indent: str) -> None:
        out.append((prefix, queue))
        children = [shown[k] for k in queue.children if k in shown]
        for index, child in enumerate(children):
            last = index == len(children) - 1
            visit(child, indent + ("└─ " if last else "├─ "), indent + ("   " if last else "│  "))

    for queue in queues:
        if queue.parent not in shown:
            visit(queue, "", "")
    return out


def _figure(value: Decimal | None) -> str:
    from workload_map.cli.output import number  # noqa: PLC0415 (a command's --help loads only click)

    return "-" if value is None else number(value)


def _named(queue: Queue, prefix: str) -> str:
    name = f"{queue.namespace}/{queue.name}" if queue.namespace else queue.name
    if queue.implicit:
        name += " (no Cohort object)"
    if queue.state:
        name += f" [{queue.state}]"
    return prefix + name


def _row(queue: Queue, prefix: str, wide: bool) -> list[str]:
    row = [
        queue.scheduler,
        _named(queue, prefix),
        queue.kind,
        _figure(queue.total("quota")),
        _figure(queue.total("limit")),
        _figure(queue.total("used")),
        _figure(queue.total("borrowed")),
        str(queue.admitted),
        str(queue.waiting),
        _figure(queue.gpus_waiting),
    ]
    if wide:
        from workload_map.cli.output import number  # noqa: PLC0415 (a command's --help loads only click)

        def resource(name: str, attribute: str) -> str:
            values = [getattr(r, attribute) for r in queue.resources if r.resource == name]
            values = [v for v in values if v is not None]
            if not values:
                return "-"
            total = sum(values, Decimal(0))
            if name == "memory":  # bytes, as Gi with one decimal: a queue's memory is never a few bytes
                return number(round(total / 2**30, 1)) + "Gi"
            return number(total)

        row += [
            _figure(queue.gpus_in_use),
            str(queue.running),
            _figure(queue.weight),
            resource("cpu", "quota"),
            resource("cpu", "used"),
            resource("memory", "quota"),
            resource("memory", "used"),
            _figure(queue.total("reported_used")),
        ]
    return row


def _workload_row(item: QueuedWorkload) -> list[str]:
    from workload_map import display_type  # noqa: PLC0415 (a command's --help loads only click)

    reason = item.reason + (f": {item.message}" if item.message else "")
    return [
        item.namespace,
        f"{display_type(item.group, item.kind).lower()}/{item.name}",
        item.queue,
        item.state,
        item.status or "-",
        _figure(item.gpus),
        _figure(item.gpus_in_use),
        reason or "-",
    ]
