"""The benchmark suite (`make bench`): prints one table and writes bench/results/<timestamp>.json.

    python bench/run.py                      # dump mode at 100 and 1,000 workloads, cold start, memory, jq
    python bench/run.py --full               # also 10,000 workloads (minutes)
    python bench/run.py --sizes 100,5000     # choose the dump sizes
    python bench/run.py --live               # also the live mode on the test kube-apiserver (needs the binaries)
    python bench/run.py --fleet              # also fleet get -A over three test kube-apiservers vs one
    python bench/run.py --go                 # also wmap against the Go baseline (gojq) at --go-sizes
    python bench/run.py --profile            # pyinstrument profiles of get -A at 1,000 (pip install pyinstrument)
    python bench/run.py --skip dump,startup,jq   # only the fast-start figures (whole processes, small clusters)

Speed is reported as ratios against baselines measured in the same run, never as absolute targets in tests.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import RESULTS_DIR, Figure, machine


def _fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    if unit in ("evals/s",):
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.4f}"


def table(figures: list[Figure]) -> str:
    header = ("section", "figure", "value", "unit", "baseline", "ratio", "target", "met")
    rows = []
    for f in figures:
        met = "-" if f.met is None else ("MET" if f.met else "MISSED")
        ratio = f"{f.ratio:.2f}x" if f.ratio is not None else "-"
        base = f"{_fmt(f.baseline, f.unit)} ({f.baseline_name})" if f.baseline is not None else "-"
        rows.append(
            (
                f.section,
                f.name + (f"  [{f.note}]" if f.note else ""),
                _fmt(f.value, f.unit),
                f.unit,
                base,
                ratio,
                f.target or "-",
                met,
            )
        )
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    widths[1] = min(widths[1], 100)
    lines = ["  ".join(str(c)[: widths[i]].ljust(widths[i]) for i, c in enumerate(header))]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(c)[: widths[i]].ljust(widths[i]) for i, c in enumerate(r)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000", help="dump sizes in workloads, comma separated (default 100,1000)")
    ap.add_argument("--full", action="store_true", help="add 10,000 workloads to the dump sizes")
    ap.add_argument("--repeats", type=int, default=3, help="measured runs per figure (median; default 3)")
    ap.add_argument("--wall-size", type=int, default=1000, help="dump size for the whole-process figures (0 = skip)")
    ap.add_argument("--live", action="store_true", help="run the live mode on the test kube-apiserver")
    ap.add_argument("--live-workloads", type=int, default=100, help="workloads loaded into the test cluster")
    ap.add_argument("--fleet", action="store_true", help="run fleet get -A over three test kube-apiservers")
    ap.add_argument(
        "--fleet-workloads",
        type=int,
        default=int(os.environ.get("WMAP_BENCH_FLEET_WORKLOADS") or 100),
        help="workloads per fleet cluster (default $WMAP_BENCH_FLEET_WORKLOADS or 100; the issue's size: 1000)",
    )
    ap.add_argument("--go", action="store_true", help="wmap against the Go baseline (bench/bench_gobaseline.py)")
    ap.add_argument("--go-sizes", default="10,100,1000,5000", help="dump sizes of --go (default 10,100,1000,5000)")
    ap.add_argument("--profile", action="store_true", help="profile missed targets with pyinstrument")
    ap.add_argument("--jq-seconds", type=float, default=0.3, help="seconds per jq throughput case")
    ap.add_argument(
        "--before-src",
        type=Path,
        default=None,
        help="src/ of another checkout (e.g. a worktree of main): its `wmap get` is measured as 'before' in faststart",
    )
    ap.add_argument("--skip", default="", help="comma list of sections to skip: dump,startup,faststart,jq,fit")
    ap.add_argument("-o", "--output", type=Path, default=None, help="results JSON (default bench/results/<ts>.json)")
    args = ap.parse_args(argv)

    sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()} | ({10000} if args.full else set()))
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    started = time.time()
    info = machine()
    print(
        f"machine: {info['cpu']}, {info['cpus']} CPUs, {info['memory_gb']} GB, Python {info['python']}, "
        f"{info['commit']}"
    )
    figures: list[Figure] = []
    details: dict[str, Any] = {}
    failures: dict[str, str] = {}

    def section(name: str, fn: Any) -> None:
        if name in skip:
            return
        t = time.perf_counter()
        try:
            figs, det = fn()
        except Exception as exc:  # one broken section must not lose the others
            import traceback

            traceback.print_exc()
            failures[name] = f"{type(exc).__name__}: {exc}"
            return
        figures.extend(figs)
        details[name] = det
        print(f"[{name} done in {time.perf_counter() - t:.0f}s]", flush=True)

    import bench_dump
    import bench_faststart
    import bench_jq
    import bench_startup

    wall_size = args.wall_size if args.wall_size else None
    section("dump", lambda: bench_dump.run(sizes, repeats=args.repeats, wall_size=wall_size))
    section(
        "startup",
        lambda: bench_startup.run(
            repeats=max(10, args.repeats), memory_sizes=[s for s in sizes if s <= 1000][-1:] or sizes[:1]
        ),
    )
    section("faststart", lambda: bench_faststart.run(repeats=max(7, args.repeats), before_src=args.before_src))
    section("jq", lambda: bench_jq.run(seconds=args.jq_seconds))
    if 1000 in sizes:
        import bench_fit

        section("fit", lambda: bench_fit.run(1000, repeats=args.repeats))
    if args.live:
        import bench_live

        section("live", lambda: bench_live.run(workloads=args.live_workloads, repeats=args.repeats))
    if args.fleet:
        import bench_fleet

        section("fleet", lambda: bench_fleet.run(workloads=args.fleet_workloads, repeats=args.repeats))
    if args.go:
        import bench_gobaseline

        go_sizes = [int(s) for s in args.go_sizes.split(",") if s.strip()]
        section("go", lambda: bench_gobaseline.run(go_sizes, repeats=max(5, args.repeats)))
    if args.profile:
        import bench_profile

        section("profile", lambda: bench_profile.run(size=1000 if 1000 in sizes else sizes[-1]))

    print()
    print(table(figures))
    for name, why in failures.items():
        print(f"SECTION FAILED: {name}: {why}")
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    out = args.output or RESULTS_DIR / f"{stamp}.json"
    out.write_text(
        json.dumps(
            {
                "started": dt.datetime.fromtimestamp(started, dt.UTC).isoformat(),
                "seconds": round(time.time() - started, 1),
                "machine": info,
                "args": vars(args) | {"output": str(out)},
                "figures": [f.to_json() for f in figures],
                "details": details,
                "failures": failures,
            },
            indent=2,
            default=str,
        )
    )
    print(f"\nresults: {out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
