"""``wmap update``: change pod-level settings of a workload through its definition's paths."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.options import namespace_option, object_source_options, target_argument

if TYPE_CHECKING:
    from workload_map import ClusterOptions

DRY_RUN_CHOICES = ("none", "client", "server")


def _pairs(values: tuple[str, ...], what: str, *, split_commas: bool = False) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        for item in value.split(",") if split_commas else [value]:
            key, sep, val = item.partition("=")
            if not sep or not key:
                raise click.BadParameter(f"{item!r} is not KEY=VALUE", param_hint=what)
            out[key] = val
    return out


def _document(value: str | None, what: str, kind: type) -> Any:
    """A JSON or YAML value given inline or as ``@FILE``, of the expected kind (object or list)."""
    if value is None:
        return None
    import yaml  # noqa: PLC0415 (a command's --help loads only click)

    text = value
    if value.startswith("@"):
        try:
            with open(value[1:], encoding="utf-8") as handle:
                text = handle.read()
        except OSError as exc:
            raise click.BadParameter(f"cannot read {value[1:]}: {exc.strerror}", param_hint=what) from None
    try:
        parsed = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise click.BadParameter(f"not JSON or YAML: {exc}", param_hint=what) from None
    if not isinstance(parsed, kind):
        expected = "an object" if kind is dict else "a list"
        raise click.BadParameter(f"expected {expected}, got {type(parsed).__name__}", param_hint=what)
    return parsed


class _DryRunCommand(click.Command):
    """kubectl's ``--dry-run``: alone it means ``client``; a value only with ``=`` (``--dry-run=server``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        out: list[str] = []
        for index, arg in enumerate(args):
            if arg == "--":
                out.extend(args[index:])
                break
            out.append("--dry-run=client" if arg == "--dry-run" else arg)
        return super().parse_args(ctx, out)


