"""Static validation of a definition: every rule of the format, all findings at once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from workload_map.definition.expressions import iter_expressions
from workload_map.definition.gaps import TODO_MARK
from workload_map.definition.model import ComponentDefinition, Karta
from workload_map.definition.writable import read_only_findings
from workload_map.errors import Finding, Location, Severity
from workload_map.jq import LIMITS, expression_errors

WARNING = Severity.WARNING
# TODO_MARK: what `wmap definitions new` writes where it could not infer a field (definition.gaps); any string
# of a definition that carries it is reported, so an unreviewed draft never passes silently.


def validate(karta: Karta, location: Location | None = None) -> list[Finding]:
    location = location or Location()
    findings: list[Finding] = []
    structure = location.child("spec", "structureDefinition")
    root_loc = structure.child("rootComponent")
    children = karta.spec.structure_definition.child_components

    def child_loc(index: int) -> Location:
        return structure.child("childComponents", index)

    located: list[tuple[ComponentDefinition, Location]] = [(karta.root, root_loc)]
    located += [(child, child_loc(i)) for i, child in enumerate(children)]

    findings += _check_root(karta.root, root_loc)
    findings += _check_names(located)
    findings += _check_ownership(karta, children, child_loc)
    for component, loc in located:
        findings += _check_component(component, loc, is_root=component is karta.root)
    findings += _check_gang(karta, location)
    findings += _check_expressions(karta, location)
    findings += read_only_findings(karta, location)
    findings += todo_findings(karta, location)
    return findings


def todo_findings(karta: Karta, location: Location) -> list[Finding]:
    """A warning at every field whose value still carries the draft's TODO marker."""
    findings: list[Finding] = []

    def walk(value: object, path: tuple[str | int, ...]) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                walk(child, (*path, str(key)))
        elif isinstance(value, list):
            for index, child in enumerate(value):
                walk(child, (*path, index))
        elif isinstance(value, str) and TODO_MARK in value:
            what = value[value.index(TODO_MARK) + len(TODO_MARK) :].strip(' :"')
            message = f"left to do (drafted by wmap definitions new): {what}"
            if value.lstrip().startswith(f'"{TODO_MARK}'):
                # Drafts written before gaps were comments: the literal is a value, so a selector claims every
                # pod with it and an instance id names an instance.
                message += (
                    f"; this gap is a string literal, which every reader takes as a value: write it as "
                    f"'empty  # {TODO_MARK}: ...' (docs/definition-format.md, Gaps in a draft)"
                )
            findings.append(Finding(location.child(*path), message, WARNING))

    walk(karta.to_dict(), ())
    return findings


def _check_root(root: ComponentDefinition, loc: Location) -> list[Finding]:
    findings = []
    if root.kind is None:
        findings.append(Finding(loc.child("kind"), "the root component needs a kind {group, version, kind}"))
    else:
        if not root.kind.version:
            findings.append(Finding(loc.child("kind", "version"), "the root kind needs a version"))
        if not root.kind.kind:
            findings.append(Finding(loc.child("kind", "kind"), "the root kind needs a kind"))
        if not root.kind.group and root.kind.kind != "Pod":
            findings.append(
                Finding(
                    loc.child("kind", "group"),
                    f"the root kind {root.kind.kind!r} needs a group (only core Pod has an empty group)",
                )
            )
    if root.owner_ref is not None:
        findings.append(Finding(loc.child("ownerRef"), "the root component must not have an ownerRef"))
    if root.status_definition is None:
        findings.append(Finding(loc.child("statusDefinition"), "the root component needs a statusDefinition"))
    return findings


def _check_names(located: list[tuple[ComponentDefinition, Location]]) -> list[Finding]:
    findings = []
    counts = Counter(component.name for component, _ in located)
    first_seen: dict[str, Location] = {}
    for component, loc in located:
        if not component.name:
            findings.append(Finding(loc.child("name"), "component name is empty"))
            continue
        if counts[component.name] > 1:
            if component.name in first_seen:
                findings.append(
                    Finding(
                        loc.child("name"),
                        f"duplicate component name {component.name!r} (first defined at "
                        f"{first_seen[component.name].path})",
                    )
                )
            else:
                first_seen[component.name] = loc
    return findings


