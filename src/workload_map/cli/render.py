"""Human renderings of a workload tree: the describe header, the tree, status explanations, resources."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workload_map.cli.output import NONE, format_table, number, one_line

if TYPE_CHECKING:
    from rich.text import Text
    from rich.tree import Tree

    from workload_map import ComponentNode, InstanceNode, PodCounts, StatusResult, WorkloadTree
    from workload_map.ports.present import Check, PlacedPod

STATUS_STYLES = {
    "Running": "green",
    "Completed": "blue",
    "Failed": "bold red",
    "Degraded": "yellow",
    "Initializing": "cyan",
    "Suspended": "magenta",
    "Suspending": "magenta",
    "Resuming": "magenta",
    "Undefined": "dim",
    "Pending": "yellow",
    "Succeeded": "blue",
}


@dataclass(frozen=True)
class Glyphs:
    ok: str
    bad: str
    arrow: str


UNICODE = Glyphs("✓", "✗", "→")
ASCII = Glyphs("+", "x", "->")


def glyphs_for_stdout() -> Glyphs:
    """UTF-8 marks when stdout can encode them, ASCII otherwise (e.g. LANG=C, cp1252 consoles)."""
    from workload_map.cli.output import can_encode, stdout_encoding  # noqa: PLC0415 (a command's --help loads only click)

    return UNICODE if can_encode("✓✗→", stdout_encoding()) else ASCII


def _natural(key: str | None) -> tuple[int, int, str]:
    text = key or ""
    return (0, int(text), "") if text.isdigit() else (1, 0, text)


# -- header ----------------------------------------------------------------------------------------


def header_lines(tree: WorkloadTree, cluster: str | None = None) -> list[str]:
    """``describe``'s header; ``cluster`` (a fleet's context name) comes first when given."""
    from workload_map import figures_of  # noqa: PLC0415 (a command's --help loads only click)
    from workload_map.cli.output import age  # noqa: PLC0415 (a command's --help loads only click)

    counts = tree.counts
    figures = figures_of(tree)  # as every surface counts them (docs/semantics.md, "Figures")
    created = (tree.workload.get("metadata") or {}).get("creationTimestamp")
    status = tree.status
    matched = ", ".join(s.value for s in status.matched) or NONE
    gpus_current = number(figures.gpus_in_use or 0)
    unknown = bool(tree.incomplete)  # part of its pods or parts could not be read: unknown, not zero
    if unknown:
        pods = f"?/{counts.desired} ready, ? present, ? pending, ? failed"
        gpus_current = "?"
    else:
        succeeded = f"{counts.succeeded} succeeded, " if counts.succeeded else ""
        pods = (
            f"{counts.ready}/{counts.desired} ready, {succeeded}{counts.current} present, {counts.pending} pending, "
            f"{counts.failed} failed"
        )
        if figures.problems:
            pods += "; problems: " + ", ".join(f"{n} {reason}" for reason, n in figures.problems.items())
    fields = [
        ("Name", tree.name),
        ("Namespace", tree.namespace),
        ("Type", f"{tree.kind} ({tree.api_version})"),
        ("Definition", definition_line(tree)),
        ("Status", f"{status.primary.value}{' (incomplete)' if unknown else ''} (matched: {matched})"),
        *([("Reason", figures.reason)] if figures.reason else []),
        ("Created", f"{created} ({age(created)} ago)" if created else "<unknown>"),
        ("Pods", pods),
        ("GPUs", f"{number(figures.gpus_desired)} desired, {gpus_current} in use (held by pods bound to a node)"),
    ]
    if unknown:
        fields.append(("Incomplete", "; ".join(tree.incomplete)))
    if cluster is not None:
        fields.insert(0, ("Cluster", cluster))
    width = max(len(k) for k, _ in fields) + 2
    return [f"{(key + ':').ljust(width)}{value}" for key, value in fields]


# -- tree ------------------------------------------------------------------------------------------


def _styled(text: str, style: str | None = None) -> tuple[str, str] | str:
    return (text, style) if style else text


def _counts_text(counts: PodCounts, unknown: bool = False) -> str:
    if unknown:  # pods that could not be read: only the spec's desired count is known
        return f"?/{counts.desired} ready"
    text = f"{counts.ready}/{counts.desired} ready"
    if counts.succeeded:
        text += f", {counts.succeeded} succeeded"
    if counts.pending:
        text += f", {counts.pending} pending"
    if counts.failed:
        text += f", {counts.failed} failed"
    return text


def _container_readiness(pod: PlacedPod) -> str:
    spec = pod.obj.get("spec") if isinstance(pod.obj.get("spec"), dict) else {}
    status = pod.obj.get("status") if isinstance(pod.obj.get("status"), dict) else {}
    containers = (spec or {}).get("containers") or []
    statuses = [s for s in (status or {}).get("containerStatuses") or [] if isinstance(s, dict)]
    ready = sum(1 for s in statuses if s.get("ready") is True)
    return f"{ready}/{len(containers) if isinstance(containers, list) else 0}"


def _pod_label(pod: PlacedPod, role: str | None) -> Text:
    from rich.text import Text  # noqa: PLC0415 (a command's --help loads only click)

    phase = pod.state.phase
    parts: list[tuple[str, str] | str] = [(pod.name, "bold")]
    if role:
        parts += ["  ", (role, "cyan")]
    parts += ["  ", _container_readiness(pod), "  ", _styled(phase, STATUS_STYLES.get(phase))]
    if pod.state.terminating:
        parts += ["  ", ("Terminating", "yellow")]
    problem = pod.state.problem or (pod.state.pending_reason if pod.state.pending else None)
    if problem:
        if pod.state.pending and pod.state.pending_message and problem == pod.state.pending_reason:
            problem += f": {one_line(pod.state.pending_message)}"
        parts += ["  ", (f"({problem})", "red" if pod.state.problem and not pod.state.pending else "yellow")]
    if pod.state.restarts:
        parts += [f"  restarts {pod.state.restarts}"]
    if pod.state.last_termination and (pod.state.restarts or pod.state.problem):
        parts += [f"  last ended {pod.state.last_termination.text()}"]
    if pod.resources.gpus:
        parts += [f"  gpu {number(pod.resources.gpus)}"]
    parts += [f"  node {pod.state.node or NONE}"]
    return Text.assemble(*parts)


def _add_pods(node: Tree, pods: Iterable[PlacedPod], role: str | None, *, by_replica: bool = True) -> None:
    ordered = sorted(pods, key=lambda p: (_natural(p.replica), p.name))
    keys = {p.replica for p in ordered}
    if by_replica and keys != {None}:
        for key in sorted(keys, key=_natural):
            members = [p for p in ordered if p.replica == key]
            ready = sum(p.state.ready for p in members)
            branch = node.add(f"replica {key if key is not None else NONE}  {ready}/{len(members)} ready")
            for pod in members:
                branch.add(_pod_label(pod, role))
        return
    for pod in ordered:
        node.add(_pod_label(pod, role))


class _TreeBuilder:
    def __init__(self, tree: WorkloadTree) -> None:
        self.tree = tree
        self.unknown = bool(tree.incomplete)
        self.views = {c.name: c for c in tree.components}
        self.children: dict[str | None, list[ComponentNode]] = {}
        for view in tree.components:
            self.children.setdefault(view.component.parent, []).append(view)

    def descendants(self, name: str) -> list[ComponentNode]:
        out: list[ComponentNode] = []
        for child in self.children.get(name, []):
            out.append(child)
            out += self.descendants(child.name)
        return out

    def subtree_counts(self, view: ComponentNode) -> PodCounts:
        from workload_map import PodCounts  # noqa: PLC0415 (a command's --help loads only click)

        total = PodCounts()
        for member in [view, *self.descendants(view.name)]:
            total.merge(member.counts)
        return total

    def component_label(self, view: ComponentNode) -> Text:
        from rich.text import Text  # noqa: PLC0415 (a command's --help loads only click)

        kind = view.component.definition.kind
        parts: list[tuple[str, str] | str] = [(view.name, "bold cyan")]
        if kind is not None:
            parts.append(f"  {kind.kind}")
        elif not view.component.has_pods:
            parts.append("  (logical)")
        parts.append(f"  {_counts_text(self.subtree_counts(view), self.unknown)}")
        if view.component.error:
            parts += ["  ", (f"error: {view.component.error}", "red")]
        return Text.assemble(*parts)

    def instance_label(self, view: InstanceNode) -> str:
        instance = view.instance
        replicas = instance.scale.replicas
        text = f"instance {instance.id}"
        if replicas is not None:
            text += f"  replicas {replicas}"
        return f"{text}  {_counts_text(view.counts, self.unknown)}"

    def add_component(self, parent: Tree, view: ComponentNode) -> None:
        node = parent.add(self.component_label(view))
        self.fill(node, view)

    def fill(self, node: Tree, view: ComponentNode) -> None:
        selector = view.component.definition.pod_selector
        descendants = self.descendants(view.name)
        replica_keyed = (
            not view.component.has_pods
            and selector is not None
            and selector.replica_selector is not None
            and any(p.replica is not None for d in descendants for i in d.instances for p in i.pods)
        )
        if replica_keyed:
            self.add_replica_groups(node, descendants)
            return
        role_default = view.name
        if len(view.instances) == 1 and view.instances[0].instance.id is None:
            _add_pods(node, view.instances[0].pods, role_default)
        else:
            for instance_view in view.instances:
                branch = node.add(self.instance_label(instance_view))
                _add_pods(branch, instance_view.pods, instance_view.instance.id or role_default)
        for child in self.children.get(view.name, []):
            self.add_component(node, child)

    def add_replica_groups(self, node: Tree, descendants: list[ComponentNode]) -> None:
        """A logical component keyed by replica (e.g. one LWS group): each key with its pods by role."""
        keys = {p.replica for d in descendants for i in d.instances for p in i.pods}
        for key in sorted(keys, key=_natural):
            members = [(d, i, p) for d in descendants for i in d.instances for p in i.pods if p.replica == key]
            ready = sum(p.state.ready for _, _, p in members)
            group = node.add(f"replica {key if key is not None else NONE}  {ready}/{len(members)} ready")
            for descendant in descendants:
                pods = [p for d, _, p in members if d is descendant]
                if not pods:
                    continue
                branch = group.add(f"{descendant.name}  {sum(p.state.ready for p in pods)}/{len(pods)} ready")
                for pod in sorted(pods, key=lambda p: p.name):
                    role = pod.instance or descendant.name
                    branch.add(_pod_label(pod, role))
        for descendant in descendants:
            if descendant.component.has_pods and not any(i.pods for i in descendant.instances):
                seen = "?" if self.unknown else "0"
                why = "pods not readable" if self.unknown else "no pods yet"
                node.add(f"{descendant.name}  {seen}/{descendant.counts.desired} ready ({why})")

    def build(self) -> Tree:
        from rich.text import Text  # noqa: PLC0415 (a command's --help loads only click)
        from rich.tree import Tree  # noqa: PLC0415 (a command's --help loads only click)

        tree = self.tree
        primary = tree.status.primary.value
        label = Text.assemble(
            (f"{tree.kind}/{tree.name}", "bold"),
            "  ",
            _styled(primary, STATUS_STYLES.get(primary)),
            "  (incomplete)" if self.unknown else "",
            f"  {_counts_text(tree.counts, self.unknown)}",
            f"  gpus {number(tree.gpus)}",
        )
        root = Tree(label)
        root_views = self.children.get(None, [])
        for view in root_views:
            self.fill(root, view)
        if tree.unattributed:
            branch = root.add(Text.assemble(("unattributed pods", "yellow"), f"  {len(tree.unattributed)}"))
            for pod in sorted(tree.unattributed, key=lambda p: p.name):
                pod_node = branch.add(_pod_label(pod, None))
                pod_node.add(f"reason: {pod.unattributed_reason or 'unknown'}")
        if tree.children:
            from workload_map.ports.objects import name_of  # noqa: PLC0415 (a command's --help loads only click)

            branch = root.add("owned workloads")
            for child in tree.children:
                branch.add(f"{child.get('kind')}/{name_of(child)}  ({child.get('apiVersion')})")
        return root


def rich_tree(tree: WorkloadTree) -> Tree:
    return _TreeBuilder(tree).build()


# -- status ----------------------------------------------------------------------------------------


def _check_line(check: Check, glyphs: Glyphs, *, full: bool = True) -> str:
    """One check; without ``full`` an expression's jq is left to ``wmap explain``."""
    mark = glyphs.ok if check.ok else glyphs.bad
    actual = NONE if check.actual is None else repr(check.actual)
    line = f"{mark} {check.kind}: expected {check.expected!r}, actual {actual}"
    if check.detail and (full or check.kind != "expression"):
        line += f"  [{one_line(check.detail)}]"
    return line


