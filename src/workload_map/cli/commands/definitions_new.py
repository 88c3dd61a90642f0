"""``wmap definitions new``: draft a definition from a CRD, sample objects or a live kind."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from workload_map.cli.errors import CliError

if TYPE_CHECKING:
    from workload_map import Draft


@click.command("new")
@click.option("--crd", "crd", metavar="FILE", help="The kind's CustomResourceDefinition (YAML/JSON file or -).")
@click.option(
    "--sample",
    "samples",
    multiple=True,
    metavar="FILE",
    help="Sample objects of the kind, with the pods and owners they own if you have them (repeatable).",
)
@click.option("--crd-version", "version", metavar="VERSION", help="The CRD version to draft [default: storage].")
@click.option("-o", "--output-file", "output_file", metavar="FILE", help="Write the draft to FILE, not stdout.")
def command(crd: str | None, samples: tuple[str, ...], version: str | None, output_file: str | None) -> None:
    """Draft a workload definition (Karta YAML) from a CRD and sample objects.

    Every guess is commented with its evidence (schema path, sample value) and a confidence
    (high|medium|low); what cannot be inferred is a TODO(wmap) that `wmap validate` reports. Sample pods
    (owned by a sample object, directly or through a Job, StatefulSet...) give the pod labels that tell
    roles and instances apart.

    \b
    Examples:
      wmap definitions new --crd crd.yaml > my-karta.yaml
      wmap definitions new --crd crd.yaml --sample captured.yaml -o my-karta.yaml
      wmap validate my-karta.yaml && wmap definitions test my-karta.yaml --samples captured.yaml
    """
    import workload_map as wm
    from workload_map.cli.errors import from_library

    if crd is None and not samples:
        raise CliError("give --crd FILE and/or --sample FILE", hint="see: wmap definitions new --help", exit_code=2)
    try:
        result = wm.draft_definition(crd, samples, version=version)
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    _emit(result, output_file)


def _emit(result: Draft, output_file: str | None) -> None:
    if output_file:
        with open(output_file, "w", encoding="utf-8") as handle:
            handle.write(result.text)
    else:
        click.echo(result.text, nl=False)
    counts = {level: sum(1 for _, c in result.guesses if c == level) for level in ("high", "medium", "low")}
    where = f" to {output_file}" if output_file else ""
    click.echo(
        f"Drafted {result.name}{where} from {result.samples} sample object(s) and {result.pods} pod(s): "
        f"{counts['high']} high, {counts['medium']} medium, {counts['low']} low confidence guesses, "
        f"{len(result.todos)} TODO(s)",
        err=True,
    )
    for item in result.todos:
        click.echo(f"  TODO {item}", err=True)
