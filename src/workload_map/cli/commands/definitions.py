"""``wmap definitions``: the workload definitions in effect (built-in plus ``--definitions``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from workload_map.cli.kinds import definition_named
from workload_map.cli.options import definitions_option

if TYPE_CHECKING:
    from workload_map import LoadedDefinition

HEADERS = ("NAME", "KIND", "VERSION", "COMPONENTS", "GANG", "ORIGIN")


def _row(definition: LoadedDefinition) -> list[str]:
    karta = definition.karta
    gvk = karta.identity
    kind = "<none>" if gvk is None else (f"{gvk.kind}.{gvk.group}" if gvk.group else gvk.kind)
    gang = karta.gang
    has_gang = gang is not None and bool(gang.pod_groups or gang.pod_group)
    return [
        definition.name,
        kind,
        gvk.version if gvk else "<none>",
        ",".join(c.name for c in karta.components),
        "yes" if has_gang else "no",
        definition.origin,
    ]


@click.command("show")
@click.argument("name", required=False)
@click.option(
    "-o",
    "--output",
    type=click.Choice(["table", "json", "yaml"]),
    default=None,
    help="Output format [default: table for the list, yaml for one definition].",
)
@definitions_option
def show(name: str | None, output: str | None, definition_paths: tuple[str, ...]) -> None:
    """List the workload definitions in effect, or show one (by name or by the TYPE it covers).

    `wmap definitions [NAME]` is this command.

    \b
    Examples:
      wmap definitions
      wmap definitions jobset -o yaml
      wmap definitions --definitions ./my-karta.yaml
    """
    from workload_map.cli.output import as_list, echo_document, echo_table, emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import definitions_only  # noqa: PLC0415 (a command's --help loads only click)

    definitions, warnings = definitions_only(definition_paths)
    definitions = sorted(definitions, key=lambda d: d.name)
    if name is not None:
        chosen = definition_named(definitions, name)
        fmt = output or "yaml"
        if fmt == "table":
            echo_table(HEADERS, [_row(chosen)])
        else:
            echo_document(chosen.karta.to_dict(), fmt)
    else:
        fmt = output or "table"
        if fmt == "table":
            if definitions:
                # in a terminal: the component list gives way first, then long names are cut
                echo_table(
                    HEADERS,
                    [_row(d) for d in definitions],
                    optional=("COMPONENTS",),
                    truncate=("NAME", "KIND", "COMPONENTS"),
                )
            else:
                click.echo("No definitions found.", err=True)
        else:
            echo_document(as_list([d.karta.to_dict() for d in definitions]), fmt)
    emit_warnings(warnings)


class _DefinitionsGroup(click.Group):
    """``wmap definitions [NAME]`` lists or shows (the ``show`` subcommand); other words are subcommands.

    Definition names are slugs (``batch-job-v1``) and TYPE spellings, never a subcommand's word, so the
    first argument decides without ambiguity.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help")):
            args = ["show", *args]
        return super().parse_args(ctx, args)


@click.group("definitions", cls=_DefinitionsGroup)
def command() -> None:
    """The workload definitions in effect (list, show); drafting one (new) and testing it against samples.

    \b
    Examples:
      wmap definitions
      wmap definitions jobset -o yaml
      wmap definitions test my-karta.yaml --samples samples/
      wmap definitions new --crd crd.yaml --sample captured.yaml > my-karta.yaml
    """


command.add_command(show)


def _register_subcommands() -> None:
    # Authoring commands live in their own module (their bodies import the library lazily).
    from workload_map.cli.commands import definitions_new, definitions_testing  # noqa: PLC0415 (a command's --help loads only click)

    command.add_command(definitions_testing.command)
    command.add_command(definitions_new.command)


_register_subcommands()
