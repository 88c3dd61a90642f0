"""``wmap capacity``: free GPUs, CPU and memory per cluster, per node pool and per node (docs/placement.md)."""

from __future__ import annotations

from typing import Any

import click

from workload_map.cli.options import all_namespaces_option, namespace_option, object_source_options, output_option


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
@object_source_options
def command(  # noqa: PLR0917 - click passes every option by name
    namespace: str | None,
    all_namespaces: bool,
    output: str,
    pool_label: str | None,
    show_nodes: bool,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    **connection: Any,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Show what the cluster has free: nodes (allocatable, taints, cordoned, Ready), minus the effective
    requests of the non-terminal pods bound to them, per pool and in total, and namespace ResourceQuotas
    (those of -n NS, or of every namespace with -A).

    \b
    Free counts only schedulable nodes (Ready, not cordoned). The largest free block is the node with the
    most free GPUs (then CPU): what one pod can get at most.
    \b
    Examples:
      wmap capacity --pool-label nvidia.com/gpu.product
      wmap capacity --nodes --from-file cluster.yaml
      wmap capacity -A -o json
    """
    import workload_map as wm
    from workload_map.cli.errors import EXIT_PARTIAL, from_library
    from workload_map.cli.output import echo_document, echo_table, emit_warnings
    from workload_map.cli.placement import NODE_HEADERS, POOL_HEADERS, QUOTA_HEADERS, node_row, pool_row, quota_rows
    from workload_map.cli.sources import open_view

    view = open_view(
        from_file,
        definition_paths,
        namespace=namespace,
        all_namespaces=all_namespaces,
        connection=connection,
        capacity="only",  # nodes, quotas and the pods on the nodes; no workload
    )
    view.close()
    try:
        capacity = view.capacity()
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    if output in ("json", "yaml"):
        echo_document(capacity.to_json(pool_label), output)
    else:
        total = capacity.total()
        rows = [pool_row(p) for p in capacity.pools(pool_label)] if pool_label else []
        echo_table(POOL_HEADERS, [*rows, pool_row(total)])
        if show_nodes:
            click.echo("")
            echo_table(NODE_HEADERS, [node_row(n, pool_label) for n in capacity.nodes])
        quotas = quota_rows(capacity)
        if quotas:
            click.echo("")
            echo_table(QUOTA_HEADERS, quotas)
    emit_warnings(capacity.warnings)
    if view.is_live and any("may not list" in w or "failed" in w for w in capacity.warnings):
        raise click.exceptions.Exit(EXIT_PARTIAL)
