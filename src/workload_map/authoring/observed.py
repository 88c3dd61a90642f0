"""What the operator was seen to make (``--from-recording``): the children its pods come through, the root field
their pods carry, and the root field that counts them.

Every recorded state holds the objects whose owner chain reaches the root. A pod's owner is the component's
kind (a ReplicaSet of a Deployment is read as the Deployment); owners of one kind and one place in the chain
whose names differ only by an index or a hash are one role. The pods' containers (names and images) are then
looked for in the root's spec at that state: a pod template, a pod spec or a container list carrying them is
the role's pod definition; none carrying them means the operator composes the pod from scattered fields. The
root's integer field equal to the role's count (its owners' ``replicas``, else its pods) in the recorded states
counts it. What was seen wins over what the schema or the operator's source suggested, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring.builder import Builder, jq
from workload_map.authoring.evidence import ARRAY, HIGH, LOW, MAP, MEDIUM, TODO_MARK, Segments, schema_path
from workload_map.authoring.render import Path
from workload_map.authoring.schemafacts import REPLICA_NAMES, SchemaFacts
from workload_map.authoring.transitions import Moment
from workload_map.base.objects import meta, name_of, owner_references
from workload_map.errors import format_path
from workload_map.jq import JqError, compile_expression

# A name's tail that tells copies of one role apart: an index, or a hash with a digit in it.
_COPY_TAIL = re.compile(r"(-(\d+|(?=[a-z0-9]*\d)[a-z0-9]{4,10}))+$")
# Built-in kinds whose own count is their pods' (the field a root's count is copied into).
_COUNT_KEYS = {"StatefulSet": "replicas", "Deployment": "replicas", "ReplicaSet": "replicas", "Job": "parallelism"}
# The share of recorded states a count field must agree with the pods' owners on (a scale shows late).
AGREEMENT = 0.8


def gvk(obj: dict[str, Any]) -> dict[str, str]:
    api = str(obj.get("apiVersion") or "")
    group, _, version = api.rpartition("/")
    return {"group": group, "version": version, "kind": str(obj.get("kind"))}


@dataclass
class Group:
    """One role of pods seen: the owner kind, the chain of kinds from the root, and what was seen of it."""

    kind: dict[str, str]
    chain: tuple[str, ...]  # kinds from the root's child down to the pods' owner
    role: str
    containers: dict[str, str] = field(default_factory=dict)  # name -> image, of its pods
    # (root then, its count then) per recorded state: the owners' replicas, else the live pods.
    counts: list[tuple[dict[str, Any], int]] = field(default_factory=list)
    roots: list[dict[str, Any]] = field(default_factory=list)  # root versions seen beside its pods
    owners: set[str] = field(default_factory=set)
    pods: set[str] = field(default_factory=set)
    finished: set[str] = field(default_factory=set)  # its pods seen Succeeded
    source: str = ""

    @property
    def one_off(self) -> bool:
        """A Job whose every pod ran to success: a step the operator takes (a schema, a bootstrap), not a role."""
        return self.kind.get("kind") == "Job" and bool(self.pods) and self.pods <= self.finished

    @property
    def label(self) -> str:
        if not self.owners:
            return f"{len(self.pods)} pod(s) owned by the object itself"
        owners = ", ".join(sorted(self.owners)[:3]) + ("..." if len(self.owners) > 3 else "")
        return f"{len(self.pods)} pod(s) owned by {self.kind['kind']} {owners} (object > {' > '.join(self.chain)})"


def _role(owner: dict[str, Any], root: dict[str, Any]) -> str:
    name, root_name = name_of(owner), name_of(root)
    # Operators name a child after the object and the role, either way round (cache-db, vmstorage-cache).
    rest = name.replace(root_name, "", 1).replace("--", "-") if root_name else name
    return _COPY_TAIL.sub("", "-" + rest.strip("-")).strip("-") if rest else ""


def _chain(pod: dict[str, Any], root: dict[str, Any], index: dict[str, dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The owners from the pod up to (not including) the root, or None when the chain does not reach it."""
    out: list[dict[str, Any]] = []
    current = pod
    root_uid = meta(root).get("uid")
    for _ in range(10):
        refs = owner_references(current)
        if not refs:
            return None
        ref = refs[0]
        if ref.get("uid") == root_uid or (ref.get("kind"), ref.get("name")) == (root.get("kind"), name_of(root)):
            return out
        found = index.get(str(ref.get("uid"))) or index.get(f"{ref.get('kind')}/{ref.get('name')}")
        if found is None:
            return None
        out.append(found)
        current = found
    return None


