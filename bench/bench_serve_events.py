"""What the live model's Events cost (live/events.py), on the genuine test kube-apiserver.

A namespace of Deployments (each a ReplicaSet and its pods, written as the controllers would) and many
core/v1 Events: ``--per-pod`` about each pod (more than the store keeps per object), ``--per-root`` about
each Deployment, and ``--stray`` about objects of no workload (dropped on arrival). A child process starts
``LiveModel`` twice as ``wmap serve`` does, with the Events watched and without, and reports once the store
holds what it will keep: the events kept, the store's own size (every object it reaches, counted once) and
the process's RSS (VmRSS) either way.

    python bench/bench_serve_events.py                                # 200 Deployments x 5 pods
    python bench/bench_serve_events.py --workloads 50 --per-pod 30    # quicker
Child mode (internal): ``child KUBECONFIG NAMESPACE EVENTS(0|1) EXPECTED``.
"""

from __future__ import annotations

import argparse
import json
import secrets
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_live import start_cluster
from bench_serve import _rss_mb, deep_size

THREADS = 16


def _stamp(seconds_ago: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - seconds_ago))


def _load(conn: Any, namespace: str, workloads: int, pods: int) -> list[tuple[str, str, str]]:
    """Deployments, their ReplicaSets and pods; returns (kind, name, uid) of every Deployment and pod."""
    labels = {"app": "x"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "main", "image": "nginx"}]}}

    def one(index: int) -> list[tuple[str, str, str]]:
        name = f"web-{index:04d}"
        deployment = conn.request(
            "POST",
            f"/apis/apps/v1/namespaces/{namespace}/deployments",
            body={
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": name},
                "spec": {
                    "replicas": pods,
                    "selector": {"matchLabels": {"app": name}},
                    "template": _labelled(template, name),
                },
            },
        )
        owner = {"apiVersion": "apps/v1", "kind": "Deployment", "name": name, "uid": deployment["metadata"]["uid"]}
        rs = conn.request(
            "POST",
            f"/apis/apps/v1/namespaces/{namespace}/replicasets",
            body={
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {"name": f"{name}-1", "ownerReferences": [{**owner, "controller": True}]},
                "spec": {
                    "replicas": pods,
                    "selector": {"matchLabels": {"app": name}},
                    "template": _labelled(template, name),
                },
            },
        )
        rs_owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{name}-1", "uid": rs["metadata"]["uid"]}
        made = [("Deployment", name, deployment["metadata"]["uid"])]
        for p in range(pods):
            pod = conn.request(
                "POST",
                f"/api/v1/namespaces/{namespace}/pods",
                body={
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"{name}-1-{p}",
                        "labels": {"app": name},
                        "ownerReferences": [{**rs_owner, "controller": True}],
                    },
                    "spec": template["spec"],
                },
            )
            made.append(("Pod", pod["metadata"]["name"], pod["metadata"]["uid"]))
        return made

    with ThreadPoolExecutor(THREADS) as pool:
        return [o for made in pool.map(one, range(workloads)) for o in made]


def _labelled(template: dict[str, Any], name: str) -> dict[str, Any]:
    return {**template, "metadata": {"labels": {"app": name}}}


def _events(conn: Any, namespace: str, about: list[tuple[str, str, str, int]]) -> int:
    """``count`` events about each (kind, name, uid): a message of kubelet's length, spread over an hour."""

    def one(job: tuple[int, tuple[str, str, str, int]]) -> int:
        index, (kind, name, uid, count) = job
        for n in range(count):
            conn.request(
                "POST",
                f"/api/v1/namespaces/{namespace}/events",
                body={
                    "apiVersion": "v1",
                    "kind": "Event",
                    "metadata": {"name": f"e-{index}-{n}"},
                    "involvedObject": {"kind": kind, "name": name, "namespace": namespace, "uid": uid},
                    "type": "Warning" if n % 3 == 0 else "Normal",
                    "reason": "BackOff" if n % 3 == 0 else "Pulled",
                    "message": f"Back-off restarting failed container main in pod {name}_{namespace}({uid})",
                    "count": 1 + n % 7,
                    "firstTimestamp": _stamp(3600 - n),
                    "lastTimestamp": _stamp(3000 - n),
                    "source": {"component": "kubelet", "host": f"node-{index % 40}"},
                },
            )
        return count

    with ThreadPoolExecutor(THREADS) as pool:
        return sum(pool.map(one, enumerate(about)))


