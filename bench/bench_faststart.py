"""Fast start (issue 20): what one `wmap get -A --from-file` costs as a whole process, on a small cluster.

Every figure is a fresh process measured by the parent with ``os.wait4`` (wall, CPU = user + system of the
process and of every child it waited for, i.e. the libjq worker when one ran, and peak RSS), median of
``repeats``. Inputs: the built-in example (``src/workload_map/examples/ai-cluster.yaml``, 13 workloads) and
the generated 100-workload dump. Each command runs

- **cold**: the first call after install, with an empty cache directory (``WMAP_CACHE_DIR``, fresh for
  every run): the catalog is parsed, validated and compiled (libjq checks every expression) and stored;
- **warm**: every later call, the cache filled by an unmeasured run.

Baselines from the same run: ``python -c pass``, ``wmap --help`` and a Python process that only parses the
same input (PyYAML's C loader for the example, orjson for the JSON dump), so a loaded machine moves both
sides. Bytecode is compiled first (``compileall``, as ``pip install`` does), since PYTHONDONTWRITEBYTECODE
would otherwise make every run compile the sources. After every wmap run no process of its group may be
left (the libjq worker ends with wmap): the count is reported and is a target.
"""

from __future__ import annotations

import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_common import REPO_ROOT, VENV_BIN, Figure, dump_path

EXAMPLE = REPO_ROOT / "src" / "workload_map" / "examples" / "ai-cluster.yaml"
TIME_BIN = "/usr/bin/time"
EXAMPLE_TARGET = 2.0  # x wmap --help, CPU
DUMP_TARGET = 1.5  # x a process that only parses the dump, CPU
YAML_PARSE = (
    "import sys, yaml; from pathlib import Path; "
    "list(yaml.load_all(Path(sys.argv[1]).read_bytes(), Loader=yaml.CSafeLoader))"
)
JSON_PARSE = "import sys, orjson; from pathlib import Path; orjson.loads(Path(sys.argv[1]).read_bytes())"


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mb: float
    left: int  # processes of its group still alive after it ended


def once(argv: list[str], env: dict[str, str]) -> Sample:
    """One run, in a session of its own. CPU comes from ``wait4`` (the process and what it waited for);
    peak RSS from GNU time's ``%M``, because ``ru_maxrss`` of a child forked from this (large) benchmark
    process counts the parent's pages until ``exec``."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        timed = [TIME_BIN, "-f", "%M", "-o", rss.name, *argv] if Path(TIME_BIN).exists() else argv
        start = time.perf_counter()
        proc = subprocess.Popen(
            timed, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise RuntimeError(f"{argv} exited {proc.returncode}")
        text = rss.read().strip().splitlines()
        rss_mb = int(text[-1]) / 1024 if text and text[-1].isdigit() else usage.ru_maxrss / 1024
    return Sample(wall, usage.ru_utime + usage.ru_stime, rss_mb, len(_group(proc.pid)))


def _group(pgid: int) -> list[int]:
    alive = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                alive.append(int(entry.name))
    return alive


def measure(argv: list[str], repeats: int, *, cache: str, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """Median wall/CPU/RSS; ``cache`` is "warm" (one shared, pre-filled directory), "cold" (a new empty
    directory for every run) or "n/a" (the command does not read definitions)."""
    root = Path(tempfile.mkdtemp(prefix="wmap-bench-cache-"))
    try:
        env = dict(os.environ, WMAP_CACHE_DIR=str(root / "warm"), **(extra_env or {}))
        env.pop("WMAP_NO_CACHE", None)
        once(argv, env)  # warm-up: page cache, bytecode; fills the warm cache
        samples = []
        for index in range(repeats):
            if cache == "cold":
                env["WMAP_CACHE_DIR"] = str(root / f"cold-{index}")
            samples.append(once(argv, env))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {
        "wall_s": statistics.median(s.wall for s in samples),
        "cpu_s": statistics.median(s.cpu for s in samples),
        "rss_mb": statistics.median(s.rss_mb for s in samples),
        "left": max(s.left for s in samples),
        "samples": [s.__dict__ for s in samples],
    }


# The warm `get -A --from-file` split into phases, timed with process_time inside one fresh process; what
# the interpreter costs before and after (start, teardown) is the process's CPU minus the phases.
PHASES = """
import io, json, sys, time
from contextlib import redirect_stdout
marks = [("start", time.process_time())]
def mark(name): marks.append((name, time.process_time()))
import click, workload_map.cli.main
mark("click + wmap CLI (what --help loads)")
import pydantic, workload_map.definition.model
mark("pydantic + the definition model")
from workload_map.api.definitions import builtin_with_warnings, read_documents, split_dump
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import trees_of
from workload_map.base.snapshot import Snapshot
from workload_map.cli.commands.get import row
from workload_map.cli.output import echo_table
mark("resolver, jq engine and the rest of get")
builtin, _ = builtin_with_warnings()
mark("built-in catalog from the cache")
docs = read_documents([sys.argv[1]])
mark("read + parse the input")
objects, kartas, _ = split_dump(docs)
view = WorkloadIndex(Snapshot(objects), [*builtin, *kartas])
mark("Snapshot + WorkloadIndex index")
trees, _ = trees_of(view, view.workloads(None, None, top_level=True))
mark("resolve (trees)")
with redirect_stdout(io.StringIO()):
    echo_table(["h"] * 8, [row(t, wide=False, with_namespace=True) for t in trees])
