"""Shared pieces of the benchmark suite: generated dumps (cached), timing helpers, the machine."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
DUMPS_DIR = RESULTS_DIR / "dumps"  # git-ignored with bench/results/
VENV_BIN = Path(sys.executable).parent
NAMESPACES = 20
SEED = 7
PODS_PER_WORKLOAD = 20

if str(BENCH_DIR) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR))


@dataclass
class Figure:
    """One line of the results table."""

    section: str
    name: str
    value: float
    unit: str
    baseline: float | None = None  # same unit, measured in the same run
    baseline_name: str = ""
    target: str = ""  # human text, e.g. "<= 2.0x floor"
    met: bool | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.baseline in (None, 0):
            return None
        return self.value / self.baseline  # type: ignore[operator]

    def to_json(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["ratio"] = self.ratio
        return out


def median_time(fn: Callable[[], Any], repeats: int, warmup: int = 1) -> tuple[float, list[float]]:
    """Median wall time of ``fn`` over ``repeats`` runs after ``warmup`` unmeasured runs."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), samples


def generator_fingerprint() -> str:
    """Of the generator's sources (bench/gen_cluster.py and the bench/gen package): a cached dump is reused only
    while they are unchanged."""
    digest = hashlib.sha1()
    for path in [BENCH_DIR / "gen_cluster.py", *sorted((BENCH_DIR / "gen").rglob("*.py"))]:
        digest.update(path.relative_to(BENCH_DIR).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:10]


def dump_path(workloads: int, *, suffix: str = ".json", namespaces: int = NAMESPACES, seed: int = SEED) -> Path:
    """A generated dump of ``workloads`` workloads, written once per generator version and reused."""
    path = DUMPS_DIR / f"cluster-w{workloads}-ns{namespaces}-s{seed}-{generator_fingerprint()}{suffix}"
    if not path.exists():
        import gen_cluster

        objects = gen_cluster.generate(workloads, namespaces, seed, pods_per_workload_target=PODS_PER_WORKLOAD)
        tmp = path.with_name(path.stem + ".tmp" + path.suffix)
        gen_cluster.write(objects, tmp)
        tmp.replace(path)
    return path


def dump_counts(objects: list[dict[str, Any]]) -> dict[str, int]:
    pods = sum(1 for o in objects if o.get("kind") == "Pod" and o.get("apiVersion") == "v1")
    return {"objects": len(objects), "pods": pods}


def machine() -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"],
                cwd=REPO_ROOT,
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
        )
    except OSError:
        commit, dirty = "", False
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory_gb": mem_gb,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "commit": commit + ("+dirty" if dirty else ""),
    }


def write_results(
    name: str,
    *,
    info: dict[str, Any],
    load: Any,
    started: float,
    figures: list[Figure],
    details: dict[str, Any],
) -> Path:
    """bench/results/<name>-<UTC time>.json: the machine, the load around the run, its figures and details."""
    out = RESULTS_DIR / f"{name}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    document = {
        "machine": info,
        "load_before": load,
        "load_after": os.getloadavg(),
        "seconds": time.time() - started,
        "figures": [f.to_json() for f in figures],
        "details": details,
    }
    out.write_text(json.dumps(document, indent=1, default=str))
    return out
