"""Scenario steps on the lab: watch one workload through wmap's own watch, and check it through the CLI.

A scenario changes a workload (kubectl, ``wmap update``), then waits on a :class:`WorkloadWatch` (the
library's ``View.watch``: every state the API server's watch delivers is resolved, nothing is polled) until
the state it expects, keeping every distinct state seen on the way, so a test can assert the intermediate
states (Initializing before Running, Suspending before Suspended). Where a state is stable it is checked
once more through ``wmap get -o json`` and ``wmap describe -o json`` with the lab's kubeconfig, as a user
reads it."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import workload_map as wm

FINISHED = ("Succeeded", "Failed")


@dataclass(frozen=True)
class State:
    """What a scenario asserts of a workload at a step (docs/semantics.md, docs/tree-json.md)."""

    primary: str
    pods: Mapping[str, int]  # pods present and not finished, per pod-producing component
    desired: Mapping[str, int]  # desired pods per pod-producing component
    gpus: float  # GPUs of every desired pod
    gpus_in_use: float  # GPUs of pods bound to a node and not finished

    def to_json(self) -> dict[str, Any]:
        return {
            "primary": self.primary,
            "pods": dict(self.pods),
            "desired": dict(self.desired),
            "gpus": self.gpus,
            "gpusInUse": self.gpus_in_use,
        }


def state_of(tree: Mapping[str, Any]) -> State:
    """The State of one tree document (``WorkloadTree.to_json()`` = ``wmap describe -o json``)."""
    producing = [c for c in tree["components"] if c["producesPods"]]
    pods: dict[str, int] = {c["name"]: 0 for c in producing}
    in_use = 0.0
    for pod in tree["pods"]:
        if pod["phase"] in FINISHED:
            continue
        if pod["component"] is not None:
            pods[pod["component"]] = pods.get(pod["component"], 0) + 1
        if pod["node"]:
            in_use += float(pod["gpus"])
    desired = {c["name"]: sum(int(i["desiredPods"]) for i in c["instances"]) for c in producing}
    return State(tree["status"]["primary"], pods, desired, float(tree["totals"]["gpus"]), in_use)


def expect(
    primary: str,
    pods: Mapping[str, int],
    *,
    desired: Mapping[str, int] | None = None,
    gpus: float,
    gpus_in_use: float,
) -> State:
    return State(primary, dict(pods), dict(desired if desired is not None else pods), float(gpus), float(gpus_in_use))


def cli_state(lab: Any, target: str, namespace: str) -> State:
    """The State as ``wmap describe -o json`` reports it, checked against the ``wmap get -o json`` row."""
    tree = lab.wmap_json("describe", target, "-n", namespace)
    listed = lab.wmap_json("get", target, "-n", namespace)
    row = listed["items"][0] if listed.get("kind") == "List" else listed
    assert row["status"]["primary"] == tree["status"]["primary"], (row["status"], tree["status"]["primary"])
    assert row["totals"]["gpus"] == tree["totals"]["gpus"]
    return state_of(tree)


@dataclass
class Seen:
    at: float
    state: State | None  # None: the workload does not exist (yet, or any more)


class ClusterWatch:
    """The lab's objects in one namespace as wmap's own watch delivers them: after every change the whole
    state is resolved again (``View.watch``) and offered to the followers; nothing is polled."""

    def __init__(self, lab: Any, namespace: str) -> None:
        self.lab = lab
        self.namespace = namespace
        self.errors: list[str] = []
        self._followers: list[WorkloadFollower] = []
        self._latest: wm.View | None = None
        self._changed = threading.Condition()
        self._stop = threading.Event()

    def follow(self, type_name: str, name: str) -> WorkloadFollower:
        follower = WorkloadFollower(self, type_name, name)
        with self._changed:
            self._followers.append(follower)
            if self._latest is not None:
                follower.note(self._latest)
        return follower

    def _offer(self, view: wm.View) -> None:
        with self._changed:
            self._latest = view
            for follower in self._followers:
                follower.note(view)
            self._changed.notify_all()

    def _run(self, view: wm.View) -> None:
        try:
            for current, _warnings in view.watch(stop=self._stop):
                self._offer(current)
        except Exception as error:  # surfaced by the waits, which would otherwise only time out
            with self._changed:
                self.errors.append(f"{type(error).__name__}: {error}")
                self._changed.notify_all()

    @contextmanager
    def running(self) -> Iterator[ClusterWatch]:
        view = wm.open_cluster(kubeconfig=str(self.lab.kubeconfig), namespace=self.namespace)
        try:
            self._offer(view)
            threading.Thread(target=self._run, args=(view,), name=f"watch {self.namespace}", daemon=True).start()
            yield self
        finally:
            self._stop.set()
            view.close()

    def wait_view(self, test: Callable[[wm.View], bool], *, timeout: float = 90, what: str = "") -> wm.View:
        """The latest View once ``test`` holds for it, else AssertionError."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                if self._latest is not None and test(self._latest):
                    return self._latest
                left = deadline - time.monotonic()
                if left <= 0 or self.errors:
                    raise AssertionError(
                        f"{self.namespace}: never {what} in {timeout:.0f}s; watch errors {self.errors}"
                    )
                self._changed.wait(left)

    def wait_state(
        self, follower: WorkloadFollower, test: Callable[[State | None], bool], *, timeout: float, what: str
    ) -> State | None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                current = follower.history[-1].state if follower.history else None
                if test(current):
                    return current
                left = deadline - time.monotonic()
                if left <= 0 or self.errors:
                    seen = "\n  ".join(
                        json.dumps(s.state.to_json() if s.state else None) for s in follower.history[-12:]
                    )
                    raise AssertionError(
                        f"{follower.target}: never reached {what} in {timeout:.0f}s;"
                        f" watch errors {self.errors}; last states:\n  {seen}"
                    )
                self._changed.wait(left)


