"""Fleet mode: `wmap get -A` over three genuine kube-apiservers against one of them, and `fit` per cluster.

Three test clusters (each its own etcd) are loaded with generated clusters of the same size (bench/gen,
seeds SEED, SEED+1, SEED+2), one kubeconfig holds a context for each; then whole `wmap` processes are timed:
`get -A --context c0` (each cluster alone) and `get -A --context c0 --context c1 --context c2`. The figure
is the fleet's time as a ratio to the slowest single cluster's (about 1.0 when the clusters are read at the
same time; about 3.0 if they were read one after the other), with the sum of the three as a reference.
The CPU seconds of the client (the wmap process) and of the servers (the three kube-apiservers and etcds)
are measured for every run: on a machine with few cores they bound the fleet's time whatever the client
does (a fleet needs three clusters' worth of both).

``--processes`` also times the same read through the library two ways in a whole process each: one thread
per cluster (what ``open_fleet`` does) and one forked process per cluster returning its rows (the
alternative when the client's CPU work, serial under the GIL, is what a fleet waits for).

``--fit`` loads each cluster's capacity model once (``open_fleet(..., capacity=True)``) and times
``view.fit(workload)`` for every workload of that cluster (median of ``--repeats``), per cluster.

    python bench/bench_fleet.py [--workloads 100] [--repeats 3] [--load etcd|api] [--processes] [--fit]
    WMAP_BENCH_FLEET_WORKLOADS=1000 python bench/bench_fleet.py --processes --fit   # the issue's size

The clusters are loaded straight into etcd by default (bench/etcd_load.py: seconds per cluster instead of
minutes of writes through the API server); ``--load api`` writes through the API server as bench_live does.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import NAMESPACES, SEED, Figure, machine

CLUSTERS = 3
WMAP = [str(Path(sys.executable).parent / "wmap")]
WORKLOADS_ENV = "WMAP_BENCH_FLEET_WORKLOADS"
FIT_TARGET_MS = 50.0


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


def _server_cpu(clusters: list[Any]) -> float:
    """CPU seconds the clusters' kube-apiservers and etcds have used so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for cluster in clusters:
        for proc in (cluster._apiserver, cluster._etcd):
            if proc is None:
                continue
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / tick


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(argv: list[str], clusters: list[Any]) -> tuple[float, float, float, subprocess.CompletedProcess[str]]:
    """Wall seconds, client CPU seconds and server CPU seconds of one whole process."""
    client, server = _children_cpu(), _server_cpu(clusters)
    began = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - began
    return seconds, _children_cpu() - client, _server_cpu(clusters) - server, proc


def _get(kubeconfig: Path, contexts: list[str], clusters: list[Any]) -> dict[str, Any]:
    """One whole `wmap get -A` process: wall and CPU seconds, exit code and rows."""
    argv = [*WMAP, "get", "-A", "--kubeconfig", str(kubeconfig), "-o", "name"]
    argv += [arg for context in contexts for arg in ("--context", context)]
    seconds, client, server, proc = _timed(argv, clusters)
    if proc.returncode not in (0, 5):
        raise RuntimeError(f"{' '.join(argv)}: exit {proc.returncode}: {proc.stderr[-2000:]}")
    return {"s": seconds, "client_cpu": client, "server_cpu": server, "code": proc.returncode, "rows": proc.stdout}


def _library_read(kubeconfig: Path, contexts: list[str], mode: str, clusters: list[Any]) -> dict[str, Any]:
    """`python bench_fleet.py child MODE ...` as a whole process: the library read, rows of every cluster."""
    argv = [sys.executable, str(Path(__file__).resolve()), "child", mode, str(kubeconfig), *contexts]
    seconds, client, server, proc = _timed(argv, clusters)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {proc.returncode}: {proc.stderr[-2000:]}")
    return {"s": seconds, "client_cpu": client, "server_cpu": server, "rows": proc.stdout}


def _rows_of(kubeconfig: str, context: str) -> list[list[str]]:
    import workload_map as wm
    from workload_map.cli.commands.get import row

    view = wm.open_cluster(kubeconfig=kubeconfig, context=context, all_namespaces=True)
    return [[context, *row(tree, wide=False, with_namespace=True)] for tree in view.workloads()]


