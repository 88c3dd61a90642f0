"""Statuses drafted from recorded transitions, against the shipped definitions, state by state.

For every workload kind the lab recorded (tests/lab/recordings: the genuine operators, run by the lab) and the
catalog ships a definition for, two drafts are made from the kind's CRD (when the corpus has it): one from the
recorded objects as plain samples, one from the recordings themselves (``--from-recording``: statuses from the
moments each value held). Each recorded state of the workload is then read by the draft and by the shipped
definition: the primary statuses agree or not, and the draft may leave it Undefined. With several recordings
of a kind, each one is scored by drafts made from the others only (out of sample); a kind recorded once is
scored in sample, and says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

import workload_map as wm
from workload_map.base.objects import key_of
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.errors import Location
from workload_map.sources.recording import Recording, load_recording

RECORDINGS = Path(__file__).resolve().parents[1] / "tests" / "lab" / "recordings"


@dataclass
class Row:
    kind: str
    recordings: int
    states: int = 0
    plain: int = 0  # states where the draft from plain samples agrees with the shipped definition
    recorded: int = 0  # the same, drafted from the recordings
    plain_undefined: int = 0
    recorded_undefined: int = 0
    in_sample: bool = False


def _roots(recording: Recording) -> list[dict[str, Any]]:
    out = []
    for _, snapshot in recording.states():
        root = next((o for o in snapshot if key_of(o) == recording.workload.key), None)
        if root is not None:
            out.append(root)
    return out


def _objects(recordings: list[Recording]) -> list[dict[str, Any]]:
    """What the recordings hold as plain samples: every version of the workload, the rest as last seen."""
    out: list[dict[str, Any]] = []
    for recording in recordings:
        latest: dict[Any, dict[str, Any]] = {}
        for _, snapshot in recording.states():
            latest.update((key_of(o), o) for o in snapshot)
        out += _roots(recording)
        out += [o for k, o in latest.items() if k != recording.workload.key]
    return out


def _loaded(made: wm.Draft) -> LoadedDefinition:
    karta, findings = definition_from_dict(yaml.safe_load(made.text), Location("draft"))
    if karta is None:
        raise ValueError(f"a draft does not load: {findings[0]}")
    return LoadedDefinition(karta, Location("draft"))


def _primary(definition: LoadedDefinition, obj: dict[str, Any], tree: Callable[..., Any]) -> str | None:
    result = tree(definition, obj)
    return None if result is None else str(result["status"]["primary"])


def recordings_by_kind(
    shipped: dict[tuple[str, str], LoadedDefinition], *, skip: tuple[str, ...] = ()
) -> list[tuple[tuple[str, str], list[tuple[str, Recording]]]]:
    """The lab's recordings (path, recording) of each kind the catalog defines, by kind name; ``skip`` names
    folders of tests/lab/recordings left out."""
    by_kind: dict[tuple[str, str], list[tuple[str, Recording]]] = {}
    for path in sorted(RECORDINGS.glob("*/*.yaml")):
        if path.parent.name in skip:
            continue
        recording = load_recording(str(path))
        key = (recording.workload.key.group, recording.workload.kind)
        if key in shipped:
            by_kind.setdefault(key, []).append((str(path), recording))
    return sorted(by_kind.items(), key=lambda item: item[0][1])


def score_recorded(
    shipped: dict[tuple[str, str], LoadedDefinition],
    crds: dict[tuple[str, str], dict[str, Any]],
    tree: Callable[..., Any],
) -> list[Row]:
    """One row per recorded kind the catalog defines (``shipped`` and ``crds`` by (group, kind))."""
    rows = []
    for (group, kind), recorded in recordings_by_kind(shipped):
        row = Row(f"{kind}.{group}" if group else kind, len(recorded), in_sample=len(recorded) == 1)
        crd = crds.get((group, kind))
        for index, (_, recording) in enumerate(recorded):
            others = [pair for i, pair in enumerate(recorded) if i != index] or [recorded[index]]
            paths = [p for p, _ in others]
            plain = _loaded(wm.draft_definition(crd, objects=_objects([r for _, r in others])))
            from_recordings = _loaded(wm.draft_definition(crd, recordings=paths))
            for root in _roots(recording):
                truth = _primary(shipped[(group, kind)], root, tree)
                mine, theirs = _primary(plain, root, tree), _primary(from_recordings, root, tree)
                row.states += 1
                row.plain += mine == truth
                row.recorded += theirs == truth
                row.plain_undefined += mine == "Undefined"
                row.recorded_undefined += theirs == "Undefined"
        rows.append(row)
    return rows


def table(rows: list[Row]) -> str:
    lines = [
        "| kind | recordings | states | agrees (samples only) | agrees (from recordings) "
        "| Undefined (samples / recordings) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        mark = " (in sample)" if r.in_sample else ""
        lines.append(
            f"| {r.kind} | {r.recordings}{mark} | {r.states} | {r.plain}/{r.states} | {r.recorded}/{r.states} | "
            f"{r.plain_undefined} / {r.recorded_undefined} |"
        )
    states = sum(r.states for r in rows)
    plain, recorded = sum(r.plain for r in rows), sum(r.recorded for r in rows)
    lines.append(
        f"| **all {len(rows)}** | {sum(r.recordings for r in rows)} | {states} | **{plain}/{states}** | "
        f"**{recorded}/{states}** | {sum(r.plain_undefined for r in rows)} / "
        f"{sum(r.recorded_undefined for r in rows)} |"
    )
    return "\n".join(lines)