class WorkloadFollower:
    """Every distinct state one workload went through, as wmap resolved it after each watched change."""

    def __init__(self, watch: ClusterWatch, type_name: str, name: str) -> None:
        self.watch = watch
        self.type_name = type_name
        self.name = name
        self.history: list[Seen] = []

    @property
    def target(self) -> str:
        return f"{self.type_name}/{self.name}"

    def note(self, view: wm.View) -> None:
        state = None
        for tree in view.workloads(self.type_name, namespace=self.watch.namespace):
            if tree.name == self.name:
                state = state_of(tree.to_json())
        if not self.history or self.history[-1].state != state:
            self.history.append(Seen(time.monotonic(), state))

    def mark(self) -> int:
        """A position in the history: ``primaries_since(mark)`` gives the primaries seen from it on."""
        return len(self.history)

    def states_since(self, mark: int) -> list[State | None]:
        """The state current at ``mark`` and every one after it."""
        return [seen.state for seen in self.history[max(mark - 1, 0) :]]

    def primaries_since(self, mark: int) -> list[str | None]:
        return [None if state is None else state.primary for state in self.states_since(mark)]

    def wait_for(
        self, wanted: State | Callable[[State | None], bool], *, timeout: float = 90, what: str = ""
    ) -> State | None:
        """The current state once it is ``wanted`` (a State, or a predicate), else AssertionError naming the
        last states seen."""
        if isinstance(wanted, State):
            return self.watch.wait_state(
                self, lambda s: s == wanted, timeout=timeout, what=json.dumps(wanted.to_json())
            )
        return self.watch.wait_state(self, wanted, timeout=timeout, what=what)

    def settle(self, wanted: State, *, timeout: float = 90) -> State:
        """Wait for ``wanted``, then read it again through the CLI (get and describe), which must agree."""
        self.wait_for(wanted, timeout=timeout)
        assert cli_state(self.watch.lab, self.target, self.watch.namespace) == wanted
        return wanted
