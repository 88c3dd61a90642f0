"""Children between the root and its pods: a catalog kind whose spec the root embeds, a catalog kind the
sample objects own, the kind the operator's controller owns (``--api-source``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workload_map.authoring import patches, roles, samples as sample_facts
from workload_map.authoring.builder import Builder, jq
from workload_map.authoring.evidence import ARRAY, HIGH, LOW, MAP, MEDIUM, Segments, default_origin, schema_path
from workload_map.authoring.gochildren import BuiltChild
from workload_map.authoring.gofilled import Presence
from workload_map.authoring.render import Path
from workload_map.authoring.schemafacts import Field, SchemaFacts, Site
from workload_map.definition.model import GroupVersionKind, LoadedDefinition

GENERIC_KEYS = frozenset({"template", "podTemplate", "podSpec", "containers", "spec", "replicas"})
_SPEC_KEY = re.compile(r"^\s*\.spec\.([A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class Embedding:
    """A catalog kind whose whole spec the root carries at ``prefix`` (a RayCluster spec inside a job): the
    operator creates that object from it, and it the pods."""

    prefix: Segments
    kind: dict[str, str]
    definition: str
    pod_kinds: dict[str, dict[str, str]]  # the catalog kind's spec key -> the kind of the pods' owner there


def _signatures(catalog: Sequence[LoadedDefinition]) -> list[tuple[frozenset[str], Embedding]]:
    """Per custom catalog kind, the keys under its .spec where its pod definitions start (``headGroupSpec``,
    ``workerGroupSpecs``): a schema or sample with all of them below one object embeds that kind."""
    out = []
    for definition in catalog:
        identity = definition.karta.identity
        if identity is None or identity.group in ("", "apps", "batch"):
            continue
        keys: dict[str, dict[str, str]] = {}
        for component in definition.karta.components:
            spec = component.spec_definition
            if spec is None:
                continue
            fragments = spec.fragmented_pod_spec_definition
            paths = [spec.pod_template_spec_path, spec.pod_spec_path]
            paths += [fragments.containers_path, fragments.container_path] if fragments else []
            kind = component.kind or GroupVersionKind(version="v1", kind="Pod")
            for path in paths:
                match = _SPEC_KEY.match(path or "")
                if match and match.group(1) not in GENERIC_KEYS:
                    keys[match.group(1)] = {"group": kind.group, "version": kind.version, "kind": kind.kind}
        # One plain word (``tasks``, ``worker``, ``templates``) is too common to tell a kind's spec: a single key
        # must be a compound name (``replicatedJobs``, ``leaderWorkerTemplate``).
        if len(keys) >= 2 or any(any(ch.isupper() for ch in key) for key in keys):
            gvk = {"group": identity.group, "version": identity.version, "kind": identity.kind}
            out.append((frozenset(keys), Embedding((), gvk, definition.name, keys)))
    return out


def embeddings(builder: Builder, sites: list[Site], own: tuple[str, str]) -> dict[int, Embedding]:
    """Sites below an object that carries a whole catalog kind's spec, by site index."""
    below: dict[Segments, set[str]] = {}
    for site in sites:
        for i in range(2, len(site.segments)):
            below.setdefault(site.segments[:i], set()).add(site.segments[i])
    out: dict[int, Embedding] = {}
    for keys, embedding in _signatures(builder.catalog):
        if (embedding.kind["group"], embedding.kind["kind"]) == own:
            continue
        for prefix, found in below.items():
            # An embedded spec is one object, not an item of a list or map (those are the roles themselves).
            if keys <= found and not {ARRAY, MAP} & set(prefix):
                for index, site in enumerate(sites):
                    if site.segments[: len(prefix)] == prefix and site.segments[len(prefix)] in keys:
                        out[index] = Embedding(prefix, embedding.kind, embedding.definition, embedding.pod_kinds)
    return out