def child(argv: list[str]) -> int:
    """``threads KUBECONFIG CONTEXT...``: open_fleet (one thread per cluster) then the rows of each;
    ``processes KUBECONFIG CONTEXT...``: one forked process per cluster reads, resolves and sends its rows."""
    mode, kubeconfig, contexts = argv[0], argv[1], argv[2:]
    import workload_map as wm
    from workload_map.api.definitions import builtin_with_warnings
    from workload_map.cli.commands.get import row

    rows: list[list[str]] = []
    if mode == "threads":
        with wm.open_fleet(contexts=contexts, kubeconfig=kubeconfig, all_namespaces=True) as fleet:
            for item in fleet.workloads():
                rows.append([item.cluster, *row(item.tree, wide=False, with_namespace=True)])
    else:
        import multiprocessing
        import pickle

        builtin_with_warnings()  # the catalog loaded once, before the fork: every child has it
        fork = multiprocessing.get_context("fork")
        readers = []
        for context in contexts:
            receive, send = fork.Pipe(duplex=False)

            def read(context: str = context, send: Any = send) -> None:
                send.send_bytes(pickle.dumps(_rows_of(kubeconfig, context)))
                os._exit(0)  # the cluster's objects are not freed one by one: the process ends

            process = fork.Process(target=read)
            process.start()
            readers.append((receive, process))
        for receive, process in readers:
            rows.extend(pickle.loads(receive.recv_bytes()))
            process.join()
    sys.stdout.write("".join(" ".join(r[:3]) + "\n" for r in rows))
    return 0


def _median(values: list[float]) -> float:
    return statistics.median(values)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _fit_latency(kubeconfig: Path, contexts: list[str], repeats: int, log: Any) -> dict[str, Any]:
    """Per cluster: ``view.fit`` of each of its workloads (median of ``repeats``), the model loaded once."""
    import workload_map as wm

    began = time.perf_counter()
    fleet = wm.open_fleet(contexts=contexts, kubeconfig=str(kubeconfig), all_namespaces=True, capacity=True)
    opened = time.perf_counter() - began
    out: dict[str, Any] = {"open_s": opened}
    try:
        for context in contexts:
            view = fleet.view(context)
            began = time.perf_counter()
            capacity = view.capacity()
            model_s = time.perf_counter() - began
            samples: list[float] = []
            slowest = (0.0, "")
            fits = 0
            for tree in view.workloads():
                fits += view.fit(tree.workload).fits
                runs = []
                for _ in range(repeats):
                    start = time.perf_counter()
                    view.fit(tree.workload)
                    runs.append((time.perf_counter() - start) * 1000)
                ms = _median(runs)
                samples.append(ms)
                slowest = max(slowest, (ms, f"{tree.kind}/{tree.namespace}/{tree.name}"))
            out[context] = {
                "nodes": len(capacity.nodes),
                "model_s": model_s,
                "workloads": len(samples),
                "fits": fits,
                "median_ms": _median(samples),
                "p95_ms": _p95(samples),
                "max_ms": slowest[0],
                "slowest": slowest[1],
            }
            c = out[context]
            log(
                f"fit {context}: {c['workloads']} workloads ({fits} fit) on {c['nodes']} nodes, model {model_s:.2f}s: "
                f"median {c['median_ms']:.2f} ms, p95 {c['p95_ms']:.2f} ms, max {c['max_ms']:.1f} ms {slowest[1]}"
            )
    finally:
        fleet.close()
    return out


