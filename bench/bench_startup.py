"""Cold start of `wmap --help` / `wmap version` and peak memory of `wmap get -A --from-file`.

Every figure is a fresh subprocess; the baselines (`python -c pass`, a process that only parses the dump)
run in the same venv in the same run.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_common import VENV_BIN, Figure, dump_path

TIME_BIN = "/usr/bin/time"
HELP_TARGET_S = 0.150
MEMORY_TARGET = 3.0


def cold(argv: list[str], repeats: int) -> tuple[float, list[float]]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)  # bytecode cache warm, as after install
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), samples


def peak_rss_bytes(argv: list[str]) -> int:
    """Peak RSS of one child (GNU time's %M when present, else getrusage of a dedicated child)."""
    if Path(TIME_BIN).exists():
        proc = subprocess.run(
            [TIME_BIN, "-f", "WMAP_MAXRSS_KB=%M", *argv],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        match = re.search(r"WMAP_MAXRSS_KB=(\d+)", proc.stderr)
        if match:
            return int(match.group(1)) * 1024
    # getrusage(RUSAGE_CHILDREN) is a max over every waited child: run it from a fresh intermediary.
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", probe, *argv], check=True, capture_output=True, text=True).stdout
    return int(out.strip()) * 1024


def run(*, repeats: int, memory_sizes: list[int], log: Any = print) -> tuple[list[Figure], dict[str, Any]]:
    figures: list[Figure] = []
    details: dict[str, Any] = {}
    wmap = str(VENV_BIN / "wmap")
    base, base_s = cold([sys.executable, "-c", "pass"], repeats)
    help_t, help_s = cold([wmap, "--help"], repeats)
    ver_t, ver_s = cold([wmap, "version"], repeats)
    imp_t, _ = cold([sys.executable, "-c", "import workload_map.cli.main"], repeats)
    log(
        f"cold start: python -c pass {base * 1e3:.0f} ms, wmap --help {help_t * 1e3:.0f} ms, "
        f"version {ver_t * 1e3:.0f} ms"
    )
    figures.append(Figure("startup", "python -c pass (baseline)", base * 1e3, "ms"))
    figures.append(
        Figure(
            "startup",
            "wmap --help",
            help_t * 1e3,
            "ms",
            base * 1e3,
            "python -c pass",
            target="< 150 ms",
            met=help_t < HELP_TARGET_S,
        )
    )
    figures.append(Figure("startup", "wmap version", ver_t * 1e3, "ms", base * 1e3, "python -c pass"))
    figures.append(
        Figure("startup", "python -c 'import workload_map.cli.main'", imp_t * 1e3, "ms", base * 1e3, "python -c pass")
    )
    details["cold_start"] = {"python_pass": base_s, "help": help_s, "version": ver_s}
    floor_script = "import sys, orjson, pathlib; orjson.loads(pathlib.Path(sys.argv[1]).read_bytes())"
    for size in memory_sizes:
        path = dump_path(size)
        on_disk = path.stat().st_size
        rss = peak_rss_bytes([wmap, "get", "-A", "--from-file", str(path)])
        rss_parse = peak_rss_bytes([sys.executable, "-c", floor_script, str(path)])
        log(
            f"peak RSS at {size}: wmap {rss / 1e6:.0f} MB, parse only {rss_parse / 1e6:.0f} MB, "
            f"dump {on_disk / 1e6:.0f} MB"
        )
        figures.append(Figure("memory", f"dump size on disk, {size} workloads", on_disk / 1e6, "MB"))
        figures.append(
            Figure(
                "memory",
                f"peak RSS python parse only, {size} workloads",
                rss_parse / 1e6,
                "MB",
                on_disk / 1e6,
                "dump size",
            )
        )
        figures.append(
            Figure(
                "memory",
                f"peak RSS wmap get -A, {size} workloads",
                rss / 1e6,
                "MB",
                on_disk / 1e6,
                "dump size",
                target="< 3.0x dump size",
                met=rss < MEMORY_TARGET * on_disk,
            )
        )
        details[f"memory_{size}"] = {"dump_bytes": on_disk, "wmap_rss": rss, "parse_rss": rss_parse}
    return figures, details
