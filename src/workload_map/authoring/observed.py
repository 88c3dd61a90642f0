"""What the operator was seen to make (``--from-recording``), put into the draft: the children its pods come
through, the root field their pods carry, and the root field that counts them (observedroles.py reads them
from the recorded states). What was seen wins over what the schema or the operator's source suggested, and
says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workload_map.authoring import observedlists
from workload_map.authoring.builder import Builder, jq
from workload_map.authoring.evidence import ARRAY, HIGH, LOW, MAP, MEDIUM, TODO_MARK, Segments, schema_path
from workload_map.authoring.observedroles import Group, Template, _missing, _settled, count, groups, template
from workload_map.authoring.render import Path
from workload_map.authoring.schemafacts import SchemaFacts
from workload_map.authoring.transitions import Moment
from workload_map.errors import format_path
from workload_map.jq import JqError, compile_expression


@dataclass
class Structure:
    """The draft's structure as the rest of the drafting left it, which ``apply`` corrects in place."""

    root: dict[str, Any]
    children: list[dict[str, Any]]
    additional: list[dict[str, str]]
    origins: dict[int, Segments]  # id(component) -> the pod definition's path it was drafted from
    taken: set[str]


BASE: Path = ("spec", "structureDefinition")


def _fits(site: Segments, seen: Segments) -> bool:
    """A drafted pod definition's path (``[]``/``{}`` any item) is the one seen, or directly above or below it."""
    short, long = sorted((site, seen), key=len)
    if len(long) - len(short) > 1:
        return False
    return all(a == b or ARRAY in (a, b) or MAP in (a, b) for a, b in zip(short, long, strict=False))


def _read_path(component: dict[str, Any]) -> str | None:
    spec = component.get("specDefinition") or {}
    fragments = spec.get("fragmentedPodSpecDefinition") or {}
    for value in (spec.get("podTemplateSpecPath"), spec.get("podSpecPath"), fragments.get("containersPath")):
        if value is not None:
            return str(value)
    return None


def _owner_kind(component: dict[str, Any], is_root: bool, additional: list[dict[str, str]]) -> str:
    if is_root:
        return additional[0]["kind"] if additional else "Pod"
    return str((component.get("kind") or {}).get("kind", "Pod"))


def _definition(segments: Segments, form: str) -> dict[str, Any]:
    if form == "template":
        return {"podTemplateSpecPath": jq(segments)}
    if form == "podspec":
        return {"podSpecPath": jq(segments)}
    return {"fragmentedPodSpecDefinition": {"containersPath": jq(segments)}}


def apply(builder: Builder, facts: SchemaFacts | None, moments: Sequence[Moment], drafted: Structure) -> None:
    """Correct the drafted components by the roles of pods the recordings show (see the module's docstring)."""
    seen = groups(moments)
    steps = [g for g in seen if g.one_off]
    if steps and (len(steps) < len(seen) or any("specDefinition" in c for c in drafted.children)):
        # Jobs done while the operator went on to other roles (or has others to make): steps on its way there.
        seen = [g for g in seen if not g.one_off]
        builder.note(
            (*BASE, "rootComponent", "name"),
            MEDIUM,
            *(f"seen in {g.source}: {g.label} ran to success: a step of the operator's, not a role." for g in steps),
        )
    if not seen:
        return
    seen, keyed = observedlists.merge(seen)
    roots = list({m.run: m.root for m in moments if m.root is not None}.values())  # each run's last version
    pods: list[tuple[dict[str, Any], bool]] = [(drafted.root, True)] if "specDefinition" in drafted.root else []
    pods += [(c, False) for c in drafted.children if "specDefinition" in c]
    claimed: dict[int, Group] = {}  # index in pods -> the group it was matched to first
    for group in seen:
        shape = template(group)
        choice = _match(group, shape, pods, claimed, drafted)
        # A list's items merged into one group get their own component, not another list's.
        shared = None if id(group) in keyed else _shared(group, shape, pods, claimed, drafted)
        if choice is None and shared is not None:
            # A role of a list or map another kind of pods was matched to: a component of its own would count
            # those pods twice; the reviewer is told.
            if "instanceIdPath" in shared and shared.get("kind", {}).get("kind") == group.kind["kind"]:
                builder.note(
                    (*_path_of(shared, drafted), "instanceIdPath"),
                    MEDIUM,
                    f"seen in {group.source}: {group.label}: one more instance of these.",
                )
            else:
                builder.note(
                    (*_path_of(shared, drafted), "kind"),
                    LOW,
                    f"seen in {group.source}: {group.label} also carry these containers: a role of this list or",
                    "map may be made through that kind instead.",
                )
            continue
        if choice is None:
            component = _new_component(builder, group, drafted)
            pods.append((component, False))
            choice = len(pods) - 1
        elif choice in claimed:
            continue  # one more role of a component drafted over a list or map of them
        claimed[choice] = group
        component, is_root = pods[choice]
        path = _path_of(component, drafted)
        _correct_kind(builder, group, component, is_root, drafted, path)
        _correct_template(builder, group, shape, component, drafted, path)
        if id(group) in keyed:
            observedlists.instances(builder, facts, keyed[id(group)], component, path)
        _correct_count(builder, facts, group, shape, component, path, roots)
    _drop_unseen(builder, pods, claimed, drafted, seen)


