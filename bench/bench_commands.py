"""Start-up of every common command (issue 32), whole processes, against `wmap --help` and
`kubectl version --client` in the same run.

    python bench/bench_commands.py                # 7 rounds
    python bench/bench_commands.py --rounds 11
    python bench/bench_commands.py --before-src /tmp/main/src   # also --help and get -A of another checkout

Each command reads the built-in example (``src/workload_map/examples/ai-cluster.yaml``, 13 workloads)
with a warm definitions cache and compiled bytecode, as every call after the first one after install.
A round runs every command once, in a rotated order, so load that drifts during the run reaches every
command alike; a command's ratio is the median over rounds of its CPU over the baseline's in the same
round. ``wmap --help`` is served from the help cache (``workload_map.cmdline.help_cache``); ``wmap --debug
--help`` prints the same text rendered by click, as ``--help`` did before that cache. With ``--before-src``,
that checkout's ``--help`` and ``get -A`` on its own copy of the example (through ``PYTHONPATH`` and
``workload_map.cli.main.main``) run in the same rounds, and their ratio is over that checkout's own
``--help``. Three floors run in the same rounds: the interpreter alone, ``import click`` alone, and get's
answer through the public library with no CLI (``open_dump(...).workloads()``). CPU is ``wait4``'s (the
process and what it waited for: the libjq worker included). kubectl comes
from ``tools/testcluster/build.sh`` (built once and cached; the figure is left out if Go is missing).
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_common import REPO_ROOT, VENV_BIN, Figure, machine, write_results
from bench_faststart import EXAMPLE, Sample, once

WORKLOAD = ("leaderworkerset/vllm-llama-405b", "-n", "ml-serving")
HELP = "wmap --help"
# The same text rendered by click (`--debug` takes the command line off the help cache's path): what --help
# cost before the cache, kept so that get's ratio to a click-rendered help stays visible in the same run.
CLICK_HELP = "wmap --debug --help"
KUBECTL = "kubectl version --client"
GET_TARGET = 2.0  # example get -A, x wmap --help CPU
HELP_TARGET = 1.0  # wmap --help, x kubectl version --client CPU
BEFORE = "before: "
BEFORE_HELP = BEFORE + "--help"
_CLI_MAIN = "import sys\nfrom workload_map.cli.main import main\nsys.exit(main())\n"
# Floors in the same rounds, to show where get's CPU is bound: the interpreter alone, click's import alone,
# and get's answer (every workload's status and pods) through the public library, without the CLI.
FLOOR = "floor: "
_LIBRARY_GET = (
    "import sys\nimport workload_map as wm\n"
    "for w in wm.open_dump(sys.argv[1], namespace=None).workloads().workloads:\n"
    "    print(w.namespace, w.kind, w.name, w.status.primary.value, w.counts.ready, w.counts.desired, w.gpus)\n"
)


def commands(wmap: str, kubectl: str | None, before_src: str | None = None) -> dict[str, list[str]]:
    dump = ("--from-file", str(EXAMPLE))
    python = str(Path(wmap).parent / "python")
    out = {
        HELP: [wmap, "--help"],
        CLICK_HELP: [wmap, "--debug", "--help"],
        "get -A": [wmap, "get", "-A", *dump],
        "get -A -o json": [wmap, "get", "-A", "-o", "json", *dump],
        "describe": [wmap, "describe", *WORKLOAD, *dump],
        "explain": [wmap, "explain", *WORKLOAD, *dump],
        "gang": [wmap, "gang", *WORKLOAD, *dump],
        "update --dry-run": [wmap, "update", *WORKLOAD, "--scheduler-name", "kai-scheduler", "--dry-run", *dump],
        "capacity": [wmap, "capacity", *dump],
        "fit": [wmap, "fit", *WORKLOAD, *dump],
        "completion bash": [wmap, "completion", "bash"],
        "version": [wmap, "version"],
        FLOOR + "python -c pass": [python, "-c", "pass"],
        FLOOR + "import click": [python, "-c", "import click"],
        FLOOR + "library get -A": [python, "-c", _LIBRARY_GET, str(EXAMPLE)],
    }
    if kubectl is not None:
        out[KUBECTL] = [kubectl, "version", "--client"]
    if before_src is not None:
        # Through cli.main's main (every checkout has it; the console script's entry module is newer), as a
        # console script calls it.
        before = ["env", f"PYTHONPATH={before_src}", python, "-c", _CLI_MAIN]
        out[BEFORE_HELP] = [*before, *out[HELP][1:]]
        # its own copy of the example: only the package's own YAML files are kept parsed in the cache
        own_example = Path(before_src) / "workload_map" / "examples" / EXAMPLE.name
        out[BEFORE + "get -A"] = [*before, "get", "-A", "--from-file", str(own_example)]
    return out


def kubectl_binary() -> str | None:
    build = REPO_ROOT / "tools" / "testcluster" / "build.sh"
    proc = subprocess.run(["nice", "-n", "10", "bash", str(build)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        print(f"no kubectl: {build} exited {proc.returncode}", file=sys.stderr)
        return None
    return str(Path(proc.stdout.strip().splitlines()[-1]) / "kubectl")


def rounds(argvs: dict[str, list[str]], n: int, env: dict[str, str]) -> list[dict[str, Sample]]:
    names = list(argvs)
    for name in names:  # warm-up: page cache, the definitions cache, bytecode
        once(argvs[name], env)
    out = []
    for index in range(n):
        shift = index % len(names)
        order = names[shift:] + names[:shift]
        out.append({name: once(argvs[name], env) for name in order})
    return out


def figures(samples: list[dict[str, Sample]]) -> list[Figure]:
    out: list[Figure] = []

    def ratio(name: str, base: str) -> float:
        return statistics.median(r[name].cpu / r[base].cpu for r in samples)

    for name in samples[0]:
        cpu = statistics.median(r[name].cpu for r in samples) * 1e3
        help_cpu = statistics.median(r[HELP].cpu for r in samples) * 1e3
        label = name if name in (HELP, CLICK_HELP, KUBECTL) or name.startswith(FLOOR) else f"wmap {name}"
        fig = Figure("start-up", label, cpu, "ms CPU", help_cpu, HELP)
        fig.extra = {
            "ratio_to_help": ratio(name, HELP),
            "ratio_to_click_help": ratio(name, CLICK_HELP),
            "wall_ms": statistics.median(r[name].wall for r in samples) * 1e3,
            "rss_mb": statistics.median(r[name].rss_mb for r in samples),
        }
        if KUBECTL in samples[0]:
            fig.extra["ratio_to_kubectl"] = ratio(name, KUBECTL)
        fig.note = f"{fig.extra['ratio_to_help']:.2f}x --help, {fig.extra['ratio_to_click_help']:.2f}x click's" + (
            f", {fig.extra['ratio_to_kubectl']:.2f}x kubectl" if "ratio_to_kubectl" in fig.extra else ""
        )
        if name.startswith(BEFORE):
            fig.extra["ratio_to_before_help"] = ratio(name, BEFORE_HELP)
            fig.note += f", {fig.extra['ratio_to_before_help']:.2f}x before's --help"
        if name == "get -A":
            fig.target, fig.met = f"<= {GET_TARGET:g}x --help", fig.extra["ratio_to_help"] <= GET_TARGET
        if name == HELP and "ratio_to_kubectl" in fig.extra:
            fig.target, fig.met = f"<= {HELP_TARGET:g}x kubectl", fig.extra["ratio_to_kubectl"] <= HELP_TARGET
        out.append(fig)
    return out


def run(*, n: int = 7, before_src: str | None = None, log: Any = print) -> tuple[list[Figure], dict[str, Any]]:
    compileall.compile_dir(str(REPO_ROOT / "src" / "workload_map"), quiet=1)
    if before_src is not None:
        compileall.compile_dir(str(Path(before_src) / "workload_map"), quiet=1)
    argvs = commands(str(VENV_BIN / "wmap"), kubectl_binary(), before_src)
    cache = tempfile.mkdtemp(prefix="wmap-bench-cache-")
    try:
        env = dict(os.environ, WMAP_CACHE_DIR=cache)
        env.pop("WMAP_NO_CACHE", None)
        samples = rounds(argvs, n, env)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    figs = figures(samples)
    for fig in figs:
        met = "" if fig.met is None else (" MET" if fig.met else " MISSED")
        log(f"  {fig.name}: {fig.value:.0f} ms CPU ({fig.note}){' ' + fig.target if fig.target else ''}{met}")
    details = {
        "commands": argvs,
        "rounds": [{name: s.__dict__ for name, s in r.items()} for r in samples],
    }
    return figs, details


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7, help="rounds of every command (median; default 7)")
    ap.add_argument("--before-src", help="the src/ of another checkout: its --help and get -A in the same rounds")
    args = ap.parse_args(argv)
    info, load, started = machine(), os.getloadavg(), time.time()
    print(f"machine: {info['cpu']}, {info['cpus']} CPUs, Python {info['python']}, {info['commit']}, load {load}")
    figs, details = run(n=args.rounds, before_src=args.before_src)
    out = write_results("commands", info=info, load=load, started=started, figures=figs, details=details)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