def _store_size(store: Any) -> int:
    """The store's dicts (deep_size) plus each figure and the strings it holds that nothing else counted:
    deep_size follows dicts, lists and tuples only, not a slotted dataclass's fields."""
    seen: set[int] = set()
    total = deep_size([store._by_object, store._applied])
    for events in store._by_object.values():
        for event in events.values():
            for value in (event, *(getattr(event, name) for name in event.__slots__)):
                if id(value) not in seen:
                    seen.add(id(value))
                    total += sys.getsizeof(value)
    return total


def child(kubeconfig: str, namespace: str, events: bool, expected: int) -> None:
    from workload_map.live.model import LiveModel
    from workload_map.sources.kube import LiveOptions

    before = _rss_mb()
    model = LiveModel(LiveOptions(kubeconfig=kubeconfig, namespace=namespace, events=events), probe_seconds=0)
    began = time.monotonic()
    model.start()
    deadline = time.monotonic() + 600
    while events and len(model.events) < expected and time.monotonic() < deadline:
        model.wait_for_version(model.version, 1.0)
    settled = time.monotonic() - began
    store = model.events
    print(
        json.dumps(
            {
                "workloads": len(model.workloads()),
                "events_kept": len(store),
                "events_dropped": store.dropped,
                "store_bytes": _store_size(store),
                "rss_mb": _rss_mb(),
                "rss_before_mb": before,
                "seconds": settled,
            }
        )
    )
    model.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", type=int, default=200)
    parser.add_argument("--pods", type=int, default=5)
    parser.add_argument("--per-pod", type=int, default=30)
    parser.add_argument("--per-root", type=int, default=5)
    parser.add_argument("--stray", type=int, default=5000)
    args = parser.parse_args()

    from workload_map.live.events import MAX_EVENTS, PER_OBJECT
    from workload_map.sources.kube import ConnectionOptions, connect

    cluster = start_cluster()
    try:
        conn = connect(ConnectionOptions(kubeconfig=str(cluster.kubeconfig_path)))
        namespace = f"events-{secrets.token_hex(3)}"
        conn.request(
            "POST",
            "/api/v1/namespaces",
            body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        )
        began = time.monotonic()
        objects = _load(conn, namespace, args.workloads, args.pods)
        about = [(k, n, u, args.per_pod if k == "Pod" else args.per_root) for k, n, u in objects]
        about += [("ConfigMap", f"stray-{i}", f"stray-uid-{i}", 1) for i in range(args.stray)]
        written = _events(conn, namespace, about)
        print(f"cluster: {len(objects)} objects, {written} events written in {time.monotonic() - began:.0f} s")
        kept = min(MAX_EVENTS, sum(min(PER_OBJECT, c) for k, _, _, c in about if k != "ConfigMap"))
        results = {}
        for events in (False, True):
            proc = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "child",
                    str(cluster.kubeconfig_path),
                    namespace,
                    str(int(events)),
                    str(kept),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            results[events] = json.loads(proc.stdout.strip().splitlines()[-1])
        with_events, without = results[True], results[False]
        print(json.dumps({"with_events": with_events, "without_events": without}, indent=2))
        kept_now, size = with_events["events_kept"], with_events["store_bytes"]
        print(
            f"events kept {kept_now:,} of {written:,} (expected {kept:,}); store {size / 2**20:.1f} MiB "
            f"({size / max(1, kept_now):.0f} B/event); RSS {with_events['rss_mb']:.0f} MiB with the Events "
            f"watched, {without['rss_mb']:.0f} MiB without"
        )
        conn.close()
    finally:
        cluster.stop()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        child(sys.argv[2], sys.argv[3], sys.argv[4] == "1", int(sys.argv[5]))
    else:
        main()
