"""Plain-text report of a gang plan, for ``wmap gang`` (no terminal styling: the CLI decides that)."""

from __future__ import annotations

from workload_map.gang.model import GangPlan, PodGroupPlan
from workload_map.resolve.resources import to_json


def group_state(group: PodGroupPlan) -> str:
    if group.expected:
        return "expected"
    if group.satisfied:
        return "scheduled"
    if group.pending:
        return "waiting"
    return "incomplete" if group.missing_for_min else "partial"


def _number(value: object) -> str:
    text = str(value)
    return text[:-2] if text.endswith(".0") else text


def table_rows(plan: GangPlan, *, unknown: bool = False) -> list[list[str]]:
    """One row per group. ``unknown``: the workload's pods could not be read, so which members are present,
    scheduled, pending or missing is ``?`` (and the state ``unknown``), not the zeros of pods unseen."""
    rows = []
    for group in plan.groups:
        member = group.component if group.instance is None else f"{group.component}[{group.instance}]"
        seen = (
            ["?"] * 4
            if unknown
            else [
                str(len(group.active)),
                str(len(group.scheduled)),
                str(len(group.pending)),
                str(group.missing),
            ]
        )
        rows.append(
            [
                group.display_name(),
                member,
                str(group.min_member),
                str(group.desired),
                *seen,
                _number(group.min_gpus),
                "unknown" if unknown else group_state(group),
            ]
        )
    return rows


HEADERS = ["GROUP", "MEMBER", "MIN", "DESIRED", "PRESENT", "SCHEDULED", "PENDING", "MISSING", "GPUS(MIN)", "STATE"]


def detail_lines(plan: GangPlan, *, unknown: bool = False) -> list[str]:
    """Per group: sub-groups, min resources and placement shape, pending members with their reasons
    (``unknown``: see table_rows)."""
    lines: list[str] = []
    for group in plan.groups:
        lines.append(f"{group.display_name()}:")
        if group.sub_groups:
            kind = "derived sub-groups" if all(s.derived for s in group.sub_groups) else "sub-groups"
            parts = [
                f"{s.name} min {s.min_member} "
                f"({'?' if unknown else len([p for p in s.pods if p in group.active])} present)"
                for s in group.sub_groups
            ]
            suffix = f", all {group.min_sub_group} required" if group.min_sub_group else ""
            lines.append(f"  {kind}: {', '.join(parts)}{suffix}")
        if group.topology is not None:
            t = group.topology
            level = f"required {t.required_level}" if t.required_level else f"preferred {t.preferred_level}"
            lines.append(f"  topology: {t.topology}, {level}")
        resources = to_json(group.min_resources)
        if resources:
            lines.append("  min resources: " + ", ".join(f"{k}={v}" for k, v in resources.items()))
        for shape in group.shapes:
            per_pod = ", ".join(f"{k}={v}" for k, v in to_json(shape.per_pod).items()) or "no requests"
            product = f" on {shape.gpu_product}" if shape.gpu_product else ""
            lines.append(f"    {shape.count} x {shape.label}: {per_pod}{product}")
        for pod in sorted(group.pending, key=lambda p: p.name):
            reason = pod.state.pending_reason or "Pending"
            message = f": {pod.state.pending_message}" if pod.state.pending_message else ""
            lines.append(f"  pending {pod.name}: {reason}{message}")
        for note in group.notes:
            lines.append(f"  note: {note}")
    for missing in plan.unenumerated:
        expected = f"{missing.expected} group(s) of member {missing.component!r} ({missing.definition_group}) are "
        if unknown:
            lines.append(expected + "expected. Their names depend on pod labels, and the pods could not be read.")
        else:
            lines.append(
                expected + f"expected; {missing.observed} seen. Their names depend on pod labels, known once the "
                "pods exist."
            )
    if plan.errors:
        lines.append("Pods that cannot be grouped:")
        lines.extend(f"  {e.pod}: {e.message}" for e in plan.errors)
    return lines