@click.command("update", cls=_DryRunCommand)
@target_argument("TYPE/NAME | TYPE NAME", required=True)
@namespace_option
@click.option("--scheduler-name", default=None, metavar="NAME", help="Set the pods' schedulerName.")
@click.option("--label", "labels", multiple=True, metavar="KEY=VALUE", help="Set a pod label (repeatable).")
@click.option(
    "--annotation", "annotations", multiple=True, metavar="KEY=VALUE", help="Set a pod annotation (repeatable)."
)
@click.option("--priority-class", default=None, metavar="NAME", help="Set the pods' priorityClassName.")
@click.option(
    "--requests",
    multiple=True,
    metavar="NAME=QTY[,...]",
    help="Set resource requests of the container (kubectl set resources style: cpu=500m,memory=1Gi).",
)
@click.option("--limits", multiple=True, metavar="NAME=QTY[,...]", help="Set resource limits (e.g. nvidia.com/gpu=1).")
@click.option("--image", default=None, metavar="IMAGE", help="Set the container's image.")
@click.option(
    "--container",
    default=None,
    metavar="NAME",
    help="The container --requests/--limits/--image change (default: the first, or the main one).",
)
@click.option("--node-selector", multiple=True, metavar="KEY=VALUE", help="Set a nodeSelector entry (repeatable).")
@click.option("--tolerations", default=None, metavar="JSON|@FILE", help="Replace the pods' tolerations (a list).")
@click.option(
    "--node-affinity", default=None, metavar="JSON|@FILE", help="Replace spec.affinity.nodeAffinity (an object)."
)
@click.option(
    "--pod-affinity", default=None, metavar="JSON|@FILE", help="Replace spec.affinity.podAffinity (an object)."
)
@click.option("--resource-claims", default=None, metavar="JSON|@FILE", help="Replace spec.resourceClaims (a list).")
@click.option("--component", default=None, metavar="NAME", help="Only this component (default: every pod template).")
@click.option("--instance", default=None, metavar="ID", help="Only this instance (e.g. one replicatedJob).")
@click.option(
    "--suspend", "suspend_flag", is_flag=True, help="Suspend the workload (the definition's suspendDefinition)."
)
@click.option("--resume", "resume_flag", is_flag=True, help="Resume the workload (the definition's suspendDefinition).")
@click.option(
    "--dry-run",
    type=click.Choice(DRY_RUN_CHOICES),
    default="none",
    metavar="[=none|client|server]",
    help='"client" (or --dry-run alone): print the change, send nothing; "server": the API server '
    "validates and admits the patch without storing it (dryRun=All); default none.",
)
@click.option(
    "-o",
    "--output",
    type=click.Choice(("yaml", "json", "name")),
    default=None,
    help="Print the patched object (yaml/json) or its name. Default: the object as YAML with --from-file, "
    'else "<kind.group>/<name> patched".',
)
@object_source_options
def command(  # noqa: PLR0917 - click passes every option by name
    target: tuple[str, ...],
    namespace: str | None,
    scheduler_name: str | None,
    labels: tuple[str, ...],
    annotations: tuple[str, ...],
    priority_class: str | None,
    requests: tuple[str, ...],
    limits: tuple[str, ...],
    image: str | None,
    container: str | None,
    node_selector: tuple[str, ...],
    tolerations: str | None,
    node_affinity: str | None,
    pod_affinity: str | None,
    resource_claims: str | None,
    component: str | None,
    instance: str | None,
    suspend_flag: bool,
    resume_flag: bool,
    dry_run: str,
    output: str | None,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """Update the pod templates of a workload (scheduler, labels, annotations, priority class,
    resources, image, node selector, tolerations, affinity, resource claims) at the places its
    definition says they live, or suspend/resume it.

    The JSON merge patch always goes to stderr. On a cluster it is sent as one merge patch carrying
    the resourceVersion read (a workload changed meanwhile is a Conflict, never overwritten).
    With --from-file nothing is written: the patched object goes to stdout.

    \b
    Examples:
      wmap update jobset/train --scheduler-name kai-scheduler --label team=nlp
      wmap update jobset/train --suspend --dry-run=server -o yaml
      wmap update jobset/train --scheduler-name kai --from-file dump.yaml
      wmap update pytorchjob/bert --component worker --limits nvidia.com/gpu=2 --requests cpu=8
      wmap update rayjob/tune --tolerations '[{"key": "gpu", "operator": "Exists"}]'
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import emit_warnings, to_json_text  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import open_view  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.workloads import find_one, one_target  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import from_library  # noqa: PLC0415 (a command's --help loads only click)

    resources = {
        name: values
        for name, values in (
            ("requests", _pairs(requests, "'--requests'", split_commas=True)),
            ("limits", _pairs(limits, "'--limits'", split_commas=True)),
        )
        if values
    }
    change = wm.PodSpecChange(
        scheduler_name=scheduler_name,
        labels=_pairs(labels, "'--label'") or None,
        annotations=_pairs(annotations, "'--annotation'") or None,
        priority_class_name=priority_class,
        resources=resources or None,
        image=image,
        container=container,
        node_selector=_pairs(node_selector, "'--node-selector'") or None,
        tolerations=_document(tolerations, "'--tolerations'", list),
        node_affinity=_document(node_affinity, "'--node-affinity'", dict),
        pod_affinity=_document(pod_affinity, "'--pod-affinity'", dict),
        resource_claims=_document(resource_claims, "'--resource-claims'", list),
    )
    if suspend_flag and resume_flag:
        raise click.UsageError("--suspend and --resume contradict each other: give one")
    suspend = True if suspend_flag else (False if resume_flag else None)
    _refuse_invalid(change)
    if change.is_empty() and suspend is None:
        raise click.UsageError(
            "nothing to change: give a pod field (--scheduler-name, --label, --annotation, --priority-class, "
            "--requests, --limits, --image, --node-selector, --tolerations, --node-affinity, --pod-affinity, "
            "--resource-claims), --suspend or --resume"
        )

    view = open_view(
        from_file, definition_paths, namespace=namespace, connection=connection, describe=one_target(target)
    )
    try:
        workload = find_one(view, target)
        try:
            update = view.update(
                workload,
                None if change.is_empty() else change,
                suspend=suspend,
                component=component,
                instance=instance,
            )
        except wm.WorkloadMapError as exc:
            raise from_library(exc) from None
        patch = update.patch
        click.echo(to_json_text(patch), nl=False, err=True)
        warnings = [*view.warnings, *update.warnings]
        if not view.is_live:  # dumps are never written back
            _print(update.object, output or "yaml", "")
        elif dry_run == "client" or not patch:
            _print(update.object, output, " (dry run)" if patch else " (no change)")
        else:
            try:
                answer = update.apply(dry_run=dry_run == "server")
            except wm.WorkloadMapError as exc:
                raise from_library(exc) from None
            _print(answer, output, " (server dry run)" if dry_run == "server" else "")
        emit_warnings(warnings)
    finally:
        view.close()


_FLAGS = {
    "labels": "--label",
    "annotations": "--annotation",
    "node_selector": "--node-selector",
    "requests": "--requests",
    "limits": "--limits",
    "scheduler_name": "--scheduler-name",
    "priority_class_name": "--priority-class",
    "image": "--image",
}


def _refuse_invalid(change: Any) -> None:
    """A value the API server would refuse is a usage error before anything is read or sent."""
    problems = change.problems()
    if problems:
        field, value, why = problems[0]
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise click.BadParameter(f"{value!r}: {why}{more}", param_hint=f"'{_FLAGS.get(field, field)}'")


def _print(obj: dict[str, Any], output: str | None, note: str) -> None:
    """``-o yaml|json``: the object; ``-o name``: its name; default: kubectl's ``<name> patched``."""
    from workload_map.cli.output import echo_document  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.workloads import kind_name  # noqa: PLC0415 (a command's --help loads only click)

    if output in ("yaml", "json"):
        echo_document(obj, output)
    elif output == "name":
        click.echo(kind_name(obj))
    else:
        click.echo(f"{kind_name(obj)} patched{note}")
