"""Which definition covers which kind, and what a user may type to name a kind.

Definitions are keyed by their root group and kind; a workload served at a version no definition
has still resolves through another version of the same group and kind, with a warning naming both.
"""

from __future__ import annotations

from collections.abc import Iterable

from workload_map.base.model import Model
from workload_map.base.snapshot import Obj, group_of, version_of
from workload_map.definition.model import LoadedDefinition

# Short names kubectl users type for the kinds the catalog covers (from each CRD's shortNames, and
# the built-in API). Live clusters add whatever discovery reports.
SHORT_NAMES: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): ("po",),
    ("apps", "Deployment"): ("deploy",),
    ("apps", "StatefulSet"): ("sts",),
    ("apps", "DaemonSet"): ("ds",),
    ("apps", "ReplicaSet"): ("rs",),
    ("batch", "CronJob"): ("cj",),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): ("lws",),
    ("serving.kserve.io", "InferenceService"): ("isvc",),
    ("serving.kserve.io", "LLMInferenceService"): ("llmisvc",),
    ("serving.knative.dev", "Service"): ("ksvc", "kservice"),
    ("nvidia.com", "DynamoGraphDeployment"): ("dgd",),
    ("grove.io", "PodCliqueSet"): ("pcs",),
    ("batch.volcano.sh", "Job"): ("vcjob", "vj"),
    ("sparkoperator.k8s.io", "SparkApplication"): ("sparkapp",),
    ("run.ai", "Karta"): ("krt",),
}


# API groups served by kube-apiserver itself; kubectl prefers them when a short name is ambiguous.
BUILTIN_GROUPS = frozenset({"", "apps", "batch", "autoscaling", "policy", "networking.k8s.io", "storage.k8s.io"})

# Kinds every kubectl user reads as the built-in ones; a CRD kind with the same name is shown with its group.
BUILTIN_KIND_NAMES = frozenset(
    {
        "Pod",
        "Service",
        "Job",
        "CronJob",
        "Deployment",
        "StatefulSet",
        "ReplicaSet",
        "DaemonSet",
        "ConfigMap",
        "Secret",
        "Node",
        "Namespace",
        "Event",
        "Endpoints",
        "Ingress",
    }
)


def display_type(group: str, kind: str) -> str:
    """The kind as a table shows it: qualified by its group when the bare name would read as a
    built-in kind (a Knative ``Service`` is ``Service.serving.knative.dev``)."""
    if group in BUILTIN_GROUPS or kind not in BUILTIN_KIND_NAMES:
        return kind
    return f"{kind}.{group}"


def plural_of(kind: str) -> str:
    lower = kind.lower()
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return lower[:-1] + "ies"
    if lower.endswith(("s", "x", "ch", "sh")):
        return lower + "es"
    return lower + "s"


class KindInfo(Model, kw_only=False):
    group: str
    kind: str
    plural: str
    short_names: tuple[str, ...]
    versions: tuple[str, ...]

    @property
    def display(self) -> str:
        return f"{self.kind}.{self.group}" if self.group else self.kind

    def names(self) -> set[str]:
        """Every spelling kubectl accepts for this kind."""
        base = {self.kind.lower(), self.plural, *self.short_names}
        out = set(base)
        if self.group:
            for name in (self.kind.lower(), self.plural):
                out.add(f"{name}.{self.group}")
                for version in self.versions:
                    out.add(f"{name}.{version}.{self.group}")
        return out


class AmbiguousType(Exception):
    def __init__(self, name: str, candidates: list[KindInfo]) -> None:
        super().__init__(name)
        self.name = name
        self.candidates = candidates


class DefinitionRegistry:
    def __init__(self, definitions: Iterable[LoadedDefinition]) -> None:
        self._by_kind: dict[tuple[str, str], dict[str, LoadedDefinition]] = {}
        self.overridden: list[tuple[LoadedDefinition, LoadedDefinition]] = []
        for definition in definitions:
            self.add(definition)

    def add(self, definition: LoadedDefinition) -> None:
        """Later definitions for the same root group/version/kind replace earlier ones."""
        gvk = definition.karta.identity
        if gvk is None:
            return
        versions = self._by_kind.setdefault((gvk.group, gvk.kind), {})
        previous = versions.get(gvk.version)
        if previous is not None:
            self.overridden.append((previous, definition))
        versions[gvk.version] = definition

    @property
    def definitions(self) -> list[LoadedDefinition]:
        return [d for versions in self._by_kind.values() for d in versions.values()]

    def covers(self, group: str, kind: str) -> bool:
        return (group, kind) in self._by_kind

    def kinds(self) -> list[KindInfo]:
        out = []
        for (group, kind), versions in sorted(self._by_kind.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            out.append(
                KindInfo(group, kind, plural_of(kind), SHORT_NAMES.get((group, kind), ()), tuple(sorted(versions)))
            )
        return out

    def for_object(self, obj: Obj) -> tuple[LoadedDefinition | None, str | None]:
        """The definition for an object and a warning when only another version is defined."""
        api_version = str(obj.get("apiVersion") or "")
        group, version = group_of(api_version), version_of(api_version)
        versions = self._by_kind.get((group, str(obj.get("kind") or "")))
        if not versions:
            return None, None
        if version in versions:
            return versions[version], None
        chosen_version = sorted(versions)[-1]
        chosen = versions[chosen_version]
        return chosen, (
            f"{obj.get('kind')}.{group} is served at {version} but the definition {chosen.name!r} is for "
            f"{chosen_version}; resolved with {chosen_version}"
        )

    def resolve_type(self, name: str) -> KindInfo | None:
        """The kind a user means by TYPE (kind, plural, short name, kind.group, kind.version.group)."""
        wanted = name.lower()
        matches = [info for info in self.kinds() if wanted in info.names()]
        if len(matches) > 1:
            # kubectl resolves `job` to batch/v1 Job before any CRD named Job: built-in groups come first.
            builtin = [info for info in matches if info.group in BUILTIN_GROUPS]
            if len(builtin) != 1:
                raise AmbiguousType(name, matches)
            return builtin[0]
        return matches[0] if matches else None
