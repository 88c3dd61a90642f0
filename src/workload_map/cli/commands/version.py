"""``wmap version``: the installed version (and Python's, in the structured formats)."""

from __future__ import annotations

import sys

import click

from workload_map.cli.options import output_option


@click.command("version")
@output_option(("text", "json", "yaml"), "text")
def command(output: str) -> None:
    """Print the wmap version."""
    from workload_map import __version__  # noqa: PLC0415 (importlib.metadata only for the version)

    if output == "text":
        click.echo(f"wmap version {__version__}")
        return
    from workload_map.cli.output import echo_document  # noqa: PLC0415 (the writers only for json and yaml)

    echo_document({"version": __version__, "python": ".".join(map(str, sys.version_info[:3]))}, output)
