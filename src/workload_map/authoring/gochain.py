"""Pods made through a kind of the operator's own (``wmap definitions new --api-source DIR``): the root's
controller creates another custom kind of the same sources (``&api.Datacenter{Spec: ...}``, an apply
configuration ``ac.Service(name, ns).WithSpec(...)``), whose own controller builds the workloads that own the
pods. The child kind's workloads are read as gochildren.py reads the root's; a count they take from the
child's spec is followed back to the field of the root the root's code writes there
(``spec.WithReplicas(*root.Spec.Replicas)``, ``Replicas: rootSpec.Extra.Replicas``). The draft models the
child as a component of its kind owned by the root, and each workload as a component owned by it, so a live
read follows the owner chain pod -> workload -> child -> root.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from workload_map.authoring import children as child_kinds
from workload_map.authoring.builder import Builder, jq
from workload_map.authoring.evidence import ARRAY, LOW, MAP, MEDIUM, Segments, schema_path
from workload_map.authoring.gochildren import (
    APPLY_CONFIGURATIONS,
    BuiltChild,
    _count,
    _double,
    _takes,
    built_children,
)
from workload_map.authoring.gocode import GoCode, go_code
from workload_map.authoring.gofilled import _guard
from workload_map.authoring.gofuncs import GoFunc, _balanced, _Program
from workload_map.authoring.golocator import _Locator
from workload_map.authoring.goread import GoType, Package, go_type_name
from workload_map.authoring.render import Path as KartaPath
from workload_map.authoring.schemafacts import SchemaFacts

MAX_CHILD_KINDS = 4


@dataclass
class ChildKind:
    """A custom kind of the operator's sources the root's code creates, and the workloads its controller
    builds; each workload's count as a field of the root (None: not traced)."""

    kind: dict[str, str]
    where: str
    function: str
    workloads: list[tuple[BuiltChild, Segments | None, Segments | None]] = field(default_factory=list)
    # (the workload, its count in the root's fields, the list of the child's spec it is built per item of)
    guard: Segments | None = None  # the root's switch without which the code returns before building it


def _constructions(package: Package, function: GoFunc, root: GoType) -> list[tuple[GoType, int, int]]:
    """The objects of the sources' custom kinds (not the root's) the function builds: a literal with fields
    or an apply configuration's constructor: (the kind's type, start, end)."""
    body = function.body
    out: list[tuple[GoType, int, int]] = []
    for index in range(len(body) - 4):
        qualifier, dot, name, opening = (t.text for t in body[index : index + 4])
        if dot != "." or opening not in "{(" or body[index + 4].text in "})" or name == root.name:
            continue
        imported = function.file.imports.get(qualifier, "")
        applied = APPLY_CONFIGURATIONS in imported
        if not imported or (opening == "(") != applied or not name[:1].isupper():
            continue
        # A literal's type is in the folder its import names; a constructor's is declared in an API folder
        # (the one of the import's version first).
        version = imported.rstrip("/").rpartition("/")[2]
        folders = package.folders_declaring(name) if applied else package.folders_of(imported)
        for directory in sorted(folders, key=lambda d: version not in d.split("/")):
            package.load(directory)
            declared = package.types.get((directory, name))
            if declared is not None and any(f.json == "status" for f in declared.fields):
                out.append((declared, index, _balanced(body, index + 3)))
                break
    return out


# The API group of a folder: ``Group: "x.io"``, ``GroupName = "x.io"``, or the ``+groupName=x.io`` marker.
_GROUP = re.compile(r"(?:\bGroup:\s*|\bGroupName\s*=\s*|\+groupName=)\"?([a-z0-9-]+(?:\.[a-z0-9-]+)+)")


def _group(package: Package, declared: GoType) -> str | None:
    for path in package.folders.get(declared.file.directory, []):
        if match := _GROUP.search(package.text(path) or ""):
            return match.group(1)
    return None


def _go_name(locator: _Locator, segments: Segments) -> str | None:
    """The Go name of the kind's field at ``segments`` (by the json tags)."""
    for found, go_field, _ in locator.linker.walk(locator.kind, (), set()):
        if found == segments and go_field.names:
            return go_field.names[0]
    return None


def _per_item(program: _Program, locator: _Locator, built: BuiltChild) -> Segments | None:
    """The list of the kind's spec whose items the workload is built for: the function building it takes
    one item (``rack RackSpec`` for ``.spec.racks[]``)."""
    path = built.where.rpartition(":")[0]
    for function in program.folder(path.rpartition("/")[0]).get(built.function, []):
        if function.file.path != path:
            continue
        for type_expr in function.params.values():
            place = locator.type_place(type_expr, function.file, None)
            if place.segments and place.segments[-1] in (ARRAY, MAP) and place.segments[0] == "spec":
                return place.segments
    return None


