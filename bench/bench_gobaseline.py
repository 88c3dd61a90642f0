"""wmap against a Go baseline of our own (issue 32), whole processes, paired and interleaved.

    python bench/bench_gobaseline.py                       # 10, 100, 1,000 and 5,000 workloads
    python bench/bench_gobaseline.py --sizes 10,100 --repeats 7

The baseline is ``bench/gobaseline`` (a small Go program on github.com/itchyny/gojq, built by its
``build.sh`` from the module proxy and cached outside the repository): per top-level workload it compiles
each definition's expressions once and evaluates the root's status (every matched status), every
component's instance ids, pod template and scale, and places each of the workload's pods on a component,
instance and replica key. It reads the same generated dump as wmap and the definitions wmap resolves with
(the built-in catalog as wmap's loader gives it, written once as JSON: the counterpart of wmap's compiled
cache).

Per size, ``wmap get -A --from-file DUMP`` (warm cache, bytecode compiled) and the baseline run in turn,
Go first, ``repeats`` pairs after one unmeasured pair; each figure is the median of the per-pair ratios
wmap/Go, so a machine whose speed drifts moves both sides of a pair. CPU is the process and what it
waited for (``wait4``: the libjq worker included), peak RSS is GNU time's ``%M``.

Before timing, both must agree on every workload's matched statuses and pods per component (wmap's
``get -A -o json``): the run fails on any difference, so the two programs are known to do the same work.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from bench_common import BENCH_DIR, REPO_ROOT, RESULTS_DIR, VENV_BIN, Figure, dump_path, machine, write_results
from bench_faststart import Sample, once

BUILD = BENCH_DIR / "gobaseline" / "build.sh"
SIZES = (10, 100, 1000, 5000)
CPU_TARGETS = {100: 1.5, 1000: 1.0, 5000: 1.0}  # x the Go baseline, CPU (issue 32)
RSS_TARGET = 0.5  # x the Go baseline, peak RSS, at 1,000 and 5,000

# One workload as both programs see it: (namespace, kind, name) -> (matched statuses, pods per component,
# unattributed pods).
Key = tuple[str, str, str]
Summary = dict[Key, tuple[tuple[str, ...], tuple[tuple[str, int], ...], int]]


def build() -> Path:
    out = subprocess.run(["nice", "-n", "10", "bash", str(BUILD)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{BUILD} failed ({out.returncode}): {out.stderr.strip()[-2000:]}")
    return Path(out.stdout.strip().splitlines()[-1])


def definitions_file() -> Path:
    """The built-in catalog as wmap loads it, one JSON list of Kartas (rewritten when the catalog changes)."""
    from workload_map.catalog import builtin_definitions
    from workload_map.definition.schema import KARTA

    # The model is plain dataclasses now and keeps only the fields the author set (to_dict): the schema
    # gives the defaults back, so the Go program sees every field wmap resolves with.
    kartas = [
        KARTA.model_validate(d.karta.to_dict(), by_alias=True).model_dump(mode="json", by_alias=True, exclude_none=True)
        for d in builtin_definitions()
    ]
    text = json.dumps(kartas, sort_keys=True)
    path = RESULTS_DIR / "gobaseline-definitions.json"
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path


def go_summary(lines: Iterable[str]) -> Summary:
    out: Summary = {}
    for line in lines:
        if not line.strip():
            continue
        item = json.loads(line)
        pods = tuple(sorted((name, c["pods"]) for name, c in item["components"].items() if c["pods"]))
        out[(item["namespace"], item["kind"], item["name"])] = (tuple(item["matched"]), pods, item["unattributed"])
    return out


def wmap_summary(document: Any) -> Summary:
    """The same summary from wmap's tree documents (`get -o json`: a List, or one tree)."""
    trees = document.get("items", [document]) if isinstance(document, dict) else []
    out: Summary = {}
    for tree in trees:
        w = tree["workload"]
        per_component = Counter(p["component"] for p in tree.get("pods", []))
        out[(w["namespace"], w["kind"], w["name"])] = (
            tuple(tree["status"]["matched"]),
            tuple(sorted(per_component.items())),
            len(tree.get("unattributed", [])),
        )
    return out


def differences(wmap: Summary, go: Summary, limit: int = 10) -> list[str]:
    """What differs between the two summaries, one line per workload (at most ``limit``, then a count)."""
    lines: list[str] = []
    for key in sorted(wmap.keys() | go.keys()):
        a, b = wmap.get(key), go.get(key)
        if a == b:
            continue
        name = "/".join(key)
        if a is None or b is None:
            lines.append(f"{name}: only {'Go' if a is None else 'wmap'} lists it")
            continue
        for label, x, y in zip(("matched statuses", "pods per component", "unattributed pods"), a, b, strict=True):
            if x != y:
                lines.append(f"{name}: {label}: wmap {x!r}, Go {y!r}")
    if len(lines) > limit:
        lines = [*lines[:limit], f"... and {len(lines) - limit} more"]
    return lines


