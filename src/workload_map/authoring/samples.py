"""What sample objects add to the schema: pod definitions the schema hides, status values, pod labels.

Samples are the root kind's objects (examples, ``kubectl get -o yaml`` captures) and, optionally, the
pods and intermediate owners beside them. Values are read, never trusted to be complete: a condition
type no sample shows is simply not mapped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from workload_map.authoring.evidence import ARRAY, MAP, Segments
from workload_map.authoring.schemafacts import HOSTS_NAMES, ID_NAMES, MAX_NAMES, MIN_NAMES, REPLICA_NAMES, Field, Site
from workload_map.authoring.schemapods import AUXILIARY_CONTAINERS, POD_COUNT_NAMES
from workload_map.base.objects import meta, name_of, owner_references


@dataclass
class Sample:
    obj: dict[str, Any]
    location: str

    @property
    def name(self) -> str:
        return name_of(self.obj)


@dataclass
class SampleFacts:
    roots: list[Sample] = field(default_factory=list)
    pods: dict[int, list[tuple[Sample, list[str]]]] = field(default_factory=dict)  # root index -> pods, owner kinds
    conditions: Counter[tuple[str, str]] = field(default_factory=Counter)  # (type, status)
    condition_where: dict[tuple[str, str], str] = field(default_factory=dict)
    phases: dict[str, Counter[str]] = field(default_factory=dict)  # phase path -> values
    phase_where: dict[tuple[str, str], str] = field(default_factory=dict)
    # Objects other than pods that a sample root owns directly: "apiVersion/kind" -> where one was seen.
    children: dict[str, str] = field(default_factory=dict)


def _is_container(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("image"), str)
        and any(k in value for k in ("name", "command", "args", "script"))
        and not any(k in value for k in POD_COUNT_NAMES)  # a workload with its image and count (schema.py)
    )


def _is_pod_spec(value: Any) -> bool:
    containers = value.get("containers") if isinstance(value, dict) else None
    return isinstance(containers, list) and bool(containers) and all(_is_container(c) for c in containers)


def _find(value: Any, segments: Segments, depth: int, out: dict[Segments, str]) -> None:
    if depth > 30:
        return
    if isinstance(value, dict):
        if _is_pod_spec(value.get("spec")):
            # A sample often omits an empty metadata: a key named like a template is one all the same.
            named = bool(segments) and segments[-1].lower().endswith("template")
            out.setdefault(segments, "template" if "metadata" in value or named else "spec-holder")
            return
        if _is_pod_spec(value):
            out.setdefault(segments, "podspec")
            return
        if _is_container(value.get("container")):
            out.setdefault((*segments, "container"), "container")
        for key, child in value.items():
            if key == "container" and _is_container(child):
                continue
            _find(child, (*segments, key), depth + 1, out)
    elif isinstance(value, list):
        if value and all(_is_container(item) for item in value):
            if not segments or segments[-1] not in AUXILIARY_CONTAINERS:  # init containers are never a pod alone
                out.setdefault(segments, "containers")
            return
        for item in value:
            _find(item, (*segments, ARRAY), depth + 1, out)


def _as_maps(found: dict[Segments, str]) -> dict[Segments, str]:
    """A key under a ``...Specs`` object names a role of a map (``pytorchReplicaSpecs.Worker``), not a field."""
    out: dict[Segments, str] = {}
    for segments, form in found.items():
        parts = list(segments)
        for i in range(len(parts) - 1):
            if parts[i].endswith(("Specs", "specs")) and parts[i + 1] not in (ARRAY, MAP):
                parts[i + 1] = MAP
        out.setdefault(tuple(parts), form)
    return out


def sites_from_samples(samples: list[Sample]) -> list[Site]:
    """Pod definitions seen in the samples' ``.spec``, for schemas that hide them."""
    found: dict[Segments, tuple[str, str]] = {}
    for sample in samples:
        here: dict[Segments, str] = {}
        _find(sample.obj.get("spec"), ("spec",), 0, here)
        for segments, form in _as_maps(here).items():
            found.setdefault(segments, (form, sample.location))
    sites = []
    for segments, (form, where) in found.items():
        if form == "spec-holder":
            site = Site((*segments, "spec"), "podspec", where, role=segments)
        else:
            site = Site(segments, form, where, role=segments[:-1])
        _sample_counts(site, samples)
        sites.append(site)
    return sites


