"""``wmap auth``: the minimal RBAC role a user of the CLI needs, derived from the definitions in use."""

from __future__ import annotations

import click

from workload_map.cli.options import definitions_option


@click.command("auth")
@click.option(
    "--update",
    is_flag=True,
    help="Also allow wmap update and suspend/resume: patch on the covered workload kinds (nothing else).",
)
@click.option(
    "--capacity",
    is_flag=True,
    help="Also allow wmap capacity and fit: list on nodes, on every namespace's pods and on resourcequotas.",
)
@click.option(
    "--queues",
    is_flag=True,
    help="Also allow wmap queues and wmap serve's Queues: get/list/watch on the queue kinds of Kueue, KAI and "
    "Volcano (docs/queues.md).",
)
@click.option(
    "-n",
    "--namespace",
    default=None,
    metavar="NAMESPACE",
    help="A Role for this namespace (plus a ClusterRole for the cluster-scoped Kartas) instead of one "
    "ClusterRole for every namespace.",
)
@click.option("--name", default=None, help="Role name [default: wmap-reader, or wmap-updater with --update].")
@click.option("-o", "--output", type=click.Choice(["yaml", "json"]), default="yaml", help="Output format.")
@definitions_option
def command(  # noqa: PLR0917 - click passes every option by name
    update: bool,
    capacity: bool,
    queues: bool,
    namespace: str | None,
    name: str | None,
    output: str,
    definition_paths: tuple[str, ...],
) -> None:
    """Print the minimal Role/ClusterRole for wmap, ready for kubectl apply.

    Read-only use (get, describe, explain, snapshot, gang) needs get/list/watch on the covered workload
    kinds, the kinds that own their pods, and pods, plus get/list on Kartas; never Secrets, ConfigMaps or
    Services. --update adds patch on the workload kinds; --capacity adds list on nodes, pods of every
    namespace (what the nodes hold) and resourcequotas; --queues adds reads of the schedulers' queue kinds.
    Bind the role with a (Cluster)RoleBinding.

    \b
    Examples:
      wmap auth | kubectl apply -f -
      wmap auth --update -n team-a | kubectl apply -f -
      wmap auth --capacity | kubectl apply -f -
      kubectl create rolebinding alice-wmap -n team-a --role=wmap-reader --user=alice
    """
    from workload_map.cli.output import echo_document, emit_warnings, to_yaml_text  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import definitions_only  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.ports.commands import cli_manifests  # noqa: PLC0415 (a command's --help loads only click)

    definitions, warnings = definitions_only(definition_paths)
    role = name or ("wmap-updater" if update else "wmap-reader")
    docs = cli_manifests(definitions, update=update, capacity=capacity, queues=queues, name=role, namespace=namespace)
    if output == "json":
        echo_document({"apiVersion": "v1", "kind": "List", "items": docs}, "json")
    else:
        click.echo("---\n".join(to_yaml_text(doc) for doc in docs), nl=False)
    emit_warnings(warnings)