def groups(moments: Sequence[Moment]) -> list[Group]:
    """The roles of pods the recorded states show, in the order first seen."""
    found: dict[tuple[tuple[str, ...], str], Group] = {}
    for moment in moments:
        root = moment.root
        if root is None or not moment.objects:
            continue
        index: dict[str, dict[str, Any]] = {}
        for obj in moment.objects:
            if meta(obj).get("uid"):
                index[str(meta(obj)["uid"])] = obj
            index[f"{obj.get('kind')}/{name_of(obj)}"] = obj
        here: dict[tuple[tuple[str, ...], str], tuple[int, set[str]]] = {}
        for pod in moment.objects:
            if pod.get("kind") != "Pod" or meta(pod).get("deletionTimestamp"):
                continue
            chain = _chain(pod, root, index)
            if chain is None:
                continue
            owner = chain[0] if chain else root
            if owner.get("kind") == "ReplicaSet" and len(chain) > 1 and chain[1].get("kind") == "Deployment":
                owner, chain = chain[1], chain[1:]
            kinds = tuple(str(o.get("kind")) for o in reversed(chain)) or ("Pod",)
            key = (kinds, _role(owner, root) if chain else "")
            group = found.get(key)
            if group is None:
                group = found[key] = Group(gvk(owner) if chain else dict(_POD), kinds, key[1], source=moment.source)
            spec = pod.get("spec")
            for container in (spec.get("containers") if isinstance(spec, dict) else None) or []:
                if isinstance(container, dict) and isinstance(container.get("name"), str):
                    group.containers.setdefault(container["name"], str(container.get("image")))
            group.pods.add(name_of(pod))
            if (pod.get("status") or {}).get("phase") == "Succeeded":
                group.finished.add(name_of(pod))
            if chain:
                group.owners.add(name_of(owner))
            count, owners = here.get(key, (0, set()))
            here[key] = (count + 1, owners | ({f"{owner.get('kind')}/{name_of(owner)}"} if chain else set()))
        for key, (pods, owners) in here.items():
            wanted = [_wanted(index.get(o)) for o in owners]
            count = sum(w for w in wanted if w is not None) if owners and None not in wanted else pods
            found[key].counts.append((root, count))
            found[key].roots.append(root)
    return list(found.values())


_POD = {"group": "", "version": "v1", "kind": "Pod"}


def _wanted(owner: dict[str, Any] | None) -> int | None:
    key = _COUNT_KEYS.get(str((owner or {}).get("kind")))
    value = ((owner or {}).get("spec") or {}).get(key) if key else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _candidates(value: Any, segments: Segments, depth: int) -> Iterator[tuple[Segments, str, list[Any]]]:
    """(path, form, containers) of every pod definition under a value: a template, a pod spec, a list."""
    if depth > 20:
        return
    if isinstance(value, dict):
        spec = value.get("spec")
        if isinstance(spec, dict) and isinstance(spec.get("containers"), list):
            yield segments, "template", spec["containers"]
            return
        if isinstance(value.get("containers"), list):
            yield segments, "podspec", value["containers"]
            return
        for key, child in value.items():
            yield from _candidates(child, (*segments, str(key)), depth + 1)
    elif isinstance(value, list):
        if value and all(isinstance(c, dict) and "image" in c and "name" in c for c in value):
            yield segments, "containers", value
            return
        for number, item in enumerate(value):
            yield from _candidates(item, (*segments, f"#{number}"), depth + 1)


def _carries(containers: list[Any], seen: dict[str, str]) -> bool:
    """Every container of the root's definition is in the pods, with the same image where both say one, and they
    are the pods' own: their first container, or more than half of them (a list of sidecars the operator adds to
    a pod it composes is not the pod's definition)."""
    named = [c for c in containers if isinstance(c, dict) and isinstance(c.get("name"), str)]
    names = {c["name"] for c in named}
    own = bool(seen) and (next(iter(seen)) in names or 2 * len(names) > len(seen))
    return (
        bool(named)
        and own
        and all(
            c["name"] in seen and (not isinstance(c.get("image"), str) or c["image"] == seen[c["name"]]) for c in named
        )
    )


@dataclass
class Template:
    segments: Segments | None  # None: no field carries the pods' containers (the operator composes the pod)
    form: str = ""
    where: str = ""  # the recording and state it was seen in


def template(group: Group) -> Template:
    """The root field whose containers the group's pods carry, generalised over the states seen (a list index
    is any item, several keys of one map any key)."""
    paths: set[tuple[Segments, str]] = set()
    for root in group.roots[-1:] + group.roots[:1]:
        for segments, form, containers in _candidates(root.get("spec"), ("spec",), 0):
            if _carries(containers, group.containers):
                paths.add((segments, form))
    if not paths:
        return Template(None, where=group.source)
    general = {(tuple(ARRAY if s.startswith("#") else s for s in segments), form) for segments, form in paths}
    if len(general) > 1 and len({(len(s), f) for s, f in general}) == 1:
        # One role's pods matching several keys of one map (roles sharing containers): any key.
        columns = list(zip(*(s for s, _ in general), strict=True))
        merged = tuple(c[0] if len(set(c)) == 1 else MAP for c in columns)
        general = {(merged, next(iter(general))[1])}
    if len(general) != 1:
        return Template(None, "ambiguous", group.source)
    segments, form = general.pop()
    return Template(segments, form, group.source)


