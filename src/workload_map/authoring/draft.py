"""Assembling a draft Karta from what the schema, the samples and the sample pods say.

Every field written carries a comment with its evidence and a confidence (``evidence.py``); what
could not be inferred is a gap: an expression ending in a ``# TODO(wmap): ...`` jq comment that changes
no count and blocks no command (``evidence.todo``), reported by ``wmap validate``. The draft is checked by
the loader and the validator before it is returned: a draft that does not load is a bug here, reported as
such.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring import (
    samples as sample_facts,
    selectors as pod_selectors,
    status as vocabulary,
    transitions,
)
from workload_map.authoring.evidence import ARRAY, HIGH, LOW, MAP, MEDIUM, TODO_MARK, Segments, schema_path, todo
from workload_map.authoring.render import Path, render
from workload_map.authoring.samples import Sample
from workload_map.authoring.schema import READY_NAMES, REPLICA_NAMES, Field, SchemaFacts, Site, read_crd
from workload_map.base.objects import owner_references
from workload_map.definition.model import GroupVersionKind, LoadedDefinition, slug
from workload_map.errors import format_path

POD = {"group": "", "version": "v1", "kind": "Pod"}
JOB = {"group": "batch", "version": "v1", "kind": "Job"}
STATUS_ORDER = ("initializing", "running", "completed", "failed", "degraded", "suspended", "suspending", "resuming")


@dataclass
class Draft:
    """A drafted definition: the Karta as data, its commented YAML text and what is left to do."""

    karta: dict[str, Any]
    text: str
    todos: list[str] = field(default_factory=list)
    guesses: list[tuple[str, str]] = field(default_factory=list)  # (field path, confidence)
    samples: int = 0
    pods: int = 0
    covered_by: str | None = None  # a catalog definition that already covers the kind

    @property
    def name(self) -> str:
        return str(self.karta["metadata"]["name"])


def jq(segments: Segments) -> str:
    out = ""
    for segment in segments:
        if segment in (ARRAY, MAP):
            out += "[]?"
        elif segment.isidentifier():
            out += f".{segment}"
        else:
            out += f'["{segment}"]'
    return out or "."


def _role_name(site: Site, taken: set[str]) -> str:
    segments = site.job[:-1] if site.job else site.segments
    skip = {"template", "spec", "podTemplate", "podSpec", "containers", "container", "templateSpec", ARRAY, MAP}
    words = [s for s in segments if s not in skip]
    base = words[-1] if len(words) > 1 else (words[-1] if words and words[-1] != "spec" else "pod")
    base = re.sub(r"(Spec|Specs|Template|Templates)$", "", base) or base
    if base.endswith("s") and not base.endswith("ss") and len(base) > 3:
        base = base[:-1]
    base = re.sub(r"[^A-Za-z0-9-]", "", base) or "pod"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
    return name


def _item(site: Site) -> Segments:
    last = max((i for i, s in enumerate(site.segments) if s in (ARRAY, MAP)), default=-1)
    return site.segments[: last + 1]


def _relative(item: Segments, found: Field | None) -> str | None:
    if found is None or found.segments[: len(item)] != item:
        return None
    return jq(found.segments[len(item) :])


class _Builder:
    def __init__(self, catalog: Sequence[LoadedDefinition]) -> None:
        self.notes: dict[Path, list[str]] = {}
        self.todos: list[str] = []
        self.guesses: list[tuple[str, str]] = []
        self.catalog = catalog

    def note(self, path: Path, confidence: str, *lines: str) -> None:
        self.notes.setdefault(path, []).extend([f"[{confidence}] {lines[0]}", *lines[1:]])
        self.guesses.append((format_path(path), confidence))

    def todo(self, path: Path, what: str, value: str = "empty") -> str:
        self.notes.setdefault(path, []).append(f"{TODO_MARK}: {what}")
        self.todos.append(f"{format_path(path)}: {what}")
        return todo(what, value)

    def covering(self, group: str, kind: str) -> str | None:
        for definition in self.catalog:
            identity = definition.karta.identity
            if identity is not None and (identity.group, identity.kind) == (group, kind):
                return definition.name
        return None

    def catalog_expression(self, gvk: dict[str, str], field_name: str) -> tuple[str, str] | None:
        for definition in self.catalog:
            identity = definition.karta.identity
            root = definition.karta.root
            if identity is None or (identity.group, identity.kind) != (gvk["group"], gvk["kind"]):
                continue
            scale = root.scale_definition
            value = getattr(scale, field_name, None) if scale is not None else None
            if value:
                return value, definition.name
        return None


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


def _embeddings(builder: _Builder, sites: list[Site], own: tuple[str, str]) -> dict[int, Embedding]:
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


def _scale(builder: _Builder, site: Site, path: Path, reuse_job: tuple[str, str] | None) -> dict[str, str]:
    item = _item(site)
    prefix = f"{jq(item)} | " if item else ""
    replicas = _relative(item, site.replicas)
    hosts = _relative(item, site.hosts)
    default = site.replicas.default if site.replicas is not None and isinstance(site.replicas.default, int) else 1
    factors = []
    out: dict[str, str] = {}
    if replicas is not None and site.replicas is not None:
        factors.append(f"({replicas} // {default})")
        where = "schema default" if site.replicas.default is not None else "assumed operator default"
        builder.note(
            (*path, "replicasPath"),
            MEDIUM,
            f"{site.replicas.path} beside the pod definition counts its pods ({site.source}); "
            f"unset reads {default} ({where}).",
        )
    if hosts is not None and site.hosts is not None:
        factors.append(f"({hosts} // 1)")
        builder.note((*path, "replicasPath"), MEDIUM, f"x {site.hosts.path}: one pod per host of a multi-host replica.")
    if site.job is not None:
        job_rel = jq(site.job[len(item) :])
        expression, origin = reuse_job or ("(.spec.parallelism // 1)", "")
        factors.append(f"({job_rel} | {expression})" if job_rel != "." else f"({expression})")
        builder.note(
            (*path, "replicasPath"),
            HIGH if origin else MEDIUM,
            f"pods per Job of the JobTemplateSpec at {schema_path(site.job)}"
            + (f": the catalog's {origin} replicasPath, applied to the template." if origin else "."),
        )
    if factors:
        out["replicasPath"] = prefix + " * ".join(factors)
    minimum = _relative(item, site.min_replicas)
    if minimum is not None and site.min_replicas is not None:
        fallback = f" // {replicas}" if replicas else ""
        hosts_factor = f" * ({hosts} // 1)" if hosts else ""
        out["minReplicasPath"] = f"{prefix}(({minimum}{fallback} // {default}){hosts_factor})"
        builder.note(
            (*path, "minReplicasPath"), MEDIUM, f"{site.min_replicas.path}: the fewest pods the role runs with."
        )
    maximum = _relative(item, site.max_replicas)
    if maximum is not None and site.max_replicas is not None:
        fallback = f" // {replicas}" if replicas else ""
        hosts_factor = f" * ({hosts} // 1)" if hosts else ""
        out["maxReplicasPath"] = f"{prefix}(({maximum}{fallback} // {default}){hosts_factor})"
        builder.note((*path, "maxReplicasPath"), MEDIUM, f"{site.max_replicas.path}: the most pods the role scales to.")
    return out


def _spec_definition(builder: _Builder, site: Site, path: Path) -> dict[str, Any]:
    where = f"{site.path} ({site.source})"
    if site.free_form is not None:
        key = "podSpecPath" if site.form == "podspec" else "podTemplateSpecPath"
        builder.note(
            (*path, key),
            MEDIUM if "description" in site.free_form else LOW,
            f"{where} is open in the schema (no typed containers), taken for the pod's "
            f"{'spec' if site.form == 'podspec' else 'template'}: {site.free_form}.",
        )
        return {key: jq(site.segments)}
    if site.form == "template":
        builder.note(
            (*path, "podTemplateSpecPath"), HIGH, f"a PodTemplateSpec (metadata + spec.containers) at {where}."
        )
        return {"podTemplateSpecPath": jq(site.segments)}
    if site.form == "podspec":
        builder.note((*path, "podSpecPath"), HIGH, f"a bare PodSpec (containers, no metadata beside it) at {where}.")
        return {"podSpecPath": jq(site.segments)}
    if site.form == "containers":
        builder.note(
            (*path, "fragmentedPodSpecDefinition"),
            LOW,
            f"a list of container-shaped objects (name, image) at {where}: the operator builds the pod from them;",
            "what else it puts in the pod (init containers, volumes, scheduling) is not in the object.",
        )
        return {"fragmentedPodSpecDefinition": {"containersPath": jq(site.segments)}}
    builder.note(
        (*path, "fragmentedPodSpecDefinition"),
        LOW,
        f"one container-shaped object at {where}: the operator builds a pod around it.",
    )
    return {"fragmentedPodSpecDefinition": {"containerPath": jq(site.segments)}}


def _instance_ids(builder: _Builder, site: Site, path: Path, lower: bool) -> str | None:
    item = _item(site)
    if not item:
        return None
    suffix = " | ascii_downcase" if lower else ""
    if item[-1] == MAP:
        builder.note((*path, "instanceIdPath"), HIGH, f"one instance per key of the map {schema_path(item[:-1])}.")
        return f"{jq(item[:-1])} // {{}} | keys_unsorted[]{suffix}"
    if site.instance_id is not None:
        confidence = HIGH if site.instance_id.required else MEDIUM
        builder.note(
            (*path, "instanceIdPath"),
            confidence,
            f"one instance per item of {schema_path(item[:-1])}, named by {site.instance_id.path}"
            + (" (required)." if site.instance_id.required else "."),
        )
        return f"{jq(item)} | .{site.instance_id.segments[-1]}{suffix}"
    if site.collections == 1:
        builder.note(
            (*path, "instanceIdPath"),
            LOW,
            f"one instance per item of {schema_path(item[:-1])}; the items have no name field, so by position.",
        )
        return f"{jq(item[:-1])} // [] | keys[] | tostring"
    # Nested lists: their items in order are the instances (the per-instance paths walk them the same way),
    # so positions keep every count; what names them is left to the reviewer.
    return builder.todo(
        (*path, "instanceIdPath"),
        f"the instance ids of the nested lists on {site.path} (until then: their positions 0, 1, ...)",
        f"[{jq(item)}] | keys[] | tostring",
    )


def _status(
    builder: _Builder,
    facts: SchemaFacts | None,
    found: sample_facts.SampleFacts,
    path: Path,
    moments: Sequence[transitions.Moment] = (),
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    mappings: dict[str, list[dict[str, Any]]] = {}
    conditions = facts.conditions.segments if facts and facts.conditions else ("status", "conditions")
    # A phase the printer columns show comes first: kubectl get shows what the authors deem the status.
    phase_fields: list[Segments] = [p for p, _ in facts.printer_phases] if facts else []
    phase_fields += [f.segments for f in facts.phases if f.segments not in phase_fields] if facts else []
    phase_fields += [s for s in sample_facts.status_strings(found) if s not in phase_fields]
    sample_facts.read_status(found, conditions, phase_fields)
    types: dict[str, str] = {}
    for t in facts.condition_types if facts else []:
        types[t] = f"enumerated in the schema at {schema_path(conditions)}[].type"
    for t, column in facts.printer_conditions if facts else []:
        types.setdefault(t, f"the printer column {column!r} shows it")
    for (t, _status), _count in found.conditions.items():
        types.setdefault(t, f"seen in {found.condition_where[(t, _status)]}")
    # Values seen in a recording are placed from the moments they held (transitions.py), with that evidence.
    recorded_phase = transitions.busiest(moments, phase_fields)
    observed = transitions.observe(moments, [recorded_phase] if recorded_phase else [])
    placed = {json.dumps(p.matcher, sort_keys=True) for p in observed.placements}
    for placement in observed.placements:
        for condition in placement.matcher.get("byConditions", []):
            types.setdefault(condition["type"], "seen in the recording")
    has_conditions = bool(types) or (facts is not None and facts.conditions is not None)
    unmapped: list[str] = [f"{u.split(' seen ')[0]} ({u.split(' seen ', 1)[1]})" for u in observed.unplaced]
    if has_conditions:
        out["conditionsDefinition"] = {"path": jq(conditions)}
        source = "schema" if facts and facts.conditions else "samples"
        builder.note(
            (*path, "conditionsDefinition"), HIGH, f"{schema_path(conditions)}: a list of {{type, status}} ({source})."
        )
    statuses_seen = {t: {s for (tt, s) in found.conditions if tt == t} for t in types}

    def add(status: str, matcher: dict[str, Any], confidence: str, why: str) -> None:
        entries = mappings.setdefault(status, [])
        builder.note((*path, "statusMappings", status, len(entries)), confidence, why)
        entries.append(matcher)

    for placement in observed.placements:
        add(placement.status, placement.matcher, placement.confidence, placement.evidence + ".")
    observed_labels = {u.split(" seen ")[0] for u in observed.unplaced}
    for t, where in types.items():
        if json.dumps({"byConditions": [{"type": t, "status": "True"}]}, sort_keys=True) in placed:
            continue
        if f"condition {t}=True" in observed_labels:
            continue
        guess = vocabulary.classify(t)
        if guess is None:
            unmapped.append(f"condition {t} ({where})")
            continue
        status, confidence = guess
        add(status, {"byConditions": [{"type": t, "status": "True"}]}, confidence, f"condition {t}=True ({where}).")
        if vocabulary.words(t)[-1] in vocabulary.OUTCOME_CONDITIONS and "failed" not in {
            (vocabulary.classify(o) or ("", ""))[0] for o in types
        }:
            add(
                "failed",
                {"byConditions": [{"type": t, "status": "False"}]},
                MEDIUM,
                f"condition {t}=False: the outcome condition says it failed ({where}).",
            )
            if "Unknown" in statuses_seen.get(t, set()) or not found.roots:
                add(
                    "running",
                    {"byConditions": [{"type": t, "status": "Unknown"}]},
                    LOW,
                    f"condition {t}=Unknown: not finished yet ({where}).",
                )
    phase = _choose_phase(facts, found, [recorded_phase] if recorded_phase else phase_fields)
    if recorded_phase is not None and phase is None:
        seen: dict[str, int] = found.phases.get(".".join(recorded_phase), {})
        phase = (recorded_phase, {v: f"seen in {found.phase_where[('.'.join(recorded_phase), v)]}" for v in seen})
    if phase is not None:
        segments, values = phase
        out["phaseDefinition"] = {"path": f'{jq(segments)} // ""'}
        builder.note(
            (*path, "phaseDefinition"),
            HIGH if facts and facts.phases else MEDIUM,
            f"{schema_path(segments)}: the phase ({len(values)} value(s) known).",
        )
        for value, where in values.items():
            if json.dumps({"byPhase": value}, sort_keys=True) in placed or f"phase {value!r}" in observed_labels:
                continue
            guess = vocabulary.classify(value)
            if guess is not None:
                add(guess[0], {"byPhase": value}, guess[1], f"phase {value!r} ({where}).")
            else:
                unmapped.append(f"phase {value!r} ({where})")
    _ready_counts(facts, found, add)
    if observed.ready_count is not None and "running" not in mappings:
        expression, why = observed.ready_count
        add("running", {"byExpression": {"expression": expression, "expectedResult": "true"}}, MEDIUM, why + ".")
    hint = "No condition or phase says it."
    if moments:
        hint = "No condition or phase says it (in the schema, the samples or the recording)."
    if phase is None and facts is not None and facts.phases:
        # The schema declares a phase but neither enumerates nor shows its values: read it, map it by hand.
        declared = facts.phases[0]
        out["phaseDefinition"] = {"path": f'{jq(declared.segments)} // ""'}
        builder.note((*path, "phaseDefinition"), MEDIUM, f"{declared.path}: declared in the schema, no value known.")
        hint = f"Map the values of {declared.path} (declared in the schema; none enumerated or seen) with byPhase."
    if unmapped:
        # A draft never invents a meaning: the values no word told apart are listed for the reviewer to place.
        builder.note(
            (*path, "statusMappings"),
            LOW,
            f"{len(unmapped)} value(s) the draft could not place; map each under the status it means:",
            *(f"  {u}" for u in unmapped),
        )
        hint += " Values not placed yet: " + ", ".join(u.split(" (")[0] for u in unmapped) + "."
    for status in ("running", "completed", "failed"):
        if status not in mappings and not (
            status == "completed" and "running" in mappings and _long_running(types, phase)
        ):
            expression = builder.todo((*path, "statusMappings", status), f"when is a {status} object {status}? {hint}")
            mappings.setdefault(status, []).append(
                {"byExpression": {"expression": expression, "expectedResult": "true"}}
            )
    out["statusMappings"] = {s: mappings[s] for s in STATUS_ORDER if s in mappings}
    return out


def _ready_counts(
    facts: SchemaFacts | None, found: sample_facts.SampleFacts, add: Callable[[str, dict[str, Any], str, str], None]
) -> None:
    """A count of ready pods in the status says running too (samples often carry it without conditions)."""
    fields = [(p[-1], f"the printer column {c!r}") for p, c in facts.printer_ready if len(p) == 2] if facts else []
    fields += [(f.segments[-1], "the schema") for f in facts.ready_counts] if facts else []
    for sample in found.roots:
        status = sample.obj.get("status")
        for name in READY_NAMES:
            if isinstance(status, dict) and isinstance(status.get(name), int) and name not in dict(fields):
                fields.append((name, sample.location))
    if not fields:
        return
    name, where = fields[0]
    add(
        "running",
        {"byExpression": {"expression": f"(.status.{name} // 0) > 0", "expectedResult": "true"}},
        MEDIUM,
        f".status.{name} counts ready pods ({where}): one or more ready is running.",
    )
    add(
        "initializing",
        {"byExpression": {"expression": f".status != null and (.status.{name} // 0) == 0", "expectedResult": "true"}},
        LOW,
        f".status.{name} 0: nothing ready yet (or lost: a reviewer may tell Degraded apart).",
    )


def _batch_evidence(facts: SchemaFacts | None, found: sample_facts.SampleFacts, sites: list[Site]) -> str | None:
    """Why the kind runs to completion (a gang makes sense only then), or None: a service (autoscaling bounds,
    a rollout strategy, only Ready/Available statuses) or nothing that finishes is never gang-scheduled."""
    if not sites:
        return None
    if facts is not None and facts.serving_fields:
        return None
    if any(s.job is not None for s in sites):
        return "its pods run in Jobs"
    if facts is not None and facts.batch_fields:
        return f"{facts.batch_fields[0]} is a run-to-completion field"
    finishing = {"succeeded", "complete", "completed", "finished", "done"}
    seen = list(facts.condition_types if facts else []) + [t for t, _ in found.conditions]
    seen += [p for f in facts.phases for p in f.enum] if facts else []
    seen += [v for values in found.phases.values() for v in values]
    words = {w for value in seen for w in vocabulary.words(value)}
    if words & finishing:
        return "its status says when it has finished"
    return None


def _long_running(types: dict[str, str], phase: tuple[Segments, dict[str, str]] | None) -> bool:
    """A service-like kind: it reports Ready/Available and nothing that finishes."""
    words = {w for t in types for w in vocabulary.words(t)} | {
        w for v in (phase[1] if phase else {}) for w in vocabulary.words(v)
    }
    return not words & {"succeeded", "complete", "completed", "finished", "done", "success", "failed", "failure"}


def _choose_phase(
    facts: SchemaFacts | None, found: sample_facts.SampleFacts, phase_fields: list[Segments]
) -> tuple[Segments, dict[str, str]] | None:
    """The phase-like field whose values name the most statuses by their words."""
    best: tuple[int, int, Segments, dict[str, str]] | None = None
    enums = {f.segments: f for f in facts.phases} if facts else {}
    for segments in phase_fields:
        values: dict[str, str] = {}
        schema_field = enums.get(segments)
        for value in schema_field.enum if schema_field else []:
            values[value] = f"enumerated in the schema at {schema_path(segments)}"
        for value in found.phases.get(".".join(segments), {}):
            values.setdefault(value, f"seen in {found.phase_where[('.'.join(segments), value)]}")
        hits = sum(1 for v in values if vocabulary.classify(v) is not None)
        if hits == 0:
            continue
        score = (hits, -len(segments))
        if best is None or score > (best[0], best[1]):
            best = (score[0], score[1], segments, values)
    return (best[2], best[3]) if best else None


def _intermediate(  # noqa: PLR0917 - the builder's state it adds to, each by name at its one call
    builder: _Builder,
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


def _sample_children(
    builder: _Builder, found: sample_facts.SampleFacts, children: list[dict[str, Any]], taken: set[str], root: str
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


def _chain_evidence(builder: _Builder, kind: str, selector: pod_selectors.Selector | None) -> list[str]:
    """The owner chain the sample pods show, and the catalog definitions that cover its kinds."""
    if selector is None or not selector.chains:
        return [f"the sample pods of this role are owned through an object the {kind} owns."]
    chain = selector.chains.most_common(1)[0][0]
    lines = [f"sample pods are owned through {' -> '.join([kind, *(c.rpartition('/')[2] for c in chain), 'Pod'])}."]
    for link in chain:
        api, _, link_kind = link.rpartition("/")
        covered = builder.covering(api.rpartition("/")[0] if "/" in api else "", link_kind)
        if covered:
            lines.append(f"{link_kind} is covered by the catalog's {covered}: its pods' labels and counts are its own.")
    return lines


def _pod_selector(
    builder: _Builder, site: Site, selector: pod_selectors.Selector | None, path: Path, several: bool
) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    if selector is not None and selector.evidence:
        builder.note(path, HIGH, *selector.evidence)
    if several:
        if selector is not None and selector.type_key:
            out["componentTypeSelector"] = {
                "keyPath": f'.metadata.labels["{selector.type_key}"]',
                "value": selector.type_value,
            }
        elif selector is not None and selector.instance_key:
            out["componentTypeSelector"] = {"keyPath": f'.metadata.labels["{selector.instance_key}"]'}
        else:
            out["componentTypeSelector"] = {
                "keyPath": builder.todo(
                    (*path, "componentTypeSelector", "keyPath"),
                    "the pod label the operator stamps on this role's pods (no sample pod shows it)",
                )
            }
    if site.collections:
        if selector is not None and selector.instance_key:
            out["componentInstanceSelector"] = {"idPath": f'.metadata.labels["{selector.instance_key}"]'}
        else:
            out["componentInstanceSelector"] = {
                "idPath": builder.todo(
                    (*path, "componentInstanceSelector", "idPath"),
                    "the pod label that names this pod's instance (no sample pod shows it)",
                )
            }
    if selector is not None and selector.replica_key:
        out["replicaSelector"] = {"keyPath": f'.metadata.labels["{selector.replica_key}"]'}
    return out or None


def _one_pod_per_role(sites: list[Site]) -> tuple[list[Site], dict[int, list[Site]]]:
    """Container lists side by side in one object (Tekton's ``steps`` and ``sidecars``) are one pod's."""
    kept: list[Site] = []
    merged: dict[int, list[Site]] = {}
    for site in sites:
        first = next(
            (k for k in kept if k.form == "containers" and site.form == "containers" and k.role == site.role), None
        )
        if first is None:
            kept.append(site)
        else:
            merged.setdefault(id(first), []).append(site)
    return kept, merged


def _without_base_templates(sites: list[Site]) -> tuple[list[Site], list[Site]]:
    """Drop a template that is the base of others (Flink's ``.spec.podTemplate`` under ``jobManager.podTemplate``
    and ``taskManager.podTemplate``): the same key, at least two roles below its own object have it, and
    nothing counts its pods. It is merged into those roles' pods, not a role of its own."""
    bases = []
    for site in sites:
        role = site.role
        below = [
            other
            for other in sites
            if other is not site
            and other.segments[-1] == site.segments[-1]
            and other.role[: len(role)] == role
            and len(other.role) > len(role)
        ]
        if len(below) >= 2 and site.replicas is None and not site.collections:
            bases.append(site)
    return [s for s in sites if s not in bases], bases


def draft(
    crd: dict[str, Any] | None,
    objects: Sequence[Sample] = (),
    *,
    version: str | None = None,
    catalog: Sequence[LoadedDefinition] = (),
    sources: Sequence[str] = (),
    moments: Sequence[transitions.Moment] = (),
) -> Draft:
    """Draft a definition from a CRD (may be None when samples say the kind), sample objects and pods, and
    the ``moments`` of one object recorded as it went through its statuses (status mappings from them)."""
    facts = read_crd(crd, version) if crd is not None else None
    if facts is not None:
        group, kind, version_name = facts.group, facts.kind, facts.version
    else:
        roots = [s for s in objects if s.obj.get("kind") != "Pod" and not owner_references(s.obj)]
        if not roots:
            raise ValueError("no CRD and no sample object that could be the root (a non-Pod object without owners)")
        api = str(roots[0].obj.get("apiVersion") or "")
        group, version_name = api.rpartition("/")[0], api.rpartition("/")[2]
        kind = str(roots[0].obj.get("kind"))
    found = sample_facts.collect(list(objects), group, kind)
    builder = _Builder(catalog)
    sites = list(facts.sites) if facts else []
    if not sites or (facts and facts.untyped and ".spec" in facts.untyped):
        sites += [
            s for s in sample_facts.sites_from_samples(found.roots) if s.segments not in {x.segments for x in sites}
        ]
    sites, bases = _without_base_templates(sites)
    sites, merged = _one_pod_per_role(sites)
    selectors = pod_selectors.infer(sites, found)
    root_name = re.sub(r"[^a-z0-9-]", "", kind.lower()) or "root"
    base: Path = ("spec", "structureDefinition")
    root_path: Path = (*base, "rootComponent")
    root: dict[str, Any] = {"name": root_name, "kind": {"group": group, "version": version_name, "kind": kind}}
    if facts is not None:
        builder.note((*root_path, "kind"), HIGH, f"the CRD's group, storage version {version_name} and kind.")
        if facts.untyped:
            builder.note(
                (*root_path, "kind"),
                LOW,
                f"the schema leaves {', '.join(facts.untyped)} open (x-kubernetes-preserve-unknown-fields):",
                "the samples filled in what they show.",
            )
    children: list[dict[str, Any]] = []
    # One pod definition straight under .spec (`.spec.template`, `.spec.template.spec`): the root makes the pods.
    on_root = (
        len(sites) == 1
        and not sites[0].collections
        and sites[0].job is None
        and len(sites[0].segments) >= 2
        and set(sites[0].segments[1:]) <= {"template", "podTemplate", "spec", "podSpec"}
    )
    taken = {root_name}
    additional: list[dict[str, str]] = []
    several = len(sites) > 1
    embedded = _embeddings(builder, sites, (group, kind))
    intermediates: dict[Segments, str] = {}
    for index, site in enumerate(sites):
        selector = selectors.get(index)
        owner = selector.owner_kinds.most_common(1)[0][0] if selector and selector.owner_kinds else ""
        embedding = embedded.get(index)
        if on_root:
            component, path = root, root_path
        else:
            parent = root_name
            if embedding is not None:
                parent = intermediates.get(embedding.prefix) or _intermediate(
                    builder, embedding, children, taken, root_name, (*base, "childComponents", len(children))
                )
                intermediates[embedding.prefix] = parent
            path = (*base, "childComponents", len(children))
            component = {"name": _role_name(site, taken), "ownerRef": parent}
            children.append(component)
            if embedding is not None and site.job is None and not owner:
                key = site.segments[len(embedding.prefix)]
                component["kind"] = dict(embedding.pod_kinds.get(key, POD))
                builder.note(
                    (*path, "kind"),
                    MEDIUM,
                    f"the pods of {schema_path((*embedding.prefix, key))} belong to the {embedding.kind['kind']}",
                    f"(the catalog's {embedding.definition} has them owned by a {component['kind']['kind']}).",
                )
            elif site.job is not None:
                component["kind"] = dict(JOB)
                builder.note(
                    (*path, "kind"),
                    HIGH,
                    f"{schema_path(site.job)} is a JobTemplateSpec (spec.template + parallelism/completions):",
                    "one batch/v1 Job per instance.",
                )
            elif site.embeds is not None and not owner:
                component["kind"] = {"group": "apps", "version": "v1", "kind": site.embeds}
                builder.note(
                    (*path, "kind"),
                    MEDIUM,
                    f"{schema_path(site.role)} is a {site.embeds}Spec (its fields, or its name): the operator creates",
                    f"one {site.embeds} per instance, and it the pods"
                    + (
                        f" (the catalog's {builder.covering('apps', site.embeds)} reads it)."
                        if builder.covering("apps", site.embeds)
                        else "."
                    ),
                )
            elif owner:
                api, _, owner_kind = owner.rpartition("/")
                owner_group, _, owner_version = api.rpartition("/") if "/" in api else ("", "", api)
                component["kind"] = {"group": owner_group, "version": owner_version, "kind": owner_kind}
                builder.note((*path, "kind"), HIGH, *_chain_evidence(builder, kind, selector))
            else:
                component["kind"] = dict(POD)
                builder.note(
                    (*path, "kind"), MEDIUM, "pods owned directly by the root (no intermediate owner is known)."
                )
            lower = bool(selector and selector.lower)
            ids = _instance_ids(builder, site, path, lower)
            if ids is not None:
                component["instanceIdPath"] = ids
        if owner and on_root:
            api, _, owner_kind = owner.rpartition("/")
            owner_group, _, owner_version = api.rpartition("/") if "/" in api else ("", "", api)
            additional.append({"group": owner_group, "version": owner_version, "kind": owner_kind})
        component["specDefinition"] = _spec_definition(builder, site, (*path, "specDefinition"))
        for extra in merged.get(id(site), []):
            builder.note(
                (*path, "specDefinition"),
                LOW,
                f"{extra.path} ({extra.source}) holds more containers of the same pod (beside {site.path});",
                "the format reads one container list: the pod's other containers are not counted.",
            )
        reuse = builder.catalog_expression(JOB, "replicas_path") if site.job is not None else None
        scale = _scale(builder, site, (*path, "scaleDefinition"), reuse)
        if scale:
            component["scaleDefinition"] = scale
        elif not on_root:
            builder.note((*path, "specDefinition"), MEDIUM, "no count beside the pod definition: one pod per instance.")
        if not on_root:
            selector_def = _pod_selector(builder, site, selector, (*path, "podSelector"), several)
            if selector_def:
                component["podSelector"] = selector_def
    for shared in bases:
        builder.note(
            (*root_path, "name"),
            LOW,
            f"{shared.path} ({shared.source}) is taken as the base template the roles below it are merged onto",
            "(the same key under two or more roles, no count of its own): not a component.",
        )
    _sample_children(builder, found, children, taken, root_name)
    if not sites and not children:
        where = "the schema and samples show no PodTemplateSpec, PodSpec or container list"
        root["specDefinition"] = {
            "podTemplateSpecPath": builder.todo(
                (*root_path, "specDefinition", "podTemplateSpecPath"), f"where the pods come from: {where}"
            )
        }
        if facts is not None and facts.count_at_root is not None:
            count = facts.count_at_root
            default = count.default if isinstance(count.default, int) else 1
            root["scaleDefinition"] = {"replicasPath": f"{jq(count.segments)} // {default}"}
            told_by = "name" if count.segments[-1] in REPLICA_NAMES else "description"
            builder.note(
                (*root_path, "scaleDefinition", "replicasPath"),
                MEDIUM,
                f"{count.path} counts the pods (its {told_by});",
                f"unset reads {default}. Where their template is, is left to do.",
            )
    if facts is not None and facts.replicas_at_root is not None and not on_root and sites:
        root["scaleDefinition"] = {"replicasPath": f"{jq(facts.replicas_at_root.segments)} // 1"}
        builder.note(
            (*root_path, "scaleDefinition"),
            LOW,
            f"{facts.replicas_at_root.path}: copies of the whole set of roles",
            "(every role's count is multiplied by it).",
        )
    root["statusDefinition"] = _status(builder, facts, found, (*root_path, "statusDefinition"), moments)
    if facts is not None and facts.suspend:
        suspend_field, on, off = facts.suspend[0]
        root["suspendDefinition"] = {
            "suspendActions": [{"path": jq(suspend_field.segments), "value": on}],
            "resumeActions": [{"path": jq(suspend_field.segments), "value": off}],
        }
        how = (
            "an inverse switch: false stops it"
            if on == "false"
            else ("an operating mode" if suspend_field.schema.get("type") == "string" else "a switch")
        )
        builder.note(
            (*root_path, "suspendDefinition"),
            MEDIUM if suspend_field.schema.get("type") == "boolean" else LOW,
            f"{suspend_field.path} ({suspend_field.schema.get('type')}, {how}) in the schema:",
            f"{on} stops, {off} resumes.",
        )
    if on_root and not additional and facts is not None and facts.through_replicasets:
        additional.append({"group": "apps", "version": "v1", "kind": "ReplicaSet"})
        builder.note(
            (*base, "additionalChildKinds"),
            MEDIUM,
            ".spec is shaped like a DeploymentSpec (template, selector, strategy): its controller rolls the pods",
            "out through ReplicaSets it owns, as a Deployment's does.",
        )
    structure: dict[str, Any] = {"rootComponent": root}
    if children:
        structure["childComponents"] = children
    if additional:
        structure["additionalChildKinds"] = additional
        if (*base, "additionalChildKinds") not in builder.notes:
            builder.note((*base, "additionalChildKinds"), HIGH, "owners between the root and its sample pods.")
    spec: dict[str, Any] = {"structureDefinition": structure}
    batch = _batch_evidence(facts, found, sites)
    if batch and (len(sites) > 1 or any(s.collections for s in sites)):
        spec["optimizationInstructions"] = {
            "gangScheduling": {
                "podGroups": [{"name": root_name, "members": [{"componentName": root_name, "groupByKeyPaths": []}]}]
            }
        }
        builder.note(
            ("spec", "optimizationInstructions"),
            MEDIUM,
            "several roles (or a list/map of them) in one run-to-completion object: its pods start together,",
            f"one gang per object ({batch}).",
        )
    karta = {
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "metadata": {"name": slug(GroupVersionKind(group=group, version=version_name, kind=kind))},
        "spec": spec,
    }
    pods = sum(len(p) for p in found.pods.values())
    header = [
        f"Draft definition for {kind}.{group} {version_name}, written by `wmap definitions new`",
        f"from {', '.join(sources) or 'the given objects'}",
        f"({len(found.roots)} sample object(s), {pods} sample pod(s)).",
        "Each guess says its evidence and confidence [high|medium|low]; review the low ones first.",
        f"Every {TODO_MARK} is something the draft could not infer: `wmap validate` lists them.",
        "Then prove it: wmap definitions test THIS.yaml --samples DIR",
    ]
    text = render(karta, builder.notes, header)
    return Draft(karta, text, builder.todos, builder.guesses, len(found.roots), pods, builder.covering(group, kind))
