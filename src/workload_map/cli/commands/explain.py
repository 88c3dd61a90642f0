"""``wmap explain``: why a workload has its status, matcher by matcher."""

from __future__ import annotations

import click

from workload_map.cli.options import namespace_option, object_source_options, output_option


@click.command("explain")
@click.argument("target", nargs=-1, required=True, metavar="TYPE/NAME | TYPE NAME")
@namespace_option
@output_option(("text", "json", "yaml"), "text")
@object_source_options
def command(
    target: tuple[str, ...],
    namespace: str | None,
    output: str,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
) -> None:
    """Explain a workload's status: the phase, the conditions, and every mapped status with each
    matcher's checks (expected and actual).

    \b
    -o json|yaml prints the "status" object of the tree document (docs/tree-json.md).
    \b
    Example:
      wmap explain jobset/train --from-file dump.yaml
    """
    from workload_map.cli.output import echo_document, emit_warnings
    from workload_map.cli.render import definition_line, glyphs_for_stdout, status_lines
    from workload_map.cli.sources import cluster_view
    from workload_map.cli.workloads import find_one, tree_of

    view = cluster_view(from_file, definition_paths)
    workload = find_one(view, target, namespace)
    tree = tree_of(view, workload)
    if output in ("json", "yaml"):
        echo_document(tree.status.to_json(), output)
    else:
        click.echo(f"{tree.kind}/{tree.name} in namespace {tree.namespace}")
        click.echo(f"Definition: {definition_line(tree)}")
        click.echo("\n".join(status_lines(tree.status, glyphs_for_stdout(), full=True)))
    emit_warnings([*view.warnings, *tree.warnings])
