"""``wmap definitions new``: draft a definition from a CRD, sample objects or a live kind."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import click

from workload_map.cli.options import all_namespaces_option, connection_options, namespace_option
from workload_map.cmdline.errors import CliError

if TYPE_CHECKING:
    from workload_map import ClusterOptions, Draft


@click.command("new")
@click.option("--crd", "crd", metavar="FILE", help="The kind's CustomResourceDefinition (YAML/JSON file or -).")
@click.option(
    "--sample",
    "samples",
    multiple=True,
    metavar="FILE",
    help="Sample objects of the kind, with the pods and owners they own if you have them (repeatable).",
)
@click.option(
    "--kind",
    "kind",
    metavar="KIND.GROUP",
    help="Read the kind from the cluster: its CRD and, when instances exist, the pods they own (through "
    "any intermediate owner).",
)
@click.option(
    "--from-recording",
    "recordings",
    multiple=True,
    metavar="FILE",
    help="A recording (wmap record) of one object: its statuses are mapped from what was seen, with the "
    "evidence (repeatable).",
)
@click.option(
    "--api-source",
    "api_source",
    type=click.Path(exists=True, file_okay=False),
    metavar="DIR",
    help="A checkout of the operator (or its API folder): the status phases and condition types its Go API "
    "types declare are mapped too.",
)
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True, help="Instances read with --kind.")
@click.option("--crd-version", "version", metavar="VERSION", help="The CRD version to draft [default: storage].")
@click.option("-o", "--output", "output_file", metavar="FILE", help="Write the draft to FILE, not stdout.")
@namespace_option
@all_namespaces_option
@connection_options
def command(  # noqa: PLR0917 - click passes every option by name
    crd: str | None,
    samples: tuple[str, ...],
    recordings: tuple[str, ...],
    kind: str | None,
    api_source: str | None,
    limit: int,
    version: str | None,
    output_file: str | None,
    namespace: str | None,
    all_namespaces: bool,
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Draft a workload definition (Karta YAML) from a CRD and sample objects.

    With --kind the CRD and samples are read from the cluster (kubectl's connection flags, -n/-A for
    where instances are looked for). Every guess is commented with its evidence (schema path, sample
    value) and a confidence (high|medium|low); what cannot be inferred is a TODO(wmap) that
    `wmap validate` reports. Sample pods (owned by a sample object, directly or through a Job,
    StatefulSet...) give the pod labels that tell roles and instances apart. A recording (wmap record)
    gives the statuses: each phase and condition the object went through is mapped from when it held
    and what the pods were doing then. --api-source reads the operator's Go API types (as text, nothing
    is compiled) for the phase values and condition types the CRD does not list.

    \b
    Examples:
      wmap definitions new --crd crd.yaml > my-karta.yaml
      wmap definitions new --crd crd.yaml --sample captured.yaml -o my-karta.yaml
      wmap definitions new --kind PyTorchJob.kubeflow.org -n team-a -o my-karta.yaml
      wmap definitions new --crd crd.yaml --from-recording run.yaml -o my-karta.yaml
      wmap definitions new --crd crd.yaml --api-source ~/src/my-operator -o my-karta.yaml
      wmap validate my-karta.yaml && wmap definitions test my-karta.yaml --samples captured.yaml
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import from_library  # noqa: PLC0415 (a command's --help loads only click)

    if kind is not None and crd is not None:
        raise CliError("give --kind or --crd, not both", hint="see: wmap definitions new --help", exit_code=2)
    if kind is not None and recordings:
        raise CliError("give --kind or --from-recording, not both", hint="record first: wmap record", exit_code=2)
    if crd is None and not samples and kind is None and not recordings:
        raise CliError(
            "give --crd FILE, --kind KIND.GROUP, --sample FILE and/or --from-recording FILE",
            hint="see: wmap definitions new --help",
            exit_code=2,
        )
    try:
        if kind is not None:
            result = wm.draft_from_cluster(
                kind,
                dataclasses.replace(connection, namespace=namespace, all_namespaces=all_namespaces),
                limit=limit,
                samples=samples,
                api_source=api_source,
            )
        else:
            result = wm.draft_definition(crd, samples, version=version, recordings=recordings, api_source=api_source)
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
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    if result.covered_by:
        click.echo(
            f"Warning: the built-in catalog already covers this kind ({result.covered_by}); "
            "the draft ignores it: compare with `wmap definitions " + result.covered_by + "`",
            err=True,
        )