def setup(workloads: int, load: str, log: Any) -> tuple[list[Any], list[dict[str, int]]]:
    """Three started test clusters, each loaded with a generated cluster (seeds SEED..SEED+2), loaded at
    the same time (establishing the CRDs is mostly waiting)."""
    from concurrent.futures import ThreadPoolExecutor

    import bench_live
    import etcd_load
    import gen_cluster

    clusters: list[Any] = []

    def one(index: int) -> dict[str, int]:
        began = time.perf_counter()
        cluster = clusters[index]
        objects = gen_cluster.generate(workloads, NAMESPACES, SEED + index)
        crds = bench_live.install_crds(cluster, objects, log)
        if load == "etcd":
            loaded = etcd_load.load(cluster, objects, crds["served"], log)
            etcd_load.wait_listed(cluster, "pods", int(loaded["created"].get("Pod", 0)))
        else:
            loaded = bench_live.load(cluster, objects, crds["served"], log)
        created = loaded["created"]
        size = {"pods": int(created.get("Pod", 0)), "nodes": int(created.get("Node", 0))}
        log(f"fleet: cluster c{index} loaded in {time.perf_counter() - began:.1f}s: {size}")
        return size

    try:
        began = time.perf_counter()
        for _ in range(CLUSTERS):  # from the main thread: a cluster's processes end with the thread that started them
            clusters.append(bench_live.start_cluster())
        log(f"fleet: {CLUSTERS} test clusters up in {time.perf_counter() - began:.1f}s")
        with ThreadPoolExecutor(max_workers=CLUSTERS) as pool:
            sizes = list(pool.map(one, range(CLUSTERS)))
    except BaseException:
        for cluster in clusters:
            cluster.stop()
        raise
    return clusters, sizes