def _shared(
    group: Group,
    shape: Template,
    pods: list[tuple[dict[str, Any], bool]],
    claimed: dict[int, Group],
    drafted: Structure,
) -> dict[str, Any] | None:
    """A matched component drafted over a list or map whose pod definition the pods also fit, or one with an
    instance per item of the object's (``instanceIdPath``) whose pods are the same kind's."""
    for index, other in claimed.items():
        component = pods[index][0]
        same = other.chain == group.chain and (shape.segments is None) == (_read_path(component) is None)
        if "instanceIdPath" in component and same:
            return component
    if shape.segments is None:
        return None
    for index in claimed:
        origin = drafted.origins.get(id(pods[index][0]))
        if origin is not None and {ARRAY, MAP} & set(origin) and _fits(origin, shape.segments):
            return pods[index][0]
    return None


def _path_of(component: dict[str, Any], drafted: Structure) -> Path:
    if component is drafted.root:
        return (*BASE, "rootComponent")
    return (*BASE, "childComponents", next(i for i, c in enumerate(drafted.children) if c is component))


def _match(
    group: Group,
    shape: Template,
    pods: list[tuple[dict[str, Any], bool]],
    claimed: dict[int, Group],
    drafted: Structure,
) -> int | None:
    """The drafted component these pods are of: by the path of their pod definition, else by their owner kind,
    else a component whose pod the draft could not place (a guess of the source's, corrected here)."""
    if shape.segments is not None:
        wanted = jq(shape.segments)
        for index, (component, _) in enumerate(pods):
            origin = drafted.origins.get(id(component))
            fits = (origin is not None and _fits(origin, shape.segments)) or _read_path(component) == wanted
            if fits and (index not in claimed or claimed[index].chain == group.chain):
                return index
    same_kind = [
        index
        for index, (component, is_root) in enumerate(pods)
        if _owner_kind(component, is_root, drafted.additional) == group.kind["kind"]
        and index not in claimed
        and (shape.segments is None or id(component) not in drafted.origins)
    ]
    if same_kind:
        # Several of the kind: the one whose own count gives these pods, else the one named after their role.
        return max(same_kind, key=lambda i: (_agrees(pods[i][0], group), _names_role(pods[i][0], group)))
    for index, (component, is_root) in enumerate(pods):
        # A component whose owner was only the draft's default (pods of the root's own) and whose pod it could
        # not place: the guess these pods settle. One of a kind the source named stays that kind's.
        guessed = _owner_kind(component, is_root, drafted.additional) == "Pod"
        if guessed and index not in claimed and id(component) not in drafted.origins and _read_path(component) is None:
            return index
    return None


def _agrees(component: dict[str, Any], group: Group) -> bool:
    """The component's count reads the group's pods on every settled recorded state."""
    expression = (component.get("scaleDefinition") or {}).get("replicasPath")
    settled = [(root, n) for root, n in _settled(group.counts) if n > 0]
    if not expression or not settled:
        return False
    try:
        program = compile_expression(str(expression))
        return all(program.first(root) == n for root, n in settled)
    except JqError:
        return False


def _names_role(component: dict[str, Any], group: Group) -> bool:
    role = group.role.lower()
    text = f"{component.get('name')} {(component.get('scaleDefinition') or {}).get('replicasPath')}".lower()
    return bool(role) and role in text