def intermediate(  # noqa: PLR0917 - the builder's state it adds to, each by name at its one call
    builder: Builder,
    embedding: Embedding,
    children: list[dict[str, Any]],
    taken: set[str],
    root_name: str,
    path: Path,
) -> str:
    """The catalog kind the operator creates from the embedded spec: one per object while that spec is set."""
    name = re.sub(r"[^a-z0-9-]", "", embedding.kind["kind"].lower()) or "child"
    while name in taken:
        name += "x"
    taken.add(name)
    children.append({"name": name, "ownerRef": root_name, "kind": dict(embedding.kind)})
    builder.note(
        (*path, "kind"),
        MEDIUM,
        f"{schema_path(embedding.prefix)} holds the spec of a {embedding.kind['kind']} (the keys the catalog's",
        f"{embedding.definition} reads its pods from): the operator creates one while it is set.",
    )
    return name


def sample_children(
    builder: Builder, found: sample_facts.SampleFacts, children: list[dict[str, Any]], taken: set[str], root: str
) -> None:
    """Objects of a kind the catalog defines that sample roots own directly, not yet a component: a child the
    operator creates (a Deployment, a JobSet, a Workflow...), whose pods the catalog's definition reads."""
    used = {(c["kind"]["group"], c["kind"]["kind"]) for c in children if "kind" in c}
    for api_kind, where in found.children.items():
        api, _, child_kind = api_kind.rpartition("/")
        child_group, _, child_version = api.rpartition("/") if "/" in api else ("", "", api)
        covered = builder.covering(child_group, child_kind)
        if covered is None or (child_group, child_kind) in used or child_kind == "Pod":
            continue
        name = re.sub(r"[^a-z0-9-]", "", child_kind.lower()) or "child"
        while name in taken:
            name += "x"
        taken.add(name)
        path: Path = ("spec", "structureDefinition", "childComponents", len(children))
        children.append(
            {
                "name": name,
                "ownerRef": root,
                "kind": {"group": child_group, "version": child_version, "kind": child_kind},
            }
        )
        builder.note(
            (*path, "kind"),
            HIGH,
            f"a {child_kind} owned by a sample object ({where}); the catalog's {covered} defines its pods.",
        )


def made_by(builder: Builder, owned: list[tuple[dict[str, str], str]]) -> tuple[dict[str, str], str] | None:
    """The kind the operator makes its pods through: the first pod-making kind its controller owns (a
    built-in workload, a kind of its own repository with a pod template, another project's kind the catalog
    defines), unless it owns Pods themselves; the evidence lists every such kind owned."""
    makers: list[tuple[dict[str, str], str]] = []
    for owned_kind, why in owned:
        gvk = owned_kind
        if "importPath" in gvk:
            known = next(
                (
                    d.karta.identity
                    for d in builder.catalog
                    if d.karta.identity is not None
                    and (d.karta.identity.kind, d.karta.identity.version) == (gvk["kind"], gvk["version"])
                ),
                None,
            )
            if known is None:
                continue
            gvk = {"group": known.group, "version": known.version, "kind": known.kind}
        makers.append((gvk, why))
    if not makers or any(g["kind"] == "Pod" and not g["group"] for g, _ in makers):
        return None
    if len(makers) == 1:
        return makers[0]
    others = ", ".join(g["kind"] for g, _ in makers[1:])
    return makers[0][0], f"{makers[0][1]}; first of the kinds it owns, also {others}: check which role is which"


@dataclass
class Placed:
    """The pod definitions once the workloads the operator's Go code builds are placed on them."""

    sites: list[Site]
    makers: dict[int, BuiltChild]  # site index -> the workload built for that pod definition
    unplaced: list[BuiltChild]  # built workloads no pod definition is: components of their own
    dropped: list[Site]  # pod-shaped fields the operator only merges into pods it builds elsewhere


def _count_item(count: Segments | None) -> Segments | None:
    """Where one instance's count sits: its list's item (``.spec.pools[]``), () for one at the spec."""
    if count is None:
        return None
    last = max((i for i, s in enumerate(count) if s in (ARRAY, MAP)), default=-1)
    return count[: last + 1]


