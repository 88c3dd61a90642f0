"""``wmap describe``: one workload in full: header, tree, status explanation, resources, warnings."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from workload_map.cli.options import fleet_source_options, namespace_option, output_option, target_argument

if TYPE_CHECKING:
    from workload_map import ClusterOptions, QueuedWorkload, WorkloadEvent, WorkloadTree


@click.command("describe")
@target_argument("TYPE/NAME | TYPE NAME", required=True)
@namespace_option
@output_option(("text", "tree", "json", "yaml"), "text")
@click.option(
    "--show-events",
    type=bool,
    default=True,
    show_default=True,
    metavar="BOOL",
    help="List the Events of the workload, the objects it owns and its pods (kubectl's flag: "
    "--show-events=false reads and prints none).",
)
@fleet_source_options
def command(  # noqa: PLR0917 - click passes the command's options
    target: tuple[str, ...],
    namespace: str | None,
    output: str,
    show_events: bool,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Show one workload: its components, instances, replicas and pods, why it has its status, and
    what it requests.

    \b
    -o tree prints only the tree; -o json|yaml prints the tree document (docs/tree-json.md).
    The text ends with the Events (a cluster: one list of the namespace's Events; a dump: its Events).
    \b
    Examples:
      wmap describe jobset/train --from-file dump.yaml
      wmap describe lws llama -n serving -o json --from-file dump.yaml
      wmap describe job/train -n ml --context east --context west
    """
    from workload_map.cli.output import echo_document, emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import is_fleet, open_view  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.workloads import exit_if_partial, find_one, one_target, tree_of  # noqa: PLC0415 (a command's --help loads only click)

    events = show_events and output == "text"
    if is_fleet(connection):
        _fleet(target, namespace, output, definition_paths, connection, from_file, events=events)
        return
    view = open_view(
        from_file,
        definition_paths,
        namespace=namespace,
        connection=connection,
        describe=one_target(target),
        queues=True,
        events=events,
    )
    view.close()  # everything is read: the rest works on what was read
    workload = find_one(view, target)
    tree = tree_of(view, workload)

    if output in ("json", "yaml"):
        echo_document(tree.to_json(), output)
    else:
        _print(tree, output, queued=view.queued(tree), events=view.events(tree) if events else None)
    emit_warnings([*view.warnings, *tree.warnings])
    exit_if_partial(view)


def _print(
    tree: WorkloadTree,
    output: str,
    cluster: str | None = None,
    queued: QueuedWorkload | None = None,
    events: list[WorkloadEvent] | None = None,
) -> None:
    from workload_map.cli.output import render  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.render import glyphs_for_stdout, header_lines, resources_lines, rich_tree, status_lines  # noqa: PLC0415 (a command's --help loads only click)

    if output == "text":
        click.echo("\n".join(header_lines(tree, cluster)))
        if queued is not None:
            click.echo(_queue_line(queued))
        click.echo("\nTree:")
    elif cluster is not None:
        click.echo(f"Cluster: {cluster}")
    click.echo(render(rich_tree(tree)), nl=False)
    if output == "text":
        click.echo("\nStatus:")
        click.echo("\n".join("  " + line for line in status_lines(tree.status, glyphs_for_stdout(), full=False)))
        click.echo(f"  (every status rule and its jq: wmap explain {_target(tree)})")
        click.echo("\nResources (per pod; TOTAL = every desired pod):")
        click.echo("\n".join("  " + line for line in resources_lines(tree)))
    if output == "text" and events is not None:
        click.echo("\n" + "\n".join(_events_lines(events)))


def _events_lines(events: list[WorkloadEvent]) -> list[str]:
    """kubectl describe's Events section (Type, Reason, Age, From, Message; "x3 over 5m" for repeats), with
    the Object each event is about, since a workload's events come from its root, children and pods."""
    from workload_map.cli.output import age  # noqa: PLC0415 (a command's --help loads only click)

    if not events:
        return ["Events:  <none>"]
    header = ("Type", "Reason", "Age", "From", "Object", "Message")
    rows = [header, ("----", "------", "----", "----", "------", "-------")]  # kubectl's rulers
    for event in events:
        seen = age(event.last_seen)
        if event.count > 1:
            seen = f"{seen} (x{event.count} over {age(event.first_seen)})"
        thing = f"{event.object_kind.lower()}/{event.object_name}"
        message = " ".join(event.message.split())  # one line per event, as kubectl's table keeps it
        rows.append((event.type, event.reason, seen, event.source, thing, message))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = ["Events:"]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append(("  " + "  ".join([*cells, row[-1]])).rstrip())
    return lines


def _target(tree: WorkloadTree) -> str:
    from workload_map import display_type  # noqa: PLC0415 (a command's --help loads only click)

    return f"{display_type(tree.group, tree.kind).lower()}/{tree.name} -n {tree.namespace}"


def _fleet(  # noqa: PLR0917 - the command's options, passed on
    target: tuple[str, ...],
    namespace: str | None,
    output: str,
    definition_paths: tuple[str, ...],
    connection: ClusterOptions,
    from_file: tuple[str, ...],
    *,
    events: bool,
) -> None:
    """The workload in every cluster of the fleet that has it, one after the other (a List for -o json|yaml)."""
    from workload_map.cli.output import as_list, echo_document, emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import fleet_exit, fleet_found, open_fleet  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.workloads import one_target, tree_of  # noqa: PLC0415 (a command's --help loads only click)

    fleet = open_fleet(
        from_file,
        definition_paths,
        namespace=namespace,
        connection=connection,
        describe=one_target(target),
        queues=True,
        events=events,
    )
    fleet.close()  # everything is read
    found = fleet_found(fleet, one_target(target))
    trees = [(cluster, tree_of(fleet.view(cluster), obj)) for cluster, obj in found]
    if output in ("json", "yaml"):
        echo_document(as_list([{"cluster": cluster, **tree.to_json()} for cluster, tree in trees]), output)
    else:
        for index, (cluster, tree) in enumerate(trees):
            if index:
                click.echo("")
            view = fleet.view(cluster)
            _print(tree, output, cluster, view.queued(tree), view.events(tree) if events else None)
    emit_warnings([*fleet.warnings, *(w for _, tree in trees for w in tree.warnings)])
    fleet_exit(fleet)


def _queue_line(queued: QueuedWorkload) -> str:
    """``Queue:      kueue a-queue: Pending (Pending: <the scheduler's message>)``, aligned with the header
    (its widest key is "Definition:"); docs/queues.md."""
    text = f"{queued.scheduler} {queued.queue}"
    if queued.queue_key is None:
        text += " (not found)"
    text += f": {queued.state}"
    reason = queued.reason + (f": {queued.message}" if queued.message else "")
    if reason:
        text += f" ({reason})"
    return "Queue:".ljust(12) + text
