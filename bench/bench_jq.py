"""jq engine throughput, through bench/jq_throughput.py (its data and cases; nothing duplicated here)."""

from __future__ import annotations

from typing import Any

import jq
import jq_throughput
from bench_common import Figure
from workload_map.jq import compile_expression

SECTIONS = ("label selectors on pods", "status expressions on workloads")


def run(*, seconds: float, log: Any = print) -> tuple[list[Figure], dict[str, Any]]:
    data = {
        "pods": jq_throughput._pods(),
        "live": jq_throughput._objects("*/live/*.yaml"),
        "examples": jq_throughput._objects("*/examples/*.yaml"),
    }
    figures: list[Figure] = []
    details: dict[str, Any] = {}
    for title, key, expressions in jq_throughput.CASES:
        if title not in SECTIONS:
            continue
        values = data[key]
        if not values:
            log(f"jq: no objects for {title!r} (corpus missing?)")
            continue
        for expr in expressions:
            ours = compile_expression(expr)
            lib = jq.compile(expr)
            r_ours = jq_throughput._rate(ours.all, values, seconds)
            r_val = jq_throughput._rate(lambda v, lib=lib: lib.input_value(v).all(), values, seconds)
            best = r_val
            figures.append(
                Figure(
                    "jq",
                    f"{title}: {expr[:60]}",
                    r_ours,
                    "evals/s",
                    best,
                    "libjq binding (input_value)",
                    note="fast path" if ours.uses_fast_path else "worker",
                )
            )
            details[expr] = {"ours": r_ours, "libjq_value": r_val, "objects": len(values)}
            log(f"jq {expr[:60]:60} ours {r_ours:,.0f}/s libjq {r_val:,.0f}/s")
    return figures, details