def child_kinds_built(root: Path | GoCode, kind: str, version: str) -> list[ChildKind]:
    """The custom kinds of the sources under ``root`` that the code taking ``kind`` creates, each with the
    workloads its own controller builds: those counted by a field of the child, or built per item of a list
    of its spec (the others are kept out: an operator builds many workloads for other ends)."""
    kind = go_type_name(kind)
    shared = go_code(root)
    code = shared.kind_code(kind, version)
    if code is None:
        return []
    program, locator, declared = code
    package = program.package
    out: list[ChildKind] = []
    for function in program.mentioning(kind):
        if _double(function) or not (_takes(function, locator, declared) or _takes(function, locator, declared, True)):
            continue
        for child, start, end in _constructions(package, function, declared):
            group = _group(package, child)
            if group is None or any(c.kind["kind"] == child.name for c in out) or len(out) >= MAX_CHILD_KINDS:
                continue
            version_name = child.file.directory.rpartition("/")[2]
            found = ChildKind({"group": group, "version": version_name, "kind": child.name}, "", function.name)
            found.where = f"{function.file.path}:{function.body[start].line}"
            found.guard = _guard(locator, function, start)
            child_program = _Program(package, shared.parsed)
            child_locator = _Locator(child_program, child)
            for built in built_children(shared, child.name, version_name, foreign=True):
                item = _per_item(child_program, child_locator, built) if built.count is None else None
                if built.count is None and item is None:
                    continue
                traced = None
                if built.count is not None and ARRAY not in built.count and MAP not in built.count:
                    name = _go_name(child_locator, built.count)
                    if name is not None:
                        traced = _count(locator, function, start, end, (name,))[0]
                found.workloads.append((built, traced, item))
            if found.workloads:
                out.append(found)
    return out


def _name(kind: str, taken: set[str]) -> str:
    name = re.sub(r"[^a-z0-9-]", "", kind.lower()) or "child"
    while name in taken:
        name += "x"
    taken.add(name)
    return name


def chain_components(  # noqa: PLR0917 - the builder's state it adds to, each by name at its one call
    builder: Builder,
    facts: SchemaFacts,
    found: list[ChildKind],
    children: list[dict[str, Any]],
    taken: set[str],
    root: str,
    alone: bool,
) -> None:
    """Each child kind a component owned by the root (no pods of its own), each of its workloads a component
    owned by it: counted by the root's field the code writes into the child, else a gap. A workload whose
    count is not traced to the root is drafted only when the root has no pods otherwise (``alone``: no pod
    definition, no other component): beside the root's own pods, a child kind is as often a passing one (an experiment,
    an analysis run) as a part of the workload."""
    base: KartaPath = ("spec", "structureDefinition", "childComponents")
    drafted = {(c["kind"]["group"], c["kind"]["kind"]) for c in children if "kind" in c}
    for child in found:
        identity = (child.kind["group"], child.kind["kind"])
        if identity in drafted or builder.covering(*identity):
            continue  # already a component (an embedded spec), or a kind whose pods the catalog defines
        workloads = [
            (w, c, i)
            for w, c, i in child.workloads
            if _known(builder, w.kind) is not None and (alone or _numeric(facts, c) is not None)
        ]
        if not workloads:
            continue
        parent = _name(child.kind["kind"], taken)
        builder.note(
            (*base, len(children), "kind"),
            MEDIUM,
            f"the operator creates a {child.kind['kind']} of its own for the object at {child.where}",
            f"({child.function}); its controller makes the pods.",
        )
        children.append({"name": parent, "ownerRef": root, "kind": dict(child.kind)})
        first = len(children)
        for workload, count, item in workloads:
            gvk = _known(builder, workload.kind) or workload.kind
            if count is not None and _numeric(facts, count) is not None:
                traced = replace(workload, kind=gvk, count=count)  # all else as read in the child's code
                child_kinds.built_component(builder, facts, traced, children, taken, parent)
                _guarded(builder, facts, child, count, children[-1], (*base, len(children) - 1))
                taken.discard(children[-1]["name"])  # named after the child kind and its own
                children[-1]["name"] = _name(f"{parent}-{gvk['kind']}", taken)
                if "importPath" in workload.kind:
                    builder.note(
                        (*base, len(children) - 1, "scaleDefinition", "replicasPath"),
                        LOW,
                        f"the {gvk['kind']}'s own replicas: the pods each makes (a group's size) are that kind's,",
                        "not traced here, and counted as one.",
                    )
                continue
            path: KartaPath = (*base, len(children))
            name = _name(f"{parent}-{gvk['kind']}", taken)
            builder.note(
                (*path, "kind"),
                MEDIUM,
                f"the {child.kind['kind']}'s controller builds a {gvk['kind']} at {workload.where}",
                f"({workload.function}, reached by {' > '.join(workload.chain)}).",
            )
            said = (
                f"one {gvk['kind']} per item of the {child.kind['kind']}'s {schema_path(item)}: its count, and the"
                " object's fields the code fills that list from, are not traced"
                if item is not None
                else f"its {workload.count_key} reads the {child.kind['kind']}'s {schema_path(workload.count or ())},"
                " which the code fills from the object in a way not traced"
            )
            children.append(
                {
                    "name": name,
                    "ownerRef": parent,
                    "kind": dict(gvk),
                    "specDefinition": _pod(builder, workload, gvk["kind"], (*path, "specDefinition")),
                    "scaleDefinition": {
                        "replicasPath": builder.todo(
                            (*path, "scaleDefinition", "replicasPath"),
                            said,
                        )
                    },
                }
            )
        _by_owner(builder, children, first, base)