def conditions_table(status: StatusResult, indent: str) -> list[str]:
    if not status.conditions:
        return [f"{indent}{NONE}"]
    rows = [[c.type, c.status or "", c.reason or "", one_line(c.message or "")] for c in status.conditions]
    table = format_table(["TYPE", "STATUS", "REASON", "MESSAGE"], rows)
    return [indent + line for line in table.splitlines()]


def status_lines(status: StatusResult, glyphs: Glyphs, *, full: bool) -> list[str]:
    """The status explanation. ``full`` (explain) lists every check of every matcher."""
    from workload_map.ports.present import PRECEDENCE, RESOLVER_RULE  # noqa: PLC0415 (a command's --help loads only click)

    lines: list[str] = []
    matched = ", ".join(s.value for s in status.matched) or NONE
    if full:  # describe's header says the status already
        lines.append(f"Primary: {status.primary.value}   (matched: {matched})")
        lines.append("Precedence: " + " > ".join(s.value for s in PRECEDENCE) + "; Undefined when none matches")
    lines.append(f"Phase: {status.phase if status.phase is not None else NONE}")
    lines.append("Conditions:")
    lines += conditions_table(status, "  ")
    if not status.explanations:
        lines.append("No status is mapped by the definition.")
    for explanation in status.explanations:
        if not full and not explanation.matched:
            continue  # describe says why the status is what it is; explain walks every rule
        verdict = "MATCHED" if explanation.matched else "not matched"
        lines.append(f"{explanation.status.value}: {verdict}")
        for matcher in explanation.matchers:
            if not full and explanation.matched and not matcher.matched:
                continue
            state = "matched" if matcher.matched else ("error" if matcher.error else "not matched")
            which = "the resolver's rule" if matcher.index == RESOLVER_RULE else f"matcher [{matcher.index}]"
            lines.append(f"  {which}: {state}")
            if matcher.error:
                lines.append(f"    error: {one_line(matcher.error)}")
            checks = matcher.checks if (full or matcher.matched) else [c for c in matcher.checks if not c.ok][:1]
            lines += [f"    {_check_line(c, glyphs, full=full)}" for c in checks]
    if status.errors:
        lines.append("Errors:")
        lines += [f"  {one_line(e)}" for e in status.errors]
    return lines