def place_built(facts: SchemaFacts, built: list[BuiltChild], sites: list[Site]) -> Placed:
    """Match the workloads built in the Go code (gochildren.py) to the pod definitions: a workload whose
    count is a field of an object holding a definition (in the same list item) is that definition's maker,
    and gives it that count when the schema gave none. When the code counts its
    workloads where the schema holds no pod definition, the definitions with no count of their own are parts
    the operator adds to pods it assembles itself (side containers, init containers), not pods. A workload
    whose count the reader does not trace to a field is left out: large operators build many for other ends
    (a plugin's Job, a probe's Pod, test fixtures), and one cannot tell them from the object's pods."""
    counted: dict[Segments, BuiltChild] = {}
    for child in built:
        field = count_field(facts, child.count)
        # A count is a number: a trace ending on an object (a method of the spec computing it) is no count.
        # Two workloads counted by the same field are alternatives (a StatefulSet or a Deployment by mode):
        # the first stands for both.
        if field is not None and child.count is not None and field.schema.get("type") in ("integer", "number"):
            counted.setdefault(child.count, child)
    if built:
        for site in sites:
            _whole_spec_containers(facts, site)
    makers: dict[int, BuiltChild] = {}
    unplaced: list[BuiltChild] = []
    for child in counted.values():
        item, holder = _count_item(child.count), (child.count or ())[:-1]
        index = next(
            (
                i
                for i, site in enumerate(sites)
                if i not in makers
                and site.job is None
                # A definition counted by another field is not this workload's (a second ensemble's spec),
                # unless it overrides the built workload itself.
                and (site.replicas is None or site.replicas.segments == child.count or _overrides(site, child))
                and roles.item_of(site) == item
                and site.segments[: len(holder)] == holder
            ),
            None,
        )
        if index is None:
            unplaced.append(child)
            continue
        makers[index] = child
        if child.count is not None and (sites[index].replicas is None or _overrides(sites[index], child)):
            sites[index].replicas = facts.field_at(child.count)
    fixed = [child for child in built if child.constant is not None and child.kind["kind"] != "Pod"]
    switched = [child for child in fixed if _switch(facts, child) is not None]
    if not counted and not sites and len(fixed) == 1:
        # Nothing counted by a field and no pod definition: the one workload the code builds with a fixed
        # count makes the object's pods (several such are helpers' workloads one cannot tell apart).
        unplaced.append(fixed[0])
    else:
        # One built only while a switch of the object is on (a metrics exporter) is the object's all the same.
        unplaced += switched
    # A shell a shared constructor made, its pod composed where it is created, is one of the object's workloads
    # whatever its count (goshells.py): the code composes no pod for other ends that way.
    unplaced += [child for child in built if child.filled and child not in unplaced and child.count not in counted]
    dropped: list[Site] = []
    if counted and not makers:
        # In a spec the schema leaves open, the pod definitions are read from the samples alone: beside workloads
        # the code counts elsewhere, uncounted ones inside lists too are parts (or objects made at run time).
        opened = ".spec" in facts.untyped
        dropped = [
            site
            for site in sites
            if site.replicas is None and (not site.collections or (opened and site.source != "schema"))
        ]
        sites = [site for site in sites if site not in dropped]
    return Placed(sites, makers, unplaced, dropped)


def _overrides(site: Site, child: BuiltChild) -> bool:
    """Whether the pod definition sits in an override of the workload the code builds (``.spec.override
    .statefulSet``, a StatefulSet's spec the operator lays over the StatefulSet it builds): its pods are the
    built workload's, counted where the code counts them (the override's own count patches that one)."""
    return patches.patched_by(site) is not None and site.embeds == child.kind["kind"]


def count_field(facts: SchemaFacts, count: Segments | None) -> Field | None:
    """The schema's field a built workload's count reads; where the schema leaves the whole spec open
    (x-kubernetes-preserve-unknown-fields), the count as the Go types have it: a number (the reader only
    traces counts to fields of the kind that are no struct)."""
    if count is None:
        return None
    found = facts.field_at(count)
    if found is None and ".spec" in facts.untyped and count[:1] == ("spec",):
        return Field(count, {"type": "integer"})
    # Below an object the schema leaves open (``spec: {x-kubernetes-preserve-unknown-fields: true}`` of a
    # role), likewise: the deepest object the schema declares on the way decides.
    for length in range(len(count) - 1, 1, -1) if found is None and count[:1] == ("spec",) else ():
        holder = facts.field_at(count[:length])
        if holder is not None:
            opened = holder.schema.get("x-kubernetes-preserve-unknown-fields") and not holder.schema.get("properties")
            return Field(count, {"type": "integer"}) if opened else None
    return found


