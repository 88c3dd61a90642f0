"""`wmap serve`'s live model under churn, on the genuine test kube-apiserver (issue 12, item 5).

The generated cluster is loaded as `bench_live` loads it. Then:
- initial sync: `LiveModel.start()` (list + resolve everything) against `wmap get -A` read through the same
  live layer in the same run (both in process, warm);
- churn: a separate process patches pod status (Ready flips) and workload status (a condition message) at a
  fixed rate through the API; the serving process (the model, its watches and its applier; a child of this
  one, so its CPU and RSS are its own) records when each written resourceVersion was reflected in the
  model's answer (after its batch was re-resolved and `version` bumped). Freshness = that time minus the
  time the PATCH returned. Figures per rate: events applied/s, freshness p50/p99, CPU seconds per event
  (process CPU of the serving process over the window) and RSS.

    python bench/bench_serve.py --workloads 100 --rates 100,300 --seconds 10
    python bench/bench_serve.py                      # 1,000 workloads, rates 100,250,500,1000
Child modes (internal): `child model KUBECONFIG SPEC_JSON`, `child churn KUBECONFIG RATE SECONDS TARGETS_JSON`.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import NAMESPACES, SEED, Figure

CHURN_THREADS = 8
WORKLOAD_SHARE = 10  # one workload status patch per this many patches; the rest are pod status patches


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _peak_mb() -> float:
    """VmHWM, this process's own peak: ru_maxrss of a child started with vfork/exec keeps the parent's
    high-water mark (Linux records the old address space's at exec), which made earlier peaks the parent's."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def deep_size(objects: Any) -> int:
    """Bytes of ``objects`` and everything they reach, each object counted once (shared strings and dicts
    once): what holding them costs, allocator overhead aside."""
    seen: set[int] = set()
    total = 0
    stack = [objects]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple)):
            stack.extend(obj)
    return total


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ----------------------------------------------------------------------------------------------- churn child
def churn(kubeconfig: str, rate: float, seconds: float, targets: list[dict[str, Any]]) -> dict[str, Any]:
    """Patch the targets round-robin at ``rate`` patches/s for ``seconds``; return each write's
    resourceVersion and the wall time its PATCH returned."""
    from workload_map.sources.kube.connection import ClusterError, ConnectionOptions, connect

    conn = connect(ConnectionOptions(kubeconfig=kubeconfig))
    pool = conn.api_client.rest_client.pool_manager
    if hasattr(pool, "connection_pool_kw"):
        pool.connection_pool_kw["maxsize"] = CHURN_THREADS
    writes: list[tuple[str, float]] = []
    errors = 0
    lock = threading.Lock()
    flips = [0] * len(targets)

    def patch(i: int) -> None:
        nonlocal errors
        target = targets[i % len(targets)]
        n = flips[i % len(targets)] = flips[i % len(targets)] + 1
        if target["kind"] == "Pod":
            body: dict[str, Any] = {
                # the message makes every patch a change (a no-op patch writes no event)
                "status": {
                    "conditions": [{"type": "Ready", "status": "False" if n % 2 else "True", "message": f"churn {n}"}]
                }
            }
            content_type = "application/strategic-merge-patch+json"
        else:
            conditions = [dict(c) for c in target["conditions"]]
            conditions[0]["message"] = f"churn {i}"  # unique: a workload recurs among the targets
            body = {"status": {"conditions": conditions}}
            content_type = "application/merge-patch+json"
        try:
            out = conn.request("PATCH", target["path"] + "/status", body=body, content_type=content_type)
        except ClusterError:
            with lock:
                errors += 1
            return
        done = time.time()
        with lock:
            writes.append((str(out["metadata"]["resourceVersion"]), done))

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=CHURN_THREADS) as ex:
        i = 0
        while True:
            due = start + i / rate
            now = time.monotonic()
            if due - start >= seconds:
                break
            if due > now:
                time.sleep(due - now)
            ex.submit(patch, i)
            i += 1
    elapsed = time.monotonic() - start
    conn.close()
    return {"writes": writes, "errors": errors, "sent": i, "seconds": elapsed}