def _sample_counts(site: Site, samples: list[Sample]) -> None:
    """Counts beside the pod definition, by name, from integer values in the samples."""
    for sample in samples:
        for item_segments, item in walk(sample.obj, site.role):
            if not isinstance(item, dict):
                continue
            for attr, names in (
                ("replicas", REPLICA_NAMES),
                ("min_replicas", MIN_NAMES),
                ("max_replicas", MAX_NAMES),
                ("hosts", HOSTS_NAMES),
            ):
                if getattr(site, attr) is None:
                    name = next((n for n in names if isinstance(item.get(n), int)), None)
                    if name is not None:
                        setattr(site, attr, Field((*site.role, name), {"type": "integer"}))
            del item_segments
    last = max((i for i, s in enumerate(site.segments) if s == ARRAY), default=-1)
    if last >= 0 and site.instance_id is None:
        item_path = site.segments[: last + 1]
        for sample in samples:
            for _where, item in walk(sample.obj, item_path):
                if isinstance(item, dict):
                    name = next((n for n in ID_NAMES if isinstance(item.get(n), str)), None)
                    if name is not None:
                        site.instance_id = Field((*item_path, name), {"type": "string"})
                        return


def walk(value: Any, segments: Segments) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every value at the segments, with the instance keys of the collections crossed (list index or map key)."""

    def go(node: Any, rest: Segments, keys: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
        if not rest:
            yield keys, node
            return
        head, tail = rest[0], rest[1:]
        if head == ARRAY:
            if isinstance(node, list):
                for index, item in enumerate(node):
                    yield from go(item, tail, (*keys, str(index)))
        elif head == MAP:
            if isinstance(node, dict):
                for key, item in node.items():
                    yield from go(item, tail, (*keys, str(key)))
        elif isinstance(node, dict) and head in node:
            yield from go(node[head], tail, keys)

    yield from go(value, segments, ())


def collect(objects: list[Sample], group: str, kind: str) -> SampleFacts:
    """Root samples of the kind, the pods owned by them (through any intermediate owner) and status values."""
    facts = SampleFacts()

    def is_root(obj: dict[str, Any]) -> bool:
        api = str(obj.get("apiVersion") or "")
        return obj.get("kind") == kind and (api.rpartition("/")[0] if "/" in api else "") == group

    by_uid: dict[str, dict[str, Any]] = {}
    by_name: dict[tuple[str, str], dict[str, Any]] = {}
    for sample in objects:
        metadata = meta(sample.obj)
        if metadata.get("uid"):
            by_uid[str(metadata["uid"])] = sample.obj
        by_name[(str(sample.obj.get("kind")), str(metadata.get("name")))] = sample.obj
        if is_root(sample.obj):
            facts.roots.append(sample)
    root_index = {id(s.obj): i for i, s in enumerate(facts.roots)}
    for sample in objects:
        if sample.obj.get("kind") != "Pod":
            for ref in owner_references(sample.obj)[:1]:
                owner = by_uid.get(str(ref.get("uid"))) or by_name.get((str(ref.get("kind")), str(ref.get("name"))))
                if owner is not None and id(owner) in root_index:
                    key = f"{sample.obj.get('apiVersion')}/{sample.obj.get('kind')}"
                    facts.children.setdefault(key, sample.location)
            continue
        chain: list[str] = []
        current: dict[str, Any] | None = sample.obj
        for _ in range(10):
            refs = owner_references(current or {})
            if not refs:
                break
            ref = refs[0]
            current = by_uid.get(str(ref.get("uid"))) or by_name.get((str(ref.get("kind")), str(ref.get("name"))))
            if current is None:
                break
            if id(current) in root_index:
                facts.pods.setdefault(root_index[id(current)], []).append((sample, chain))
                break
            chain.append(f"{current.get('apiVersion')}/{current.get('kind')}")
    return facts


def read_status(facts: SampleFacts, conditions: Segments, phase_paths: list[Segments]) -> None:
    for sample in facts.roots:
        for _keys, listing in walk(sample.obj, conditions):
            for condition in listing if isinstance(listing, list) else []:
                if isinstance(condition, dict) and isinstance(condition.get("type"), str):
                    key = (condition["type"], str(condition.get("status")))
                    facts.conditions[key] += 1
                    facts.condition_where.setdefault(key, sample.location)
        for segments in phase_paths:
            for _keys, value in walk(sample.obj, segments):
                if isinstance(value, str) and value:
                    path = ".".join(segments)
                    facts.phases.setdefault(path, Counter())[value] += 1
                    facts.phase_where.setdefault((path, value), sample.location)


def status_strings(facts: SampleFacts) -> list[Segments]:
    """Phase-like string fields seen under the samples' ``.status`` (for schema-less status)."""
    seen: list[Segments] = []

    def go(node: Any, segments: Segments, depth: int) -> None:
        if not isinstance(node, dict) or depth > 3:
            return
        for key, value in node.items():
            if key == "conditions":
                continue
            here = (*segments, key)
            if isinstance(value, str) and (key in ("phase", "state") or key.endswith(("Phase", "State", "Status"))):
                if here not in seen:
                    seen.append(here)
            elif isinstance(value, dict):
                go(value, here, depth + 1)

    for sample in facts.roots:
        go(sample.obj.get("status"), ("status",), 0)
    return sorted(seen, key=len)
