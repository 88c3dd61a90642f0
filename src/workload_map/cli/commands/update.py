"""``wmap update``: change pod-level settings of a workload through its definition's paths."""

from __future__ import annotations

import click

from workload_map.cli.errors import CliError
from workload_map.cli.options import namespace_option, object_source_options, output_option


def _pairs(values: tuple[str, ...], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        key, sep, val = value.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{value!r} is not KEY=VALUE", param_hint=what)
        out[key] = val
    return out


@click.command("update")
@click.argument("target", nargs=-1, required=True, metavar="TYPE/NAME | TYPE NAME")
@namespace_option
@click.option("--scheduler-name", default=None, metavar="NAME", help="Set the pods' schedulerName.")
@click.option("--label", "labels", multiple=True, metavar="KEY=VALUE", help="Set a pod label (repeatable).")
@click.option(
    "--annotation", "annotations", multiple=True, metavar="KEY=VALUE", help="Set a pod annotation (repeatable)."
)
@click.option("--priority-class", default=None, metavar="NAME", help="Set the pods' priorityClassName.")
@click.option("--component", default=None, metavar="NAME", help="Only this component (default: every pod template).")
@click.option("--instance", default=None, metavar="ID", help="Only this instance (e.g. one replicatedJob).")
@click.option("--dry-run", is_flag=True, help="Print the change without applying it (always so with --from-file).")
@output_option(("yaml", "json"), "yaml")
@object_source_options
def command(  # noqa: PLR0917 - click passes every option positionally by name
    target: tuple[str, ...],
    namespace: str | None,
    scheduler_name: str | None,
    labels: tuple[str, ...],
    annotations: tuple[str, ...],
    priority_class: str | None,
    component: str | None,
    instance: str | None,
    dry_run: bool,
    output: str,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
) -> None:
    """Update the pod templates of a workload (scheduler, labels, annotations, priority class) at
    the places its definition says they live.

    With --from-file nothing is written: the JSON merge patch goes to stderr and the patched object
    to stdout.

    \b
    Example:
      wmap update jobset/train --scheduler-name kai-scheduler --label team=nlp --from-file dump.yaml
    """
    from workload_map.cli.output import echo_document, emit_warnings, to_json_text
    from workload_map.cli.sources import cluster_view
    from workload_map.cli.workloads import find_one
    from workload_map.resolve.writes import PodSpecChange, WriteError, update_pod_specs
    from workload_map.snapshot import key_of

    change = PodSpecChange(
        scheduler_name=scheduler_name,
        labels=_pairs(labels, "'--label'") or None,
        annotations=_pairs(annotations, "'--annotation'") or None,
        priority_class_name=priority_class,
    )
    if change.is_empty():
        raise click.UsageError("nothing to change: give --scheduler-name, --label, --annotation or --priority-class")

    view = cluster_view(from_file, definition_paths)
    workload = find_one(view, target, namespace)
    definition, version_warning = view.registry.for_object(workload)
    if definition is None:  # pragma: no cover - find_one only returns covered workloads
        raise CliError("no definition covers this workload", where=str(key_of(workload)))
    try:
        result = update_pod_specs(definition.karta, workload, change, component=component, instance=instance)
    except WriteError as exc:
        raise CliError(f"cannot update {key_of(workload)}", where=str(exc.location), why=exc.message) from None
    # Dumps are never written back; the live layer will apply the patch unless --dry-run.
    del dry_run
    click.echo(to_json_text(result.patch), nl=False, err=True)
    echo_document(result.obj, output)
    emit_warnings([*view.warnings, *([version_warning] if version_warning else [])])
