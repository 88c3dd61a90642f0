"""Dump mode: `wmap get -A` and `wmap describe` against the floor of merely parsing the same dump.

In process (click's CliRunner over the real command functions, each run reading the dump again) and as a
whole process (subprocess wall time, against a subprocess that only parses the dump).
"""

from __future__ import annotations

import gc
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import yaml

from bench_common import VENV_BIN, Figure, dump_counts, dump_path, median_time
from workload_map.tree.build import trees_of

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# ----------------------------------------------------------------------------------------------- the floor
def parse_floor(path: Path) -> list[dict[str, Any]]:
    """Read + parse the dump into Python objects, nothing else: the floor every figure is compared with."""
    data = path.read_bytes()
    doc = orjson.loads(data) if path.suffix == ".json" else yaml.load(data, Loader=_Loader)
    return list(doc["items"]) if isinstance(doc, dict) and "items" in doc else [doc]


def parse_floor_no_gc(path: Path) -> list[dict[str, Any]]:
    """The same with the cyclic GC paused: shows how much of the floor is the collector."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return parse_floor(path)
    finally:
        if enabled:
            gc.enable()


def read_documents(path: Path) -> int:
    """The project's own reading layer (located documents), for reference."""
    from workload_map.sources.documents import read_sources

    return len(read_sources([str(path)]))


# ----------------------------------------------------------------------------------------------- commands
def invoke(args: list[str]) -> str:
    """One `wmap` command in process through click (the exact code path of the console script)."""
    from click.testing import CliRunner

    from workload_map.cli.main import cli

    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    if result.exit_code != 0:
        raise RuntimeError(f"wmap {' '.join(args)} exited {result.exit_code}: {result.output[-2000:]}")
    return result.output


def get_args(path: Path) -> list[str]:
    return ["get", "-A", "--from-file", str(path)]


def largest_workload(path: Path) -> tuple[str, str, int]:
    """(TYPE/NAME, namespace, pods) of the top-level workload with the most pods."""
    from workload_map.base.snapshot import Snapshot, namespace_of
    from workload_map.catalog import builtin_definitions
    from workload_map.cli.workloads import kind_name
    from workload_map.resolve.workloads import WorkloadIndex

    view = WorkloadIndex(Snapshot(parse_floor(path)), builtin_definitions())
    best = max(view.workloads(), key=lambda w: len(view.pods_of(w)))
    return kind_name(best), namespace_of(best), len(view.pods_of(best))


def describe_args(path: Path, target: str, namespace: str) -> list[str]:
    return ["describe", target, "-n", namespace, "--from-file", str(path)]


def phases(path: Path) -> dict[str, float]:
    """Where the time of `get -A` goes, through the library calls the command makes."""
    from workload_map.api.definitions import builtin_with_warnings, read_documents, split_dump
    from workload_map.base.snapshot import Snapshot
    from workload_map.cli.commands.get import HEADERS, row
    from workload_map.cli.output import echo_table  # noqa: F401 - imported for parity with the command
    from workload_map.resolve.workloads import WorkloadIndex

    out: dict[str, float] = {}
    t0 = time.perf_counter()
    builtin, _ = builtin_with_warnings()
    t1 = time.perf_counter()
    docs = read_documents([str(path)])
    t2 = time.perf_counter()
    objects, cluster_defs, _ = split_dump(docs)
    snapshot = Snapshot(objects)
    t3 = time.perf_counter()
    view = WorkloadIndex(snapshot, [*builtin, *cluster_defs])
    t4 = time.perf_counter()
    workloads = view.workloads()
    trees, _ = trees_of(view, workloads)
    t5 = time.perf_counter()
    rows = [row(t, wide=False, with_namespace=True) for t in trees]
    t6 = time.perf_counter()
    assert len(rows) == len(workloads) and HEADERS
    out.update(
        catalog=t1 - t0,
        read_parse=t2 - t1,
        snapshot=t3 - t2,
        index_view=t4 - t3,
        resolve_trees=t5 - t4,
        rows=t6 - t5,
    )
    return out


# ----------------------------------------------------------------------------------------------- whole process
FLOOR_SCRIPT = (
    "import sys, orjson, pathlib; d = orjson.loads(pathlib.Path(sys.argv[1]).read_bytes()); print(len(d['items']))"
)


def wall(argv: list[str], repeats: int) -> float:
    def run() -> None:
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    return median_time(run, repeats, warmup=1)[0]


