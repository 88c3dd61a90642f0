"""``wmap get``: one row per workload, as ``kubectl get`` would print it if it knew workloads."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.options import (
    STATUSES,
    all_namespaces_option,
    namespace_option,
    object_source_options,
    output_option,
)

if TYPE_CHECKING:
    from workload_map.tree.model import WorkloadTree

HEADERS = ("NAME", "TYPE", "STATUS", "COMPONENTS", "PODS", "GPUS", "AGE")
WIDE_HEADERS = ("PENDING", "FAILED", "NODES", "DEFINITION")
PROGRESS_THRESHOLD = 200  # workloads; below this resolution finishes well under a second


def _components(tree: WorkloadTree) -> str:
    roles = tree.role_summary()
    return " ".join(f"{role}({count})" for role, count in roles) if roles else "<none>"


def type_column(tree: WorkloadTree) -> str:
    """The kind, qualified by its group when the bare name would read as a built-in kind (Knative Service)."""
    from workload_map.registry import BUILTIN_GROUPS, BUILTIN_KIND_NAMES

    if tree.group in BUILTIN_GROUPS or tree.kind not in BUILTIN_KIND_NAMES:
        return tree.kind
    return f"{tree.kind}.{tree.group}"


def row(tree: WorkloadTree, *, wide: bool, with_namespace: bool) -> list[str]:
    from workload_map.cli.output import age, number

    counts = tree.counts
    cells = [
        tree.name,
        type_column(tree),
        tree.status.primary.value,
        _components(tree),
        f"{counts.ready}/{counts.desired}",
        number(tree.gpus),
        age((tree.workload.get("metadata") or {}).get("creationTimestamp")),
    ]
    if wide:
        nodes = {p.state.node for p in tree.all_pods if p.state.node}
        cells += [str(counts.pending), str(counts.failed), str(len(nodes)), tree.definition.name]
    return [tree.namespace, *cells] if with_namespace else cells


def _with_progress(items: list[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    from workload_map.cli.output import stderr_is_tty

    if len(items) < PROGRESS_THRESHOLD or not stderr_is_tty():
        return items
    return _progress(items)


def _progress(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    from rich.progress import Progress

    from workload_map.cli.output import console

    with Progress(console=console(sys.stderr), transient=True) as progress:
        task = progress.add_task("resolving workloads", total=len(items))
        for item in items:
            yield item
            progress.advance(task)


@click.command("get")
@click.argument("target", nargs=-1, metavar="[TYPE[/NAME] | TYPE NAME...]")
@namespace_option
@all_namespaces_option
@click.option(
    "-l", "--selector", default=None, metavar="SELECTOR", help="Label selector (=, ==, !=, in, notin, key, !key)."
)
@click.option(
    "--status",
    type=click.Choice(STATUSES, case_sensitive=False),
    default=None,
    help="Only workloads whose primary status is this.",
)
@output_option(("table", "wide", "json", "yaml", "name"), "table")
@object_source_options
def command(  # noqa: PLR0917 - click passes every option by name
    target: tuple[str, ...],
    namespace: str | None,
    all_namespaces: bool,
    selector: str | None,
    status: str | None,
    output: str,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
) -> None:
    """List workloads: one row per top-level workload, or every workload of TYPE.

    \b
    TYPE is a kind (JobSet), plural (jobsets), short name (lws), kind.group or kind.version.group.
    \b
    Examples:
      wmap get --from-file dump.yaml -A
      wmap get jobsets -n team-a -l team=nlp --from-file dump/
      wmap get lws/llama -o json --from-file dump.yaml
    """
    from workload_map.cli.errors import not_found
    from workload_map.cli.kinds import resolve_kind, split_target, type_label
    from workload_map.cli.output import as_list, echo_document, echo_table, emit_warnings
    from workload_map.cli.selectors import SelectorError, matches, parse_selector
    from workload_map.cli.sources import cluster_view
    from workload_map.cli.workloads import DEFAULT_NAMESPACE, kind_name
    from workload_map.snapshot import meta

    type_name, names = split_target(target)
    try:
        requirements = parse_selector(selector) if selector else []
    except SelectorError as exc:
        raise click.BadParameter(str(exc), param_hint="'-l' / '--selector'") from None

    view = cluster_view(from_file, definition_paths)
    ns = None if all_namespaces else (namespace or DEFAULT_NAMESPACE)
    kind = resolve_kind(view.registry, type_name) if type_name else None

    missing: list[str] = []
    if kind is not None and names:
        workloads = []
        for name in names:
            found = view.find(kind, name, ns)
            if not found:
                missing.append(name)
            workloads.extend(found)
    else:
        workloads = view.workloads(kind, ns, top_level=kind is None)
    if requirements:
        workloads = [w for w in workloads if matches(requirements, meta(w).get("labels") or {})]

    trees, problems = view.trees(_with_progress(workloads))
    if status:
        trees = [t for t in trees if t.status.primary.value.lower() == status.lower()]

    if trees:
        if output in ("table", "wide"):
            headers = list(HEADERS) + (list(WIDE_HEADERS) if output == "wide" else [])
            if ns is None:
                headers.insert(0, "NAMESPACE")
            echo_table(headers, (row(t, wide=output == "wide", with_namespace=ns is None) for t in trees))
        elif output == "name":
            for tree in trees:
                click.echo(kind_name(tree.workload))
        else:
            documents = [t.to_json() for t in trees]
            single = len(names) == 1 and len(documents) == 1
            echo_document(documents[0] if single else as_list(documents), output)
    elif not missing:
        click.echo(f"No resources found in {ns} namespace." if ns else "No resources found.", err=True)

    emit_warnings([*view.warnings, *problems, *(w for t in trees for w in t.warnings)])
    if missing:
        assert kind is not None
        for name in missing[1:]:
            click.echo(f'error: {type_label(kind)} "{name}" not found in namespace "{ns}"', err=True)
        raise not_found(type_label(kind), missing[0], ns)
