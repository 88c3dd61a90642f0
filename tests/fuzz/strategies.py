"""Hypothesis strategies: Kubernetes-shaped objects for every catalog kind, then mutated.

Each kind's objects start from the CRD schema in ../shared/corpus (read in place) when there is one, or from
a corpus/example object of that kind, or from a bare object; mutations then put wrong JSON types, missing
fields, extreme numbers, odd quantities, long or unusual strings and deep nesting anywhere in them, and
the cluster built around them gets duplicate uids, owner cycles and owners that do not exist.
"""

from __future__ import annotations

import copy
import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from corpus import CORPUS, REPO_ROOT
from workload_map.catalog import builtin_definitions
from workload_map.definition.expressions import Target, iter_expressions
from workload_map.jq.reads import input_reads

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
# Integers JSON allows and 64-bit parsers do not keep: orjson reads them as floats and refuses to write them.
BIG_INTEGERS = st.one_of(
    st.sampled_from([2**63, 2**64 - 1, 2**64, 2**64 + 1, -(2**63) - 1, 10**30 + 1, -(10**40)]),
    st.integers(min_value=2**64, max_value=2**256),
    st.integers(min_value=-(2**256), max_value=-(2**63) - 1),
)
# Floats at the edges: the largest, signed zero, subnormals. NaN and the infinities are not JSON: YAML
# dumps carry them (.nan, .inf), JSON dumps cannot (see cluster_files).
EDGE_FLOATS = st.one_of(
    st.sampled_from(
        [1e308, -1e308, 1.7976931348623157e308, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-320, 0.1]
    ),
    st.floats(allow_nan=False, allow_infinity=False),
)
NOT_JSON_FLOATS = st.sampled_from([float("nan"), float("inf"), float("-inf")])
# Huge strings: a megabyte or more in the random runs, bounded in the seeded one (WMAP_FUZZ_HUGE, bytes).
HUGE = int(os.environ.get("WMAP_FUZZ_HUGE", "300000"))
HUGE_STRINGS = st.integers(min_value=HUGE // 4, max_value=HUGE).map(lambda n: "h" * n)
NUMBERS = st.one_of(
    st.sampled_from([0, -1, 1, 2**31, -(2**63), 2**64, 10**30, 1e308, -1e308, 0.5, -0.0, 1e-300]),
    st.integers(min_value=-5, max_value=10),
    BIG_INTEGERS,
    EDGE_FLOATS,
)
_COMMON = st.one_of(st.none(), st.booleans(), NUMBERS, STRINGS, st.sampled_from(QUANTITIES))
# one_of picks its branches alike: the common values repeated make the costly or rare ones ~1 scalar in 9.
SCALARS = st.one_of(*[_COMMON] * 8, st.one_of(NOT_JSON_FLOATS, HUGE_STRINGS))


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


def _set(obj: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """``value`` at ``path``, making the mappings on the way (replacing what is not one)."""
    node = obj
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    node[path[-1]] = value


@functools.cache
def read_paths() -> dict[tuple[str, str], tuple[tuple[str, ...], ...]]:
    """(group, kind) -> the fields the catalog's expressions read in objects of that kind (``"Pod"`` of the
    core group: what pod selectors, gang filters and keys read), from jq.reads.input_reads."""

    found: dict[tuple[str, str], set[tuple[str, ...]]] = {}
    for loaded in builtin_definitions():
        karta = loaded.karta
        kinds = {c.name: c.kind or karta.root.kind for c in karta.components}
        for ref in iter_expressions(karta):
            gvk = kinds.get(ref.component or "") or karta.root.kind
            key = ("", "Pod") if ref.target is Target.POD else (gvk.group, gvk.kind) if gvk else None
            paths = input_reads(ref.expression, depth=6)
            if key is not None and paths:
                found.setdefault(key, set()).update(p for p in paths if p)
    return {key: tuple(sorted(paths)) for key, paths in found.items()}


# What the resolver reads in every pod spec and pod template (requests, placement, scheduling).
POD_SPEC_FIELDS = (
    ("containers",),
    ("initContainers",),
    ("nodeSelector",),
    ("tolerations",),
    ("affinity",),
    ("affinity", "nodeAffinity"),
    ("schedulerName",),
    ("priorityClassName",),
    ("overhead",),
    ("resourceClaims",),
    ("nodeName",),
)
CONTAINER_FIELDS = (("resources",), ("resources", "requests"), ("resources", "limits"), ("name",), ("image",))


def _pod_specs(value: Any, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every mapping that looks like a pod spec (it holds ``containers``), anywhere in ``value``."""
    if isinstance(value, dict):
        if isinstance(value.get("containers"), list):
            out.append(value)
        for child in value.values():
            _pod_specs(child, out)
    elif isinstance(value, list):
        for child in value:
            _pod_specs(child, out)
    return out


@st.composite
def wrong_types_where_read(draw: st.DrawFn, obj: dict[str, Any], group: str, kind: str) -> dict[str, Any]:
    """``obj`` with JSON of the wrong type at fields the definitions read: a path an expression of its kind
    reads, or a pod spec field (of its templates, or of the pod itself)."""
    obj = copy.deepcopy(obj)
    paths = read_paths().get((group, kind), ())
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        specs = _pod_specs(obj, [])
        where = draw(st.sampled_from(["read", "pod spec", "container"]))
        if where == "read" and paths:
            _set(obj, draw(st.sampled_from(paths)), draw(JUNK))
        elif where == "pod spec" and specs:
            _set(draw(st.sampled_from(specs)), draw(st.sampled_from(POD_SPEC_FIELDS)), draw(JUNK))
        elif specs:
            containers = [c for spec in specs for c in spec["containers"] if isinstance(c, dict)]
            if containers:
                container = draw(st.sampled_from(containers))
                field = draw(st.sampled_from(CONTAINER_FIELDS))
                junk = draw(st.one_of(JUNK, st.dictionaries(st.sampled_from(["cpu", "nvidia.com/gpu"]), JUNK)))
                _set(container, field, junk)
    return obj


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
    if draw(st.booleans()):
        base = draw(wrong_types_where_read(base, info.group, info.kind))
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
        if draw(st.booleans()):
            pod = draw(wrong_types_where_read(pod, "", "Pod"))
        objects.append(draw(mutated(pod, 2)))
    shape = draw(st.sampled_from(["plain", "duplicate-uids", "owner-cycle", "self-owner", "duplicate-identity"]))
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
    elif shape == "duplicate-identity":
        # Another object with the kind, namespace and name of one already there (a folder holding it twice).
        for original in draw(st.lists(st.sampled_from(named), min_size=1, max_size=3)) if named else []:
            twin = draw(mutated(original, 2))
            if isinstance(twin.get("metadata"), dict):
                twin["metadata"].update(name=original["metadata"].get("name"), namespace=FUZZ_NAMESPACE)
                objects.append(twin)
    return objects


def identity(obj: Any) -> tuple[str, str, str, str] | None:
    """(group, kind, namespace, name) of an object whose names are strings, as a dump keys it."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not obj.get("kind"):
        return None
    # As objects.namespace_of reads it: an object without a namespace is in "default".
    namespace = str(meta.get("namespace") or "default")
    api_version = str(obj.get("apiVersion") or "")
    group = api_version.split("/", 1)[0] if "/" in api_version else ""
    return group, str(obj["kind"]), namespace, meta["name"]
