"""``wmap explain``: why a workload has its status, matcher by matcher."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from workload_map.cli.options import namespace_option, object_source_options, output_option, target_argument

if TYPE_CHECKING:
    from workload_map import ClusterOptions


@click.command("explain")
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
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Explain a workload's status: the phase, the conditions, and every mapped status with each
    matcher's checks (expected and actual).

    \b
    -o json|yaml prints the "status" object of the tree document (docs/tree-json.md).
    \b
    Example:
      wmap explain jobset/train --from-file dump.yaml
    """
    from workload_map.cli.output import echo_document, emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.render import definition_line, glyphs_for_stdout, status_lines  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import open_view  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.workloads import exit_if_partial, find_one, one_target, tree_of  # noqa: PLC0415 (a command's --help loads only click)

    view = open_view(
        from_file, definition_paths, namespace=namespace, connection=connection, describe=one_target(target)
    )
    view.close()  # everything is read: the rest works on what was read
    workload = find_one(view, target)
    tree = tree_of(view, workload)
    if output in ("json", "yaml"):
        echo_document(tree.status.to_json(), output)
    else:
        click.echo(f"{tree.kind}/{tree.name} in namespace {tree.namespace}")
        click.echo(f"Definition: {definition_line(tree)}")
        if tree.incomplete:  # the status may rest on parts that could not be read
            click.echo(f"Incomplete: {'; '.join(tree.incomplete)}")
        click.echo("\n".join(status_lines(tree.status, glyphs_for_stdout(), full=True)))
    emit_warnings([*view.warnings, *tree.warnings])
    exit_if_partial(view)
