"""``wmap components``: per pod-producing component, what its pods ask of a cluster (docs/placement.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from workload_map.cli.options import fleet_source_options, namespace_option, output_option, target_argument

if TYPE_CHECKING:
    from workload_map import ClusterOptions, WorkloadRequirements


@click.command("components")
@target_argument("TYPE/NAME | TYPE NAME", required=True)
@namespace_option
@output_option(("text", "json", "yaml"), "text")
@fleet_source_options
def command(
    target: tuple[str, ...],
    namespace: str | None,
    output: str,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """List a workload's pod-producing components as multi-cluster schedulers take them: name, replicas,
    per-pod resource requests, node claim (nodeSelector, tolerations, required node affinity) and gang
    minimum members, with the gang groups.

    \b
    -o json|yaml uses Karmada's ComponentRequirements field names (name, replicas,
    replicaRequirements.resourceRequest, replicaRequirements.nodeClaim): docs/placement.md.
    With --context repeated or --all-contexts, the workload is read in every cluster that has it, through
    that cluster's definitions: a CLUSTER column first, -o json|yaml a List of one document per cluster,
    each with cluster first; a cluster not read is one warning and exit 5.
    \b
    Examples:
      wmap components jobset/train -n team-a -o json
      wmap components lws/llama -n serving --from-file dump.yaml
      wmap components jobset/train -n team-a --all-contexts -o json
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import as_list, echo_document, emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import open_target  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import EXIT_PARTIAL, from_library  # noqa: PLC0415 (a command's --help loads only click)

    found, warnings, partial = open_target(
        from_file, definition_paths, target, namespace=namespace, connection=connection
    )
    answers: list[tuple[str | None, WorkloadRequirements]] = []
    for cluster, view, workload in found:
        try:
            requirements = view.components(workload)
        except wm.WorkloadMapError as exc:
            raise from_library(exc) from None
        answers.append((cluster, requirements))
        warnings += [(f"cluster {cluster}: " if cluster is not None else "") + w for w in requirements.warnings]
    if output in ("json", "yaml"):
        documents = [
            {"cluster": cluster, **r.to_json()} if cluster is not None else r.to_json() for cluster, r in answers
        ]
        echo_document(documents[0] if found[0][0] is None else as_list(documents), output)
    else:
        _tables(answers)
    emit_warnings(warnings)
    if partial:
        raise click.exceptions.Exit(EXIT_PARTIAL)  # printed what it could read; the warnings say what not


def _tables(answers: list[tuple[str | None, WorkloadRequirements]]) -> None:
    """The components table, then the gang groups'; over a fleet (a cluster named) CLUSTER comes first."""
    from workload_map.cli.output import echo_table  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.present import to_json  # noqa: PLC0415 (a command's --help loads only click)

    fleet = answers[0][0] is not None
    first = ["CLUSTER"] if fleet else []
    rows = []
    groups = []
    for cluster, requirements in answers:
        lead = [str(cluster)] if fleet else []
        for c in requirements.components:
            claim = c.node_claim
            rows.append(
                [
                    *lead,
                    c.name,
                    str(c.replicas),
                    ",".join(f"{k}={v}" for k, v in to_json(c.resource_request).items()) or "-",
                    ",".join(f"{k}={v}" for k, v in sorted(claim.node_selector.items())) or "-",
                    str(len(claim.tolerations)),
                    "yes" if claim.hard_node_affinity else "no",
                    str(c.min_members),
                ]
            )
        groups += [
            [*lead, g.name, str(g.min_member), ", ".join(f"{n} x{k}" for n, k in g.members.items())]
            for g in requirements.gang_groups
        ]
    headers = ("COMPONENT", "REPLICAS", "REQUESTS PER POD", "NODE SELECTOR", "TOLERATIONS", "AFFINITY", "GANG MIN")
    echo_table([*first, *headers], rows)
    if groups:
        click.echo("")
        echo_table([*first, "GANG GROUP", "MIN MEMBERS", "MEMBERS"], groups)