def _new_component(builder: Builder, group: Group, drafted: Structure) -> dict[str, Any]:
    """A component for pods no drafted one was of: a child of their kind the draft listed without pods (an object
    the samples showed the root owning) becomes it, else a new one."""
    parents = {c.get("ownerRef") for c in drafted.children}
    listed = next(
        (
            c
            for c in drafted.children
            if "specDefinition" not in c
            and "instanceIdPath" not in c
            and c.get("ownerRef") == drafted.root["name"]
            and c["name"] not in parents
            and (c.get("kind") or {}).get("kind") == group.kind["kind"]
        ),
        None,
    )
    if listed is not None:
        component = listed
    else:
        base = re.sub(r"[^a-z0-9-]", "", (group.role or group.kind["kind"]).lower()) or "pods"
        name = base
        while name in drafted.taken:
            name += "x"
        drafted.taken.add(name)
        component = {"name": name, "ownerRef": drafted.root["name"], "kind": dict(group.kind)}
        drafted.children.append(component)
    builder.note(
        (*_path_of(component, drafted), "kind"),
        HIGH,
        f"seen in {group.source}: {group.label}; no component of the draft read their pods.",
    )
    component["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
    return component


def _correct_kind(  # noqa: PLR0917 - one match's facts, each by name at its one call
    builder: Builder, group: Group, component: dict[str, Any], is_root: bool, drafted: Structure, path: Path
) -> None:
    was = _owner_kind(component, is_root, drafted.additional)
    said = f"seen in {group.source}: {group.label}"
    if was == group.kind["kind"]:
        where = (*BASE, "additionalChildKinds") if drafted.additional else (*path, "specDefinition")
        builder.note((*path, "kind") if not is_root else where, HIGH, said + ".")
        return
    if is_root:
        drafted.additional[:] = [dict(group.kind)] if group.chain != ("Pod",) else []
        if group.kind["kind"] == "Deployment":
            drafted.additional.append({"group": "apps", "version": "v1", "kind": "ReplicaSet"})
        builder.notes.pop((*BASE, "additionalChildKinds"), None)
        builder.note((*BASE, "additionalChildKinds"), HIGH, f"{said} (the draft's reading said {was}).")
        return
    component["kind"] = dict(group.kind)
    builder.notes.pop((*path, "kind"), None)
    builder.note((*path, "kind"), HIGH, f"{said} (the draft's reading said {was}).")


def _correct_template(  # noqa: PLR0917 - one match's facts, each by name at its one call
    builder: Builder, group: Group, shape: Template, component: dict[str, Any], drafted: Structure, path: Path
) -> None:
    spec_path: Path = (*path, "specDefinition")
    containers = ", ".join(sorted(group.containers)) or "none"
    if shape.form == "ambiguous":
        return
    if shape.segments is None:
        if component.get("specDefinition") == {"fragmentedPodSpecDefinition": {}}:
            builder.note(
                spec_path,
                HIGH,
                f"seen in {group.source}: no field of the object carries the pods' containers",
                f"({containers}): the operator composes the pod.",
            )
            return
        was = _read_path(component) or "no path"
        was = "a gap" if TODO_MARK in was else was
        component["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
        _forget(builder, spec_path)
        builder.note(
            spec_path,
            HIGH,
            f"seen in {group.source}: the pods' containers ({containers}) are in no pod template, pod spec or",
            f"container list of the object (the draft's reading said {was}): the operator composes the pod; no",
            "path reads it, its pods are counted, their containers not read.",
        )
        return
    wanted = jq(shape.segments)
    if _read_path(component) == wanted or (
        id(component) in drafted.origins and _fits(drafted.origins[id(component)], shape.segments)
    ):
        builder.note(
            spec_path, HIGH, f"seen in {group.source}: the pods carry the containers ({containers}) of {wanted}."
        )
        return
    was = _read_path(component) or "no path"
    was = "a gap" if TODO_MARK in was else was
    component["specDefinition"] = _definition(shape.segments, shape.form)
    _forget(builder, spec_path)
    builder.note(
        spec_path,
        HIGH,
        f"seen in {group.source}: the pods carry the containers ({containers}) of {wanted}, a {shape.form}",
        f"(the draft's reading said {was}).",
    )


def _forget(builder: Builder, path: Path) -> None:
    """The notes (and gaps) of a field the recordings decided otherwise."""
    for key in [k for k in builder.notes if k[: len(path)] == path]:
        del builder.notes[key]
    label = format_path(path)
    builder.todos[:] = [t for t in builder.todos if not t.startswith(label)]


def _correct_count(  # noqa: PLR0917 - one match's facts, each by name at its one call
    builder: Builder,
    facts: SchemaFacts | None,
    group: Group,
    shape: Template,
    component: dict[str, Any],
    path: Path,
    roots: list[dict[str, Any]],
) -> None:
    if "instanceIdPath" in component or (shape.segments is not None and {ARRAY, MAP} & set(shape.segments)):
        return  # a count per item of a list: the states say the sum
    found = count(group, facts)
    scale_path: Path = (*path, "scaleDefinition")
    if found is None:
        return
    field_path = jq(found.segments)
    said = (
        f"seen in {group.source}: {field_path} equals the pods' count (their owners' replicas, else the live pods)"
        f" in {found.agree} of {found.states} recorded state(s)"
    )
    current = str((component.get("scaleDefinition") or {}).get("replicasPath") or "")
    reads = re.search(re.escape(field_path) + r"(?![A-Za-z0-9_])", current) and TODO_MARK not in current
    if reads and _agrees(component, group):
        builder.note((*scale_path, "replicasPath"), HIGH, said + ".")
        return
    default = found.default if found.default is not None else 1
    expression = f"{field_path} // {default}"
    holder = found.segments[:-1]
    if (
        len(holder) > 1
        and any(_missing(r, holder) for r in roots)
        and not any(_missing(r, holder) for r in group.roots)
    ):
        # The recorded objects without the count's object ran none of these pods.
        expression = f"(if {jq(holder)} == null then 0 else 1 end) * ({expression})"
    component["scaleDefinition"] = {"replicasPath": expression}
    _forget(builder, scale_path)
    builder.note(
        (*scale_path, "replicasPath"),
        HIGH,
        f"{said} (the draft's reading said {current or 'nothing'}); unset reads {default}"
        + (
            " (the count seen where the objects left it unset)"
            if found.seen_default
            else " (the schema's default)"
            if found.default is not None
            else ""
        )
        + ("; 0 where the recorded objects had no " + schema_path(holder) if "if " in expression else "")
        + ".",
    )


def _counts_some(component: dict[str, Any], roots: list[dict[str, Any]]) -> bool:
    """The component's own count reads pods on some recorded object (a count it cannot read: one pod)."""
    expression = str((component.get("scaleDefinition") or {}).get("replicasPath") or "1")
    try:
        program = compile_expression(expression)
    except JqError:
        return True
    for root in roots:
        try:
            value = program.first(root)
        except JqError:
            return True
        if not isinstance(value, int | float) or value > 0:
            return True
    return False


def _from_source(builder: Builder, component: dict[str, Any], drafted: Structure) -> bool:
    """Whether the operator's code was read building this component (children.built_component's note)."""
    notes = builder.notes.get((*_path_of(component, drafted), "kind"), [])
    return any("the operator builds a" in line for line in notes)


def _drop_unseen(
    builder: Builder,
    pods: list[tuple[dict[str, Any], bool]],
    claimed: dict[int, Group],
    drafted: Structure,
    seen: list[Group],
) -> None:
    """Components the draft proposed from its guesses (not from the operator's source, nor a pod definition of
    the object) that no recorded pod is of, while others were seen and its own count says some should have been:
    not what the operator makes. One the operator's source builds is kept and said so: a capture often ends
    while the operator waits for the service it started (a database that never answers in a lab), before it
    makes the next role."""
    where = seen[0].source
    roots = [g.roots[-1] for g in seen if g.roots]
    unseen = [c for i, (c, is_root) in enumerate(pods) if i not in claimed and not is_root]
    guessed = [c for c in unseen if id(c) not in drafted.origins and not _from_source(builder, c, drafted)]
    dropped = [c for c in guessed if _counts_some(c, roots)]
    for component in [c for c in unseen if not any(c is d for d in dropped)]:
        builder.note(
            (*_path_of(component, drafted), "name"),
            LOW,
            f"no pod of it was seen in {where} (the recorded objects may leave this role off).",
        )
    if not dropped:
        return
    keep = [c for c in drafted.children if not any(c is d for d in dropped)]
    moved = {i: keep.index(c) for i, c in enumerate(drafted.children) if any(c is k for k in keep)}
    children = (*BASE, "childComponents")
    notes: dict[Path, list[str]] = {}
    for key, lines in builder.notes.items():
        if key[:3] == children and len(key) > 3 and isinstance(key[3], int):
            if key[3] in moved:
                notes[(*children, moved[key[3]], *key[4:])] = lines
        else:
            notes[key] = lines
    builder.notes.clear()
    builder.notes.update(notes)
    drafted.children[:] = keep
    names = ", ".join(f"{c['name']} ({(c.get('kind') or {}).get('kind', 'Pod')})" for c in dropped)
    builder.note(
        (*BASE, "rootComponent", "name"),
        MEDIUM,
        f"dropped {names}: proposed by the draft's reading, but no pod of it was seen in {where} while others were.",
    )
