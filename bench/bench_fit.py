"""``wmap fit`` latency per workload once the capacity model is loaded, on the generated 1,000-workload cluster
(bench/gen_cluster.py: 18,881 pods on 6,960 nodes), against resolving the same workload in the same run.

    python bench/bench_fit.py [--workloads 1000] [--repeats 3]

For every top-level workload: the median of ``repeats`` runs of ``view.fit(workload)`` (its requirements
from the definition and the spec-mode gang plan, then placement) and of ``view.workload(workload)`` (the
resolution alone, the baseline). The figures are the median and the 95th percentile over workloads, and the
slowest workload; the target is a median under 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import Figure, dump_counts, dump_path

TARGET_MS = 50.0


def _median_ms(fn: Any, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def run(workloads: int = 1000, repeats: int = 3, log: Any = print) -> tuple[list[Figure], dict[str, Any]]:
    import workload_map as wm

    path = dump_path(workloads)
    start = time.perf_counter()
    view = wm.open_dump(str(path), namespace=None)
    opened = time.perf_counter() - start
    start = time.perf_counter()
    capacity = view.capacity()
    model_s = time.perf_counter() - start
    counts = dump_counts(view.objects)
    log(
        f"fit: {path.name}: {counts['pods']} pods, {len(capacity.nodes)} nodes; opened in {opened:.2f}s, "
        f"capacity model in {model_s * 1000:.0f} ms"
    )
    fit_ms: list[float] = []
    resolve_ms: list[float] = []
    slowest: tuple[float, str] = (0.0, "")
    verdicts = {"fits": 0, "does not fit": 0}
    for tree in view.workloads():
        obj = tree.workload
        resolve_ms.append(_median_ms(lambda obj=obj: view.workload(obj), repeats))
        result = view.fit(obj)
        verdicts["fits" if result.fits else "does not fit"] += 1
        ms = _median_ms(lambda obj=obj: view.fit(obj), repeats)
        fit_ms.append(ms)
        slowest = max(slowest, (ms, f"{tree.kind}/{tree.namespace}/{tree.name} ({result.copies} copies)"))
    median_fit, median_resolve = statistics.median(fit_ms), statistics.median(resolve_ms)
    log(
        f"fit: {len(fit_ms)} workloads ({verdicts['fits']} fit, {verdicts['does not fit']} do not): "
        f"median {median_fit:.2f} ms (resolve {median_resolve:.2f} ms), p95 {_p95(fit_ms):.2f} ms, "
        f"slowest {slowest[0]:.1f} ms {slowest[1]}"
    )
    section = f"fit, {len(capacity.nodes)} nodes / {counts['pods']} pods"
    figures = [
        Figure(
            section, "fit per workload, median", median_fit / 1000, "s", median_resolve / 1000,
            "resolve the same workload", f"< {TARGET_MS:.0f} ms", median_fit < TARGET_MS,
        ),
        Figure(
            section, "fit per workload, p95", _p95(fit_ms) / 1000, "s", _p95(resolve_ms) / 1000,
            "resolve, p95", f"< {TARGET_MS:.0f} ms", _p95(fit_ms) < TARGET_MS,
        ),
        Figure(section, "fit, slowest workload", slowest[0] / 1000, "s", note=slowest[1]),
        Figure(section, "capacity model (once)", model_s, "s", opened, "open the dump"),
    ]  # fmt: skip
    details = {
        "nodes": len(capacity.nodes),
        "pods": counts["pods"],
        "workloads": len(fit_ms),
        "verdicts": verdicts,
        "fit_ms": fit_ms,
        "resolve_ms": resolve_ms,
        "slowest": slowest[1],
    }
    return figures, details


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    figures, _ = run(args.workloads, args.repeats)
    for figure in figures:
        ratio = f"  {figure.ratio:.2f}x {figure.baseline_name}" if figure.ratio is not None else ""
        print(f"{figure.name}: {figure.value * 1000:.2f} ms{ratio}  {figure.target} {figure.note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
