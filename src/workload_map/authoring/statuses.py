"""The drafted status definition: conditions, phase and their mappings to statuses by the words of their
values, ready counts, and whether the kind runs to completion.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from workload_map.authoring import samples as sample_facts, status as vocabulary, transitions
from workload_map.authoring.builder import Builder, jq
from workload_map.authoring.evidence import HIGH, LOW, MEDIUM, Segments, schema_path
from workload_map.authoring.render import Path
from workload_map.authoring.schemafacts import SchemaFacts, Site
from workload_map.authoring.schemastatus import READY_NAMES

MAX_READY_COUNTS = 4
STATUS_ORDER = ("initializing", "running", "completed", "failed", "degraded", "suspended", "suspending", "resuming")


def status_definition(
    builder: Builder,
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
    for t, where_declared in facts.api_conditions if facts else []:
        types.setdefault(t, where_declared)
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

    observed_labels = {u.split(" seen ")[0] for u in observed.unplaced}
    rolling = facts is not None and facts.through_replicasets
    building = facts is not None and vocabulary.builds(facts.kind)
    requested = facts is not None and vocabulary.requests(facts.kind)

    def meaning(value: str, segments: Segments | None = None) -> tuple[str, str, str] | None:
        """(status, confidence, why) by the value's words; a kind that rolls out like a Deployment never
        finishes or stops: its Paused or Completed says the rollout is, and the pods still serve. A value
        of the phase ``segments`` no word places may have a meaning from where the controller writes it."""
        guess = vocabulary.classify(value, building)
        if requested and vocabulary.a_result(value) and (guess is None or guess[0] == "running"):
            return "completed", LOW, ": the kind is one request; the result it asked for there is its work done"
        pause = facts.operator_pause if facts is not None and not facts.suspend else None
        if pause is not None and guess is not None and guess[0] in ("suspended", "suspending"):
            return "running", LOW, f": {pause[0]} pauses only the operator ({pause[1]}), the pods run on"
        if guess is not None and rolling and guess[0] in ("suspended", "completed"):
            return "running", LOW, ": a rollout paused or complete, its pods still serve"
        written = facts.api_meanings.get((segments, value)) if facts and segments and guess is None else None
        if written is not None:
            return written[0], written[1], f": {written[2]}"
        declared = facts.api_evidence.get((segments, value), "") if facts and segments else ""
        if guess is not None and guess[0] in ("running", "completed") and vocabulary.declared_not_yet_running(declared):
            return "initializing", LOW, ": its constant's doc comment says the object is not yet up"
        if (
            guess is not None
            and guess[0] in vocabulary.OPERATOR_MEANING
            and vocabulary.declared_about_the_operator(declared)
        ):
            meant = vocabulary.OPERATOR_MEANING[guess[0]]
            return (
                meant,
                LOW,
                f": its constant names the operator's work, not the pods' ({guess[0]} there is {meant} here)",
            )
        return (guess[0], guess[1], "") if guess is not None else None

    # What the recording settled stands; a value it showed but only its words placed, or that it could not place,
    # keeps what the schema and the operator's source say of it.
    for placement in observed.placements:
        value = placement.matcher.get("byPhase") or placement.matcher.get("byConditions", [{}])[0].get("type", "")
        static = (
            None if placement.settled else meaning(value, recorded_phase if "byPhase" in placement.matcher else None)
        )
        if static is not None and static[0] != placement.status:
            why = f"{placement.evidence}; the moments said nothing, the kind and the source say {static[0]}{static[2]}."
            add(static[0], placement.matcher, static[1], why)
        else:
            add(placement.status, placement.matcher, placement.confidence, placement.evidence + ".")
    for unplaced in observed.unplaced:
        label = unplaced.split(" seen ")[0]
        value = label.split(" ", 1)[1].strip("'").split("=")[0]
        is_phase = label.startswith("phase ")
        static = meaning(value, recorded_phase if is_phase else None)
        if static is None:
            continue
        matcher = {"byPhase": value} if is_phase else {"byConditions": [{"type": value, "status": "True"}]}
        add(static[0], matcher, static[1], f"{unplaced} (the recording could not place it; by its kind){static[2]}.")
        placed.add(json.dumps(matcher, sort_keys=True))
        unmapped[:] = [u for u in unmapped if not u.startswith(f"{label} (")]
    for t, where in types.items():
        if json.dumps({"byConditions": [{"type": t, "status": "True"}]}, sort_keys=True) in placed:
            continue
        if f"condition {t}=True" in observed_labels:
            continue
        guess = meaning(t)
        if guess is None:
            unmapped.append(f"condition {t} ({where})")
            continue
        status, confidence, why = guess
        matcher = {"byConditions": [{"type": t, "status": "True"}]}
        add(status, matcher, confidence, f"condition {t}=True ({where}){why}.")
        if (
            not rolling
            and vocabulary.words(t)[-1] in vocabulary.OUTCOME_CONDITIONS
            and not vocabulary.about_the_operator(t)  # a reconcile not complete is no failed workload
            and "failed" not in {(vocabulary.classify(o) or ("", ""))[0] for o in types}
        ):
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
            meant = meaning(value, segments)
            if meant is not None:
                add(meant[0], {"byPhase": value}, meant[1], f"phase {value!r} ({where}){meant[2]}.")
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
            status == "completed" and "running" in mappings and _long_running(types, phase, building)
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
    """A count of ready pods in the status says running too (samples often carry it without conditions); each
    count (one per role, ``readyLeaderReplicas`` and ``readyFollowerReplicas``, or two names for the same pods,
    ``readyReplicas`` and ``availableReplicas``) says so, the first one alone says a status of 0 is starting."""
    fields = [(p[-1], f"the printer column {c!r}") for p, c in facts.printer_ready if len(p) == 2] if facts else []
    fields += [(".".join(f.segments[1:]), "the schema") for f in facts.ready_counts] if facts else []
    fields += [(".".join(p[1:]), f"the controller: {w}") for p, w in facts.api_ready_counts] if facts else []
    for sample in found.roots:
        status = sample.obj.get("status")
        for name in READY_NAMES:
            if isinstance(status, dict) and isinstance(status.get(name), int) and name not in dict(fields):
                fields.append((name, sample.location))
    if not fields:
        return
    counts: dict[str, str] = {}
    for name, where in fields:
        counts.setdefault(name, where)  # the first place each count is known from
    for name in list(counts)[:MAX_READY_COUNTS]:
        add(
            "running",
            {"byExpression": {"expression": f"(.status.{name} // 0) > 0", "expectedResult": "true"}},
            MEDIUM,
            f".status.{name} counts ready pods ({counts[name]}): one or more ready is running.",
        )
    name, where = fields[0]
    add(
        "initializing",
        {"byExpression": {"expression": f".status != null and (.status.{name} // 0) == 0", "expectedResult": "true"}},
        LOW,
        f".status.{name} 0: nothing ready yet (or lost: a reviewer may tell Degraded apart).",
    )


def batch_evidence(facts: SchemaFacts | None, found: sample_facts.SampleFacts, sites: list[Site]) -> str | None:
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
    seen += [t for t, _ in facts.api_conditions] if facts else []
    seen += [p for f in facts.phases for p in f.enum] if facts else []
    seen += [v for values in found.phases.values() for v in values]
    building = facts is not None and vocabulary.builds(facts.kind)
    words = {w for value in seen if building or not vocabulary.about_a_build(value) for w in vocabulary.words(value)}
    if words & finishing:
        return "its status says when it has finished"
    return None


def _long_running(types: dict[str, str], phase: tuple[Segments, dict[str, str]] | None, building: bool) -> bool:
    """A service-like kind: it reports Ready/Available and nothing that finishes (the operator's reconcile
    completing, or the build of a kind that is no build, is not the workload finishing)."""
    values = [*types, *(phase[1] if phase else {})]
    values = [
        v for v in values if not vocabulary.about_the_operator(v) and (building or not vocabulary.about_a_build(v))
    ]
    words = {w for v in values for w in vocabulary.words(v)}
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
            from_api = facts.api_evidence.get((segments, value)) if facts else None
            values[value] = from_api or f"enumerated in the schema at {schema_path(segments)}"
        for value in found.phases.get(".".join(segments), {}):
            values.setdefault(value, f"seen in {found.phase_where[('.'.join(segments), value)]}")
        meanings = facts.api_meanings if facts else {}
        hits = sum(1 for v in values if vocabulary.classify(v) is not None or (segments, v) in meanings)
        if hits == 0:
            continue
        score = (hits, -len(segments))
        if best is None or score > (best[0], best[1]):
            best = (score[0], score[1], segments, values)
    return (best[2], best[3]) if best else None
