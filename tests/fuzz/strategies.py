"""Hypothesis strategies: Kubernetes-shaped objects for every catalog kind, then mutated.

Each kind's objects start from the CRD schema in ../shared/corpus (read in place) when there is one, or from
a corpus/example object of that kind, or from a bare object; mutations then put wrong JSON types, missing
fields, extreme numbers, odd quantities, long or unusual strings and deep nesting anywhere in them, and
the cluster built around them gets duplicate uids, owner cycles and owners that do not exist.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from corpus import CORPUS, REPO_ROOT
from workload_map.catalog import builtin_definitions

EXAMPLE = REPO_ROOT / "src" / "workload_map" / "examples" / "ai-cluster.yaml"
FUZZ_NAMESPACE = "fuzz"


@dataclass(frozen=True)
class KindInfo:
    group: str
    version: str
    kind: str
    schema: dict[str, Any] | None
    seeds: tuple[dict[str, Any], ...]

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


def _yaml_documents(path: Path) -> list[Any]:
    try:
        return [d for d in yaml.load_all(path.read_bytes(), Loader=yaml.CSafeLoader) if isinstance(d, dict)]
    except yaml.YAMLError:
        return []


@functools.cache
def _crd_schemas() -> dict[tuple[str, str], tuple[str, dict[str, Any]]]:
    """(group, kind) -> (a served version, its openAPIV3Schema), from every CRD in the corpus."""
    found: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for path in sorted(CORPUS.glob("*/crd/*.y*ml")):
        for doc in _yaml_documents(path):
            if doc.get("kind") != "CustomResourceDefinition":
                continue
            spec = doc.get("spec") or {}
            for version in spec.get("versions") or []:
                schema = ((version.get("schema") or {}).get("openAPIV3Schema")) if isinstance(version, dict) else None
                if isinstance(schema, dict):
                    found.setdefault(
                        (spec.get("group", ""), (spec.get("names") or {}).get("kind", "")), (version["name"], schema)
                    )
    return found


@functools.cache
def _seed_objects() -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(group, kind) -> objects of that kind from the corpus examples and the built-in example cluster."""
    seeds: dict[tuple[str, str], list[dict[str, Any]]] = {}
    paths = [EXAMPLE, *sorted(CORPUS.glob("*/examples/*.y*ml"))]
    for path in paths:
        for doc in _yaml_documents(path):
            items = doc.get("items") if isinstance(doc.get("items"), list) else [doc]
            for item in items:
                if isinstance(item, dict) and isinstance(item.get("kind"), str):
                    group = str(item.get("apiVersion", "")).rpartition("/")[0]
                    seeds.setdefault((group, item["kind"]), []).append(item)
    return seeds


@functools.cache
def catalog_kinds() -> tuple[KindInfo, ...]:
    """Every kind a catalog definition names (roots and children), each with its schema and seeds."""
    schemas, seeds = _crd_schemas(), _seed_objects()
    kinds: dict[tuple[str, str], KindInfo] = {}
    for loaded in builtin_definitions():
        for component in loaded.karta.components:
            gvk = component.kind
            if gvk is None or (gvk.group, gvk.kind) in kinds:
                continue
            # The catalog's version names the objects; the CRD's schema of any served version shapes them.
            _, schema = schemas.get((gvk.group, gvk.kind), ("", None))
            kinds[(gvk.group, gvk.kind)] = KindInfo(
                gvk.group, gvk.version, gvk.kind, schema, tuple(seeds.get((gvk.group, gvk.kind), ())[:8])
            )
    return tuple(kinds[key] for key in sorted(kinds))


def pod_seeds() -> list[dict[str, Any]]:
    return _seed_objects().get(("", "Pod"), [])[:20]


# ---- values -------------------------------------------------------------------------------------------

QUANTITIES = [
    "1",
    "0",
    "-1",
    "100m",
    "1.5",
    "1e3",
    "1E",
    "1Ki",
    "0.5Gi",
    "1 Gi",
    " 1",
    "",
    "Infinity",
    "NaN",
    "9999999999999999999999Ei",
    "0x10",
    "1e-30",
    "+1",
    "1.",
    ".5",
    "12345678901234567890n",
    "1k",
]
STRINGS = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "Running",
            "True",
            "False",
            "null",
            "-",
            "a/b",
            "名前",
            "\u202e\u200b",
            "😀" * 3,
            "x" * 70_000,
            "\\(",
            '"',
            "$ENV",
            "..",
            "*",
            "\n",
            "Unknown",
        ]
    ),
    st.text(max_size=20),
)
NUMBERS = st.one_of(
    st.sampled_from([0, -1, 1, 2**31, -(2**63), 2**64, 10**30, 1e308, -1e308, 0.5, -0.0, 1e-300]),
    st.integers(min_value=-5, max_value=10),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, STRINGS, st.sampled_from(QUANTITIES))


def nested(depth: int) -> Any:
    value: Any = "deep"
    for index in range(depth):
        value = [value] if index % 2 else {"a": value}
    return value


JUNK = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=3),
    st.dictionaries(STRINGS, SCALARS, max_size=3),
    st.integers(min_value=20, max_value=200).map(nested),  # under orjson's 254 levels: the dump still reads
)


# ---- objects from schemas -----------------------------------------------------------------------------


