"""Recordings: one workload's objects at a start and every change to them after, as watched.

A Recording (``kind: Recording``, docs/cli.md "The Recording format") is what ``wmap record`` writes and
what the cluster lab saves as scenario fixtures; ``wmap definitions test`` replays it. Replaying applies
the events in order to the initial objects, so the state after any number of events is a Snapshot, read
by the same resolver as a dump.

The file is read through :mod:`workload_map.sources.documents` like every dump; every malformed part is
a DocumentError naming the file, the document and the field.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from workload_map.base.expectation import expectation_problem
from workload_map.base.objects import Obj, ObjectKey, group_of, key_of
from workload_map.base.snapshot import Snapshot
from workload_map.errors import DocumentError, Location
from workload_map.sources.documents import Document, read_source

RECORDING_API_VERSION = "workload-map.run.ai/v1alpha1"
RECORDING_KIND = "Recording"
EVENT_TYPES = ("ADDED", "MODIFIED", "DELETED")
_TOP_KEYS = ("apiVersion", "kind", "workload", "recorded", "objects", "events", "checkpoints")


@dataclass(frozen=True)
class WorkloadRef:
    """The recorded workload: the root object the recording follows."""

    api_version: str
    kind: str
    namespace: str
    name: str

    @property
    def key(self) -> ObjectKey:
        return ObjectKey(group_of(self.api_version), self.kind, self.namespace, self.name)

    def to_json(self) -> dict[str, Any]:
        return {"apiVersion": self.api_version, "kind": self.kind, "namespace": self.namespace, "name": self.name}


@dataclass(frozen=True)
class OperatorRef:
    name: str
    version: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version}


@dataclass(frozen=True)
class Recorded:
    """Who recorded, when the recording started and against which apiserver (and operator, if known)."""

    by: str
    started: str  # RFC 3339
    server: str | None = None  # the apiserver's gitVersion
    operator: OperatorRef | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"by": self.by, "started": self.started}
        if self.server is not None:
            out["server"] = self.server
        if self.operator is not None:
            out["operator"] = self.operator.to_json()
        return out


@dataclass(frozen=True)
class RecordedEvent:
    """One watched change: ADDED and MODIFIED carry the object as it became, DELETED as it was last seen."""

    at: str  # RFC 3339, when it was received
    type: str
    object: Obj

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "type": self.type, "object": self.object}


@dataclass(frozen=True)
class Checkpoint:
    """An expectation about the state after the first ``after`` events (0: the initial objects); ``expect``
    takes the keys of an expectation annotation (base.expectation.EXPECT_KEYS)."""

    name: str
    after: int
    expect: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "after": self.after, "expect": self.expect}


@dataclass
class Recording:
    workload: WorkloadRef
    recorded: Recorded
    objects: list[Obj] = field(default_factory=list)
    events: list[RecordedEvent] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    location: Location = field(default_factory=lambda: Location("<recording>"))

    def states(self) -> Iterator[tuple[int, Snapshot]]:
        """``(index, Snapshot)`` for index 0 (the initial objects) and after each event (index = events
        applied so far)."""
        store = _Store(self.objects)
        yield 0, store.snapshot()
        for index, event in enumerate(self.events, start=1):
            store.apply(event)
            yield index, store.snapshot()

    def state_at(self, after: int) -> Snapshot:
        """The objects after the first ``after`` events (0 <= after <= len(events))."""
        if isinstance(after, bool) or not isinstance(after, int) or not 0 <= after <= len(self.events):
            raise DocumentError(
                f"no state after {after!r} events: the recording has {len(self.events)} event(s)",
                self.location,
                hint=f"give a number from 0 (the initial objects) to {len(self.events)}",
            )
        store = _Store(self.objects)
        for event in self.events[:after]:
            store.apply(event)
        return store.snapshot()

    def to_json(self) -> dict[str, Any]:
        out = _header(self.workload, self.recorded, self.objects)
        out["events"] = [_event_json(e) for e in self.events]
        if self.checkpoints:
            out["checkpoints"] = [c.to_json() for c in self.checkpoints]
        return out


class _Store:
    """Objects by identity, in the order first seen (so a replay lists them as the cluster would)."""

    def __init__(self, objects: Iterable[Obj]) -> None:
        self.objects: dict[ObjectKey, Obj] = {key_of(o): o for o in objects}

    def apply(self, event: RecordedEvent) -> None:
        key = key_of(event.object)
        if event.type == "DELETED":
            self.objects.pop(key, None)
        else:
            self.objects[key] = event.object

    def snapshot(self) -> Snapshot:
        return Snapshot(list(self.objects.values()))


# --------------------------------------------------------------------------- reading


def is_recording(data: Any) -> bool:
    """Whether a document is a Recording (by apiVersion and kind)."""
    return (
        isinstance(data, dict)
        and data.get("kind") == RECORDING_KIND
        and data.get("apiVersion") == (RECORDING_API_VERSION)
    )


def load_recording(path: str) -> Recording:
    """The one Recording of a file (or ``-``: stdin); DocumentError, located, for anything malformed."""
    docs = [d for d in read_source(path) if d.data is not None]
    if len(docs) != 1:
        raise DocumentError(
            f"a recording file holds exactly one document, found {len(docs)}",
            Location(path),
            hint=f"kind: {RECORDING_KIND}, apiVersion: {RECORDING_API_VERSION}",
        )
    return recording_from_document(docs[0])


def recording_from_document(doc: Document) -> Recording:
    """A Recording from one read document (a samples directory may mix recordings and plain samples)."""
    where = doc.location
    data = doc.data
    if not isinstance(data, dict):
        raise DocumentError(f"a recording must be a mapping, not {_type(data)}", where)
    if data.get("apiVersion") != RECORDING_API_VERSION or data.get("kind") != RECORDING_KIND:
        raise DocumentError(
            f"not a recording: apiVersion {data.get('apiVersion')!r}, kind {data.get('kind')!r}",
            where,
            hint=f"a recording has apiVersion {RECORDING_API_VERSION} and kind {RECORDING_KIND}",
        )
    unknown = sorted(str(k) for k in data if k not in _TOP_KEYS)
    if unknown:
        raise DocumentError(f"unknown field(s) {unknown} (known: {list(_TOP_KEYS)})", where)
    workload = _workload(_mapping(data, "workload", where), where.child("workload"))
    recorded = _recorded(_mapping(data, "recorded", where), where.child("recorded"))
    objects = [_object(o, where.child("objects", i)) for i, o in enumerate(_list(data, "objects", where))]
    events = [_event(e, where.child("events", i)) for i, e in enumerate(_list(data, "events", where))]
    checkpoints = [
        _checkpoint(c, where.child("checkpoints", i), len(events))
        for i, c in enumerate(_list(data, "checkpoints", where))
    ]
    return Recording(workload, recorded, objects, events, checkpoints, where)


def _type(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), f"a {type(value).__name__}"
    )


def _mapping(data: Mapping[str, Any], key: str, where: Location) -> dict[str, Any]:
    if key not in data:
        raise DocumentError(f"{key} is missing", where)
    value = data[key]
    if not isinstance(value, dict):
        raise DocumentError(f"must be a mapping, not {_type(value)}", where.child(key))
    return value


def _list(data: Mapping[str, Any], key: str, where: Location) -> list[Any]:
    # A recording cut short (Ctrl-C before the first event) ends with an empty "events:": null is none.
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DocumentError(f"must be a list, not {_type(value)}", where.child(key))
    return value


def _optional(data: Mapping[str, Any], key: str, where: Location) -> str | None:
    value = data.get(key)
    if value is not None and (not isinstance(value, str) or not value):
        raise DocumentError(f"must be a non-empty string, not {_type(value)}", where.child(key))
    return value


def _string(data: Mapping[str, Any], key: str, where: Location) -> str:
    value = _optional(data, key, where)
    if value is None:
        raise DocumentError(f"{key} is missing", where)
    return value


def _workload(data: dict[str, Any], where: Location) -> WorkloadRef:
    return WorkloadRef(*(_string(data, k, where) for k in ("apiVersion", "kind", "namespace", "name")))


def _timestamp(data: Mapping[str, Any], key: str, where: Location) -> str:
    text = _string(data, key, where)
    try:
        dt.datetime.fromisoformat(text)
    except ValueError:
        raise DocumentError(
            f"{text!r} is not an RFC 3339 time", where.child(key), hint='e.g. "2026-12-06T22:01:02.345Z"'
        ) from None
    return text


def _recorded(data: dict[str, Any], where: Location) -> Recorded:
    operator = None
    if data.get("operator") is not None:
        raw = _mapping(data, "operator", where)
        inner = where.child("operator")
        operator = OperatorRef(_string(raw, "name", inner), _string(raw, "version", inner))
    by, started = _string(data, "by", where), _timestamp(data, "started", where)
    return Recorded(by, started, _optional(data, "server", where), operator)


def _object(value: Any, where: Location) -> Obj:
    if not isinstance(value, dict):
        raise DocumentError(f"an object must be a mapping, not {_type(value)}", where)
    for key in ("apiVersion", "kind"):
        _string(value, key, where)
    metadata = value.get("metadata")
    if not isinstance(metadata, dict):
        raise DocumentError(f"must be a mapping, not {_type(metadata)}", where.child("metadata"))
    _string(metadata, "name", where.child("metadata"))
    return value


def _event(value: Any, where: Location) -> RecordedEvent:
    if not isinstance(value, dict):
        raise DocumentError(f"an event must be a mapping, not {_type(value)}", where)
    kind = _string(value, "type", where)
    if kind not in EVENT_TYPES:
        raise DocumentError(f"type {kind!r} is not one of {', '.join(EVENT_TYPES)}", where.child("type"))
    if "object" not in value:
        raise DocumentError("object is missing", where)
    return RecordedEvent(_timestamp(value, "at", where), kind, _object(value["object"], where.child("object")))


def _checkpoint(value: Any, where: Location, events: int) -> Checkpoint:
    if not isinstance(value, dict):
        raise DocumentError(f"a checkpoint must be a mapping, not {_type(value)}", where)
    name = _string(value, "name", where)
    after = value.get("after")
    if isinstance(after, bool) or not isinstance(after, int):
        raise DocumentError(f"must be a whole number of events, not {_type(after)}", where.child("after"))
    if not 0 <= after <= events:
        raise DocumentError(
            f"{after} is out of range: the recording has {events} event(s)",
            where.child("after"),
            hint=f"0 is the initial objects, {events} the state after the last event",
        )
    expect = _mapping(value, "expect", where)
    problem = expectation_problem(expect)
    if problem:
        raise DocumentError(problem, where.child("expect"))
    return Checkpoint(name, after, expect)


# --------------------------------------------------------------------------- writing


def rfc3339(moment: dt.datetime | float) -> str:
    """``2026-12-06T22:01:02.345Z``: UTC with milliseconds, as event times are written."""
    if not isinstance(moment, dt.datetime):
        moment = dt.datetime.fromtimestamp(moment, dt.UTC)
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def clean(obj: Obj) -> Obj:
    """The object as written: keys sorted at every level (as kubectl prints), without managedFields."""
    metadata = obj.get("metadata")
    if isinstance(metadata, dict) and "managedFields" in metadata:
        obj = {**obj, "metadata": {k: v for k, v in metadata.items() if k != "managedFields"}}
    sorted_obj: Obj = _sorted(obj)
    return sorted_obj


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def _header(workload: WorkloadRef, recorded: Recorded, objects: Iterable[Obj]) -> dict[str, Any]:
    return {
        "apiVersion": RECORDING_API_VERSION,
        "kind": RECORDING_KIND,
        "workload": workload.to_json(),
        "recorded": recorded.to_json(),
        "objects": [clean(o) for o in objects],
    }


def _event_json(event: RecordedEvent) -> dict[str, Any]:
    return {"at": event.at, "type": event.type, "object": clean(event.object)}


def _yaml(data: Any) -> str:
    import yaml  # noqa: PLC0415 (PyYAML only for YAML input/output)

    dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text: str = yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=1 << 20)
    return text


class RecordingWriter:
    """Writes a Recording as it is made: the header and initial objects at once, then each event as it is
    added (flushed), so the file is a valid recording at every moment, however the recorder ends;
    checkpoints, if any, at :meth:`close`."""

    def __init__(self, out: IO[str], workload: WorkloadRef, recorded: Recorded, objects: Iterable[Obj]) -> None:
        self.out = out
        self.events = 0
        out.write(_yaml(_header(workload, recorded, objects)))
        out.write("events:\n")
        out.flush()

    def add(self, event: RecordedEvent) -> None:
        self.out.write(_yaml([_event_json(event)]))
        self.out.flush()
        self.events += 1

    def close(self, checkpoints: Iterable[Checkpoint] = ()) -> None:
        written = [c.to_json() for c in checkpoints]
        if written:
            self.out.write(_yaml({"checkpoints": written}))
        self.out.flush()


def dump_recording(recording: Recording, out: IO[str]) -> None:
    """Write a whole Recording (keys in the documented order, objects' keys sorted, no managedFields)."""
    writer = RecordingWriter(out, recording.workload, recording.recorded, recording.objects)
    for event in recording.events:
        writer.add(event)
    writer.close(recording.checkpoints)


__all__ = [
    "EVENT_TYPES",
    "RECORDING_API_VERSION",
    "RECORDING_KIND",
    "Checkpoint",
    "OperatorRef",
    "Recorded",
    "RecordedEvent",
    "Recording",
    "RecordingWriter",
    "WorkloadRef",
    "clean",
    "dump_recording",
    "is_recording",
    "load_recording",
    "recording_from_document",
    "rfc3339",
]