def _check_ownership(
    karta: Karta, children: list[ComponentDefinition], child_loc: Callable[[int], Location]
) -> list[Finding]:
    findings = []
    names = {c.name for c in karta.components}
    parent_of = {c.name: c.owner_ref for c in children}
    for index, child in enumerate(children):
        loc = child_loc(index)
        if child.owner_ref is None:
            findings.append(
                Finding(loc.child("ownerRef"), f"child component {child.name!r} needs an ownerRef (its parent's name)")
            )
        elif child.owner_ref not in names:
            findings.append(
                Finding(
                    loc.child("ownerRef"),
                    f"ownerRef {child.owner_ref!r} names no component (known: {', '.join(sorted(names))})",
                )
            )
        elif child.owner_ref == child.name:
            findings.append(Finding(loc.child("ownerRef"), f"component {child.name!r} cannot own itself"))
    reported: set[frozenset[str]] = set()
    for index, child in enumerate(children):
        chain = [child.name]
        current = parent_of.get(child.name)
        while current is not None and current in parent_of:
            if current in chain:
                cycle = chain[chain.index(current) :]
                key = frozenset(cycle)
                if key not in reported and len(cycle) > 1:
                    reported.add(key)
                    findings.append(
                        Finding(
                            child_loc(index).child("ownerRef"),
                            "ownership cycle: " + " -> ".join([*cycle, current]),
                        )
                    )
                break
            chain.append(current)
            current = parent_of.get(current)
    return findings


def _check_component(component: ComponentDefinition, loc: Location, *, is_root: bool) -> list[Finding]:
    findings = []
    spec = component.spec_definition
    if spec is not None:
        forms = spec.forms
        if len(forms) > 1:
            findings.append(
                Finding(
                    loc.child("specDefinition"),
                    f"component {component.name!r} has more than one pod spec form "
                    f"({', '.join(forms)}); keep exactly one",
                )
            )
        if spec.metadata_path is not None and spec.pod_spec_path is None:
            findings.append(
                Finding(
                    loc.child("specDefinition", "metadataPath"),
                    "metadataPath is only read with podSpecPath; here it is ignored",
                    Severity.WARNING,
                )
            )
    selector = component.pod_selector
    instance_selector = selector.component_instance_selector if selector else None
    if component.instance_id_path is not None and instance_selector is None:
        findings.append(
            Finding(
                loc.child("instanceIdPath"),
                f"component {component.name!r} has instanceIdPath but no podSelector.componentInstanceSelector "
                "to tell which instance a pod belongs to",
            )
        )
    if instance_selector is not None and component.instance_id_path is None:
        findings.append(
            Finding(
                loc.child("podSelector", "componentInstanceSelector"),
                f"component {component.name!r} has a componentInstanceSelector but no instanceIdPath",
            )
        )
    type_selector = selector.component_type_selector if selector else None
    if type_selector is not None:
        type_loc = loc.child("podSelector", "componentTypeSelector")
        if type_selector.key_path is None and not type_selector.match_labels:
            findings.append(Finding(type_loc, "componentTypeSelector needs keyPath or matchLabels"))
        if type_selector.value is not None and type_selector.key_path is None:
            findings.append(Finding(type_loc.child("value"), "value requires keyPath"))
    status = component.status_definition
    if status is not None:
        if not is_root:
            findings.append(
                Finding(
                    loc.child("statusDefinition"),
                    "statusDefinition is only read on the root component",
                    Severity.WARNING,
                )
            )
        mappings_loc = loc.child("statusDefinition", "statusMappings")
        if not status.status_mappings.entries() and is_root:
            # Legitimate for gang-only and scheduling-only definitions, which KAI Scheduler accepts.
            findings.append(
                Finding(
                    mappings_loc,
                    "statusMappings maps no status; every workload will be Undefined",
                    Severity.WARNING,
                )
            )
        for _, field_name, matchers in status.status_mappings.entries():
            for index, matcher in enumerate(matchers):
                m_loc = mappings_loc.child(field_name, index)
                # KAI Scheduler's validator accepts all of these, so they are warnings: the definition
                # loads everywhere, the matcher just never matches (or matches more than meant).
                if matcher.by_phase is None and not matcher.by_conditions and matcher.by_expression is None:
                    findings.append(
                        Finding(
                            m_loc,
                            "matcher has no byPhase, byConditions or byExpression; it never matches here "
                            "(KAI Scheduler's reference matches it always)",
                            WARNING,
                        )
                    )
                if matcher.by_phase is not None and status.phase_definition is None:
                    findings.append(
                        Finding(
                            m_loc.child("byPhase"),
                            "byPhase needs statusDefinition.phaseDefinition; without it the matcher never matches",
                            WARNING,
                        )
                    )
                if matcher.by_conditions and status.conditions_definition is None:
                    findings.append(
                        Finding(
                            m_loc.child("byConditions"),
                            "byConditions needs statusDefinition.conditionsDefinition; without it the matcher "
                            "never matches",
                            WARNING,
                        )
                    )
                for c_index, condition in enumerate(matcher.by_conditions or []):
                    if condition.status is None and condition.reason is None:
                        findings.append(
                            Finding(
                                m_loc.child("byConditions", c_index),
                                f"expected condition {condition.type!r} has neither status nor reason; it matches "
                                "whenever the condition exists, whatever its status",
                                WARNING,
                            )
                        )
    return findings