def run(
    *,
    workloads: int,
    repeats: int,
    load: str = "etcd",
    processes: bool = False,
    fit: bool = False,
    log: Any = print,
) -> tuple[list[Figure], dict[str, Any]]:
    import tempfile

    details: dict[str, Any] = {"workloads_per_cluster": workloads, "clusters": CLUSTERS, "load": load}
    clusters, sizes = setup(workloads, load, log)
    try:
        details["sizes"] = sizes
        kubeconfig = _kubeconfig(Path(tempfile.mkdtemp(prefix="wmap-bench-fleet-")) / "kubeconfig", clusters)
        contexts = [f"c{i}" for i in range(CLUSTERS)]
        for context in contexts:
            _get(kubeconfig, [context], clusters)  # warm the definition cache, the page cache, the watch caches
        runs: dict[str, list[dict[str, Any]]] = {c: [] for c in [*contexts, "fleet"]}
        if processes:
            runs |= {"threads": [], "processes": []}
        for _ in range(repeats):  # interleaved, so load on the shared machine hits every side alike
            for context in contexts:
                runs[context].append(_get(kubeconfig, [context], clusters))
            runs["fleet"].append(_get(kubeconfig, contexts, clusters))
            if processes:
                runs["threads"].append(_library_read(kubeconfig, contexts, "threads", clusters))
                runs["processes"].append(_library_read(kubeconfig, contexts, "processes", clusters))
        med = {k: {m: _median([r[m] for r in v]) for m in ("s", "client_cpu", "server_cpu")} for k, v in runs.items()}
        rows = {k: len(v[-1]["rows"].splitlines()) for k, v in runs.items()}
        if rows["fleet"] != sum(rows[c] for c in contexts):
            raise RuntimeError(f"the fleet listed {rows['fleet']} rows, the clusters alone {rows}")
        if processes and sorted(runs["processes"][-1]["rows"].splitlines()) != sorted(
            runs["threads"][-1]["rows"].splitlines()
        ):
            raise RuntimeError("one process per cluster listed other rows than one thread per cluster")
        slowest = max(med[c]["s"] for c in contexts)
        total = sum(med[c]["s"] for c in contexts)
        fleet_s = med["fleet"]["s"]
        one_cpu = max(med[c]["client_cpu"] + med[c]["server_cpu"] for c in contexts)
        fleet_cpu = med["fleet"]["client_cpu"] + med["fleet"]["server_cpu"]
        cores = os.cpu_count() or 1
        details.update(
            medians=med, rows=rows, runs={k: [{m: r[m] for m in r if m != "rows"} for r in v] for k, v in runs.items()}
        )
        details["fleet_exit_code"] = runs["fleet"][-1]["code"]
        pods = sum(s["pods"] for s in sizes) // CLUSTERS
        nodes = sum(s["nodes"] for s in sizes) // CLUSTERS
        label = f"{CLUSTERS} clusters x {workloads} workloads / ~{pods} pods / ~{nodes} nodes"
        log(
            f"fleet get -A: {fleet_s:.2f}s over {CLUSTERS} clusters ({rows['fleet']} rows); one cluster "
            + ", ".join(f"{c} {med[c]['s']:.2f}s" for c in contexts)
            + f"; fleet/slowest {fleet_s / slowest:.2f}x, fleet/sum {fleet_s / total:.2f}x"
        )
        log(
            f"CPU seconds (client + servers): one cluster {one_cpu:.2f}, the fleet {fleet_cpu:.2f} "
            f"(client {med['fleet']['client_cpu']:.2f}, servers {med['fleet']['server_cpu']:.2f}); "
            f"on {cores} cores the fleet needs at least {fleet_cpu / cores:.2f}s"
        )
        figures = [
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
                note=f"sum of the three alone {total:.2f}s (ratio {fleet_s / total:.2f}x); CPU floor on {cores} "
                f"cores {fleet_cpu / cores:.2f}s",
            ),
        ]
        if processes:
            threads_s, processes_s = med["threads"]["s"], med["processes"]["s"]
            log(
                f"library read of the fleet: one thread per cluster {threads_s:.2f}s "
                f"(CPU {med['threads']['client_cpu']:.2f}), one process per cluster {processes_s:.2f}s "
                f"(CPU {med['processes']['client_cpu']:.2f}): {processes_s / threads_s:.2f}x"
            )
            figures.append(
                Figure(
                    "fleet",
                    f"library fleet read, one process per cluster, {label}",
                    processes_s,
                    "s",
                    threads_s,
                    "one thread per cluster (open_fleet)",
                    note=f"client CPU {med['processes']['client_cpu']:.2f}s vs {med['threads']['client_cpu']:.2f}s",
                )
            )
        if fit:
            details["fit"] = _fit_latency(kubeconfig, contexts, repeats, log)
            for context in contexts:
                f = details["fit"][context]
                figures.append(
                    Figure(
                        "fleet",
                        f"fit per workload on {context} ({f['workloads']} workloads, {f['nodes']} nodes), median",
                        f["median_ms"] / 1000,
                        "s",
                        target=f"< {FIT_TARGET_MS:.0f} ms",
                        met=f["median_ms"] < FIT_TARGET_MS,
                        note=f"p95 {f['p95_ms']:.2f} ms, max {f['max_ms']:.1f} ms ({f['slowest']})",
                    )
                )
        return figures, details
    finally:
        for cluster in clusters:
            cluster.stop()


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in[:1] == ["child"]:
        return child(args_in[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = int(os.environ.get(WORKLOADS_ENV) or 100)
    ap.add_argument(
        "--workloads", type=int, default=default, help=f"workloads per cluster (default ${WORKLOADS_ENV} or 100)"
    )
    ap.add_argument("--repeats", type=int, default=3, help="measured runs per figure (median)")
    ap.add_argument("--load", choices=("etcd", "api"), default="etcd", help="how the clusters are loaded")
    ap.add_argument("--processes", action="store_true", help="also time the library read, threads vs processes")
    ap.add_argument("--fit", action="store_true", help="also time fit per workload on each cluster")
    ap.add_argument("-o", "--output", type=Path, help="write the figures and details as JSON")
    args = ap.parse_args(args_in)
    info = machine()
    print(f"machine: {info['cpu']}, {info['cpus']} CPUs, Python {info['python']}, {info['commit']}")
    figures, details = run(
        workloads=args.workloads, repeats=args.repeats, load=args.load, processes=args.processes, fit=args.fit
    )
    for f in figures:
        ratio = f" ({f.ratio:.2f}x {f.baseline_name})" if f.ratio is not None else ""
        print(f"{f.name}: {f.value:.4g} {f.unit}{ratio} {f.note}")
    if args.output:
        args.output.write_text(json.dumps({"machine": info, "figures": [f.to_json() for f in figures], **details}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
