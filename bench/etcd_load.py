"""Load a generated cluster into a test cluster's etcd directly, for benchmarks that only read.

Writing 19k pods through the API server runs at ~130-350 writes/s on the shared 2-core machine (~6
minutes per cluster, and the fleet benchmark needs three); the API server itself reads what is in etcd
(the storage decoder takes JSON as well as protobuf, and the watch cache follows etcd), so the objects
are put under the keys the API server uses, in transactions of ``--max-txn-ops`` (128) puts, through
etcd's JSON gateway. Objects keep the generator's uids, so owner references need no remapping;
resourceVersion comes from etcd's revision as for any stored object. Nothing is validated or defaulted
the way a create would: the generated objects are complete (they model what the API server returns).

Namespaces and CRDs still go through the API server (few, and the CRDs must be established first).
"""

from __future__ import annotations

import base64
import json
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson

# The storage prefix of each built-in resource whose key is not its plural (k8s.io/kubernetes
# pkg/registry/*/storage: nodes are "minions", services "services/specs", ...).
_BUILTIN_PREFIX = {
    "nodes": "minions",
    "services": "services/specs",
    "endpoints": "services/endpoints",
    "ingresses": "ingress",
}
_STRIP = ("resourceVersion", "managedFields", "selfLink", "generation")
TXN_OPS = 128
TXN_BYTES = 1_000_000  # etcd's --max-request-bytes is 1.5 MiB
WORKERS = 4


def _key(obj: dict[str, Any], info: dict[str, Any], group: str) -> str:
    plural = info["plural"]
    builtin = "." not in group or group.endswith(".k8s.io")  # core, apps, batch, ...: keyed by resource alone
    prefix = f"/registry/{_BUILTIN_PREFIX.get(plural, plural)}" if builtin else f"/registry/{group}/{plural}"
    md = obj["metadata"]
    return f"{prefix}/{md['namespace']}/{md['name']}" if info["namespaced"] else f"{prefix}/{md['name']}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def load(
    cluster: Any, objects: list[dict[str, Any]], served: dict[tuple[str, str], dict[str, Any]], log: Any = print
) -> dict[str, Any]:
    """Put every object but Namespaces (created through the API server first) into the cluster's etcd."""
    counts: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    for ns in (o for o in objects if o["kind"] == "Namespace"):
        proc = cluster.kubectl("create", "-f", "-", input=json.dumps(_clean(ns)))
        if proc.returncode != 0 and "AlreadyExists" not in proc.stderr:
            raise RuntimeError(f"namespace {ns['metadata']['name']}: {proc.stderr.strip()}")
        counts["Namespace"] += 1
    batches: list[list[tuple[str, bytes]]] = [[]]
    size = 0
    for obj in objects:
        if obj["kind"] == "Namespace":
            continue
        api = obj["apiVersion"]
        group = api.split("/")[0] if "/" in api else ""
        info = served.get((group, obj["kind"]))
        if info is None:
            skipped[f"{obj['kind']}.{group}"] += 1
            continue
        body = _clean(obj)
        body["apiVersion"] = f"{group}/{info['version']}" if group else info["version"]
        value = orjson.dumps(body)
        if len(batches[-1]) >= TXN_OPS or size + len(value) > TXN_BYTES:
            batches.append([])
            size = 0
        batches[-1].append((_key(obj, info, group), value))
        size += len(value)
        counts[obj["kind"]] += 1
    url = f"{cluster.etcd_endpoint}/v3/kv/txn"

    def put(batch: list[tuple[str, bytes]]) -> None:
        ops = [{"requestPut": {"key": _b64(k.encode()), "value": _b64(v)}} for k, v in batch]
        request = urllib.request.Request(url, data=orjson.dumps({"success": ops}), method="POST")
        with urllib.request.urlopen(request, timeout=120) as resp:
            answer = json.loads(resp.read())
        if "error" in answer or answer.get("succeeded") is False:
            raise RuntimeError(f"etcd txn failed: {str(answer)[:300]}")

    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        list(pool.map(put, [b for b in batches if b]))
    seconds = time.perf_counter() - began
    total = sum(counts.values())
    log(
        f"loaded {total} objects ({counts.get('Pod', 0)} pods) into etcd in {seconds:.1f}s "
        f"({total / seconds:.0f} objects/s, {len(batches)} transactions); not served: {dict(skipped) or 'none'}"
    )
    return {"seconds": seconds, "created": dict(counts), "skipped": dict(skipped), "transactions": len(batches)}


def _clean(obj: dict[str, Any]) -> dict[str, Any]:
    body = dict(obj)
    body["metadata"] = {k: v for k, v in obj["metadata"].items() if k not in _STRIP}
    return body


def wait_listed(cluster: Any, resource: str, expected: int, timeout: float = 120.0) -> int:
    """The API server lists ``expected`` objects of ``resource`` (its watch cache has caught up with etcd)."""
    deadline = time.monotonic() + timeout
    seen = -1
    while time.monotonic() < deadline:
        proc = cluster.kubectl("get", resource, "-A", "-o", "name")
        seen = len(proc.stdout.splitlines()) if proc.returncode == 0 else -1
        if seen >= expected:
            return seen
        time.sleep(1.0)
    raise RuntimeError(f"the API server lists {seen} {resource}, {expected} were put into etcd")
