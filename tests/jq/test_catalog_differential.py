"""Every expression of the built-in catalog, evaluated by our engine and by libjq on generated objects.

The fast path covers most catalog expressions (if/elif, `as` bindings, user `def`s, object and string
construction, to_entries/with_entries, any/all, ...); this checks them where they run in `get`: each
definition's expressions on generated objects of its kinds and on the pods the generator makes for them,
with libjq as the oracle (values, error-or-not and error text, first(), paths).
"""

from __future__ import annotations

import importlib
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest
import yaml
from oracle import assert_same_as_libjq

from workload_map.base.snapshot import group_of
from workload_map.catalog import builtin_definitions
from workload_map.definition.expressions import Target, iter_expressions
from workload_map.jq import compile_expression

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"
PER_KIND = 6  # distinct objects per kind (enough to reach every branch the generator produces)


def _generator() -> ModuleType:
    """bench/gen_cluster.py, imported as the benchmarks import it (bench/ on sys.path: it uses bench/gen/)."""
    bench = str(REPO / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    return importlib.import_module("gen_cluster")


def _corpus_objects() -> list[Any]:
    out: list[Any] = []
    for path in sorted(CORPUS.glob("*/examples/*.yaml")):
        with path.open() as fh:
            out.extend(d for d in yaml.load_all(fh, Loader=_Loader) if isinstance(d, dict) and d.get("kind"))
    return out


class _Loader(yaml.SafeLoader):
    """SafeLoader that keeps timestamps as strings, as the Kubernetes API serves them."""


_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _objects_by_kind() -> dict[tuple[str, str], list[Any]]:
    objects = [*_generator().generate(120, 4, 11, pods_per_workload_target=4), *_corpus_objects()]
    by_kind: dict[tuple[str, str], list[Any]] = defaultdict(list)
    per_shape: dict[bytes, int] = defaultdict(int)
    for obj in objects:
        kind = (group_of(str(obj.get("apiVersion") or "")), str(obj.get("kind")))
        meta = obj.get("metadata") or {}
        if kind == ("", "Pod"):
            # Pod expressions read labels: a few pods per owner kind and label-key set.
            owners = [r.get("kind") for r in meta.get("ownerReferences") or []]
            shape = orjson.dumps([owners, sorted(meta.get("labels") or {})])
            limit = 3
        else:
            # Distinct by what the expressions read (labels, annotations, spec, status), not by name.
            shape = orjson.dumps(
                [kind, meta.get("labels"), meta.get("annotations"), obj.get("spec"), obj.get("status")],
                option=orjson.OPT_SORT_KEYS,
            )
            limit = 1
        if per_shape[shape] >= limit or (kind != ("", "Pod") and len(by_kind[kind]) >= PER_KIND):
            continue
        per_shape[shape] += 1
        by_kind[kind].append(obj)
    return by_kind


OBJECTS = _objects_by_kind()


def _cases() -> list[tuple[str, str, str]]:
    cases: dict[tuple[str, str], str] = {}
    for definition in builtin_definitions():
        karta = definition.karta
        for ref in iter_expressions(karta):
            cases.setdefault((ref.expression, ref.target.value), karta.name)
    return [(name, target, expression) for (expression, target), name in cases.items()]


CASES = _cases()
_ROOT_KINDS = {
    d.karta.name: (d.karta.root.kind.group, d.karta.root.kind.kind) for d in builtin_definitions() if d.karta.root.kind
}


@pytest.mark.parametrize(
    ("definition", "target", "expression"), CASES, ids=[f"{c[0]}:{i}" for i, c in enumerate(CASES)]
)
def test_catalog_expression_matches_libjq(definition: str, target: str, expression: str) -> None:
    if target == Target.POD.value:
        values = OBJECTS.get(("", "Pod"), [])
    else:
        kind = _ROOT_KINDS.get(definition)
        values = OBJECTS.get(kind, []) if kind else []
    values = [*values, {}, {"metadata": {"labels": {}}, "spec": {}, "status": {}}]
    for value in values:
        assert_same_as_libjq(expression, value)


def test_catalog_expressions_stay_in_process() -> None:
    """The catalog's expressions run on the fast path (a libjq round trip costs ~70 µs each)."""
    slow = sorted({e for _, _, e in CASES if not compile_expression(e).uses_fast_path})
    # `capture` (regular expressions) and a few rarer builtins stay with libjq.
    assert len(slow) <= 10, slow
