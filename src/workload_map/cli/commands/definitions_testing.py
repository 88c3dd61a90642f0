"""``wmap definitions test DEF --samples DIR``: a definition's samples become its regression test."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.kinds import definition_named
from workload_map.cli.options import definitions_option, output_option
from workload_map.cmdline.errors import EXIT_ERROR, CliError

if TYPE_CHECKING:
    from workload_map import LoadedDefinition, SampleResult


def _load(definition: str, definition_paths: tuple[str, ...]) -> LoadedDefinition:
    """A Karta file (exactly one definition, statically valid), else a definition in effect by name or TYPE."""
    if not os.path.exists(definition) and definition != "-":
        from workload_map.cli.sources import definitions_only  # noqa: PLC0415 (a command's --help loads only click)

        definitions, _warnings = definitions_only(definition_paths)
        return definition_named(definitions, definition)
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)

    report = wm.validate_definitions([definition])
    if not report.valid:
        for finding in report.errors:
            click.echo(str(finding), err=True)
        raise CliError(f"{definition}: the definition is not valid", hint=f"see: wmap validate {definition}")
    if len(report.definitions) != 1:
        raise CliError(f"{definition}: holds {len(report.definitions)} definitions; give a file with exactly one")
    return report.definitions[0]


def _tree_lines(result: SampleResult) -> list[str]:
    from workload_map.ports.present import RESOLVER_RULE  # noqa: PLC0415 (a command's --help loads only click)

    tree = result.tree or {}
    totals = tree["totals"]
    parts = [
        f"{name} {desired}" + (f" (observed {observed})" if observed else "")
        for name, (desired, observed) in result.pods.items()
    ]
    lines = [
        f"  tree:   {', '.join(parts) or 'no pod-producing component'}; "
        f"{totals['pods']['desired']} pods desired, GPUs {totals['gpus']}"
    ]
    if tree["unattributed"]:
        lines.append(f"  pods no component claims: {', '.join(p['name'] for p in tree['unattributed'])}")
    status = tree["status"]
    matched = ", ".join(status["matched"]) or "nothing"
    lines.append(f"  status: {status['primary']} (matched: {matched})")
    # Why: the matchers that matched; for an Undefined status, what the phase and conditions read as.
    for explanation in status["explanations"]:
        for matcher in explanation["matchers"]:
            if matcher["matched"]:
                checks = "; ".join(_check_text(c) for c in matcher["checks"])
                which = "the resolver's rule" if matcher["index"] == RESOLVER_RULE else f"matcher {matcher['index']}"
                lines.append(f"    {explanation['status']}: {which}: {checks}")
            elif matcher["error"]:
                lines.append(f"    {explanation['status']}: matcher {matcher['index']} failed: {matcher['error']}")
    if not status["matched"]:
        conditions = ", ".join(f"{c['type']}={c['status']}" for c in status["conditions"]) or "none"
        lines.append(f"    phase {status['phase']!r}, conditions {conditions}")
    for warning in tree["warnings"]:
        lines.append(f"  warning: {warning}")
    return lines


def _check_text(check: dict[str, Any]) -> str:
    text = f"{check['kind']} {check['expected']}"
    return text if check.get("detail") in (None, "") else f"{text} ({check['detail']})"


def _echo_result(result: SampleResult) -> None:
    click.echo(f"{result.verdict:5} {result.key} ({result.location})")
    if result.tree is not None:
        for line in _tree_lines(result):
            click.echo(line)
    for check in result.checks:
        mark = "ok" if check.ok else "MISMATCH"
        click.echo(f"  expect {check.key}: {check.expected!r} -> {check.actual!r} {mark}")
    for problem in result.problems:
        click.echo(f"  error: {problem}")


@click.command("test")
@click.argument("definition", metavar="DEF")
@click.option(
    "--samples",
    "samples",
    multiple=True,
    required=True,
    metavar="PATH",
    help="Sample objects: files or directories of YAML/JSON, workloads with their pods and owners (repeatable).",
)
@click.option(
    "--expect",
    "expect",
    multiple=True,
    metavar="FILE",
    help="An Expectations file: expectations per workload (TYPE/NAME), kept beside unmodified samples and "
    "recordings (repeatable).",
)
@output_option(("text", "json"), "text")
@definitions_option
def command(
    definition: str, samples: tuple[str, ...], expect: tuple[str, ...], output: str, definition_paths: tuple[str, ...]
) -> None:
    """Resolve every sample of DEF's kind; each expectation is a pass/fail check.

    DEF is a Karta file or the name (or TYPE) of a definition in effect. Expectations come from an
    Expectations file (--expect, docs/cli.md) or the sample's annotation workload-map.run.ai/expect: a
    JSON object with any of the keys primary, matched, pods (desired pods per component or instance),
    podsCurrent, podsReady, desiredPods, gpus, gpusCurrent. Exit status: 0 every expectation holds, 1 a
    mismatch, an unreadable expectation, one that names no sample, or no sample of the kind, 2 usage.

    \b
    Examples:
      wmap definitions test my-karta.yaml --samples samples/
      wmap definitions test my-karta.yaml --samples upstream/samples/ --expect expect.yaml
      wmap definitions test jobset --samples captured.yaml -o json
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import to_json_text  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import from_library  # noqa: PLC0415 (a command's --help loads only click)

    chosen = _load(definition, definition_paths)
    try:
        results = wm.test_samples(chosen, samples, expect)
    except wm.WorkloadMapError as exc:
        raise from_library(exc) from None
    failed = [r for r in results if not r.passed]
    if output == "json":
        report = {
            "definition": chosen.name,
            "passed": bool(results) and not failed,
            "samples": [r.to_json() for r in results],
        }
        click.echo(to_json_text(report), nl=False)
    else:
        for result in results:
            _echo_result(result)
    if not results:
        gvk = chosen.karta.identity
        kind = f"{gvk.kind}.{gvk.group}" if gvk else "?"
        raise CliError(f"no sample object of kind {kind} in {', '.join(samples)}")
    checked = sum(1 for r in results if r.has_expectation)
    summary = f"{len(results)} sample(s), {checked} with expectations, {len(failed)} failed"
    click.echo(summary, err=True)
    if failed:
        raise click.exceptions.Exit(EXIT_ERROR)