def _integers(value: Any, segments: Segments, out: dict[Segments, int]) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            if isinstance(key, str):
                _integers(child, (*segments, key), out)
    elif isinstance(value, int) and not isinstance(value, bool):
        out[segments] = value


def _declared_integers(schema: Any, segments: Segments, out: dict[Segments, int], depth: int = 0) -> None:
    """Integer fields of the spec the schema gives a default (what the API server fills in when unset)."""
    if not isinstance(schema, dict) or depth > 8:
        return
    for key, child in (schema.get("properties") or {}).items():
        if not isinstance(child, dict):
            continue
        here = (*segments, str(key))
        if child.get("type") == "integer" and isinstance(child.get("default"), int):
            out[here] = int(child["default"])
        elif child.get("type") == "object":
            _declared_integers(child, here, out, depth + 1)


@dataclass
class Count:
    segments: Segments
    default: int | None  # the schema's default, when the samples relied on it
    agree: int
    states: int
    seen_default: bool = False  # the default is the count seen where the objects left the field unset


def count(group: Group, facts: SchemaFacts | None) -> Count | None:
    """The root's integer field equal to the group's count in (nearly) every recorded state, when exactly one
    field does (a replica-like name breaks a tie; a count no field tells apart from others is not guessed).
    A field of the role's own object (``.spec.redis.replicas`` for the pods of ``NAME-redis``) equal to the
    count wherever it is set counts it, the count seen where it is unset (the same everywhere) its default."""
    known = [(root, n) for root, n in _settled(group.counts) if n > 0]
    if not known:
        return None
    defaults: dict[Segments, int] = {}
    if facts is not None:
        _declared_integers((facts.schema.get("properties") or {}).get("spec"), ("spec",), defaults)
    agree: dict[Segments, int] = {}
    present: dict[Segments, list[bool]] = {}  # per field, whether it equals the count where the object sets it
    for root, n in known:
        values: dict[Segments, int] = {}
        _integers(root.get("spec"), ("spec",), values)
        for segments, value in values.items():
            present.setdefault(segments, []).append(value == n)
        for segments, default in defaults.items():
            values.setdefault(segments, default)
        for segments, value in values.items():
            agree[segments] = agree.get(segments, 0) + (value == n)
    names = {n.lower() for n in (group.role, *group.containers) if n}
    own = [s for s, seen in present.items() if all(seen) and any(p.lower() in names for p in s[1:-1])]
    if len(own) > 1:
        own = [s for s in own if s[-1] in REPLICA_NAMES or "size" in s[-1].lower()]
    best = own if len(own) == 1 else [s for s, a in agree.items() if a >= AGREEMENT * len(known)]
    if len(best) > 1:
        most = max(agree[s] for s in best)
        best = [s for s in best if agree[s] == most]
    if len(best) > 1:
        best = [s for s in best if s[-1] in REPLICA_NAMES or "size" in s[-1].lower()] or best
    if len(best) > 1:
        # The role's own object (``.spec.pxc.size`` for the pods of ``cluster1-pxc`` running ``pxc``).
        best = [s for s in best if any(part.lower() in names for part in s[1:-1])] or best
    if len(best) != 1:
        return None
    segments = best[0]
    unset = {n for root, n in known if _missing(root, segments)}
    unset_reads = defaults.get(segments)
    seen = unset_reads is None and len(unset) == 1
    if seen:
        unset_reads = unset.pop()  # the operator's own default, seen where the object left it unset
    agreeing = present.get(segments) or [True] * agree[segments]
    return Count(segments, unset_reads, sum(agreeing), len(present.get(segments) or known), seen)


def _settled(counts: list[tuple[dict[str, Any], int]]) -> list[tuple[dict[str, Any], int]]:
    """The count at the last state of each stretch the root's spec held: pods come and go one by one after
    the spec changes, and the last state before the next change shows where they settled."""
    out: list[tuple[dict[str, Any], int]] = []
    for root, n in counts:
        if out and out[-1][0].get("spec") == root.get("spec"):
            out[-1] = (root, n)
        else:
            out.append((root, n))
    return out


def _missing(root: dict[str, Any], segments: Segments) -> bool:
    node: Any = root
    for segment in segments:
        if not isinstance(node, dict) or segment not in node:
            return True
        node = node[segment]
    return False


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
    roots = list({m.run: m.root for m in moments if m.root is not None}.values())  # each run's last version
    pods: list[tuple[dict[str, Any], bool]] = [(drafted.root, True)] if "specDefinition" in drafted.root else []
    pods += [(c, False) for c in drafted.children if "specDefinition" in c]
    claimed: dict[int, Group] = {}  # index in pods -> the group it was matched to first
    for group in seen:
        shape = template(group)
        choice = _match(group, shape, pods, claimed, drafted)
        shared = _shared(group, shape, pods, claimed, drafted)
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
