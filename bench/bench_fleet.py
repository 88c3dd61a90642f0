"""Fleet mode: `wmap get -A` over three genuine kube-apiservers against one of them, in the same run.

Three test clusters (each its own etcd) are loaded with generated clusters of the same size (bench/gen,
seeds SEED, SEED+1, SEED+2), one kubeconfig holds a context for each; then whole `wmap` processes are timed:
`get -A --context c0` (each cluster alone) and `get -A --context c0 --context c1 --context c2`. The figure
is the fleet's time as a ratio to the slowest single cluster's (about 1.0 when the clusters are read at the
same time; about 3.0 if they were read one after the other), with the sum of the three as a reference.

    python bench/bench_fleet.py [--workloads 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import NAMESPACES, SEED, Figure, machine

CLUSTERS = 3
WMAP = [str(Path(sys.executable).parent / "wmap")]


def _kubeconfig(path: Path, clusters: list[Any]) -> Path:
    config: dict[str, Any] = {"apiVersion": "v1", "kind": "Config", "clusters": [], "users": [], "contexts": []}
    for index, cluster in enumerate(clusters):
        name = f"c{index}"
        config["clusters"].append(
            {"name": name, "cluster": {"server": cluster.server, "certificate-authority": str(cluster.ca_path)}}
        )
        config["users"].append({"name": name, "user": {"token": cluster.admin_token}})
        config["contexts"].append({"name": name, "context": {"cluster": name, "user": name}})
    config["current-context"] = "c0"
    path.write_text(json.dumps(config))
    path.chmod(0o600)
    return path


def _get(kubeconfig: Path, contexts: list[str]) -> tuple[float, int, int]:
    """Wall seconds, exit code and rows of one whole `wmap get -A` process."""
    argv = [*WMAP, "get", "-A", "--kubeconfig", str(kubeconfig), "-o", "name"]
    argv += [arg for context in contexts for arg in ("--context", context)]
    began = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - began
    if proc.returncode not in (0, 5):
        raise RuntimeError(f"{' '.join(argv)}: exit {proc.returncode}: {proc.stderr[-2000:]}")
    return seconds, proc.returncode, len(proc.stdout.splitlines())


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def run(*, workloads: int, repeats: int, log: Any = print) -> tuple[list[Figure], dict[str, Any]]:
    import tempfile

    import bench_live
    import gen_cluster

    details: dict[str, Any] = {"workloads_per_cluster": workloads, "clusters": CLUSTERS}
    clusters: list[Any] = []
    try:
        began = time.perf_counter()
        for _ in range(CLUSTERS):
            clusters.append(bench_live.start_cluster())
        log(f"fleet: {CLUSTERS} test clusters up in {time.perf_counter() - began:.1f}s")
        pods: list[int] = []
        for index, cluster in enumerate(clusters):
            objects = gen_cluster.generate(workloads, NAMESPACES, SEED + index)
            crds = bench_live.install_crds(cluster, objects, log)
            loaded = bench_live.load(cluster, objects, crds["served"], log)
            pods.append(int(loaded["created"].get("Pod", 0)))
        details["pods"] = pods
        kubeconfig = _kubeconfig(Path(tempfile.mkdtemp(prefix="wmap-bench-fleet-")) / "kubeconfig", clusters)
        contexts = [f"c{i}" for i in range(CLUSTERS)]
        for context in contexts:
            _get(kubeconfig, [context])  # warm the definition cache and the page cache once per cluster
        singles: dict[str, list[float]] = {c: [] for c in contexts}
        fleet: list[float] = []
        rows: dict[str, int] = {}
        for _ in range(repeats):  # interleaved, so load on the shared machine hits both sides alike
            for context in contexts:
                seconds, _, rows[context] = _get(kubeconfig, [context])
                singles[context].append(seconds)
            seconds, code, rows["fleet"] = _get(kubeconfig, contexts)
            fleet.append(seconds)
            details["fleet_exit_code"] = code
        single = {c: _median(v) for c, v in singles.items()}
        slowest = max(single.values())
        total = sum(single.values())
        fleet_s = _median(fleet)
        details.update(single_s=single, fleet_s=fleet_s, rows=rows, runs={"single": singles, "fleet": fleet})
        label = f"{CLUSTERS} clusters x {workloads} workloads / ~{sum(pods) // len(pods)} pods"
        log(
            f"fleet get -A: {fleet_s:.2f}s over {CLUSTERS} clusters ({rows['fleet']} rows); one cluster "
            + ", ".join(f"{c} {s:.2f}s" for c, s in single.items())
            + f"; fleet/slowest {fleet_s / slowest:.2f}x, fleet/sum {fleet_s / total:.2f}x"
        )
        if rows["fleet"] != sum(rows[c] for c in contexts):
            raise RuntimeError(f"the fleet listed {rows['fleet']} rows, the clusters alone {rows}")
        return [
            Figure("fleet", f"wmap get -A, one cluster (slowest of {CLUSTERS}), {label}", slowest, "s"),
            Figure(
                "fleet",
                f"wmap get -A --context x{CLUSTERS}, {label}",
                fleet_s,
                "s",
                slowest,
                "slowest single cluster",
                target="about the slowest cluster, not the sum",
                met=fleet_s < 0.5 * total,
                note=f"sum of the three alone {total:.2f}s (ratio {fleet_s / total:.2f}x)",
            ),
        ], details
    finally:
        for cluster in clusters:
            cluster.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", type=int, default=100, help="workloads per cluster (default 100)")
    ap.add_argument("--repeats", type=int, default=3, help="measured runs per figure (median)")
    args = ap.parse_args(argv)
    info = machine()
    print(f"machine: {info['cpu']}, {info['cpus']} CPUs, Python {info['python']}, {info['commit']}")
    figures, _ = run(workloads=args.workloads, repeats=args.repeats)
    for f in figures:
        ratio = f" ({f.ratio:.2f}x {f.baseline_name})" if f.ratio is not None else ""
        print(f"{f.name}: {f.value:.2f} {f.unit}{ratio} {f.note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
