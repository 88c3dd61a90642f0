"""The Kartas of the cluster layered over the built-in catalog, watched, with listeners told which kinds changed."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from workload_map import LoadedDefinition
from workload_map.operator.kube import KARTAS, list_watch
from workload_map.ports.definitions import DefinitionRegistry
from workload_map.ports.kube import KARTA_VERSION, Connection, cluster_definition, layered_definitions, unlisted
from workload_map.ports.objects import version_of

# The gang controller's logger: these parts were one module and log consumers filter on its name.
log = logging.getLogger("workload_map.operator.gang")


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    m = obj.get("metadata")
    return m if isinstance(m, dict) else {}


GroupKind = tuple[str, str]
DefinitionsListener = Callable[[list[LoadedDefinition], set[GroupKind]], None]


def _by_gvk(definitions: Iterable[LoadedDefinition]) -> dict[tuple[str, str, str], LoadedDefinition]:
    """What a DefinitionRegistry keeps of ``definitions``: the last one per root group/version/kind."""
    registry = DefinitionRegistry(definitions)
    out = {}
    for d in registry.definitions:
        identity = d.karta.identity
        if identity is not None:
            out[(identity.group, identity.version, identity.kind)] = d
    return out


def changed_kinds(old: Iterable[LoadedDefinition], new: Iterable[LoadedDefinition]) -> set[GroupKind]:
    """The root group/kinds whose effective definition differs between two definition lists."""
    before, after = _by_gvk(old), _by_gvk(new)
    return {
        (gvk[0], gvk[2])
        for gvk in set(before) | set(after)
        if (before.get(gvk) is None) != (after.get(gvk) is None)
        or (gvk in before and gvk in after and before[gvk].karta != after[gvk].karta)
    }


class ClusterDefinitions:
    """The cluster's Karta objects layered over the built-in catalog, kept current by a watch (every replica
    that serves ``/mutate-pod``; the leader's gang controller subscribes too).

    Same parsing, validation and precedence as the CLI's live layer (:func:`cluster_definition`,
    :func:`layered_definitions`): a valid Karta (validator clean) replaces the built-in definition of its root
    group/version/kind; an invalid one is ignored with one warning (its ``Validated`` condition says why).
    Listeners get the new definitions and the root group/kinds whose definition changed.
    """

    def __init__(self, conn: Connection, builtin: Iterable[LoadedDefinition], *, watch_seconds: int = 300) -> None:
        self.conn = conn
        self.builtin = list(builtin)
        self.watch_seconds = watch_seconds
        self.definitions: list[LoadedDefinition] = layered_definitions(self.builtin)
        self.synced = threading.Event()
        self._kartas: dict[str, dict[str, Any]] = {}
        # name -> (generation, definition or None, problem): status/label writes do not re-run the validator
        self._parsed: dict[str, tuple[Any, LoadedDefinition | None, str | None]] = {}
        self._listeners: list[DefinitionsListener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: DefinitionsListener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def unsubscribe(self, listener: DefinitionsListener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def run(self, stop: threading.Event) -> None:
        listed = unlisted(KARTAS, None)
        list_watch(self.conn, listed, self._sync, self._event, stop, "kartas (gang definitions)", self.watch_seconds)

    def _sync(self, items: list[dict[str, Any]]) -> None:
        with self._lock:
            self._kartas = {str(_meta(i).get("name")): i for i in items}
        self._update()
        self.synced.set()

    def _event(self, event: str, obj: dict[str, Any]) -> None:
        name = str(_meta(obj).get("name"))
        with self._lock:
            if event == "DELETED":
                self._kartas.pop(name, None)
            else:
                self._kartas[name] = obj
        self._update()

    def _definition(self, name: str, obj: dict[str, Any]) -> LoadedDefinition | None:
        generation = (_meta(obj).get("generation"), _meta(obj).get("uid"))
        cached = self._parsed.get(name)
        if cached is not None and cached[0] == generation:
            return cached[1]
        definition, problem = cluster_definition(obj, version_of(str(obj.get("apiVersion") or "")) or KARTA_VERSION)
        self._parsed[name] = (generation, definition, problem)
        if problem:
            log.warning("cluster Karta ignored by the gang controller", extra={"karta": name, "problem": problem})
        return definition

    def _update(self) -> None:
        with self._lock:
            kartas = sorted(self._kartas.items())
            self._parsed = {n: v for n, v in self._parsed.items() if n in self._kartas}
            cluster = [d for name, obj in kartas if (d := self._definition(name, obj)) is not None]
            definitions = layered_definitions(self.builtin, cluster)
            changed = changed_kinds(self.definitions, definitions)
            if not changed:
                return
            self.definitions = definitions
            listeners = list(self._listeners)
        log.info(
            "gang definitions changed",
            extra={"kinds": sorted(f"{k}.{g}" if g else k for g, k in changed), "cluster_kartas": len(cluster)},
        )
        for listener in listeners:
            listener(definitions, changed)
