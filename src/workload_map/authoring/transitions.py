"""Status mappings from what an object was seen to go through (`wmap definitions new --from-recording`).

A recording (or any sequence of one object's versions) shows which phases and conditions the operator
wrote, in which order, and what its pods were doing meanwhile. A value is placed by its words when it has
known ones (``status.py``); otherwise by what was seen while it held: no pod ready yet -> initializing,
every pod ready -> running, every pod finished successfully -> completed, a pod failed and none running ->
failed, pods gone after running -> suspended. Each placement carries its evidence: the states where the
value held, their times and the pods then. A value whose moments say nothing is left unplaced, never
guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring import status as vocabulary
from workload_map.authoring.evidence import HIGH, LOW, MEDIUM
from workload_map.base.objects import meta, owner_references


@dataclass(frozen=True)
class Moment:
    """One state of the recorded object: after ``index`` events, at ``at``, with its pods then."""

    index: int
    at: str
    root: dict[str, Any] | None
    pods: tuple[dict[str, Any], ...] = ()
    run: int = 0  # which recording (or sequence) of several it belongs to
    # Every object recorded then (whose owner chain reaches the root), and the recording's file.
    objects: tuple[dict[str, Any], ...] = ()
    source: str = ""

    @property
    def pods_ready(self) -> int:
        return sum(1 for p in self.pods if _pod_ready(p))

    def pods_in(self, phase: str) -> int:
        return sum(1 for p in self.pods if (p.get("status") or {}).get("phase") == phase)


def describe(moments: Sequence[Moment]) -> str:
    """The pods over some moments, in one phrase: "0-3 of 3 pods ready, up to 3 succeeded"."""
    if not any(m.pods for m in moments):
        return "no pods"

    def span(values: list[int]) -> str:
        return str(values[0]) if min(values) == max(values) else f"{min(values)}-{max(values)}"

    totals = [len(m.pods) for m in moments]
    parts = [f"{span([m.pods_ready for m in moments])} of {span(totals)} pods ready"]
    for phase in ("Succeeded", "Failed"):
        most = max(m.pods_in(phase) for m in moments)
        parts += [f"up to {most} {phase.lower()}"] if most else []
    return ", ".join(parts)


@dataclass
class Placement:
    """A status for one value (``phase X`` or ``condition T=True``), the matcher and why."""

    status: str
    matcher: dict[str, Any]
    confidence: str
    evidence: str
    settled: bool = True  # the moments placed it (False: its words alone did, the moments said nothing)


@dataclass
class Observed:
    """What the moments say: per value, where it held; the placements; values left unplaced."""

    moments: int = 0
    order: list[str] = field(default_factory=list)  # values in the order they first appeared
    placements: list[Placement] = field(default_factory=list)
    unplaced: list[str] = field(default_factory=list)
    # A status count that was above 0 exactly while pods were ready: (jq expression > 0, evidence).
    ready_count: tuple[str, str] | None = None


def _pod_ready(pod: dict[str, Any]) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def owned_pods(objects: Sequence[dict[str, Any]], root: dict[str, Any]) -> list[dict[str, Any]]:
    """The pods owned by ``root`` through any chain of owners among ``objects`` (by uid, else kind and name)."""
    root_uid = meta(root).get("uid")
    by_uid = {str(meta(o).get("uid")): o for o in objects if meta(o).get("uid")}
    by_name = {(str(o.get("kind")), str(meta(o).get("name"))): o for o in objects}
    out = []
    for obj in objects:
        if obj.get("kind") != "Pod":
            continue
        current: dict[str, Any] | None = obj
        for _ in range(10):
            refs = owner_references(current or {})
            if not refs:
                break
            ref = refs[0]
            if (root_uid and ref.get("uid") == root_uid) or (
                not root_uid and (ref.get("kind"), ref.get("name")) == (root.get("kind"), meta(root).get("name"))
            ):
                out.append(obj)
                break
            current = by_uid.get(str(ref.get("uid"))) or by_name.get((str(ref.get("kind")), str(ref.get("name"))))
            if current is None:
                break
    return out


def _values(root: dict[str, Any] | None, phase_paths: Sequence[Sequence[str]]) -> list[tuple[str, dict[str, Any]]]:
    """(label, matcher) for every phase value and True condition the object shows."""
    if not isinstance(root, dict):
        return []
    status = root.get("status")
    out: list[tuple[str, dict[str, Any]]] = []
    for path in phase_paths:
        value: Any = root
        for segment in path:
            value = value.get(segment) if isinstance(value, dict) else None
        if isinstance(value, str) and value:
            out.append((f"phase {value!r}", {"byPhase": value}))
    conditions = status.get("conditions") if isinstance(status, dict) else None
    for condition in conditions if isinstance(conditions, list) else []:
        if isinstance(condition, dict) and condition.get("status") == "True" and isinstance(condition.get("type"), str):
            kind = condition["type"]
            out.append((f"condition {kind}=True", {"byConditions": [{"type": kind, "status": "True"}]}))
    return out


def _by_moments(held: list[Moment], last: Moment, ever_ready: bool) -> tuple[str, str] | None:
    """(status, confidence) from what the pods did while a value held, or None when they say nothing."""
    finals = [m for m in held if m.pods]
    if all(m.pods and m.pods_ready == len(m.pods) for m in held):
        return "running", MEDIUM
    if finals and all(m.pods_in("Succeeded") == len(m.pods) for m in finals):
        return "completed", MEDIUM
    if finals and all(m.pods_in("Failed") > 0 and m.pods_ready == 0 for m in finals):
        return "failed", LOW
    if all(m.pods_ready == 0 and m.pods_in("Succeeded") == m.pods_in("Failed") == 0 for m in held):
        if ever_ready and held[0].index > 0 and not any(m.pods for m in held):
            return "suspended", LOW  # pods gone after running, the object still there
        if held[-1] is not last or not ever_ready:
            return "initializing", MEDIUM
    return None


def _first_running(moments: Sequence[Moment], phase_paths: Sequence[Sequence[str]]) -> dict[int, int]:
    """Per run, the first moment (index) where a value whose word says running held."""
    out: dict[int, int] = {}
    for moment in moments:
        for label, _ in _values(moment.root, phase_paths):
            words = vocabulary.classify(label.split(" ", 1)[1].strip("'").split("=")[0])
            if words is not None and words[0] == "running" and moment.run not in out:
                out[moment.run] = moment.index
    return out


def _by_order(held: list[Moment], running_from: dict[int, int]) -> tuple[str, str] | None:
    """Without pods, only the order speaks: a value that held only before the object first ran was a step
    on the way up; anything later is left to the reviewer."""
    start = running_from.get(held[0].run)
    if start is not None and all(m.index < start for m in held):
        return "initializing", LOW
    return None


READY_AGREEMENT = 0.6  # the share of recorded states a ready count must agree with the pods on (it lags them)


def _counts(value: Any, path: str, out: dict[str, int]) -> None:
    """Integer leaves under a status, lists summed per field (``.status.jobs[].ready``)."""
    if isinstance(value, dict):
        for key, child in value.items():
            if isinstance(key, str) and key.isidentifier():
                _counts(child, f"{path}.{key}", out)
    elif isinstance(value, list):
        for item in value:
            here: dict[str, int] = {}
            _counts(item, f"{path}[]", here)
            for key, count in here.items():
                out[key] = out.get(key, 0) + count
    elif isinstance(value, int) and not isinstance(value, bool):
        out[path] = value


def ready_count(moments: Sequence[Moment]) -> tuple[str, str] | None:
    """The status count the operator keeps of ready pods: above 0 in exactly the recorded states where some
    pod was ready (equal to their number first), changing over the run. None when no count tracks them."""
    seen = [m for m in moments if m.pods and isinstance(m.root, dict) and isinstance(m.root.get("status"), dict)]
    if not any(m.pods_ready for m in seen):
        return None
    per_moment = []
    for moment in seen:
        counts: dict[str, int] = {}
        _counts(moment.root.get("status") if moment.root else None, ".status", counts)
        per_moment.append((moment, counts))
    paths = set.intersection(*(set(c) for _, c in per_moment)) if per_moment else set()
    best: tuple[tuple[float, bool], str, int] | None = None
    for path in sorted(paths):
        values = [(m.pods_ready, c[path]) for m, c in per_moment]
        if len({v for _, v in values}) < 2:
            continue
        # The operator writes its status a few events after the pods change: most states, not all, agree.
        agree = sum(1 for ready, v in values if (ready > 0) == (v > 0))
        rank = (agree / len(values), "ready" in path.lower())
        if rank[0] >= READY_AGREEMENT and (best is None or rank > best[0]):
            best = (rank, path, agree)
    if best is None:
        return None
    _, path, agree = best
    read = f"([{path.replace('[]', '[]?')} // 0] | add // 0)" if "[]" in path else f"({path} // 0)"
    return (
        f"{read} > 0",
        f"{path} was above 0 while pods were ready, and 0 while none was, in {agree} of the {len(per_moment)} "
        "recorded states with pods (the rest: the status catching up)",
    )


def busiest(moments: Sequence[Moment], phase_paths: Sequence[Sequence[str]]) -> tuple[str, ...] | None:
    """The phase-like field that took the most values over the moments (the one the operator moves along)."""
    best: tuple[int, tuple[str, ...]] | None = None
    for path in phase_paths:
        values = {label for m in moments for label, _ in _values(m.root, [path]) if label.startswith("phase ")}
        if values and (best is None or len(values) > best[0]):
            best = (len(values), tuple(path))
    return best[1] if best else None


def observe(moments: Sequence[Moment], phase_paths: Sequence[Sequence[str]]) -> Observed:
    """Place each value the moments show (phases at ``phase_paths``, True conditions) on a status."""
    result = Observed(moments=len(moments))
    held: dict[str, list[Moment]] = {}
    matchers: dict[str, dict[str, Any]] = {}
    for moment in moments:
        for label, matcher in _values(moment.root, phase_paths):
            if label not in held:
                result.order.append(label)
            held.setdefault(label, []).append(moment)
            matchers[label] = matcher
    if not moments:
        return result
    result.ready_count = ready_count(moments)
    lasts = {m.run: m for m in moments}  # the final moment of each run
    ever_ready = any(m.pods and m.pods_ready == len(m.pods) for m in moments)
    order = _first_running(moments, phase_paths)
    for label in result.order:
        where = held[label]
        span = f"after {where[0].index} event(s) ({where[0].at})"
        if len(where) > 1:
            span += f" to {where[-1].index} ({where[-1].at})"
        pods = describe(where)
        value = label.split(" ", 1)[1].strip("'").split("=")[0]
        words = vocabulary.classify(value)
        with_pods = any(m.pods for m in moments if m.run == where[0].run)
        seen = _by_moments(where, lasts[where[-1].run], ever_ready) if with_pods else _by_order(where, order)
        evidence = f"{label} seen {span} in {len(where)} state(s), pods then: {pods}"
        if words is not None:
            # A known word wins (a Created condition stays True while the pods run): the moments confirm it or
            # are named beside it for the reviewer.
            settled = seen is not None
            if seen is None:
                confidence, why = words[1], " (by its word)"
            elif seen[0] == words[0]:
                confidence, why = HIGH, " (its word and its moments agree)"
            else:
                confidence, why = LOW, f" (by its word; while it held, the pods looked {seen[0]})"
            result.placements.append(Placement(words[0], matchers[label], confidence, evidence + why, settled))
        elif seen is not None:
            result.placements.append(Placement(seen[0], matchers[label], seen[1], evidence + " (by its moments)"))
        else:
            result.unplaced.append(evidence)
    return result
