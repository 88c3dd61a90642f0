"""The switches of a CRD's schema that stop the workload's pods (schema.py): a suspend boolean, an inverse
one, an operating mode with a stopping value; and the pause annotations its descriptions name.
"""

from __future__ import annotations

import re
from typing import Any

from workload_map.authoring.evidence import Segments, schema_path
from workload_map.authoring.gosource import switch_annotation as gosource_switch
from workload_map.authoring.schemafacts import Field, _node_at, _props
from workload_map.authoring.schemapods import _rollout_spec, _walk_fields, is_job_spec, is_pod_spec

SUSPEND_BOOLEANS = ("suspend", "suspended", "pause", "paused", "stopped", "stop", "hibernate", "hibernated", "shutdown")
# Booleans right under .spec whose false stops the workload (a VM's running, a workspace's started).
INVERSE_BOOLEANS = ("started", "running", "enabled", "active", "start", "run")
# Words of an operating mode's values (runStrategy, operatingMode...): which stop it, which run it.
STOP_VALUES = ("suspended", "suspend", "stopped", "stop", "paused", "halted", "off", "disabled", "inactive")
# The values of a switch spelt as strings, for yes and for no.
TRUTHY = ("true", "yes", "on", "1", "enabled", "enable")
FALSY = ("false", "no", "off", "0", "disabled", "disable")
RUN_VALUES = ("running", "run", "started", "active", "always", "on", "enabled", "rerunonfailure", "once")
# A parent field that schedules runs: a switch under it stops the schedule, not the object's own pods.
SCHEDULE_PARENT = re.compile(r"(?i)cron|schedul")


# to the pods (deleted, scaled down, hibernated).
RECONCILE_ONLY = re.compile(
    r"\breconcil\w*|\bsynchroni[sz]\w*|\bstops? managing\b|\bno longer manag\w*|\bunmanaged\b"
    r"|\bprevents? (?:the )?(?:operator|controllers?) from\b",
    re.I,
)
STOPS_PODS = re.compile(r"\bpods?\b|delet|\bscal|terminat|shut ?down|hibernat|\bstops? (the )?(workload|process)", re.I)


def _feature_switch(siblings: dict[str, Any]) -> bool:
    """The fields around a switch are an optional feature's (an ``enabled`` boolean beside it): its pause stops
    the feature, not the object's pods."""
    enabled = siblings.get("enabled")
    return isinstance(enabled, dict) and enabled.get("type") == "boolean"


# A switch named for what it suspends (``suspendWorkers``, ``pauseServers``): a suspend word, then a noun.
COMPOUND_SWITCH = re.compile(r"^(?:suspend|pause|stop|hibernate)[A-Z][a-z]+$")


def _suspends_pods_by_name(name: str, schema: dict[str, Any]) -> bool:
    """A compound switch (COMPOUND_SWITCH) is the object's only when its description says the pods stop
    ("deletes the pods, keeps the volumes"); else it may pause one feature (``pauseBackups``)."""
    return bool(COMPOUND_SWITCH.match(name)) and bool(STOPS_PODS.search(str(schema.get("description") or "")))


def _suspend_fields(spec: dict[str, Any], root: str = "spec") -> list[tuple[Field, str, str]]:
    """Switches that stop the workload: (field, value that suspends, value that resumes), best first.

    A boolean named suspend/paused/stopped (true stops); a boolean right under .spec named started/running/
    enabled (an inverse switch: false stops); a string enum, an operating mode (runStrategy, operatingMode...),
    with a stopping value (Halted, Stopped...) and a running one (Always, Running...)."""
    out: list[tuple[int, Field, str, str]] = []
    for found in _walk_fields(spec, (root,)):
        name = found.segments[-1]
        parents = [
            _props(_node_at({"properties": {root: spec}}, found.segments[:i])) for i in range(1, len(found.segments))
        ]
        if any(_rollout_spec(p) for p in parents) or any(
            s.lower().endswith(("strategy", "rollingupdate")) for s in found.segments[:-1]
        ):
            # A Deployment-like spec's `paused` (or one under an update strategy) halts a rollout, not the pods.
            continue
        if name == "paused" and any(
            "template" in p and any(k.lower().endswith("strategy") for k in p) for p in parents[-1:]
        ):
            continue  # beside a template and its update strategy, `paused` halts the rollout of a new template
        if any(is_job_spec(p) for p in parents[1:]):
            continue  # an embedded JobSpec's suspend is the Jobs' the operator makes of it, not the object's
        if any(SCHEDULE_PARENT.search(s) for s in found.segments[1:-1]):
            continue  # under a schedule (cronPolicy, schedule): it stops the next runs, not this object's pods
        if len(found.segments) > 2 and _feature_switch(parents[-1]):
            continue  # beside the `enabled` of an optional feature (archiving, backups): it pauses that feature
        if RECONCILE_ONLY.search(str(found.schema.get("description") or "")) and not STOPS_PODS.search(
            str(found.schema.get("description") or "")
        ):
            continue  # it pauses the operator's reconcile ("disabling the reconciliation"): the pods run on
        boolean = found.schema.get("type") == "boolean"
        if boolean and (name in SUSPEND_BOOLEANS or _suspends_pods_by_name(name, found.schema)):
            out.append((0, found, "true", "false"))
        elif found.schema.get("type") == "boolean" and name in INVERSE_BOOLEANS and len(found.segments) == 2:
            out.append((2, found, "false", "true"))
        elif found.schema.get("type") == "string" and found.enum and name in SUSPEND_BOOLEANS:
            # A switch spelt as strings (`stop: "yes"`): its yes stops, its no resumes.
            stop = [v for v in found.enum if v.lower() in TRUTHY]
            run = [v for v in found.enum if v.lower() in FALSY]
            if stop and run:
                out.append((0, found, f'"{stop[0]}"', f'"{run[0]}"'))
        elif found.schema.get("type") == "string" and found.enum:
            stop = [v for v in found.enum if v.lower() in STOP_VALUES]
            run = [v for v in found.enum if v.lower() in RUN_VALUES]
            if stop and run:
                # The default running value, when the schema has one, is what a resumed object had.
                default = found.default if found.default in run else run[0]
                out.append((1, found, f'"{stop[0]}"', f'"{default}"'))
    # Named switches before modes before inverse booleans; shallowest first (`.spec.suspend` before
    # `.spec.runPolicy.suspend`).
    out.sort(key=lambda entry: (len(entry[1].segments), entry[0]))
    return [(f, on, off) for _, f, on, off in out]


# An annotation key in a description: ``example.com/paused``, quoted or not.
_DESCRIBED_KEY = re.compile(r"(?<![\w./-])((?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?\.)+[a-z]{2,}/[A-Za-z0-9][-A-Za-z0-9_.]*)")


def _described_annotations(schema: dict[str, Any]) -> list[tuple[str, str]]:
    """Pause/hibernation annotation keys the schema's descriptions name beside the word annotation."""
    out: dict[str, str] = {}

    def walk(node: Any, segments: Segments, depth: int) -> None:
        if not isinstance(node, dict) or depth > 12 or is_pod_spec(node):
            return
        description = str(node.get("description") or "")
        if "annotation" in description.lower():
            for key in _DESCRIBED_KEY.findall(description):
                if gosource_switch(key.rstrip(".")):
                    out.setdefault(key.rstrip("."), f"the description of {schema_path(segments) or 'the kind'}")
        for key, child in _props(node).items():
            if key != "status":
                walk(child, (*segments, key), depth + 1)

    walk(schema, (), 0)
    return list(out.items())