def _pod(builder: Builder, workload: BuiltChild, kind: str, path: KartaPath) -> dict[str, Any]:
    """No path when the code composes the workload's pod (as children.built_component says it), else a gap."""
    if workload.composed:
        builder.note(
            path,
            MEDIUM,
            f"the operator composes the {kind}'s pod at {workload.where} (a PodTemplateSpec it builds): no path",
            "reads it; its pods are counted, their containers not read.",
        )
        return {"fragmentedPodSpecDefinition": {}}
    what = f"the pods of the {kind} built at {workload.where}: the operator assembles them"
    return {"podTemplateSpecPath": builder.todo((*path, "podTemplateSpecPath"), what)}


# The kind that owns a built-in workload's pods (their controller reference).
POD_OWNERS = {
    "Deployment": "ReplicaSet",
    "StatefulSet": "StatefulSet",
    "DaemonSet": "DaemonSet",
    "ReplicaSet": "ReplicaSet",
    "Job": "Job",
}
OWNER_KIND = "[.metadata.ownerReferences[]? | select(.controller == true) | .kind][0]"


def _by_owner(builder: Builder, children: list[dict[str, Any]], first: int, base: KartaPath) -> None:
    """Several workloads of one child kind: each built-in one claims the pods its kind owns (their controller
    reference's kind), when those kinds differ; one other kind (a LeaderWorkerSet) takes the rest."""
    added = children[first:]
    owners = [POD_OWNERS.get(c["kind"]["kind"]) if c["kind"]["group"] in ("apps", "batch") else None for c in added]
    known = [o for o in owners if o is not None]
    if len(added) < 2 or len(set(known)) != len(known) or len(added) - len(known) > 1:
        return
    for index, (component, owner) in enumerate(zip(added, owners, strict=True)):
        if owner is None:
            continue
        component["podSelector"] = {"componentTypeSelector": {"keyPath": OWNER_KIND, "value": owner}}
        builder.note(
            (*base, first + index, "podSelector"),
            MEDIUM,
            f"its pods are those a {owner} controls (the other workloads of the {component['ownerRef']} are of other",
            "kinds).",
        )


def _guarded(  # noqa: PLR0917 - one component's facts, each by name at its one call
    builder: Builder, facts: SchemaFacts, child: ChildKind, count: Segments, component: dict[str, Any], path: KartaPath
) -> None:
    """A count at the spec (one workload) made 0 while the boolean switch the code checks first is off."""
    switch = facts.field_at(child.guard) if child.guard is not None else None
    counted = facts.field_at(count)
    if switch is None or switch.schema.get("type") != "boolean" or counted is None or {ARRAY, MAP} & set(count):
        return
    default = counted.default if isinstance(counted.default, int) else 1
    expression = f"(if {jq(switch.segments)} == true then 1 else 0 end) * ({jq(count)} // {default})"
    component["scaleDefinition"] = {"replicasPath": expression}
    builder.note(
        (*path, "scaleDefinition", "replicasPath"),
        MEDIUM,
        f"0 unless {switch.path} is true: {child.function} returns without a {child.kind['kind']} otherwise.",
    )


def _numeric(facts: SchemaFacts, count: Segments | None) -> Segments | None:
    """The count when the schema has a number there (a trace ending on an object is no count)."""
    found = facts.field_at(count) if count is not None else None
    return count if found is not None and found.schema.get("type") in ("integer", "number") else None


def _known(builder: Builder, kind: dict[str, str]) -> dict[str, str] | None:
    """A built-in workload as it is; another project's kind as the catalog defines it (None: unknown)."""
    if "importPath" not in kind:
        return kind
    for definition in builder.catalog:
        identity = definition.karta.identity
        if identity is not None and (identity.kind, identity.version) == (kind["kind"], kind["version"]):
            return {"group": identity.group, "version": identity.version, "kind": identity.kind}
    return None