# ----------------------------------------------------------------------------------------------- the benchmark
def run(
    sizes: list[int], *, repeats: int, wall_size: int | None, log: Any = print
) -> tuple[list[Figure], dict[str, Any]]:
    figures: list[Figure] = []
    details: dict[str, Any] = {"sizes": {}}
    per_workload: list[tuple[int, float, float]] = []
    for size in sizes:
        t = time.perf_counter()
        path = dump_path(size)
        log(f"dump {size}: {path.name} ({path.stat().st_size / 1e6:.1f} MB, ready in {time.perf_counter() - t:.1f}s)")
        counts = dump_counts(parse_floor(path))
        n_rep = repeats if size <= 1000 else max(1, repeats // 3)
        floor, floor_s = median_time(lambda p=path: parse_floor(p), n_rep)
        floor_nogc, _ = median_time(lambda p=path: parse_floor_no_gc(p), n_rep)
        docs_t, _ = median_time(lambda p=path: read_documents(p), n_rep)
        out = invoke(get_args(path))
        rows = len(out.splitlines()) - 1
        get_t, get_s = median_time(lambda p=path: invoke(get_args(p)), n_rep)
        target, ns, pods = largest_workload(path)
        desc_argv = describe_args(path, target, ns)
        desc_t, desc_s = median_time(lambda a=desc_argv: invoke(a), n_rep)
        ph = phases(path)
        label = f"{size} workloads / {counts['pods']} pods"
        log(f"  floor {floor:.3f}s (no GC {floor_nogc:.3f}s)  get -A {get_t:.3f}s  describe {desc_t:.3f}s")
        figures.append(
            Figure("dump", f"parse floor (read + orjson), {label}", floor, "s", note=f"GC off: {floor_nogc:.3f}s")
        )
        figures.append(Figure("dump", f"read_sources (documents layer), {label}", docs_t, "s", floor, "floor"))
        fig_get = Figure("dump", f"get -A in process, {label}", get_t, "s", floor, "floor", extra={"rows": rows})
        if counts["pods"] >= 15000 and size == 1000:
            fig_get.target = "<= 2.0x floor"
            fig_get.met = fig_get.ratio is not None and fig_get.ratio <= 2.0
        figures.append(fig_get)
        figures.append(
            Figure("dump", f"describe largest ({target}, {pods} pods), {label}", desc_t, "s", floor, "floor")
        )
        per_workload.append((size, get_t / size, floor / size))
        details["sizes"][str(size)] = {
            "path": str(path),
            "bytes": path.stat().st_size,
            **counts,
            "floor_s": floor,
            "floor_samples": floor_s,
            "floor_no_gc_s": floor_nogc,
            "read_sources_s": docs_t,
            "get_s": get_t,
            "get_samples": get_s,
            "describe_s": desc_t,
            "describe_samples": desc_s,
            "describe_target": f"{target} -n {ns}",
            "phases_s": ph,
            "rows": rows,
        }
        log("  phases: " + ", ".join(f"{k} {v:.3f}s" for k, v in ph.items()))
    for size, get_pw, floor_pw in per_workload:
        figures.append(
            Figure("dump", f"get -A per workload at {size}", get_pw * 1e3, "ms", floor_pw * 1e3, "floor per workload")
        )
    if len(per_workload) >= 2:
        first, last = per_workload[0], per_workload[-1]
        growth = last[1] / first[1]
        figures.append(
            Figure(
                "dump",
                f"linearity: per-workload time {last[0]} vs {first[0]}",
                growth,
                "x",
                target="~1.0 (linear)",
                met=growth <= 1.5,
                note="per-workload cost ratio between largest and smallest size",
            )
        )
    if wall_size is not None:
        path = dump_path(wall_size)
        wmap = str(VENV_BIN / "wmap")
        w_get = wall([wmap, *get_args(path)], repeats)
        w_floor = wall([sys.executable, "-c", FLOOR_SCRIPT, str(path)], repeats)
        w_pass = wall([sys.executable, "-c", "pass"], repeats)
        figures.append(Figure("dump", f"process: python parses dump, {wall_size} workloads", w_floor, "s"))
        figures.append(
            Figure(
                "dump", f"process: wmap get -A --from-file, {wall_size} workloads", w_get, "s", w_floor, "python parse"
            )
        )
        details["wall"] = {"size": wall_size, "get_s": w_get, "parse_s": w_floor, "python_pass_s": w_pass}
    return figures, details
