"""``wmap describe``: one workload in full: header, tree, status explanation, resources, warnings."""

from __future__ import annotations

from typing import Any

import click

from workload_map.cli.options import namespace_option, object_source_options, output_option, target_argument


@click.command("describe")
@target_argument("TYPE/NAME | TYPE NAME", required=True)
@namespace_option
@output_option(("text", "tree", "json", "yaml"), "text")
@object_source_options
def command(
    target: tuple[str, ...],
    namespace: str | None,
    output: str,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    **connection: Any,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Show one workload: its components, instances, replicas and pods, why it has its status, and
    what it requests.

    \b
    -o tree prints only the tree; -o json|yaml prints the tree document (docs/tree-json.md).
    \b
    Examples:
      wmap describe jobset/train --from-file dump.yaml
      wmap describe lws llama -n serving -o json --from-file dump.yaml
    """
    from workload_map.cli.output import echo_document, emit_warnings, render
    from workload_map.cli.render import glyphs_for_stdout, header_lines, resources_lines, rich_tree, status_lines
    from workload_map.cli.sources import open_view
    from workload_map.cli.workloads import exit_if_partial, find_one, one_target, tree_of

    view = open_view(
        from_file, definition_paths, namespace=namespace, connection=connection, describe=one_target(target)
    )
    view.close()  # everything is read: the rest works on what was read
    workload = find_one(view, target)
    tree = tree_of(view, workload)

    if output in ("json", "yaml"):
        echo_document(tree.to_json(), output)
    else:
        if output == "text":
            click.echo("\n".join(header_lines(tree)))
            click.echo("\nTree:")
        click.echo(render(rich_tree(tree)), nl=False)
        if output == "text":
            click.echo("\nStatus:")
            click.echo("\n".join("  " + line for line in status_lines(tree.status, glyphs_for_stdout(), full=False)))
            click.echo("\nResources (per pod; TOTAL = every desired pod):")
            click.echo("\n".join("  " + line for line in resources_lines(tree)))
    emit_warnings([*view.warnings, *tree.warnings])
    exit_if_partial(view)