# -- resources -------------------------------------------------------------------------------------


def resources_lines(tree: WorkloadTree) -> list[str]:
    from workload_map.ports.present import format_quantity, gpu_count  # noqa: PLC0415 (a command's --help loads only click)

    def quantity(requests: dict[str, Any], name: str) -> str:
        value = requests.get(name)
        return format_quantity(value, name) if value is not None else "-"

    rows: list[list[str]] = []
    for view in tree.components:
        if not view.component.has_pods:
            continue
        for instance_view in view.instances:
            per_pod = instance_view.per_pod_requests
            replicas = instance_view.instance.scale.replicas
            counts = instance_view.counts
            rows.append(
                [
                    view.name,
                    instance_view.instance.id or "-",
                    "-" if replicas is None else str(replicas),
                    f"{'?' if tree.incomplete else counts.current}/{counts.desired}",
                    number(gpu_count(per_pod)),
                    quantity(per_pod, "cpu"),
                    quantity(per_pod, "memory"),
                ]
            )
    desired = tree.desired_requests
    counts = tree.counts
    rows.append(
        [
            "TOTAL",
            "",
            "",
            f"{'?' if tree.incomplete else counts.current}/{counts.desired}",
            number(gpu_count(desired)),
            quantity(desired, "cpu"),
            quantity(desired, "memory"),
        ]
    )
    headers = ["COMPONENT", "INSTANCE", "REPLICAS", "PODS", "GPU", "CPU", "MEMORY"]
    return format_table(headers, rows).splitlines()


def indent(lines: Iterable[str], prefix: str = "  ") -> list[str]:
    return [prefix + line if line else line for line in lines]


def definition_line(tree: WorkloadTree) -> str:
    """Name and origin; the source only when it says more than the origin (a file or cluster object)."""
    ref = tree.definition
    if ref.origin == "builtin":
        return f"{ref.name} (builtin)"
    return f"{ref.name} ({ref.origin}: {ref.source})"