def agreement(wmap_bin: str, go_bin: Path, definitions: Path, dump: Path, env: dict[str, str]) -> dict[str, Any]:
    go_out = subprocess.run(
        [str(go_bin), str(definitions), str(dump)], capture_output=True, text=True, check=True
    ).stdout
    wmap_out = subprocess.run(
        [wmap_bin, "get", "-A", "--from-file", str(dump), "-o", "json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if wmap_out.returncode not in (0, 4):  # 4: warnings only (docs/cli.md)
        raise RuntimeError(f"wmap get -o json exited {wmap_out.returncode}: {wmap_out.stderr[-2000:]}")
    ours, theirs = wmap_summary(json.loads(wmap_out.stdout)), go_summary(go_out.splitlines())
    pods = sum(n for _, per, _ in ours.values() for _, n in per)
    return {"workloads": len(ours), "pods_placed": pods, "differences": differences(ours, theirs)}


def pairs(a: list[str], b: list[str], repeats: int, env: dict[str, str]) -> Iterator[tuple[Sample, Sample]]:
    """``repeats`` pairs (b, a): b first, then a, after one unmeasured pair."""
    once(b, env), once(a, env)
    for _ in range(repeats):
        go = once(b, env)
        yield once(a, env), go


def _figures(size: int, workloads: int, pods: int, runs: list[tuple[Sample, Sample]]) -> list[Figure]:
    out: list[Figure] = []
    label = f"{size} workloads ({workloads} top-level, {pods:,} pods placed)"
    for metric, unit, scale in (("cpu", "ms", 1e3), ("wall", "ms", 1e3), ("rss_mb", "MB", 1.0)):
        ours = statistics.median(getattr(w, metric) for w, _ in runs) * scale
        theirs = statistics.median(getattr(g, metric) for _, g in runs) * scale
        ratio = statistics.median(getattr(w, metric) / getattr(g, metric) for w, g in runs)
        what = {"cpu": "CPU", "wall": "wall", "rss_mb": "peak RSS"}[metric]
        fig = Figure("go baseline", f"wmap get -A, {label}: {what}", ours, unit, theirs, "Go baseline")
        fig.extra["median_pair_ratio"] = ratio
        if metric == "cpu" and size in CPU_TARGETS:
            fig.target = f"<= {CPU_TARGETS[size]:g}x Go"
            fig.met = ratio <= CPU_TARGETS[size]
        if metric == "rss_mb" and size >= 1000:
            fig.target = f"<= {RSS_TARGET:g}x Go"
            fig.met = ratio <= RSS_TARGET
        fig.note = f"pair ratio {ratio:.2f}x"
        out.append(fig)
    return out


def run(sizes: Iterable[int] = SIZES, *, repeats: int = 5, log: Any = print) -> tuple[list[Figure], dict[str, Any]]:
    go_bin = build()
    definitions = definitions_file()
    compileall.compile_dir(str(REPO_ROOT / "src" / "workload_map"), quiet=1)
    wmap = str(VENV_BIN / "wmap")
    cache = tempfile.mkdtemp(prefix="wmap-bench-cache-")
    env = dict(os.environ, WMAP_CACHE_DIR=cache)
    env.pop("WMAP_NO_CACHE", None)
    figures: list[Figure] = []
    details: dict[str, Any] = {"go_binary": str(go_bin), "sizes": {}}
    try:
        for size in sizes:
            dump = dump_path(size)
            agreed = agreement(wmap, go_bin, definitions, dump, env)
            if agreed["differences"]:
                raise RuntimeError(
                    f"wmap and the Go baseline disagree on {dump.name}:\n  " + "\n  ".join(agreed["differences"])
                )
            log(f"  {size}: agree on {agreed['workloads']} workloads, {agreed['pods_placed']:,} pods placed")
            n = repeats if size < 5000 else max(3, repeats // 2)
            ours = [wmap, "get", "-A", "--from-file", str(dump)]
            runs = list(pairs(ours, [str(go_bin), str(definitions), str(dump)], n, env))
            figures.extend(_figures(size, agreed["workloads"], agreed["pods_placed"], runs))
            details["sizes"][size] = {
                "dump": str(dump),
                "dump_bytes": dump.stat().st_size,
                **agreed,
                "pairs": [{"wmap": w.__dict__, "go": g.__dict__} for w, g in runs],
            }
            for fig in figures[-3:]:
                log(f"  {fig.name}: {fig.value:,.0f} {fig.unit} vs {fig.baseline:,.0f} ({fig.note})")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return figures, details


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="workloads per dump, comma separated")
    ap.add_argument("--repeats", type=int, default=5, help="measured pairs per size (half, at least 3, at 5,000)")
    args = ap.parse_args(argv)
    started = time.time()
    info = machine()
    load = os.getloadavg()
    print(f"machine: {info['cpu']}, {info['cpus']} CPUs, Python {info['python']}, {info['commit']}, load {load}")
    figures, details = run([int(s) for s in args.sizes.split(",") if s.strip()], repeats=args.repeats)
    for fig in figures:
        met = "" if fig.met is None else (" MET" if fig.met else " MISSED")
        target = f" {fig.target}" if fig.target else ""
        print(f"{fig.name}: {fig.value:,.0f} {fig.unit} / Go {fig.baseline:,.0f} = {fig.note}{target}{met}")
    out = write_results("gobaseline", info=info, load=load, started=started, figures=figures, details=details)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
