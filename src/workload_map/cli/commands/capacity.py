"""``wmap capacity``: free GPUs, CPU and memory per cluster, per node pool and per node (docs/placement.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.options import all_namespaces_option, fleet_source_options, namespace_option, output_option

if TYPE_CHECKING:
    from workload_map import ClusterOptions


@click.command("capacity")
@namespace_option
@all_namespaces_option
@output_option(("text", "json", "yaml"), "text")
@click.option(
    "--pool-label",
    metavar="LABEL",
    default=None,
    help="Group nodes into pools by this node label (e.g. nvidia.com/gpu.product); nodes without it: <none>.",
)
@click.option("--nodes", "show_nodes", is_flag=True, help="Also list every node with its free block.")
@fleet_source_options
def command(  # noqa: PLR0917 - click passes every option by name
    namespace: str | None,
    all_namespaces: bool,
    output: str,
    pool_label: str | None,
    show_nodes: bool,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Show what the cluster has free: nodes (allocatable, taints, cordoned, Ready), minus the effective
    requests of the non-terminal pods bound to them, per pool and in total, and namespace ResourceQuotas
    (those of -n NS, or of every namespace with -A).

    \b
    With --context repeated or --all-contexts, every cluster at once, a CLUSTER column first.
    Free counts only the nodes any pod can use (Ready, not cordoned, no NoSchedule/NoExecute taint but
    those of an extended resource the node offers, such as nvidia.com/gpu); TAINTED (FREE) counts the other
    schedulable nodes and what is free on them, for pods that tolerate their taints (wmap fit honours
    tolerations). The largest free block is the node with the most free GPUs (then CPU) any pod can use.
    \b
    Examples:
      wmap capacity --pool-label nvidia.com/gpu.product
      wmap capacity --nodes --from-file cluster.yaml
      wmap capacity -A -o json
      wmap capacity --all-contexts --pool-label nvidia.com/gpu.product
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import as_list, echo_document, echo_table, emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.placement import NODE_HEADERS, POOL_HEADERS, QUOTA_HEADERS, node_row, pool_row, quota_rows  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import is_fleet, open_fleet, open_view, require_some  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import EXIT_PARTIAL, from_library  # noqa: PLC0415 (a command's --help loads only click)

    # Nodes, quotas and the pods on the nodes; no workload.
    scope: dict[str, Any] = {"namespace": namespace, "all_namespaces": all_namespaces, "connection": connection}
    models: list[tuple[str | None, wm.Capacity]] = []
    warnings: list[str] = []
    try:
        if is_fleet(connection):
            fleet = open_fleet(from_file, definition_paths, **scope, capacity="only")
            fleet.close()
            require_some(fleet)
            models = list(fleet.capacity().items())
            warnings = list(fleet.warnings)
            partial = fleet.partial
        else:
            view = open_view(from_file, definition_paths, **scope, capacity="only")
            view.close()
            models = [(None, view.capacity())]
            partial = False
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    for cluster, capacity in models:
        prefix = f"cluster {cluster}: " if cluster is not None else ""
        warnings += [prefix + w for w in [*capacity.warnings, *capacity.label_warnings(pool_label)]]
        partial = partial or (from_file == () and any("may not list" in w for w in capacity.warnings))
    fleet_mode = models[0][0] is not None
    column = (lambda c, row: [c or "", *row]) if fleet_mode else (lambda c, row: row)
    heads = (lambda h: ("CLUSTER", *h)) if fleet_mode else (lambda h: h)
    if output in ("json", "yaml"):
        documents = [
            {"cluster": c, **m.to_json(pool_label)} if c is not None else m.to_json(pool_label) for c, m in models
        ]
        echo_document(as_list(documents) if fleet_mode else documents[0], output)
    else:
        rows = []
        for cluster, capacity in models:
            pools = [pool_row(p) for p in capacity.pools(pool_label)] if pool_label else []
            rows += [column(cluster, r) for r in [*pools, pool_row(capacity.total())]]
        echo_table(heads(POOL_HEADERS), rows)
        if show_nodes:
            click.echo("")
            echo_table(heads(NODE_HEADERS), [column(c, node_row(n, pool_label)) for c, m in models for n in m.nodes])
        quotas = [column(c, r) for c, m in models for r in quota_rows(m)]
        if quotas:
            click.echo("")
            echo_table(heads(QUOTA_HEADERS), quotas)
    emit_warnings(warnings)
    if partial:
        raise click.exceptions.Exit(EXIT_PARTIAL)