def _switch(facts: SchemaFacts, child: BuiltChild) -> Field | None:
    """The field of the object the code checks before building the workload (``BuiltChild.guard``): a boolean
    tested on, or an optional object, list or string whose presence the code tests (``x.Spec.Extra != nil``)."""
    found = facts.field_at(child.guard) if child.guard is not None else None
    wanted = PRESENCE_TYPES if isinstance(child.guard, Presence) else ("boolean",)
    return found if found is not None and found.schema.get("type") in wanted else None


# The fields whose presence alone switches a part on: an optional object or string (a nil pointer in Go).
PRESENCE_TYPES = ("object", "string")


def _whole_spec_containers(facts: SchemaFacts, site: Site) -> None:
    """A kind's whole ``.spec`` shaped like a PodSpec (its own ``containers`` beside its other settings) is
    the object's spec, not the pod's, when the operator builds a workload from it: the pods are built around
    the containers listed there."""
    if site.segments == ("spec",) and site.form == "podspec" and facts.field_at(("spec", "containers")) is not None:
        site.segments, site.form, site.role = ("spec", "containers"), "containers", ("spec",)


def built_component(  # noqa: PLR0917 - the builder's state it adds to, each by name at its one call
    builder: Builder,
    facts: SchemaFacts,
    child: BuiltChild,
    children: list[dict[str, Any]],
    taken: set[str],
    root: str,
) -> None:
    """A workload the operator's code builds that no pod definition of the object is: a component of its kind,
    one per item of the list its count is in, its pod a gap (the operator assembles it from scattered
    fields)."""
    path: Path = ("spec", "structureDefinition", "childComponents", len(children))
    count = count_field(facts, child.count)
    if count is None and child.constant is None and not child.uncounted:  # place_built leaves only counted ones
        return
    item = (_count_item(count.segments) if count is not None else None) or ()
    kind_name = child.kind["kind"]
    words = [s for s in count.segments[:-1] if s not in (ARRAY, MAP, "spec")] if count is not None else []
    base = re.sub(r"[^a-z0-9-]", "", (words[-1] if words else kind_name).lower()) or "child"
    name = base[:-1] if base.endswith("s") and not base.endswith("ss") and len(base) > 3 else base
    while name in taken:
        name += "x"
    taken.add(name)
    component: dict[str, Any] = {"name": name, "ownerRef": root, "kind": dict(child.kind)}
    builder.note(
        (*path, "kind"),
        MEDIUM,
        f"the operator builds a {kind_name} at {child.where} ({child.function}, reached by {' > '.join(child.chain)}).",
    )
    if item:
        if item[-1] == MAP:
            ids = f"{jq(item[:-1])} // {{}} | keys_unsorted[]"
        elif (named := facts.field_at((*item, "name"))) is not None and _admits_empty(named.schema):
            # An item may leave its name empty (the operator then names the workload after the role alone):
            # its index stands for it, an id must not be empty.
            named_or_index = '(.value.name | select(. != "" and . != null)) // (.key | tostring)'
            ids = f"{jq(item[:-1])} // [] | to_entries[] | {named_or_index}"
        elif named is not None:
            ids = f"{jq(item)} | .name"
        else:
            ids = f"{jq(item[:-1])} // [] | keys[] | tostring"
        component["instanceIdPath"] = ids
        builder.note((*path, "instanceIdPath"), MEDIUM, f"one {kind_name} per item of {schema_path(item[:-1])}.")
    if child.composed:
        read_composed_pod(builder, component, path, kind_name, child.where)
    elif not facts.sites and ".spec" not in facts.untyped:
        # No field of the object is shaped like a pod (no template, PodSpec or containers, no open spec):
        # whatever the code builds the pod from, no path of the object reads it.
        component["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
        builder.note(
            (*path, "specDefinition"),
            LOW,
            f"the pods of the {kind_name} built at {child.where}: the object holds no pod definition (no",
            "template, PodSpec or containers), so the operator composes the pod; no path reads it.",
        )
    else:
        component["specDefinition"] = {
            "podTemplateSpecPath": builder.todo(
                (*path, "specDefinition", "podTemplateSpecPath"),
                f"the pods of the {kind_name} built at {child.where}: the operator assembles them from the "
                "object's fields (no pod template in it)",
            )
        }
    # A switch of the object read for a workload of one list item would need the item's own: only at the spec.
    switch = _switch(facts, child) if not item else None
    # A switch the schema defaults to on (``default: true``) is on while unset: only ``false`` turns it off.
    on_by_default = switch is not None and switch.schema.get("default") is True
    test = "== false then 0 else 1" if on_by_default else "== true then 1 else 0"
    presence = switch is not None and isinstance(child.guard, Presence)
    if presence:
        test = "== null then 0 else 1"
    gate = f"(if {jq(switch.segments)} {test} end) * " if switch is not None else ""
    if switch is not None:
        builder.note(
            (*path, "scaleDefinition", "replicasPath"),
            MEDIUM,
            f"0 unless {switch.path} is {'set' if presence else 'true'}{' (its default)' if on_by_default else ''}:",
            f"the code checks it before building the {kind_name}.",
        )
    if count is None and child.constant is None:
        # Its count written from something the reader does not trace (a helper choosing it): a gap.
        component["scaleDefinition"] = {
            "replicasPath": builder.todo(
                (*path, "scaleDefinition", "replicasPath"),
                f"how many pods the {kind_name} built at {child.where} runs: the code sets its count "
                "from something not read here",
            )
        }
        children.append(component)
        return
    if count is None:
        component["scaleDefinition"] = {"replicasPath": f"{gate}{child.constant}"}
        said = f"is left unset: the {kind_name}'s default," if child.defaulted else "is"
        builder.note(
            (*path, "scaleDefinition", "replicasPath"),
            MEDIUM,
            f"its {child.count_key} {said} {child.constant} whatever the object says ({child.where}).",
        )
        children.append(component)
        return
    default = count.default if isinstance(count.default, int) else 1
    prefix = f"{jq(item)} | " if item else ""
    expression = f"({jq(count.segments[len(item) :])} // {default})"
    optional = _optional_holder(facts, item, count.segments)
    holder = facts.field_at(optional) if optional is not None else None
    if optional is not None and holder is not None and isinstance(holder.schema.get("default"), dict):
        # The schema defaults the optional object (``coreTemplate: {default: {spec: {replicas: 1}}}``): the API
        # server fills it in, and the workload runs with the default's count when it is unset.
        filled = json.dumps(holder.schema["default"], separators=(",", ":"))
        expression = f"({jq(optional[len(item) :])} // {filled} | {jq(count.segments[len(optional) :])} // {default})"
        builder.note(
            (*path, "scaleDefinition", "replicasPath"),
            MEDIUM,
            f"{schema_path(optional)} unset is {filled} ({default_origin(holder.schema)}).",
        )
    elif (
        optional is not None
        and not child.conditional
        and not (switch is not None and switch.segments[: len(optional)] == optional)
    ):
        # The count is in an object the schema does not require (``.spec.extra.replicas``): without it the
        # operator builds no such workload.
        expression = f"(if {jq(optional[len(item) :])} == null then 0 else 1 end) * {expression}"
        builder.note(
            (*path, "scaleDefinition", "replicasPath"), MEDIUM, f"0 while {schema_path(optional)} is unset (optional)."
        )
    component["scaleDefinition"] = {"replicasPath": prefix + gate + expression}
    builder.note(
        (*path, "scaleDefinition", "replicasPath"),
        MEDIUM,
        f"its {child.count_key} reads {count.path} ({child.where}); unset reads {default}"
        + (f" ({default_origin(count.schema)})." if count.default is not None else "."),
    )
    children.append(component)


def _admits_empty(schema: dict[str, Any]) -> bool:
    """A string field whose schema pattern accepts the empty string (``^$|^[a-z0-9]...$``)."""
    pattern = schema.get("pattern")
    if not isinstance(pattern, str):
        return False
    try:
        return re.search(pattern, "") is not None
    except re.error:
        return False


def _optional_holder(facts: SchemaFacts, item: Segments, count: Segments) -> Segments | None:
    """The object below the item (or the spec) that holds the count, when the schema does not require it."""
    start = len(item) if item else 1
    if len(count) - 1 <= start:
        return None  # the count is the item's (or the spec's) own field
    parent = facts.field_at(count[:start])
    required = parent.schema.get("required") if parent is not None else None
    if isinstance(required, list) and count[start] in required:
        return None
    return count[: start + 1]


def referenced_templates(facts: SchemaFacts, sites: list[Site]) -> tuple[list[Site], list[tuple[Site, str]]]:
    """Drop a list of named templates nothing counts (``roleTemplates[]``) when another pod definition's
    item or holding object refers to one by name (``roles[].pattern.templateRef: {name}``, the reference
    named after the list): the operator merges the template into the referring item's pods; it is no role of its own.
    Returns the sites kept and the dropped ones with the reference that names them."""
    dropped: list[tuple[Site, str]] = []
    for site in sites:
        item = roles.item_of(site)
        if site.replicas is not None or site.job is not None or len(item) < 2 or item[-1] != ARRAY:
            continue
        listed = item[-2].lower()
        holders = [h for other in sites for h in (roles.item_of(other), other.role) if h and h[: len(item)] != item]
        for holder in dict.fromkeys(holders):  # the other definitions' items and the objects holding them
            node = facts.field_at(holder)
            properties = node.schema.get("properties") if node is not None else None
            if not isinstance(properties, dict):
                continue
            reference = next(
                (
                    key
                    for key, value in properties.items()
                    if key.endswith("Ref")
                    and len(key) > 3
                    and key[:-3].lower() in listed
                    and isinstance(value, dict)
                    and "name" in (value.get("properties") or {})
                ),
                None,
            )
            if reference is not None:
                dropped.append((site, schema_path((*holder, reference))))
                break
        else:
            named = _names_one(facts, item)
            if named is not None:
                dropped.append((site, schema_path(named)))
    kept = [site for site in sites if site not in [d for d, _ in dropped]]
    return kept, dropped


def _names_one(facts: SchemaFacts, item: Segments) -> Segments | None:
    """A string field outside a list named as templates that names one of its items: its singular
    (``podTemplate`` for ``podTemplates[]``), maybe with ``Name``/``Ref`` (``podTemplateName``), when the
    items have a ``name``. A library of named templates the operator picks from, not a role of its own (a
    list of components a command names is still the components)."""
    node = facts.field_at(item)
    if node is None or "name" not in (node.schema.get("properties") or {}) or not item[-2].endswith("Templates"):
        return None
    singular = item[-2][:-1].lower()
    wanted = {singular, f"{singular}name", f"{singular}ref"}

    def walk(schema: Any, segments: Segments, depth: int) -> Segments | None:
        if not isinstance(schema, dict) or depth > 14 or segments == item:
            return None
        for key, child in (schema.get("properties") or {}).items():
            if isinstance(child, dict) and child.get("type") == "string" and key.lower() in wanted:
                return (*segments, key)
            found = walk(child, (*segments, key), depth + 1)
            if found is not None:
                return found
        return walk(schema.get("items"), (*segments, ARRAY), depth + 1)

    spec = facts.field_at(("spec",))
    return walk(spec.schema, ("spec",), 0) if spec is not None else None


OVERRIDE_WORDS = re.compile(r"\b(overrid\w*|patch\w*)\b", re.I)


def container_overrides(facts: SchemaFacts, sites: list[Site]) -> tuple[list[Site], list[tuple[Site, str]]]:
    """Drop a pod definition whose containers the schema describes as overrides or patches of containers
    defined elsewhere ("the containers to be overridden, only command and args"): the operator applies them
    to pods it builds from another definition; they make no pod. Returns the kept and the dropped sites,
    with the description that says so."""
    kept: list[Site] = []
    dropped: list[tuple[Site, str]] = []
    for site in sites:
        containers = (*site.segments, "containers") if site.form == "podspec" else site.segments
        found = facts.field_at(containers) if site.form in ("podspec", "containers") else None
        description = str(found.schema.get("description") or "") if found is not None else ""
        match = OVERRIDE_WORDS.search(description)
        if match is None or site.replicas is not None:
            kept.append(site)
        else:
            dropped.append((site, description[:100]))
    return kept, dropped


def read_composed_pod(builder: Builder, component: dict[str, Any], path: Path, kind_name: str, where: str) -> None:
    """The code composes the pod from the object's fields: there is no path to ask the user for."""
    component["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
    builder.note(
        (*path, "specDefinition"),
        MEDIUM,
        f"the operator composes the {kind_name}'s pod at {where} (a PodTemplateSpec it builds, no field of",
        "the object copied as one): no path reads it; its pods are counted, their containers not read.",
    )
