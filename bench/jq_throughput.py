"""Evaluations per second: our engine vs the libjq binding, measured in the same run.

Run: .venv/bin/python bench/jq_throughput.py [seconds-per-case]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import yaml

import jq
from workload_map.jq import compile_expression

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


class _Loader(yaml.SafeLoader):
    pass


_Loader.yaml_implicit_resolvers = {
    k: [(t, r) for t, r in v if t != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _objects(pattern: str) -> list[Any]:
    out: list[Any] = []
    for path in sorted(CORPUS.glob(pattern)):
        for doc in yaml.load_all(path.read_text(), Loader=_Loader):
            if isinstance(doc, dict):
                out.append(doc.get("observedObj") or doc.get("desiredObj") or doc)
    return out


def _pods() -> list[Any]:
    pods = [o for o in _objects("*/live/*.yaml") if o.get("kind") == "Pod"]
    base = pods[0] if pods else {"metadata": {"labels": {}}}
    synth = []
    for i in range(50):
        p = orjson.loads(orjson.dumps(base))
        p["metadata"].setdefault("labels", {})["jobset.sigs.k8s.io/replicatedjob-name"] = f"rj-{i % 3}"
        synth.append(p)
    return synth + pods


def _rate(fn: Callable[[Any], Any], values: list[Any], seconds: float) -> float:
    n = 0
    start = time.perf_counter()
    while True:
        for v in values:
            fn(v)
        n += len(values)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


CASES: list[tuple[str, str, list[str]]] = [
    (
        "label selectors on pods",
        "pods",
        [
            '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]',
            '.metadata.labels["app"] // empty',
            '.metadata.ownerReferences[0].uid // ""',
        ],
    ),
    (
        "status expressions on workloads",
        "live",
        [
            '.status.conditions[]? | select(.type == "Ready") | .status',
            '.status.phase // "Unknown"',
            '[.status.conditions[]? | select(.type == "Failed" and .status == "True")] | length > 0',
            '.status.conditions // [] | map(select(.status == "True") | .type)',
        ],
    ),
    (
        "pod template extraction",
        "examples",
        [
            ".spec.template",
            ".spec.replicatedJobs[]?.template.spec.template",
            ".spec.pytorchReplicaSpecs[]?.template",
            "(.spec.replicas // 1) * (.spec.leaderWorkerTemplate.size // 1)",
            ".spec.workerGroupSpecs[]? | (.replicas // 1) * (.numOfHosts // 1)",
        ],
    ),
]


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 0.5
    data = {"pods": _pods(), "live": _objects("*/live/*.yaml"), "examples": _objects("*/examples/*.yaml")}
    print(f"{'expression':70} {'ours/s':>10} {'libjq value/s':>14} {'libjq text/s':>13} {'ratio':>6}  path")
    for title, key, expressions in CASES:
        values = data[key]
        print(f"== {title} ({len(values)} objects)")
        for expr in expressions:
            ours = compile_expression(expr)
            lib = jq.compile(expr)
            r_ours = _rate(ours.all, values, seconds)
            r_val = _rate(lambda v, lib=lib: lib.input_value(v).all(), values, seconds)
            r_txt = _rate(lambda v, lib=lib: lib.input_text(orjson.dumps(v).decode()).all(), values, seconds)
            best = max(r_val, r_txt)
            path = "fast" if ours.uses_fast_path else "worker"
            print(f"{expr[:70]:70} {r_ours:10.0f} {r_val:14.0f} {r_txt:13.0f} {r_ours / best:6.1f}x  {path}")
    try:
        import purejq  # type: ignore[import-untyped]
    except ImportError:
        return
    print("== purejq (pure Python, no budget) for reference")
    for expr, key in (
        ('.status.conditions[]? | select(.type == "Ready") | .status', "live"),
        (".spec.template", "examples"),
    ):
        prog = purejq.compile(expr)
        print(f"{expr[:70]:70} {_rate(prog.all, data[key], seconds):10.0f}")


if __name__ == "__main__":
    main()
