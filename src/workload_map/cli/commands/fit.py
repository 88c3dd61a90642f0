"""``wmap fit``: how many complete copies of a workload fit on the cluster now, or why none does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.options import fleet_source_options, namespace_option, output_option, target_argument

if TYPE_CHECKING:
    from workload_map import ClusterOptions


@click.command("fit")
@target_argument("TYPE/NAME | TYPE NAME", required=False)
@click.option(
    "-f",
    "--filename",
    "manifest",
    metavar="FILE",
    default=None,
    help="A workload manifest not created yet (YAML/JSON, - for stdin), resolved through its definition.",
)
@namespace_option
@output_option(("text", "json", "yaml"), "text")
@click.option(
    "--max-copies", type=click.IntRange(min=1), default=1000, show_default=True, help="Stop counting copies here."
)
@fleet_source_options
def command(  # noqa: PLR0917 - click passes every option by name
    target: tuple[str, ...],
    manifest: str | None,
    namespace: str | None,
    output: str,
    max_copies: int,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Say whether a workload fits on the cluster now and how many complete copies would: every gang group
    placed whole or not at all, per-pod requests, nodeSelector, required node affinity, taints and
    tolerations, per-node packing and the namespace's ResourceQuotas.

    \b
    A workload that exists is placed anew: the pods it runs count as free. When it does not fit, the first
    blocking reason says what to change (docs/placement.md describes the algorithm and what it leaves out).
    With --context repeated or --all-contexts, the same workload is fitted on every cluster (through each
    cluster's definitions) and the clusters are ranked: where it fits, the most copies first.
    Exit 5 when part of the capacity (or a cluster) could not be read (the warnings say what).
    \b
    Examples:
      wmap fit jobset/train -n team-a
      wmap fit -f pytorchjob.yaml -n team-a -o json
      wmap fit lws/llama -n serving --from-file cluster.yaml
      wmap fit -f pytorchjob.yaml -n team-a --all-contexts
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import as_list, echo_document, echo_table, emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.placement import FLEET_FIT_HEADERS, fit_lines, fleet_fit_head, fleet_fit_row  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import fleet_found, is_fleet, open_fleet, open_view, require_some  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.workloads import find_one, one_target  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import EXIT_PARTIAL, from_library  # noqa: PLC0415 (a command's --help loads only click)

    if bool(manifest) == bool(target):
        raise click.UsageError("name one workload: TYPE/NAME, or -f FILE for a manifest")
    obj = _manifest(manifest, namespace) if manifest else None
    describe = (str(obj["kind"]), str(obj["metadata"]["name"])) if obj is not None else one_target(target)
    scope = namespace or (obj["metadata"]["namespace"] if obj is not None else None)
    if is_fleet(connection):
        fleet = open_fleet(
            from_file, definition_paths, namespace=scope, connection=connection, describe=describe, capacity=True
        )
        fleet.close()  # everything is read
        if obj is None:
            obj = fleet_found(fleet, describe)[0][1]
        require_some(fleet)
        try:
            results = wm.fit_clusters(fleet.views, obj, max_copies=max_copies)
        except wm.WorkloadMapError as exc:
            raise from_library(exc) from None
        warnings = [*fleet.warnings, *(f"cluster {r.cluster}: {w}" for r in results for w in r.warnings)]
        if output in ("json", "yaml"):
            echo_document(as_list([r.to_json() for r in results]), output)
        else:
            click.echo(fleet_fit_head(results[0]))
            echo_table(FLEET_FIT_HEADERS, [fleet_fit_row(rank, r) for rank, r in enumerate(results, 1)])
        emit_warnings(warnings)
        if fleet.partial or any("may not list" in w for w in warnings):
            raise click.exceptions.Exit(EXIT_PARTIAL)
        return
    view = open_view(
        from_file, definition_paths, namespace=scope, connection=connection, describe=describe, capacity=True
    )
    view.close()
    workload = obj if obj is not None else find_one(view, target)
    try:
        result = view.fit(workload, max_copies=max_copies)
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    if output in ("json", "yaml"):
        echo_document(result.to_json(), output)
    else:
        click.echo("\n".join(fit_lines(result)))
    emit_warnings([*view.warnings, *result.warnings])
    if view.is_live and any("may not list" in w for w in result.warnings):
        raise click.exceptions.Exit(EXIT_PARTIAL)


def _manifest(path: str, namespace: str | None) -> dict[str, Any]:
    """The one workload object of a manifest file, with the namespace it will be created in."""
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import CliError, from_library  # noqa: PLC0415 (a command's --help loads only click)

    try:
        objects = wm.open_dump(path, namespace=None).objects
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    found = [o for o in objects if isinstance(o.get("metadata"), dict) and o["metadata"].get("name")]
    if len(found) != 1:
        raise CliError(
            "cannot fit the manifest",
            where=path,
            why=f"it holds {len(found)} named objects; give exactly one workload",
        )
    obj = dict(found[0])
    metadata = dict(obj["metadata"])
    metadata["namespace"] = namespace or metadata.get("namespace") or "default"
    obj["metadata"] = metadata
    return obj