mark("rows + table")
print(json.dumps([[n, (t - marks[i][1]) * 1e3] for i, (n, t) in enumerate(marks[1:])]))
"""


def phases(path: Path, env: dict[str, str]) -> list[tuple[str, float]]:
    """Median per phase over 5 warm runs, and the interpreter's start + teardown."""
    runs: list[list[tuple[str, float]]] = []
    for _ in range(5):
        start_usage = os.times()
        out = subprocess.run(
            [sys.executable, "-c", PHASES, str(path)], capture_output=True, text=True, env=env, check=True
        ).stdout
        end_usage = os.times()
        total = (end_usage.children_user - start_usage.children_user) + (
            end_usage.children_system - start_usage.children_system
        )
        parts = [(name, ms) for name, ms in json.loads(out)]
        parts.append(("interpreter start + teardown", total * 1e3 - sum(ms for _, ms in parts)))
        runs.append(parts)
    return [(name, statistics.median(r[i][1] for r in runs)) for i, (name, _) in enumerate(runs[0])]


def run(
    *, repeats: int, dump_size: int = 100, before_src: Path | None = None, log: Any = print
) -> tuple[list[Figure], dict[str, Any]]:
    """``before_src``: the ``src`` directory of another checkout (e.g. a worktree of the previous
    version), whose ``wmap get`` is measured in the same run on the same inputs as "before"."""
    compileall.compile_dir(str(REPO_ROOT / "src" / "workload_map"), quiet=1)
    wmap = str(VENV_BIN / "wmap")
    dump = dump_path(dump_size)
    commands: dict[str, tuple[list[str], str]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], "n/a"),
        "wmap --help": ([wmap, "--help"], "n/a"),
        "python parses the example (PyYAML C loader)": ([sys.executable, "-c", YAML_PARSE, str(EXAMPLE)], "n/a"),
        f"python parses the {dump_size}-workload dump (orjson)": (
            [sys.executable, "-c", JSON_PARSE, str(dump)],
            "n/a",
        ),
    }
    for label, path in (("example", EXAMPLE), (f"{dump_size} workloads", dump)):
        for cache in ("cold", "warm"):
            commands[f"wmap get -A --from-file {label}, {cache} cache"] = (
                [wmap, "get", "-A", "--from-file", str(path)],
                cache,
            )
    before_env: dict[str, str] = {}
    if before_src is not None:
        compileall.compile_dir(str(before_src / "workload_map"), quiet=1)
        before_env = {"PYTHONPATH": str(before_src)}
        for label, path in (("example", EXAMPLE), (f"{dump_size} workloads", dump)):
            argv = [wmap, "get", "-A", "--from-file", str(path)]
            commands[f"before: wmap get -A --from-file {label}"] = (argv, "n/a")
    results = {}
    for name, (argv, cache) in commands.items():
        extra = before_env if name.startswith("before") else {}
        results[name] = measure(argv, repeats, cache=cache, extra_env=extra)
        r = results[name]
        log(f"  {name}: wall {r['wall_s'] * 1e3:.0f} ms, CPU {r['cpu_s'] * 1e3:.0f} ms, RSS {r['rss_mb']:.0f} MB")

    help_ = results["wmap --help"]
    parse_example = results["python parses the example (PyYAML C loader)"]
    parse_dump = results[f"python parses the {dump_size}-workload dump (orjson)"]
    figures: list[Figure] = []

    def add(name: str, metric: str, baseline: dict[str, Any] | None, baseline_name: str, **kw: Any) -> Figure:
        r = results[name]
        unit = "MB" if metric == "rss_mb" else "ms"
        scale = 1.0 if metric == "rss_mb" else 1e3
        what = {"wall_s": "wall", "cpu_s": "CPU", "rss_mb": "peak RSS"}[metric]
        fig = Figure(
            "faststart",
            f"{name}: {what}",
            r[metric] * scale,
            unit,
            baseline[metric] * scale if baseline else None,
            baseline_name,
            **kw,
        )
        figures.append(fig)
        return fig

    for name in ("python -c pass", "wmap --help"):
        add(name, "cpu_s", None, "")
    add("python parses the example (PyYAML C loader)", "cpu_s", help_, "wmap --help")
    add(f"python parses the {dump_size}-workload dump (orjson)", "cpu_s", help_, "wmap --help")
    for label, parse, parse_name in (
        ("example", parse_example, "parse only"),
        (f"{dump_size} workloads", parse_dump, "parse only"),
    ):
        for cache in ("cold", "warm"):
            name = f"wmap get -A --from-file {label}, {cache} cache"
            if label == "example":
                cpu = add(name, "cpu_s", help_, "wmap --help")
                if cache == "warm":
                    cpu.target = f"<= {EXAMPLE_TARGET:g}x wmap --help"
                    cpu.met = cpu.ratio is not None and cpu.ratio <= EXAMPLE_TARGET
            else:
                cpu = add(name, "cpu_s", parse, parse_name)
                if cache == "warm":
                    cpu.target = f"<= {DUMP_TARGET:g}x parse only"
                    cpu.met = cpu.ratio is not None and cpu.ratio <= DUMP_TARGET
            wall_base, wall_name = (help_, "wmap --help") if label == "example" else (parse, parse_name)
            add(name, "wall_s", wall_base, wall_name)
            add(name, "rss_mb", parse, parse_name)
    if before_src is not None:
        for label in ("example", f"{dump_size} workloads"):
            before = results[f"before: wmap get -A --from-file {label}"]
            add(f"before: wmap get -A --from-file {label}", "cpu_s", help_, "wmap --help")
            figures.append(
                Figure(
                    "faststart",
                    f"wmap get -A --from-file {label}, warm cache: CPU against before",
                    results[f"wmap get -A --from-file {label}, warm cache"]["cpu_s"] * 1e3,
                    "ms",
                    before["cpu_s"] * 1e3,
                    "before",
                )
            )
    breakdown: dict[str, list[tuple[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="wmap-bench-cache-") as warm:
        env = dict(os.environ, WMAP_CACHE_DIR=warm)
        for label, path in (("example", EXAMPLE), (f"{dump_size} workloads", dump)):
            once([wmap, "get", "-A", "--from-file", str(path)], env)  # fills the cache
            breakdown[label] = phases(path, env)
            for name, ms in breakdown[label]:
                figures.append(Figure("faststart profile", f"{label}, warm: {name}", ms, "ms CPU"))
            log(f"  phases ({label}): " + ", ".join(f"{n} {ms:.0f}" for n, ms in breakdown[label]))
    left = max(r["left"] for n, r in results.items() if n.startswith("wmap"))
    figures.append(
        Figure("faststart", "processes left after wmap exits (all runs)", left, "", target="0", met=left == 0)
    )
    commands_json = {n: {"argv": a, "cache": c} for n, (a, c) in commands.items()}
    return figures, {"commands": commands_json, "results": results, "phases_ms": breakdown}
