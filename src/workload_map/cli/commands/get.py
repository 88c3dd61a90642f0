"""``wmap get``: one row per workload, as ``kubectl get`` would print it if it knew workloads."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import click

from workload_map.cli.options import (
    STATUSES,
    all_namespaces_option,
    fleet_source_options,
    namespace_option,
    output_option,
    target_argument,
)
from workload_map.cli.workloads import kind_name

if TYPE_CHECKING:
    from workload_map import ClusterOptions, Fleet, View, WorkloadTree

HEADERS = ("NAME", "TYPE", "STATUS", "COMPONENTS", "PODS", "GPUS", "AGE")
# GPUS is GPUs desired, kubectl-style short; -o wide adds GPUs in use: the two GPU figures of the dashboard's
# table ("GPUs desired", "GPUs in use"), under the names of docs/semantics.md "Figures".
WIDE_HEADERS = ("GPUS-IN-USE", "PENDING", "FAILED", "NODES", "DEFINITION", "QUEUE")
OPTIONAL = ("COMPONENTS",)  # left out, in this order, when the table is wider than the terminal
TRUNCATE = ("TYPE", "NAME", "NAMESPACE", "STATUS")  # then cut, the widest first
WATCH_TIMEOUT_ENV = "WMAP_WATCH_TIMEOUT"
PROGRESS_THRESHOLD = 200  # workloads; below this resolution finishes well under a second


def _components(tree: WorkloadTree) -> str:
    roles = tree.role_summary()
    return " ".join(f"{role}({count})" for role, count in roles) if roles else "<none>"


def type_column(tree: WorkloadTree) -> str:
    """The kind, qualified by its group when the bare name would read as a built-in kind (Knative Service)."""
    from workload_map import display_type  # noqa: PLC0415 (a command's --help loads only click)

    return display_type(tree.group, tree.kind)


def row(tree: WorkloadTree, *, wide: bool, with_namespace: bool, queue: str | None = None) -> list[str]:
    """``queue``: the queue the workload is in (View.queue_names), for -o wide's QUEUE."""
    from workload_map import figures_of  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import age, number  # noqa: PLC0415 (a command's --help loads only click)

    counts = tree.counts
    figures = figures_of(tree)  # PODS and GPUS as every surface counts them (docs/semantics.md, "Figures")
    incomplete = bool(tree.incomplete)  # part of its pods or parts could not be read: unknown, not zero
    cells = [
        tree.name,
        type_column(tree),
        tree.status.primary.value + (" (incomplete)" if incomplete else ""),
        _components(tree),
        f"{'?' if figures.pods_ready is None else figures.pods_ready}/{figures.pods_desired}",
        number(figures.gpus_desired),
        age((tree.workload.get("metadata") or {}).get("creationTimestamp")),
    ]
    if wide:
        nodes = {p.state.node for p in tree.all_pods if p.state.node}
        unknown = "?" if incomplete else None
        cells += [
            "?" if figures.gpus_in_use is None else number(figures.gpus_in_use),
            unknown or str(counts.pending),
            unknown or str(counts.failed),
            unknown or str(len(nodes)),
            tree.definition.name,
            queue or "<none>",
        ]
    return [tree.namespace, *cells] if with_namespace else cells