def _check_gang(karta: Karta, location: Location) -> list[Finding]:
    gang = karta.gang
    if gang is None:
        return []
    findings = []
    names = {c.name for c in karta.components}
    base = location.child("spec", "optimizationInstructions", "gangScheduling")
    if gang.pod_groups is not None and gang.pod_group is not None:
        findings.append(
            Finding(base, "use either podGroups or podGroup, not both; podGroup is used, podGroups ignored", WARNING)
        )
    group_names = Counter(g.name for g in gang.pod_groups or [])
    for g_index, group in enumerate(gang.pod_groups or []):
        g_loc = base.child("podGroups", g_index)
        if group_names[group.name] > 1:
            findings.append(Finding(g_loc.child("name"), f"duplicate pod group name {group.name!r}"))
        if not group.members:
            findings.append(Finding(g_loc.child("members"), "pod group has no members; it groups no pod", WARNING))
        member_names = Counter(m.component_name for m in group.members)
        for m_index, member in enumerate(group.members):
            m_loc = g_loc.child("members", m_index, "componentName")
            if member.component_name not in names:
                findings.append(Finding(m_loc, f"member names unknown component {member.component_name!r}"))
            elif member_names[member.component_name] > 1:
                findings.append(Finding(m_loc, f"component {member.component_name!r} is listed twice"))
    if gang.pod_group is not None:
        for s_index, sub in enumerate(gang.pod_group.sub_groups):
            s_loc = base.child("podGroup", "subGroups", s_index, "componentName")
            if sub.component_name not in names:
                findings.append(Finding(s_loc, f"sub-group names unknown component {sub.component_name!r}"))
    return findings


def _check_expressions(karta: Karta, location: Location) -> list[Finding]:
    findings = []
    for ref in iter_expressions(karta):
        # Every sandbox violation, else the parse error; known without compiling again when the definition
        # was loaded before (workload_map.definition.compiled).
        shown = ref.expression
        if len(shown) > LIMITS.max_expression_chars:  # refused for its size: quote its start, not megabytes
            shown = f"{shown[:200]}... ({len(shown)} characters)"
        for error in expression_errors(ref.expression):
            findings.append(Finding(location.child(*ref.path), str(error), expression=shown))
    return findings