def _targets(model: Any) -> list[dict[str, Any]]:
    """Owned pods and workloads with status conditions, interleaved one workload per WORKLOAD_SHARE."""
    from workload_map.sources.kube.connection import resource_path

    assert model.source is not None
    paths: dict[tuple[str, str], tuple[str, str, str, bool]] = {}
    for listed in model.source.lists:
        res = listed.resource
        paths[(res.api_version, res.kind)] = (res.group, res.version, res.plural, res.namespaced)
    pods, workloads = [], []
    for obj in model._forest.objects.values():  # the bench reads the store; pods are projected, workloads are not
        where = paths.get((obj.get("apiVersion"), obj.get("kind")))
        md = obj.get("metadata") or {}
        if where is None:
            continue
        group, version, plural, namespaced = where
        path = resource_path(group, version, plural, md.get("namespace") if namespaced else None) + "/" + md["name"]
        if obj["kind"] == "Pod":
            if md.get("ownerReferences"):
                pods.append({"kind": "Pod", "path": path})
        elif not md.get("ownerReferences"):
            conditions = (obj.get("status") or {}).get("conditions")
            if isinstance(conditions, list) and conditions and isinstance(conditions[0], dict):
                workloads.append({"kind": obj["kind"], "path": path, "conditions": conditions})
    out: list[dict[str, Any]] = []
    for i, pod in enumerate(pods[:2000]):
        out.append(pod)
        if workloads and i % (WORKLOAD_SHARE - 1) == 0:
            out.append(workloads[(i // (WORKLOAD_SHARE - 1)) % len(workloads)])
    return out


# ----------------------------------------------------------------------------------------------- model child
def model_child(kubeconfig: str, spec: dict[str, Any]) -> dict[str, Any]:
    from workload_map.live.model import LiveModel
    from workload_map.sources.kube import LiveOptions

    applied: dict[str, float] = {}  # resourceVersion -> when its batch was reflected in the answer
    batches: list[tuple[int, float]] = []  # (events, seconds applying them) per batch

    loaded: list[float] = []

    class Recording(LiveModel):
        def _load(self, snapshot: Any, *, projected: bool = False) -> None:
            began = time.perf_counter()
            super()._load(snapshot, projected=projected)
            loaded.append(time.perf_counter() - began)

        def _apply(self, batch: list[tuple[str, Any, Any]]) -> None:
            began = time.perf_counter()
            super()._apply(batch)
            batches.append((len(batch), time.perf_counter() - began))
            done = time.time()
            for kind, payload, _extra in batch:
                if kind in ("ADDED", "MODIFIED", "DELETED") and isinstance(payload, dict):
                    rv = (payload.get("metadata") or {}).get("resourceVersion")
                    if rv:
                        applied[str(rv)] = done

    import bench_live
    import workload_map as wm

    wm.effective_definitions()  # the catalog from its cache, as get -A below finds it
    out: dict[str, Any] = {"rss_mb_before": _rss_mb()}
    model = Recording(
        LiveOptions(kubeconfig=kubeconfig),
        **({"watch_seconds": spec["watch_seconds"]} if spec.get("watch_seconds") else {}),
    )
    cpu0 = time.process_time()
    model.start()
    sync_cpu = time.process_time() - cpu0
    peak_sync = _peak_mb()  # before get -A below holds every full object
    gc.collect()
    rss_synced = _rss_mb()
    # The baseline in this process after the sync: same imports, caches and machine load.
    gets = []
    for _ in range(2):
        began = time.perf_counter()
        bench_live.wmap_get(kubeconfig)
        gets.append(time.perf_counter() - began)
    out["get_seconds"] = gets
    out["load_seconds"] = loaded[0] if loaded else None
    gc.collect()
    out["rss_mb_after_get"] = _rss_mb()
    gang_began = time.perf_counter()
    planned = sum(len(r.gang_groups) for r in model.workloads())  # what the first scrape plans
    gang_seconds = time.perf_counter() - gang_began
    pods = [o for o in model._forest.objects.values() if o.get("kind") == "Pod"]
    owned = [p for p in pods if (p.get("metadata") or {}).get("ownerReferences")]
    out.update(
        sync_seconds=model.sync_seconds,
        sync_cpu_seconds=sync_cpu,
        workloads=len(model.workloads()),
        objects=len(model._forest.objects),
        pods=len(pods),
        rss_mb_synced=rss_synced,
        rss_mb_peak_sync=peak_sync,
        first_gang_plans_seconds=gang_seconds,
        gang_groups=planned,
        rss_mb_planned=_rss_mb(),
        store_mb=deep_size(model._forest.objects) / 2**20,
        projected_pod_bytes=deep_size(owned) / len(owned) if owned else None,
    )
    del pods, owned
    time.sleep(1.0)  # the watches settle
    cpu_idle, wall_idle = time.process_time(), time.monotonic()
    time.sleep(spec.get("idle", 10.0))
    out["idle_cpu_share"] = (time.process_time() - cpu_idle) / (time.monotonic() - wall_idle)
    out["watch_seconds"] = model.watch_seconds
    out["watches"] = len(model._watchers)
    targets = _targets(model)
    out["targets"] = len(targets)
    runs = []
    for rate in spec["rates"]:
        time.sleep(1.0)  # let the previous run's tail drain
        applied.clear()
        batches.clear()
        events0 = sum(sum(s.events.values()) for s in model.resources.values())
        cpu0, wall0 = time.process_time(), time.monotonic()
        proc = subprocess.run(
            [sys.executable, __file__, "child", "churn", kubeconfig, str(rate), str(spec["seconds"])],
            input=json.dumps(targets),
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"churn child failed: {proc.stderr[-3000:]}")
        written = json.loads(proc.stdout)
        deadline = time.monotonic() + 30
        pending = {rv for rv, _ in written["writes"]}
        while time.monotonic() < deadline and not pending <= applied.keys():
            time.sleep(0.05)
        caught_up = pending <= applied.keys()
        last = max((applied[rv] for rv in pending if rv in applied), default=time.time())
        wall = time.monotonic() - wall0 - max(0.0, time.time() - last)  # up to the last write reflected
        cpu = time.process_time() - cpu0
        events = sum(sum(s.events.values()) for s in model.resources.values()) - events0
        fresh = [applied[rv] - at for rv, at in written["writes"] if rv in applied]
        runs.append(
            {
                "rate": rate,
                "sent": written["sent"],
                "written": len(written["writes"]),
                "write_errors": written["errors"],
                "write_rate": len(written["writes"]) / written["seconds"],
                "events": events,
                "events_per_s": events / wall if wall > 0 else 0.0,
                "caught_up": caught_up,
                "missing": len(pending - applied.keys()),
                "fresh_p50": _pct(fresh, 0.50),
                "fresh_p99": _pct(fresh, 0.99),
                "fresh_max": max(fresh, default=None),
                "cpu_seconds": cpu,
                "cpu_per_event_ms": 1000 * cpu / events if events else None,
                "rss_mb": _rss_mb(),
                "resolves": model.resolves,
                **_batch_figures(batches),
            }
        )
        print(f"  rate {rate}/s: {json.dumps(runs[-1])}", file=sys.stderr, flush=True)
    out["runs"] = runs
    out["rss_mb_peak_churn"] = _peak_mb()
    if spec.get("replay"):
        pods = _full_pods(model)
        sample = pods[:2000]
        out["full_pod_bytes"] = deep_size(sample) / len(sample)
        out["projected_sample_pod_bytes"] = deep_size([model._project(p) for p in sample]) / len(sample)
        del pods
        seconds = spec["seconds"]
        out["replay"] = [_replay(model, applied, batches, sample, rate=r, seconds=seconds) for r in spec["replay"]]
    out["rss_mb_peak"] = _peak_mb()
    model.stop()
    return out


def _batch_figures(batches: list[tuple[int, float]]) -> dict[str, Any]:
    """What applying costs: seconds per batch (p50/p99) and milliseconds per event over all batches."""
    events = sum(n for n, _ in batches)
    return {
        "batches": len(batches),
        "batch_p50": _pct([s for _, s in batches], 0.50),
        "batch_p99": _pct([s for _, s in batches], 0.99),
        "apply_ms_per_event": 1000 * sum(s for _, s in batches) / events if events else None,
    }


def _full_pods(model: Any) -> list[dict[str, Any]]:
    """Owned pods as the apiserver lists them (the model keeps only their projection)."""
    from workload_map.sources.kube.fetch import list_all

    assert model.source is not None
    resource = next(listed.resource for listed in model.source.lists if listed.resource.kind == "Pod")
    items = list_all(model.source.connection, resource, None).items
    return [p for p in items if (p.get("metadata") or {}).get("ownerReferences")]


def _replay(
    model: Any,
    applied: dict[str, float],
    batches: list[tuple[int, float]],
    pods: list[dict[str, Any]],
    *,
    rate: float,
    seconds: float,
) -> dict[str, Any]:
    """The model alone at ``rate``: pod MODIFIED events (Ready flips of owned pods, full objects as a watch
    delivers them, from a LIST) put on the model's own queue, so the apiserver's write rate on a loaded
    machine is no bound. Freshness = queued -> reflected."""
    import copy

    applied.clear()
    batches.clear()
    queued: dict[str, float] = {}
    cpu0, wall0 = time.process_time(), time.monotonic()
    i = 0
    while True:
        due = wall0 + i / rate
        if due - wall0 >= seconds:
            break
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        pod = copy.deepcopy(pods[i % len(pods)])
        rv = f"replay-{rate:g}-{i}"
        pod["metadata"]["resourceVersion"] = rv
        pod.setdefault("apiVersion", "v1")
        pod.setdefault("kind", "Pod")
        conditions = (pod.setdefault("status", {})).setdefault("conditions", [])
        conditions[:] = [c for c in conditions if c.get("type") != "Ready"]
        conditions.append({"type": "Ready", "status": "False" if (i // len(pods)) % 2 == 0 else "True"})
        queued[rv] = time.time()
        model._queue.put(("MODIFIED", pod, None))
        i += 1
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not queued.keys() <= applied.keys():
        time.sleep(0.02)
    last = max((applied[rv] for rv in queued if rv in applied), default=time.time())
    wall = time.monotonic() - wall0 - max(0.0, time.time() - last)
    cpu = time.process_time() - cpu0
    fresh = [applied[rv] - at for rv, at in queued.items() if rv in applied]
    result = {
        "rate": rate,
        "events": i,
        "events_per_s": i / wall if wall > 0 else 0.0,
        "caught_up": queued.keys() <= applied.keys(),
        "missing": len(queued.keys() - applied.keys()),
        "fresh_p50": _pct(fresh, 0.50),
        "fresh_p99": _pct(fresh, 0.99),
        "fresh_max": max(fresh, default=None),
        "cpu_seconds": cpu,
        "cpu_per_event_ms": 1000 * cpu / i if i else None,
        "rss_mb": _rss_mb(),
        **_batch_figures(batches),
    }
    print(f"  replay {rate}/s: {json.dumps(result)}", file=sys.stderr, flush=True)
    return result


# ----------------------------------------------------------------------------------------------- the benchmark
def run(
    *,
    workloads: int,
    rates: list[float],
    replay: list[float],
    seconds: float,
    idle: float = 10.0,
    watch_seconds: int | None = None,
    log: Any = print,
) -> tuple[list[Figure], dict[str, Any]]:
    import bench_live
    import gen_cluster

    details: dict[str, Any] = {}
    figures: list[Figure] = []
    cluster = bench_live.start_cluster()
    try:
        objects = gen_cluster.generate(workloads, NAMESPACES, SEED)
        crds = bench_live.install_crds(cluster, objects, log)
        loaded = bench_live.load(cluster, objects, crds["served"], log)
        details["load"] = loaded
        pods = loaded["created"].get("Pod", 0)
        del objects
        gc.collect()
        kubeconfig = str(cluster.kubeconfig_path)
        label = f"{workloads} workloads / {pods} pods"
        gets = []
        for _ in range(3):
            t = time.perf_counter()
            rows, _source = bench_live.wmap_get(kubeconfig)
            gets.append(time.perf_counter() - t)
        get_s = statistics.median(gets)
        spec = {"rates": rates, "seconds": seconds, "replay": replay, "idle": idle, "watch_seconds": watch_seconds}
        proc = subprocess.run(
            [sys.executable, __file__, "child", "model", kubeconfig, json.dumps(spec)],
            stdout=subprocess.PIPE,
            stderr=None,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError("model child failed")
        result = json.loads(proc.stdout)
        details["model"] = result
        details["get_rows"] = len(rows)
        figures.append(
            Figure(
                "serve",
                f"initial sync of the model, {label}",
                result["sync_seconds"],
                "s",
                baseline=statistics.median(result["get_seconds"]),
                baseline_name="wmap get -A (live layer), same process after the sync, median of 2",
                note=(
                    f"{result['workloads']} workloads (get -A: {len(rows)} rows); "
                    f"CPU {result['sync_cpu_seconds']:.2f} s; "
                    f"store + resolve {result['load_seconds'] or 0:.2f} s, the rest is the LIST; get -A runs "
                    + ", ".join(f"{g:.2f}" for g in result["get_seconds"])
                    + f" s; in the parent {get_s:.2f} s"
                ),
            )
        )
        figures.append(
            Figure(
                "serve",
                f"RSS after sync, {label}",
                result["rss_mb_synced"],
                "MB",
                target="< 400 MB at 19k pods",
                met=result["rss_mb_synced"] < 400 if pods >= 15000 else None,
                note=(
                    f"interpreter + imports before start: {result['rss_mb_before']:.0f} MB; peak during sync "
                    f"{result['rss_mb_peak_sync']:.0f} MB; after the first scrape's gang plans "
                    f"{result['rss_mb_planned']:.0f} MB"
                ),
            )
        )
        figures.append(
            Figure(
                "serve",
                f"the model's object store, {label}",
                result["store_mb"],
                "MB",
                note=f"{result['objects']} objects; deep size, shared objects once",
            )
        )
        if result.get("full_pod_bytes"):
            figures.append(
                Figure(
                    "serve",
                    "bytes per owned pod, projected",
                    result["projected_pod_bytes"],
                    "B",
                    baseline=result["full_pod_bytes"],
                    baseline_name="the same pods as listed (full, without managedFields), 2,000-pod sample",
                )
            )
        figures.append(
            Figure(
                "serve",
                f"first scrape's gang plans, {label}",
                result["first_gang_plans_seconds"],
                "s",
                note=f"{result['gang_groups']} groups; later scrapes plan only the workloads events changed",
            )
        )
        figures.append(
            Figure(
                "serve",
                f"CPU while idle (watches open, no events), {result['watches']} watches reopened every "
                f"{result['watch_seconds']} s",
                100 * result["idle_cpu_share"],
                "% of a core",
            )
        )
        for r in [*result["runs"], *({**x, "replay": True, "write_rate": x["rate"]} for x in result.get("replay", []))]:
            ok = (
                r["caught_up"]
                and r["fresh_p99"] is not None
                and r["fresh_p99"] < 1.0
                and r["cpu_per_event_ms"] is not None
                and r["cpu_per_event_ms"] <= 2.0
            )
            figures.append(
                Figure(
                    "serve",
                    f"replay {r['rate']:g}/s into the model"
                    if r.get("replay")
                    else f"churn {r['rate']:g}/s written {r['write_rate']:.0f}/s",
                    r["events_per_s"],
                    "events/s",
                    target=">= 500/s on one core (CPU <= 2 ms/event), p99 < 1 s",
                    met=ok if r["write_rate"] >= 450 else None,
                    note=(
                        f"freshness p50 {r['fresh_p50'] or 0:.3f} s p99 {r['fresh_p99'] or 0:.3f} s "
                        f"max {r['fresh_max'] or 0:.3f} s; CPU {r['cpu_per_event_ms'] or 0:.2f} ms/event "
                        f"(= {1000 / r['cpu_per_event_ms'] if r['cpu_per_event_ms'] else 0:.0f} events/s per core); "
                        f"RSS {r['rss_mb']:.0f} MB; missing {r['missing']}; applying "
                        f"{r['apply_ms_per_event'] or 0:.2f} ms/event, a batch p50 {r['batch_p50'] or 0:.3f} s "
                        f"p99 {r['batch_p99'] or 0:.3f} s ({r['batches']} batches)"
                    ),
                )
            )
        figures.append(Figure("serve", f"peak RSS of the serving process, {label}", result["rss_mb_peak"], "MB"))
    finally:
        cluster.stop()
    return figures, details


def main(argv: list[str]) -> int:
    if argv[:1] == ["child"]:
        if argv[1] == "model":
            print(json.dumps(model_child(argv[2], json.loads(argv[3]))))
        else:
            print(json.dumps(churn(argv[2], float(argv[3]), float(argv[4]), json.loads(sys.stdin.read()))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", type=int, default=1000)
    ap.add_argument("--rates", default="100,250,500,1000", help="churn rates, patches/s")
    ap.add_argument("--replay", default="250,500,1000", help="rates of events put straight on the model's queue")
    ap.add_argument("--seconds", type=float, default=15.0, help="churn duration per rate")
    ap.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU measured after the sync")
    ap.add_argument("--watch-seconds", type=int, default=None, help="the model's watch timeout (default: its own)")
    args = ap.parse_args(argv)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    from run import table

    figures, details = run(
        workloads=args.workloads,
        rates=[float(r) for r in args.rates.split(",") if r],
        replay=[float(r) for r in args.replay.split(",") if r],
        seconds=args.seconds,
        idle=args.idle,
        watch_seconds=args.watch_seconds,
    )
    print(table(figures))
    out = Path(__file__).resolve().parent / "results" / time.strftime("serve-%Y%m%dT%H%M%SZ.json", time.gmtime())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"figures": [f.to_json() for f in figures], "details": details}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
