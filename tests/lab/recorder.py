"""Records what a scenario's watches saw as a Recording (the format ``wmap record`` writes, docs/cli.md).

One thread per recorded kind follows a watch of the scenario's namespace; events go into one list in the
order received. ``settle()`` waits until every watch has delivered the cluster's current state, so a
checkpoint taken after it names exactly the state ``wmap`` was shown.

A saved recording is thinned (``thinned``): an event that changed nothing but the object's resourceVersion
and the lab's own annotations (the test's instructions to KWOK, whose effect arrives as a later event) is
dropped when a later event of the same object comes before the next checkpoint, so every state the
replay passes through is still one the cluster was in, and the state at each checkpoint is exactly the
one wmap read. ``python -m tests.lab.recorder FILE...`` thins recordings in place.
"""

from __future__ import annotations

import copy
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from workload_map.sources.recording import (
    Checkpoint,
    OperatorRef,
    Recorded,
    RecordedEvent,
    Recording,
    WorkloadRef,
    dump_recording,
    load_recording,
    rfc3339,
)

from .kube import Kube, Obj, Watch

SETTLE_S = 60.0
LAB_PREFIX = "lab.workload-map.run.ai/"  # the annotations and labels the lab puts on objects (kwok.py)


def _now() -> str:
    return rfc3339(time.time())


def slim(obj: Obj) -> Obj:
    """The object without what only the apiserver's bookkeeping needs (keeps recordings small)."""
    out = copy.deepcopy(obj)
    meta = out.get("metadata") or {}
    meta.pop("managedFields", None)
    (meta.get("annotations") or {}).pop("kubectl.kubernetes.io/last-applied-configuration", None)
    return out


class Recorder:
    def __init__(
        self,
        kube: Kube,
        namespace: str,
        kinds: list[tuple[str, str]],
        workload: dict[str, str],
        operator: dict[str, str] | None,
    ) -> None:
        self.kube = kube
        self.namespace = namespace
        self.workload = workload
        self.operator = operator
        self.watches = [Watch(kube, api_version, kind, namespace) for api_version, kind in kinds]
        self.objects: list[Obj] = []
        self.events: list[dict[str, Any]] = []
        self.checkpoints: list[dict[str, Any]] = []
        self.started = _now()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.errors: list[str] = []
        self._seen: dict[str, dict[str, str]] = {}  # kind -> uid -> resourceVersion, as the watch delivered

    def start(self) -> None:
        for watch in self.watches:
            watch.relist()
            self.objects.extend(slim(o) for o in watch.objects.values())
            self._seen[watch.kind] = {uid: o["metadata"]["resourceVersion"] for uid, o in watch.objects.items()}
        for watch in self.watches:
            thread = threading.Thread(target=self._follow, args=(watch,), daemon=True, name=f"record-{watch.kind}")
            thread.start()
            self._threads.append(thread)

    def _follow(self, watch: Watch) -> None:
        try:
            for event_type, obj in watch.follow(time.monotonic() + 24 * 3600, stop=self._stop.is_set):
                uid, version = obj["metadata"]["uid"], obj["metadata"].get("resourceVersion")
                with self._lock:
                    self.events.append({"at": _now(), "type": event_type, "object": slim(obj)})
                    if event_type == "DELETED":
                        self._seen[watch.kind].pop(uid, None)
                    else:
                        self._seen[watch.kind][uid] = version
        except Exception as exc:  # reported by settle(): a recording with a gap must not pass silently
            self.errors.append(f"watch of {watch.kind}: {exc!r}")

    def stop(self) -> None:
        self._stop.set()  # each watch notices at its next event or when its request times out

    def settle(self) -> int:
        """Wait until every watch has seen what the cluster holds now; the number of events so far."""
        deadline = time.monotonic() + SETTLE_S
        for watch in self.watches:
            while True:
                if self.errors:
                    raise RuntimeError(f"the recording has a gap: {'; '.join(self.errors)}")
                listing = self.kube.list(watch.api_version, watch.kind, self.namespace)
                wanted = {o["metadata"]["uid"]: o["metadata"]["resourceVersion"] for o in listing}
                with self._lock:
                    seen = dict(self._seen[watch.kind])
                if seen == wanted:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the watch of {watch.kind} did not catch up with the cluster")
                time.sleep(0.1)
        with self._lock:
            return len(self.events)

    def checkpoint(self, name: str, after: int, expect: dict[str, Any]) -> None:
        self.checkpoints.append({"name": name, "after": after, "expect": expect})

    def recording(self, server: str) -> Recording:
        operator = OperatorRef(self.operator["name"], self.operator["version"]) if self.operator else None
        w = self.workload
        with self._lock:
            return Recording(
                workload=WorkloadRef(w["apiVersion"], w["kind"], w["namespace"], w["name"]),
                recorded=Recorded("lab", self.started, server=server, operator=operator),
                objects=list(self.objects),
                events=[RecordedEvent(e["at"], e["type"], e["object"]) for e in self.events],
                checkpoints=[Checkpoint(c["name"], c["after"], c["expect"]) for c in self.checkpoints],
            )

    def save(self, path: Path, server: str) -> None:
        save(thinned(self.recording(server)), path)


def save(recording: Recording, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        dump_recording(recording, f)


def _meaning(obj: Obj) -> Obj:
    """The object less what no reader of it uses: resourceVersion and the lab's annotations."""
    meta = dict(obj.get("metadata") or {})
    meta.pop("resourceVersion", None)
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if not k.startswith(LAB_PREFIX)}
    meta["annotations"] = annotations or None
    return {**obj, "metadata": meta}


def thinned(recording: Recording) -> Recording:
    """The recording without its redundant events (the module's docstring), checkpoints renumbered."""
    events = recording.events
    bounds = sorted({c.after for c in recording.checkpoints} | {len(events)})

    def window(index: int) -> int:  # the checkpoint at or after the state this event (0-based) makes
        return next(b for b in bounds if index + 1 <= b)

    later: dict[int, int] = {}  # event index -> index of the same object's next event
    last_seen: dict[tuple[str, str, str], int] = {}
    for index in range(len(events) - 1, -1, -1):
        meta = events[index].object["metadata"]
        key = (str(events[index].object.get("kind")), str(meta.get("namespace")), str(meta["name"]))
        if key in last_seen:
            later[index] = last_seen[key]
        last_seen[key] = index
    previous: dict[tuple[str, str, str], Obj] = {}
    for obj in recording.objects:
        previous[(str(obj.get("kind")), str(obj["metadata"].get("namespace")), str(obj["metadata"]["name"]))] = obj
    dropped: list[int] = []
    for index, event in enumerate(events):
        meta = event.object["metadata"]
        key = (str(event.object.get("kind")), str(meta.get("namespace")), str(meta["name"]))
        before = previous.get(key)
        previous[key] = event.object
        if (
            event.type == "MODIFIED"
            and before is not None
            and index in later
            and window(later[index]) == window(index)
            and _meaning(before) == _meaning(event.object)
        ):
            dropped.append(index)
    gone = set(dropped)
    return replace(
        recording,
        events=[e for i, e in enumerate(events) if i not in gone],
        checkpoints=[replace(c, after=c.after - sum(1 for i in dropped if i < c.after)) for c in recording.checkpoints],
    )


if __name__ == "__main__":
    for name in sys.argv[1:]:
        original = load_recording(name)
        thin = thinned(original)
        save(thin, Path(name))
        print(f"{name}: {len(original.events)} -> {len(thin.events)} events")
