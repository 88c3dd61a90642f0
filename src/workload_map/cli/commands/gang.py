"""``wmap gang``: the pod groups a workload needs for gang scheduling, and their manifests (docs/gang.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.options import fleet_source_options, namespace_option, output_option, target_argument

if TYPE_CHECKING:
    from workload_map import ClusterOptions, Emission, GangPlan

SCHEDULER_CHOICES = ("kai", "volcano", "coscheduling", "workload-api")


@click.command("gang")
@target_argument("TYPE/NAME | TYPE NAME", required=True)
@namespace_option
@output_option(("text", "json", "yaml"), "text")
@click.option(
    "--for",
    "scheduler",
    type=click.Choice(SCHEDULER_CHOICES),
    default=None,
    help="Print the PodGroup manifests for this scheduler (with -o yaml|json) instead of the plan.",
)
@click.option("--queue", default=None, help="Queue for KAI/Volcano PodGroups (default: from labels).")
@click.option("--schedule-timeout", type=int, default=None, help="coscheduling scheduleTimeoutSeconds.")
@click.option(
    "--workload-api-version",
    type=click.Choice(("v1beta1", "v1alpha1")),
    default="v1beta1",
    show_default=True,
    help="scheduling.k8s.io version for --for workload-api (v1alpha1 is Kubernetes 1.35 only).",
)
@fleet_source_options
def command(  # noqa: PLR0917 - click passes every option by name
    target: tuple[str, ...],
    namespace: str | None,
    output: str,
    scheduler: str | None,
    queue: str | None,
    schedule_timeout: int | None,
    workload_api_version: str,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Show the gang groups of a workload as KAI Scheduler's Karta grouper computes them: names, members,
    minimum sizes, which members are missing or pending and why, and the minimum resources.

    \b
    Without pods the groups come from the spec alone and are marked "expected".
    -o json|yaml prints the plan (docs/gang.md); with --for SCHEDULER it prints that scheduler's
    PodGroup manifests (a List when there are several) and, on stderr, how pods attach to them.
    \b
    Examples:
      wmap gang lws/llama -n serving --from-file dump.yaml
      wmap gang pytorchjob/train -o yaml --for volcano --from-file dump.yaml
      wmap gang job/train -n ml --context east --context west -o json
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import as_list, echo_document, emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import open_target  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.workloads import tree_of  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import EXIT_PARTIAL, from_library  # noqa: PLC0415 (a command's --help loads only click)

    if scheduler is not None and output == "text":
        raise click.UsageError("--for prints manifests: use it with -o yaml or -o json")
    found, warnings, partial = open_target(
        from_file, definition_paths, target, namespace=namespace, connection=connection
    )
    documents: list[dict[str, Any]] = []
    for index, (cluster, view, workload) in enumerate(found):
        try:
            plan = view.gang(workload)
        except wm.WorkloadMapError as exc:
            raise from_library(exc) from None
        # Its pods (or parts) could not be read: which members are present is unknown, not zero.
        incomplete = tree_of(view, workload).incomplete
        prefix = f"cluster {cluster}: " if cluster is not None else ""
        warnings += [prefix + w for w in plan.warnings]
        if scheduler is not None:
            emission = wm.emit_pod_groups(
                plan,
                scheduler,
                queue=queue,
                schedule_timeout_seconds=schedule_timeout,
                workload_api_version=workload_api_version,
            )
            documents += emission.objects
            warnings += [prefix + w for w in emission.warnings]
            _attachments(emission, prefix, bool(incomplete))
        elif output in ("json", "yaml"):
            document = plan.to_json()
            if incomplete:
                document["incomplete"] = list(incomplete)
            documents.append({"cluster": cluster, **document} if cluster is not None else document)
        else:
            if index:
                click.echo("")
            _text(workload, plan, cluster, incomplete)
    if output != "text":
        single = len(documents) == 1 and found[0][0] is None
        echo_document(documents[0] if single else as_list(documents), output)
    emit_warnings(warnings)
    if partial:
        raise click.exceptions.Exit(EXIT_PARTIAL)  # printed what it could read; the warnings say what not


def _attachments(emission: Emission, prefix: str, incomplete: bool) -> None:
    """How pods attach to the emitted groups, on stderr (stdout holds the manifests)."""
    import json  # noqa: PLC0415 (a command's --help loads only click)

    for a in emission.attachments:
        who = ", ".join(a.pods) or ("(not readable)" if incomplete else "(none yet)")
        where = a.group + (f"/{a.sub_group}" if a.sub_group else "")
        patch = json.dumps(a.patch(), separators=(",", ":"))
        click.echo(f"{prefix}Attach to {where}: pods {who} need {patch}", err=True)


def _text(workload: dict[str, Any], plan: GangPlan, cluster: str | None, incomplete: list[str]) -> None:
    from workload_map.cli.output import echo_table  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.objects import key_of  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.present import HEADERS, detail_lines, table_rows  # noqa: PLC0415 (a command's --help loads only click)

    form = plan.form or "none"
    source = "from its pods" if plan.mode == "pods" else "from the spec (no pods yet)"
    if incomplete:
        source = f"from the spec (its pods could not be read: {'; '.join(incomplete)})"
    if cluster is not None:
        click.echo(f"Cluster: {cluster}")
    click.echo(f"{workload.get('kind')}/{key_of(workload).name} in namespace {key_of(workload).namespace}")
    click.echo(f"Definition: {plan.definition}, gang form {form}, groups computed {source}")
    if plan.groups:
        click.echo("")
        echo_table(HEADERS, table_rows(plan, unknown=bool(incomplete)))
    details = detail_lines(plan, unknown=bool(incomplete))
    if details:
        click.echo("")
        click.echo("\n".join(details))