def _with_progress(items: list[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    from workload_map.cli.output import stderr_is_tty  # noqa: PLC0415 (a command's --help loads only click)

    if len(items) < PROGRESS_THRESHOLD or not stderr_is_tty():
        return items
    return _progress(items)


def _progress(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    from rich.progress import Progress  # noqa: PLC0415 (a command's --help loads only click)

    from workload_map.cli.output import console  # noqa: PLC0415 (a command's --help loads only click)

    with Progress(console=console(sys.stderr), transient=True) as progress:
        task = progress.add_task("resolving workloads", total=len(items))
        for item in items:
            yield item
            progress.advance(task)


@click.command("get")
@target_argument("[TYPE[/NAME] | TYPE NAME...]", required=False)
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
@click.option(
    "--queue",
    default=None,
    metavar="QUEUE",
    help="Only workloads that name this scheduler queue (Kueue LocalQueue, KAI or Volcano queue; wmap queues).",
)
@output_option(("table", "wide", "json", "yaml", "name"), "table")
@click.option(
    "-w",
    "--watch",
    is_flag=True,
    help="After listing, watch for changes and print the workloads whose row changed (live only; over a "
    "fleet, every cluster at once).",
)
@click.option(
    "--watch-timeout",
    type=click.FloatRange(min=0),
    default=None,
    hidden=True,
    help="Stop watching after SECONDS (tests and scripts; also $WMAP_WATCH_TIMEOUT).",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="List every object whose owner is missing, not one line per owner kind and namespace.",
)
@fleet_source_options
def command(  # noqa: PLR0917 - click passes every option by name
    target: tuple[str, ...],
    namespace: str | None,
    all_namespaces: bool,
    selector: str | None,
    status: str | None,
    queue: str | None,
    output: str,
    watch: bool,
    watch_timeout: float | None,
    verbose: bool,
    from_file: tuple[str, ...],
    definition_paths: tuple[str, ...],
    *,
    connection: ClusterOptions,  # kubectl's connection flags (options.connection_options)
) -> None:
    """List workloads: one row per top-level workload, or every workload of TYPE.

    \b
    TYPE is a kind (JobSet), plural (jobsets), short name (lws), kind.group or kind.version.group.
    Without --from-file the objects come from the cluster of the kubeconfig (kubectl's flags).
    PODS is pods ready/desired, GPUS is GPUs desired; -o wide adds GPUS-IN-USE (held by bound pods).
    \b
    Examples:
      wmap get -A
      wmap get jobsets -n team-a -l team=nlp
      wmap get lws/llama -o json --context prod
      wmap get -A --watch
      wmap get -A --context prod-east --context prod-west
      wmap get -A --all-contexts -o json
      wmap get -A --all-contexts --watch
      wmap get --from-file dump.yaml -A
    """
    import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.kinds import resolve_kind, split_target, type_label  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.process_exit import keep_until_exit  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.sources import is_fleet, open_view  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import EXIT_PARTIAL, not_found  # noqa: PLC0415 (a command's --help loads only click)

    type_name, names = split_target(target)
    if selector:
        try:
            wm.parse_selector(selector)
        except wm.SelectorError as exc:
            raise click.BadParameter(str(exc), param_hint="'-l' / '--selector'") from None
    if watch and from_file:
        raise click.UsageError("--watch needs a live cluster: it cannot watch --from-file")
    if is_fleet(connection):
        timeout = (watch_timeout if watch_timeout is not None else _env_timeout()) if watch else None
        _Query(type_name, names, selector, status, queue).fleet(
            output,
            namespace,
            all_namespaces,
            verbose,
            definition_paths,
            connection,
            from_file,
            watch=watch,
            timeout=timeout,
        )
        return

    view = open_view(
        from_file,
        definition_paths,
        namespace=namespace,
        all_namespaces=all_namespaces,
        connection=connection,
        kinds=[type_name] if type_name else None,
        compact=True,  # rows, trees and warnings only: nothing of the objects beyond what resolution reads
        queues=output == "wide" or queue is not None,  # the PodGroups and Kueue Workloads that name a queue
    )
    try:
        ns = view.namespace
        kind = resolve_kind(view, type_name) if type_name else None
        query = _Query(type_name, names, selector, status, queue)
        trees, problems, missing = query.trees(view, progress=True)
        printer = _Printer(output, with_namespace=ns is None, single=len(names) == 1)
        printer.read_queues(view, trees)
        printer.first([("", t) for t in trees])
        keep_until_exit(view, trees)  # freed with the process, not object by object (cli/process_exit.py)
        if not trees and not missing:
            click.echo(f"No resources found in {ns} namespace." if ns else "No resources found.", err=True)
        warnings = view.warnings_in_full() if verbose else view.warnings
        emit_warnings([*warnings, *problems, *(w for t in trees for w in t.warnings)])
        if missing:
            assert kind is not None
            for name in missing[1:]:
                click.echo(f'error: {type_label(kind)} "{name}" not found in namespace "{ns}"', err=True)
            raise not_found(type_label(kind), missing[0], ns)
        partial = view.coverage.forbidden() or view.coverage.failed()
        if partial and not watch:
            raise click.exceptions.Exit(EXIT_PARTIAL)  # printed what it could read; the warnings say what not
        if watch:
            timeout = watch_timeout if watch_timeout is not None else _env_timeout()
            _watch(view, query, printer, timeout)
    finally:
        view.close()


class _Query:
    """Which workloads ``get`` shows: TYPE, names, ``-l`` and ``--status`` (the view's namespace scope)."""

    def __init__(
        self, type_name: str | None, names: list[str], selector: str | None, status: str | None, queue: str | None
    ) -> None:
        self.type_name, self.names, self.selector, self.status = type_name, names, selector, status
        self.queue = queue

    def trees(self, view: View, *, progress: bool = False) -> tuple[list[WorkloadTree], list[str], list[str]]:
        """The trees to print, resolution problems, and the names asked for that do not exist."""
        listing = view.workloads(
            self.type_name,
            self.names,
            selector=self.selector,
            status=self.status,
            queue=self.queue,
            progress=_with_progress if progress else None,
        )
        return listing.workloads, listing.problems, listing.missing

    def fleet(  # noqa: PLR0917 - the command's options, passed on
        self,
        output: str,
        namespace: str | None,
        all_namespaces: bool,
        verbose: bool,
        definition_paths: tuple[str, ...],
        connection: ClusterOptions,
        from_file: tuple[str, ...],
        *,
        watch: bool = False,
        timeout: float | None = None,
    ) -> None:
        """``get`` over several clusters: rows of every cluster read, CLUSTER first; a cluster not read is
        one warning line and exit code 5. ``watch``: then every cluster's changes as they come (_fleet_watch)."""
        import workload_map as wm  # noqa: PLC0415 (a command's --help loads only click)
        from workload_map.cli.kinds import resolve_kind, type_label  # noqa: PLC0415 (a command's --help loads only click)
        from workload_map.cli.output import emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
        from workload_map.cli.sources import fleet_exit, open_fleet, require_some  # noqa: PLC0415 (a command's --help loads only click)
        from workload_map.cmdline.errors import EXIT_NOT_FOUND, CliError, from_library  # noqa: PLC0415 (a command's --help loads only click)

        fleet = open_fleet(
            from_file,
            definition_paths,
            namespace=namespace,
            all_namespaces=all_namespaces,
            connection=connection,
            kinds=[self.type_name] if self.type_name else None,
            queues=output == "wide" or self.queue is not None,
        )
        try:
            require_some(fleet)
            try:
                listing = fleet.workloads(
                    self.type_name,
                    self.names,
                    selector=self.selector,
                    status=self.status,
                    queue=self.queue,
                    progress=_with_progress,
                )
            except wm.WorkloadMapError as exc:
                raise from_library(exc) from None
            printer = _Printer(output, with_namespace=all_namespaces, single=False, fleet=True)
            for cluster, view in fleet.views.items():
                printer.read_queues(view, [item.tree for item in listing if item.cluster == cluster], cluster)
            if not listing.workloads and not listing.missing:
                where = " in any namespace" if all_namespaces else f" in namespace {namespace}" if namespace else ""
                click.echo(f"No resources found{where} in {len(fleet.views)} clusters.", err=True)
            printer.first([(item.cluster, item.tree) for item in listing])
            warnings = fleet.warnings_in_full() if verbose else fleet.warnings
            emit_warnings([*warnings, *listing.problems, *(w for i in listing for w in i.tree.warnings)])
            if listing.missing:
                kind = type_label(resolve_kind(next(iter(fleet.views.values())), self.type_name or ""))
                for name in listing.missing[1:]:
                    click.echo(f'error: {kind} "{name}" not found in any cluster', err=True)
                raise CliError(
                    f'{kind} "{listing.missing[0]}" not found in any cluster ({", ".join(fleet.views)})',
                    hint=f"list what exists with: wmap get {kind} -A",
                    exit_code=EXIT_NOT_FOUND,
                )
            if watch:
                _fleet_watch(fleet, self, printer, timeout)
            else:
                fleet_exit(fleet)  # exit 5 when it printed only what it could read; the warnings say what not
        finally:
            fleet.close()


class _Printer:
    """The first listing, then (``--watch``) the rows that changed, in the first listing's columns. Rows are
    ``(cluster, tree)``; over a fleet (``fleet``) the cluster is the first column, the first field of a
    document and the first word of a name (one cluster: ``""``, not shown)."""

    def __init__(self, output: str, *, with_namespace: bool, single: bool, fleet: bool = False) -> None:
        self.output = output
        self.with_namespace = with_namespace
        self.single = single
        self.fleet = fleet
        self.widths: list[int] | None = None  # set once the header is printed
        self.shown: dict[str, list[str]] = {}  # workload key -> last row printed, without AGE
        self.last: dict[str, tuple[str, WorkloadTree]] = {}  # workload key -> its tree in the latest state
        self.queues: dict[str, str | None] = {}  # workload key -> its queue (-o wide's QUEUE), as last read

    def read_queues(self, view: View, trees: list[WorkloadTree], cluster: str = "") -> None:
        """The queue of each of ``trees`` in ``view`` (of ``cluster``), for -o wide's QUEUE column."""
        if self.output == "wide":
            names = view.queue_names(trees)
            self.queues.update((self.key(cluster, t), n) for t, n in zip(trees, names, strict=True))

    def headers(self) -> list[str]:
        headers = list(HEADERS) + (list(WIDE_HEADERS) if self.output == "wide" else [])
        headers = ["NAMESPACE", *headers] if self.with_namespace else headers
        return ["CLUSTER", *headers] if self.fleet else headers

    def row(self, cluster: str, tree: WorkloadTree) -> list[str]:
        queue = self.queues.get(self.key(cluster, tree))
        cells = row(tree, wide=self.output == "wide", with_namespace=self.with_namespace, queue=queue)
        return [cluster, *cells] if self.fleet else cells

    def document(self, cluster: str, tree: WorkloadTree) -> dict[str, Any]:
        return {"cluster": cluster, **tree.to_json()} if self.fleet else tree.to_json()

    def name(self, cluster: str, tree: WorkloadTree) -> str:
        return f"{cluster} {kind_name(tree.workload)}" if self.fleet else kind_name(tree.workload)

    def key(self, cluster: str, tree: WorkloadTree) -> str:
        return f"{cluster}\0{_key(tree)}"

    def comparable(self, cells: list[str]) -> list[str]:
        """The row without AGE (which changes every second and is no news)."""
        age_column = HEADERS.index("AGE") + (1 if self.with_namespace else 0) + (1 if self.fleet else 0)
        return cells[:age_column] + cells[age_column + 1 :]

    def first(self, entries: list[tuple[str, WorkloadTree]]) -> None:
        from workload_map.cli.output import as_list, echo_document, echo_table  # noqa: PLC0415 (a command's --help loads only click)

        self.last = {self.key(c, t): (c, t) for c, t in entries}
        if not entries:
            return
        if self.output in ("table", "wide"):
            rows = [self.row(c, t) for c, t in entries]
            # In a terminal, a table that fits: COMPONENTS gives way first, then long names and types are cut;
            # -o wide (and a pipe) prints every column whole.
            echo_table(
                self.headers(),
                rows,
                optional=OPTIONAL,
                truncate=TRUNCATE,
                fit=self.output == "table",
            )
            table = [self.headers(), *rows]
            self.widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
            self.shown = {self.key(c, t): self.comparable(r) for (c, t), r in zip(entries, rows, strict=True)}
            return
        if self.output == "name":
            for cluster, tree in entries:
                click.echo(self.name(cluster, tree))
        else:
            documents = [self.document(c, t) for c, t in entries]
            echo_document(documents[0] if self.single and len(documents) == 1 else as_list(documents), self.output)
        self.shown = {key: [] for key in self.last}

    def changes(self, trees: list[WorkloadTree], cluster: str = "") -> None:
        """Print the workloads of ``cluster`` that are new or whose row changed (AGE aside), and once more,
        as last seen, those of it that are gone, like ``kubectl get -w`` (which prints a deleted object's
        final state). The other clusters' rows stand."""
        current = set()
        for tree in trees:
            key = self.key(cluster, tree)
            current.add(key)
            self.last[key] = (cluster, tree)
            if self.output in ("table", "wide"):
                cells = self.row(cluster, tree)
                comparable = self.comparable(cells)
                if self.shown.get(key) == comparable:
                    continue
                self.shown[key] = comparable
                self._echo_row(cells)
            else:
                document = self.document(cluster, tree)
                if self.shown.get(key) == [str(document)]:
                    continue
                self.shown[key] = [str(document)]
                self._echo_one(cluster, tree, document)
        for key in [k for k, (c, _) in self.last.items() if c == cluster and k not in current]:
            _, gone = self.last.pop(key)
            self.shown.pop(key, None)
            if self.output in ("table", "wide"):
                self._echo_row(self.row(cluster, gone))
            else:
                self._echo_one(cluster, gone, self.document(cluster, gone))
        sys.stdout.flush()

    def _echo_row(self, cells: list[str]) -> None:
        from workload_map.cli.output import COLUMN_GAP  # noqa: PLC0415 (a command's --help loads only click)

        if self.widths is None:
            self.widths = [len(h) for h in self.headers()]
            click.echo(COLUMN_GAP.join(h.ljust(w) for h, w in zip(self.headers(), self.widths, strict=True)).rstrip())
        self.widths = [max(w, len(c)) for w, c in zip(self.widths, cells, strict=True)]
        click.echo(COLUMN_GAP.join(c.ljust(w) for c, w in zip(cells, self.widths, strict=True)).rstrip())

    def _echo_one(self, cluster: str, tree: WorkloadTree, document: dict[str, Any]) -> None:
        from workload_map.cli.output import echo_document  # noqa: PLC0415 (a command's --help loads only click)

        if self.output == "name":
            click.echo(self.name(cluster, tree))
        else:
            echo_document(document, self.output)


def _key(tree: WorkloadTree) -> str:
    from workload_map.ports.objects import key_of  # noqa: PLC0415 (a command's --help loads only click)

    # Exact, not str(ObjectKey) (which lower-cases the kind): MiniJob and Minijob are two kinds.
    key = key_of(tree.workload)
    return "\0".join((key.group, key.kind, key.namespace, key.name))


def _env_timeout() -> float | None:
    value = os.environ.get(WATCH_TIMEOUT_ENV, "")
    try:
        return float(value) if value else None
    except ValueError:
        raise click.BadParameter(f"{WATCH_TIMEOUT_ENV}={value!r} is not a number of seconds") from None


def _watch(view: View, query: _Query, printer: _Printer, timeout: float | None) -> None:
    """Keep the view current with watches and print what changed."""
    from workload_map import WorkloadMapError  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import emit_warnings  # noqa: PLC0415 (a command's --help loads only click)

    sys.stdout.flush()
    try:
        for current, warnings in view.watch(timeout):
            trees, _, _ = query.trees(current)
            printer.read_queues(current, trees)
            printer.changes(trees)
            emit_warnings(warnings)
    except WorkloadMapError as exc:
        from workload_map.cmdline.errors import from_library  # noqa: PLC0415 (a command's --help loads only click)

        raise from_library(exc) from None
    except KeyboardInterrupt:  # Ctrl-C ends a watch quietly, as kubectl does
        pass


def _fleet_watch(fleet: Fleet, query: _Query, printer: _Printer, timeout: float | None) -> None:
    """Every cluster's watch at once, their changed rows as they come (CLUSTER first). A cluster whose
    watch ends with an error is one warning line and the others go on; at the end, exit 5 when some
    cluster was not read or not watched to the end, 1 when every cluster's watch ended with an error."""
    from workload_map.cli.output import emit_warnings  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cmdline.errors import EXIT_PARTIAL, CliError  # noqa: PLC0415 (a command's --help loads only click)

    sys.stdout.flush()
    ended: list[str] = []
    try:
        for change in fleet.watch(timeout):
            if change.view is not None:
                trees, _, _ = query.trees(change.view)
                printer.read_queues(change.view, trees, change.cluster)
                printer.changes(trees, change.cluster)
            else:
                ended.append(change.cluster)
            emit_warnings(change.warnings)
    except KeyboardInterrupt:  # Ctrl-C ends a watch quietly, as kubectl does
        pass
    if ended and len(ended) == len(fleet.views):
        raise CliError(f"no cluster of the fleet is watched any more ({', '.join(fleet.views)}): every watch ended")
    if ended or fleet.failures:
        raise click.exceptions.Exit(EXIT_PARTIAL)