def from_schema(schema: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values shaped like an openAPIV3Schema (properties, items, enums, int-or-string), kept shallow."""
    if not isinstance(schema, dict) or depth > 4:
        return SCALARS
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        return st.sampled_from(schema["enum"])
    if schema.get("x-kubernetes-int-or-string"):
        return st.one_of(NUMBERS, st.sampled_from(QUANTITIES))
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        if not props:
            extra = schema.get("additionalProperties")
            values = from_schema(extra, depth + 1) if isinstance(extra, dict) else SCALARS
            return st.dictionaries(st.sampled_from(["a", "b", "app", "nvidia.com/gpu", "cpu"]), values, max_size=3)
        names = sorted(props)
        required = [n for n in schema.get("required") or [] if n in props]
        optional = [n for n in names if n not in required]
        return st.fixed_dictionaries(
            {n: from_schema(props[n], depth + 1) for n in required},
            optional={n: from_schema(props[n], depth + 1) for n in optional[:12]},
        )
    if kind == "array":
        return st.lists(from_schema(schema.get("items"), depth + 1), max_size=2)
    if kind == "integer":
        return NUMBERS
    if kind == "number":
        return NUMBERS
    if kind == "boolean":
        return st.booleans()
    if kind == "string":
        return STRINGS
    return SCALARS


_SCHEMA_STRATEGIES: dict[tuple[str, str], st.SearchStrategy[Any]] = {}


def schema_strategy(info: KindInfo) -> st.SearchStrategy[Any]:
    """Built once per kind: a CRD's strategy tree is large, and hypothesis builds strategies eagerly."""
    key = (info.group, info.kind)
    if key not in _SCHEMA_STRATEGIES:
        _SCHEMA_STRATEGIES[key] = from_schema(info.schema)
    return _SCHEMA_STRATEGIES[key]


# ---- mutation -----------------------------------------------------------------------------------------


def _paths(value: Any, prefix: tuple[Any, ...] = (), out: list[tuple[Any, ...]] | None = None) -> list[tuple[Any, ...]]:
    out = [] if out is None else out
    if len(out) > 400:
        return out
    if isinstance(value, dict):
        for key, child in value.items():
            out.append((*prefix, key))
            _paths(child, (*prefix, key), out)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out.append((*prefix, index))
            _paths(child, (*prefix, index), out)
    return out


@st.composite
def mutated(draw: st.DrawFn, obj: dict[str, Any], max_mutations: int = 4) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    for _ in range(draw(st.integers(min_value=0, max_value=max_mutations))):
        paths = [p for p in _paths(obj) if p[:2] not in (("metadata", "name"), ("metadata", "namespace"))]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent: Any = obj
        for step in path[:-1]:
            parent = parent[step]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]  # a missing field
        else:
            parent[path[-1]] = draw(JUNK)
    return obj


# ---- clusters -----------------------------------------------------------------------------------------


@st.composite
def workload(draw: st.DrawFn, info: KindInfo, name: str) -> dict[str, Any]:
    sources = []
    if info.seeds:
        sources.append(st.sampled_from(info.seeds).map(copy.deepcopy))
    if info.schema is not None:
        sources.append(schema_strategy(info))
    base: Any = draw(st.one_of(sources)) if sources else {}
    if not isinstance(base, dict):
        base = {}
    base["apiVersion"], base["kind"] = info.api_version, info.kind
    metadata = base.get("metadata") if isinstance(base.get("metadata"), dict) else {}
    base["metadata"] = {**metadata, "name": name, "namespace": FUZZ_NAMESPACE, "uid": f"uid-{name}"}
    base["metadata"].pop("ownerReferences", None)
    return draw(mutated(base))


def owner_ref(obj: dict[str, Any]) -> dict[str, Any]:
    """A controller reference to ``obj`` as it was made (a mutation may have taken its names since)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return {
        "apiVersion": obj.get("apiVersion", "v1"),
        "kind": obj.get("kind", "Gone"),
        "name": meta.get("name", "gone"),
        "uid": meta.get("uid", "gone"),
        "controller": True,
    }


@st.composite
def fuzz_cluster(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A few mutated workloads of catalog kinds in namespace ``fuzz``, with pods and broken ownership."""
    kinds = catalog_kinds()
    chosen = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=2))
    roots = [draw(workload(info, f"w{index}")) for index, info in enumerate(chosen)]
    objects: list[dict[str, Any]] = list(roots)
    seeds = pod_seeds()
    for index in range(draw(st.integers(min_value=0, max_value=4))):
        pod = copy.deepcopy(draw(st.sampled_from(seeds))) if seeds else {"apiVersion": "v1", "kind": "Pod"}
        pod["metadata"] = {
            **(pod.get("metadata") or {}),
            "name": f"p{index}",
            "namespace": FUZZ_NAMESPACE,
            "uid": f"uid-p{index}",
        }
        owner = draw(st.sampled_from(["root", "missing", "none"]))
        if owner == "root":
            pod["metadata"]["ownerReferences"] = [owner_ref(draw(st.sampled_from(roots)))]
        elif owner == "missing":
            pod["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Gone", "name": "gone", "uid": "nope"}]
        objects.append(draw(mutated(pod, 2)))
    shape = draw(st.sampled_from(["plain", "duplicate-uids", "owner-cycle", "self-owner"]))
    named = [o for o in objects if isinstance(o.get("metadata"), dict)]
    if shape == "duplicate-uids" and len(named) > 1:
        for obj in named:
            obj["metadata"]["uid"] = "uid-same"
    elif shape == "owner-cycle" and len(roots) > 1:
        for left, right in zip(roots, roots[1:] + roots[:1], strict=True):
            if isinstance(left.get("metadata"), dict) and isinstance(right.get("metadata"), dict):
                left["metadata"]["ownerReferences"] = [owner_ref(right)]
    elif shape == "self-owner":
        root = roots[0]
        if isinstance(root.get("metadata"), dict):
            root["metadata"]["ownerReferences"] = [owner_ref(root)]
    return objects
