"""``wmap validate``: load definitions and report every finding with its location."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.options import output_option
from workload_map.cmdline.errors import EXIT_ERROR

if TYPE_CHECKING:
    from workload_map import Finding, Location


def _finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "severity": finding.severity.value,
        "source": finding.location.source,
        "document": finding.location.document,
        "path": finding.location.path,
        "message": finding.message,
        "expression": finding.expression,
    }


def _within(finding: Finding, location: Location) -> bool:
    """Whether a finding is about the definition loaded at ``location``."""
    found = finding.location
    return (
        found.source == location.source and found.document == location.document and found.path.startswith(location.path)
    )


@click.command("validate")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option(
    "--against",
    "against",
    multiple=True,
    metavar="OBJECT_FILE",
    help="Also evaluate every expression on these sample workload objects and pods (repeatable).",
)
@output_option(("text", "json"), "text")
def command(files: tuple[str, ...], against: tuple[str, ...], output: str) -> None:
    """Validate workload definitions (Karta YAML/JSON files, directories, or - for stdin).

    Every finding is printed with its file, document index and field path. Exit status: 0 valid
    (warnings allowed), 1 findings, 2 usage.

    \b
    Examples:
      wmap validate my-karta.yaml
      wmap validate definitions/ --against samples/jobset.yaml
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import to_json_text  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import from_library  # noqa: PLC0415 (a command's --help loads only click)

    try:
        report = wm.validate_definitions(files, against=against)
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    loaded, findings, errors = report.definitions, report.findings, report.errors

    if output == "json":
        document = {
            "valid": not errors,
            "definitions": [
                {"name": d.name, "source": d.location.source, "document": d.location.document} for d in loaded
            ],
            "findings": [_finding_json(f) for f in findings],
        }
        click.echo(to_json_text(document), nl=False)
    else:
        for finding in findings:
            click.echo(str(finding))
        for definition in loaded:
            if not any(_within(f, definition.location) for f in errors):
                click.echo(f"{definition.location}: definition {definition.name!r} is valid")
        if errors:
            noun = "error" if len(errors) == 1 else "errors"
            sources = len({f.location.source for f in errors})
            click.echo(f"{len(errors)} {noun} in {sources} source(s)", err=True)
    if errors:
        raise click.exceptions.Exit(EXIT_ERROR)
