"""``wmap components``: per pod-producing component, what its pods ask of a cluster (docs/placement.md)."""

from __future__ import annotations

from typing import Any

import click

from workload_map.cli.options import namespace_option, object_source_options, output_option, target_argument


@click.command("components")
@target_argument("TYPE/NAME | TYPE NAME", required=True)
@namespace_option
@output_option(("text", "json", "yaml"), "text")
@object_source_options
def command(
    target: tuple[str, ...],
    namespace: str | None,
    output: str,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    **connection: Any,  # kubectl's connection flags (options.connection_options)
) -> None:
    """List a workload's pod-producing components as multi-cluster schedulers take them: name, replicas,
    per-pod resource requests, node claim (nodeSelector, tolerations, required node affinity) and gang
    minimum members, with the gang groups.

    \b
    -o json|yaml uses Karmada's ComponentRequirements field names (name, replicas,
    replicaRequirements.resourceRequest, replicaRequirements.nodeClaim): docs/placement.md.
    \b
    Examples:
      wmap components jobset/train -n team-a -o json
      wmap components lws/llama -n serving --from-file dump.yaml
    """
    import workload_map as wm
    from workload_map.cli.errors import from_library
    from workload_map.cli.output import echo_document, echo_table, emit_warnings
    from workload_map.cli.sources import open_view
    from workload_map.cli.workloads import exit_if_partial, find_one, one_target
    from workload_map.resolve.resources import to_json

    view = open_view(
        from_file, definition_paths, namespace=namespace, connection=connection, describe=one_target(target)
    )
    view.close()
    workload = find_one(view, target)
    try:
        requirements = view.components(workload)
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    if output in ("json", "yaml"):
        echo_document(requirements.to_json(), output)
    else:
        rows = []
        for c in requirements.components:
            claim = c.node_claim
            rows.append(
                [
                    c.name,
                    str(c.replicas),
                    ",".join(f"{k}={v}" for k, v in to_json(c.resource_request).items()) or "-",
                    ",".join(f"{k}={v}" for k, v in sorted(claim.node_selector.items())) or "-",
                    str(len(claim.tolerations)),
                    "yes" if claim.hard_node_affinity else "no",
                    str(c.min_members),
                ]
            )
        echo_table(
            ("COMPONENT", "REPLICAS", "REQUESTS PER POD", "NODE SELECTOR", "TOLERATIONS", "AFFINITY", "GANG MIN"), rows
        )
        if requirements.gang_groups:
            click.echo("")
            echo_table(
                ("GANG GROUP", "MIN MEMBERS", "MEMBERS"),
                [
                    [g.name, str(g.min_member), ", ".join(f"{n} x{k}" for n, k in g.members.items())]
                    for g in requirements.gang_groups
                ],
            )
    emit_warnings([*view.warnings, *requirements.warnings])
    exit_if_partial(view)
