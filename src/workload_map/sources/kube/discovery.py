"""Which kinds the cluster serves, at which versions, under which plural and short names.

Aggregated discovery (``/api`` + ``/apis`` with the ``APIGroupDiscoveryList`` media type: two
requests for the whole cluster) when the server offers it; otherwise the legacy documents, fetched
only for the API groups the caller cares about.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from workload_map.definition.registry import SHORT_NAMES, DefinitionRegistry, KindInfo, plural_of
from workload_map.sources.kube.connection import ClusterError, Connection

AGGREGATED_ACCEPT = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json"
)
MAX_WORKERS = 4


@dataclass(frozen=True)
class ServedResource:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    preferred: bool = False  # the group's preferred version

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def display(self) -> str:
        """``jobsets.jobset.x-k8s.io`` (``pods`` for the core group), as kubectl names resources."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def can(self, verb: str) -> bool:
        return not self.verbs or verb in self.verbs


@dataclass
class Discovery:
    resources: dict[tuple[str, str], list[ServedResource]] = field(default_factory=dict)
    aggregated: bool = False

    def add(self, resource: ServedResource) -> None:
        versions = self.resources.setdefault((resource.group, resource.kind), [])
        if all(r.version != resource.version for r in versions):
            versions.append(resource)

    def served(self, group: str, kind: str) -> list[ServedResource]:
        return self.resources.get((group, kind), [])

    def resource(self, group: str, kind: str, versions: Iterable[str] = ()) -> ServedResource | None:
        """The version to list: the preferred one when a definition exists for it, else the newest
        served version a definition exists for, else the preferred one."""
        served = self.served(group, kind)
        if not served:
            return None
        wanted = set(versions)
        preferred = next((r for r in served if r.preferred), served[0])
        if not wanted or preferred.version in wanted:
            return preferred
        for r in served:  # served lists versions in the server's preference order
            if r.version in wanted:
                return r
        return preferred


def _scope_namespaced(value: Any) -> bool:
    return str(value or "Namespaced") != "Cluster"


def _parse_aggregated(doc: dict[str, Any], discovery: Discovery) -> None:
    for item in doc.get("items") or []:
        group = str((item.get("metadata") or {}).get("name") or "")
        for index, version in enumerate(item.get("versions") or []):
            v = str(version.get("version") or "")
            for res in version.get("resources") or []:
                kind_ref = res.get("responseKind") or {}
                kind = kind_ref.get("kind")
                if not kind or "/" in str(res.get("resource", "")):
                    continue
                discovery.add(
                    ServedResource(
                        group=group,
                        version=v,
                        kind=str(kind),
                        plural=str(res.get("resource")),
                        namespaced=_scope_namespaced(res.get("scope")),
                        short_names=tuple(res.get("shortNames") or ()),
                        verbs=tuple(res.get("verbs") or ()),
                        preferred=index == 0,
                    )
                )


def _parse_legacy(doc: dict[str, Any], group: str, version: str, preferred: bool, discovery: Discovery) -> None:
    for res in doc.get("resources") or []:
        name = str(res.get("name") or "")
        if not name or "/" in name:
            continue
        discovery.add(
            ServedResource(
                group=group,
                version=version,
                kind=str(res.get("kind") or ""),
                plural=name,
                namespaced=bool(res.get("namespaced", True)),
                short_names=tuple(res.get("shortNames") or ()),
                verbs=tuple(res.get("verbs") or ()),
                preferred=preferred,
            )
        )


def discover(connection: Connection, groups: Iterable[str] | None = None) -> Discovery:
    """Discovery of the cluster; ``groups`` limits the legacy fallback to those API groups."""
    discovery = Discovery()
    core = connection.get("/api", accept=AGGREGATED_ACCEPT)
    if isinstance(core, dict) and core.get("kind") == "APIGroupDiscoveryList":
        discovery.aggregated = True
        _parse_aggregated(core, discovery)
        named = connection.get("/apis", accept=AGGREGATED_ACCEPT)
        if isinstance(named, dict) and named.get("kind") == "APIGroupDiscoveryList":
            _parse_aggregated(named, discovery)
            return discovery
        group_list = named
    else:
        group_list = connection.get("/apis")
    wanted = set(groups) if groups is not None else None
    jobs: list[tuple[str, str, bool]] = []
    if not discovery.aggregated:
        for v in (core or {}).get("versions") or ["v1"]:
            jobs.append(("", str(v), True))
    for group in (group_list or {}).get("groups") or []:
        name = str(group.get("name") or "")
        if wanted is not None and name not in wanted:
            continue
        preferred = ((group.get("preferredVersion") or {}).get("version")) or ""
        for version in group.get("versions") or []:
            v = str(version.get("version") or "")
            jobs.append((name, v, v == preferred))

    def fetch(job: tuple[str, str, bool]) -> tuple[tuple[str, str, bool], Any]:
        group, version, _ = job
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        try:
            return job, connection.get(path)
        except ClusterError as exc:
            if exc.status in (404, 503):  # a broken aggregated API must not stop discovery
                return job, None
            raise

    with ThreadPoolExecutor(max_workers=MAX_WORKERS) as pool:
        for (group, version, preferred), doc in pool.map(fetch, jobs):
            if isinstance(doc, dict):
                _parse_legacy(doc, group, version, preferred, discovery)
    # Keep the preferred version first, like aggregated discovery does.
    for versions in discovery.resources.values():
        versions.sort(key=lambda r: not r.preferred)
    return discovery


class LiveRegistry(DefinitionRegistry):
    """A DefinitionRegistry whose kind names (plural, short names, versions) come from discovery.

    Resolution is untouched: only what a user may type to name a kind changes.
    """

    def __init__(self, definitions: Iterable[Any], discovery: Discovery) -> None:
        self.discovery = discovery
        super().__init__(definitions)

    def kinds(self) -> list[KindInfo]:
        out = []
        for info in super().kinds():
            served = self.discovery.served(info.group, info.kind)
            if not served:
                out.append(info)
                continue
            plural = served[0].plural or plural_of(info.kind)
            shorts = tuple(dict.fromkeys([*served[0].short_names, *SHORT_NAMES.get((info.group, info.kind), ())]))
            versions = tuple(sorted({*info.versions, *(r.version for r in served)}))
            out.append(KindInfo(info.group, info.kind, plural, shorts, versions))
        return out
