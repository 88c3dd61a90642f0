"""Live mode on the genuine test kube-apiserver: wmap (live layer) vs `kubectl get ... -o json | jq`.

Loads a generated cluster (CRDs from ../shared/corpus/*/crd/*.yaml read in place, a permissive CRD for any
generated kind the corpus has no CRD for, then every object level by level with concurrent POSTs and a
status write where the resource has a status subresource), then measures wall time and API requests of
`get -A` and `describe` through `workload_map.sources.kube`, against the kubectl + jq pipeline in the same run.

Child mode (the wmap side as a whole process, since the CLI is not wired to the live layer yet):
    python bench/bench_live.py child get KUBECONFIG
    python bench/bench_live.py child describe KUBECONFIG TYPE NAME NAMESPACE
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from workload_map.tree.build import tree_of, trees_of

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import NAMESPACES, REPO_ROOT, SEED, Figure, median_time

CORPUS = REPO_ROOT.parent / "shared" / "corpus"
JQ = "/usr/bin/jq"
JQ_SCRIPT = Path(__file__).resolve().parent / "workloads.jq"
WORKERS = 16
_STRIP = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink")


# ----------------------------------------------------------------------------------------------- cluster
def bin_dir() -> Path:
    env = os.environ.get("WMAP_TESTCLUSTER_BIN")
    if env:
        return Path(env)
    proc = subprocess.run(
        ["bash", str(REPO_ROOT / "tools" / "testcluster" / "build.sh")], capture_output=True, text=True, check=True
    )
    return Path(proc.stdout.strip().splitlines()[-1])


def start_cluster() -> Any:
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    from tests.cluster.apiserver import TestCluster

    cluster = TestCluster(bin_dir())
    cluster.start()
    return cluster


def _served(conn: Any) -> dict[tuple[str, str], dict[str, Any]]:
    """(group, kind) -> {version, plural, namespaced, status}: the preferred served version of each kind."""
    out: dict[tuple[str, str], dict[str, Any]] = {}

    def add(group: str, version: str, doc: dict[str, Any]) -> None:
        subs = {r["name"] for r in doc.get("resources", [])}
        for r in doc.get("resources", []):
            if "/" in r["name"]:
                continue
            out.setdefault(
                (group, r["kind"]),
                {
                    "version": version,
                    "plural": r["name"],
                    "namespaced": r["namespaced"],
                    "status": f"{r['name']}/status" in subs,
                },
            )

    add("", "v1", conn.get("/api/v1"))
    for g in conn.get("/apis")["groups"]:
        versions = [g["preferredVersion"]] + [v for v in g["versions"] if v != g["preferredVersion"]]
        for v in versions:
            add(g["name"], v["version"], conn.get(f"/apis/{v['groupVersion']}"))
    return out


def _synthetic_crd(group: str, version: str, kind: str, namespaced: bool) -> dict[str, Any]:
    plural = kind.lower() + ("es" if kind.lower().endswith("s") else "s")
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced" if namespaced else "Cluster",
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": f"{kind}List"},
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                }
            ],
        },
    }


def install_crds(cluster: Any, objects: list[dict[str, Any]], log: Any) -> dict[str, Any]:
    """Corpus CRDs in place, then a permissive CRD for every generated (group, version, kind) still unserved."""
    from workload_map.sources.kube.connection import ConnectionOptions, connect

    files = sorted(CORPUS.glob("*/crd/*.yaml"))
    failed = []
    for f in files:
        proc = cluster.kubectl("create", "-f", str(f))
        if proc.returncode != 0 and "AlreadyExists" not in proc.stderr:
            failed.append(f"{f.relative_to(CORPUS)}: {proc.stderr.strip()[:200]}")
    cluster.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=120s")
    conn = connect(ConnectionOptions(kubeconfig=str(cluster.kubeconfig_path)))
    time.sleep(1.0)
    served = _served(conn)
    wanted = {}
    for o in objects:
        api = o["apiVersion"]
        group, version = api.split("/") if "/" in api else ("", api)
        wanted[(group, o["kind"])] = (version, "namespace" in o["metadata"])
    synthetic = []
    import yaml

    for (group, kind), (version, namespaced) in sorted(wanted.items()):
        if (group, kind) in served or not group:
            continue
        crd = _synthetic_crd(group, version, kind, namespaced)
        proc = cluster.kubectl("create", "-f", "-", input=yaml.safe_dump(crd))
        if proc.returncode != 0 and "AlreadyExists" not in proc.stderr:
            failed.append(f"synthetic {kind}.{group}: {proc.stderr.strip()[:200]}")
        synthetic.append(f"{kind}.{group}/{version}")
    if synthetic:
        cluster.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=120s")
    deadline = time.monotonic() + 60
    while True:
        served = _served(conn)
        missing = [k for k in wanted if k not in served]
        if not missing or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    conn.close()
    log(
        f"CRDs: {len(files)} corpus files, {len(synthetic)} synthetic ({', '.join(synthetic)}); "
        f"failures: {failed or 'none'}"
    )
    return {"corpus_files": len(files), "synthetic": synthetic, "failed": failed, "served": served, "missing": missing}


def _depths(objects: list[dict[str, Any]]) -> list[int]:
    by_uid = {o["metadata"].get("uid"): o for o in objects if o["metadata"].get("uid")}
    memo: dict[int, int] = {}

    def depth(o: dict[str, Any], guard: int = 0) -> int:
        if id(o) in memo:
            return memo[id(o)]
        refs = o["metadata"].get("ownerReferences") or []
        parent = next((by_uid.get(r.get("uid")) for r in refs if by_uid.get(r.get("uid")) is not None), None)
        d = 0 if parent is None or guard > 32 else depth(parent, guard + 1) + 1
        memo[id(o)] = d
        return d

    return [depth(o) for o in objects]


_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")


def _adapt(body: dict[str, Any]) -> None:
    """What the API server would reject from a dump taken elsewhere: server-chosen Job selectors, cluster IPs."""
    spec = body.get("spec") or {}
    if body["kind"] == "Job" and not spec.get("manualSelector"):
        spec.pop("selector", None)
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        for key in _UID_LABELS:
            labels.pop(key, None)
    if body["kind"] == "Service" and body["apiVersion"] == "v1":
        spec.pop("clusterIP", None)
        spec.pop("clusterIPs", None)


def _fill_condition_messages(value: Any) -> None:
    """CRD schemas that require condition.message (Ray, NIM, Grove): an empty one where the dump has none."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "conditions" and isinstance(item, list):
                for c in item:
                    if isinstance(c, dict) and "type" in c:
                        c.setdefault("message", "")
            _fill_condition_messages(item)
    elif isinstance(value, list):
        for item in value:
            _fill_condition_messages(item)


def load(
    cluster: Any, objects: list[dict[str, Any]], served: dict[tuple[str, str], dict[str, Any]], log: Any
) -> dict[str, Any]:
    """Create every object (owners first, owner uids remapped to the server's) and write its status."""
    from workload_map.sources.kube.connection import ClusterError, ConnectionOptions, connect, resource_path

    conn = connect(ConnectionOptions(kubeconfig=str(cluster.kubeconfig_path)))
    pool = conn.api_client.rest_client.pool_manager
    if hasattr(pool, "connection_pool_kw"):
        pool.connection_pool_kw["maxsize"] = WORKERS
    uid_map: dict[str, str] = {}
    errors: Counter[str] = Counter()
    examples: dict[str, str] = {}
    counts: Counter[str] = Counter()

    def create(o: dict[str, Any]) -> None:
        api = o["apiVersion"]
        group = api.split("/")[0] if "/" in api else ""
        info = served.get((group, o["kind"]))
        if info is None:
            errors["unserved kind"] += 1
            return
        old_uid = o["metadata"].get("uid")
        body = copy.deepcopy(o)
        status = body.pop("status", None)
        md = body["metadata"]
        for k in _STRIP:
            md.pop(k, None)
        refs = md.get("ownerReferences") or []
        for r in refs:
            if r.get("uid") in uid_map:
                r["uid"] = uid_map[r["uid"]]
        ns = md.get("namespace") if info["namespaced"] else None
        path = resource_path(group, info["version"], info["plural"], ns)
        body["apiVersion"] = f"{group}/{info['version']}" if group else info["version"]
        _adapt(body)
        if isinstance(status, dict):
            _fill_condition_messages(status)
        if not info["status"] and status is not None:
            body["status"] = status
        try:
            created = conn.request("POST", path, body=body)
        except ClusterError as exc:
            if exc.status == 409:
                created = conn.request("GET", f"{path}/{md['name']}")
            else:
                errors[f"create {o['kind']}"] += 1
                examples.setdefault(f"create {o['kind']}", exc.message[:300])
                return
        if old_uid:
            uid_map[old_uid] = created["metadata"]["uid"]
        counts[o["kind"]] += 1
        if info["status"] and status:
            try:
                conn.request(
                    "PATCH",
                    f"{path}/{md['name']}/status",
                    body={"status": status},
                    content_type="application/merge-patch+json",
                )
            except ClusterError as exc:
                errors[f"status {o['kind']}"] += 1
                examples.setdefault(f"status {o['kind']}", exc.message[:300])

    depths = _depths(objects)
    levels: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for o, d in zip(objects, depths, strict=True):
        levels[-1 if o["kind"] == "Namespace" else d].append(o)
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=WORKERS) as ex:
        for level in sorted(levels):
            t = time.perf_counter()
            list(ex.map(create, levels[level]))
            log(f"  level {level}: {len(levels[level])} objects in {time.perf_counter() - t:.1f}s")
    elapsed = time.perf_counter() - start
    requests = conn.counter.total()
    conn.close()
    pods = counts.get("Pod", 0)
    log(
        f"loaded {sum(counts.values())} objects ({pods} pods) with {requests} requests in {elapsed:.1f}s "
        f"({requests / elapsed:.0f} req/s); errors: {dict(errors) or 'none'}"
    )
    for what, text in examples.items():
        log(f"    {what}: {text}")
    return {
        "seconds": elapsed,
        "requests": requests,
        "created": dict(counts),
        "errors": dict(errors),
        "error_examples": examples,
    }


# ----------------------------------------------------------------------------------------------- wmap side
def wmap_get(kubeconfig: str) -> tuple[list[list[str]], Any]:
    from workload_map.cli.commands.get import row
    from workload_map.sources.kube import LiveOptions, connect, live_source

    conn = connect(LiveOptions(kubeconfig=kubeconfig))
    source = live_source(LiveOptions(kubeconfig=kubeconfig, all_namespaces=True, connection=conn))
    view = source.index()
    trees, _ = trees_of(view, view.workloads())
    rows = [row(t, wide=False, with_namespace=True) for t in trees]
    conn.close()
    return rows, source


def wmap_describe(kubeconfig: str, type_name: str, name: str, namespace: str) -> tuple[Any, Any]:
    from workload_map.sources.kube import LiveOptions, connect, live_source

    conn = connect(LiveOptions(kubeconfig=kubeconfig, namespace=namespace))
    source = live_source(
        LiveOptions(kubeconfig=kubeconfig, namespace=namespace, describe=(type_name, name), connection=conn)
    )
    view = source.index()
    info = source.registry.resolve_type(type_name)
    (workload,) = view.find(info, name, namespace)
    tree = tree_of(view, workload)
    conn.close()
    return tree, source


def _economy(source: Any) -> dict[str, Any]:
    counter = source.connection.counter
    lists = [(verb, path, q) for verb, path, q in counter.log if verb == "LIST"]
    per_path = Counter(path for _, path, _ in lists)
    pages = sum(r.pages for r in source.lists)
    kinds = len({(r.resource.group, r.resource.kind) for r in source.lists})
    first_pages = Counter(path for _, path, q in lists if "continue=" not in q)
    return {
        "total": counter.total(),
        "list": len(lists),
        "get": counter.total("GET"),
        "list_pages_expected": pages,
        "kinds_listed": kinds,
        "relisted_paths": [p for p, n in first_pages.items() if n > 1],
        "by_path": dict(per_path),
    }


def child(argv: list[str]) -> int:
    import orjson

    from workload_map.cli.output import echo_table

    if argv[0] == "get":
        rows, source = wmap_get(argv[1])
        echo_table(["NAMESPACE", "NAME", "TYPE", "STATUS", "COMPONENTS", "PODS", "GPUS", "AGE"], rows)
    else:
        from workload_map.cli.output import render
        from workload_map.cli.render import rich_tree

        tree, source = wmap_describe(argv[1], argv[2], argv[3], argv[4])
        sys.stdout.write(render(rich_tree(tree)))
    sys.stderr.write("WMAP_ECONOMY=" + orjson.dumps(_economy(source)).decode() + "\n")
    return 0


def _child_run(args: list[str]) -> tuple[float, dict[str, Any], str]:
    import orjson

    start = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "child", *args], capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"live child {args[0]} failed: {proc.stderr[-3000:]}")
    m = re.search(r"WMAP_ECONOMY=(.*)", proc.stderr)
    return elapsed, orjson.loads(m.group(1)) if m else {}, proc.stdout


# ----------------------------------------------------------------------------------------------- kubectl + jq
def kubectl_jq(cluster: Any, resources: list[str], *, verbose: bool = False) -> tuple[float, str, str]:
    env = dict(os.environ, KUBECACHEDIR=str(cluster.workdir / "kubectl-cache"))
    env.pop("KUBECONFIG", None)
    kubectl = [
        str(cluster.kubectl_bin),
        "--kubeconfig",
        str(cluster.kubeconfig_path),
        "get",
        ",".join(resources),
        "-A",
        "-o",
        "json",
    ]
    if verbose:
        kubectl.append("-v=6")
    start = time.perf_counter()
    k = subprocess.Popen(kubectl, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    j = subprocess.run([JQ, "-r", "-f", str(JQ_SCRIPT)], stdin=k.stdout, capture_output=True, text=True, check=False)
    assert k.stdout is not None
    k.stdout.close()
    err = k.stderr.read().decode() if k.stderr else ""
    k.wait()
    elapsed = time.perf_counter() - start
    if k.returncode != 0 or j.returncode != 0:
        raise RuntimeError(f"kubectl|jq failed: {err[-2000:]} {j.stderr[-2000:]}")
    return elapsed, j.stdout, err


def _kubectl_requests(log_text: str) -> dict[str, int]:
    reqs = re.findall(r'verb="(GET|POST|PUT|PATCH|DELETE)" url="([^"]+)"', log_text)
    reqs = reqs or re.findall(r"(GET|POST|PUT|PATCH|DELETE) (https?://\S+)", log_text)
    lists = [u for _, u in reqs if "limit=" in u]
    return {"total": len(reqs), "list": len(lists)}


# ----------------------------------------------------------------------------------------------- the benchmark
def _compare(wmap_rows: list[list[str]], jq_out: str) -> dict[str, Any]:
    """Rows keyed by (namespace, name): wmap's TYPE qualifies ambiguous kinds (`Job.batch.volcano.sh`), the jq
    script prints the bare kind, so the kind is compared by its first segment."""
    # wmap: NAMESPACE NAME TYPE STATUS COMPONENTS PODS ...; jq: NAMESPACE KIND NAME STATUS READY/PODS
    ours = {(r[0], r[1]): (r[2].split(".", 1)[0], r[3], r[5]) for r in wmap_rows}
    theirs_rows = [line.split("\t") for line in jq_out.splitlines() if line]
    theirs = {(t[0], t[2]): (t[1], t[3], *t[4:5]) for t in theirs_rows}
    diff = [
        (k, ours.get(k), theirs.get(k))
        for k in sorted(set(ours) | set(theirs))
        if (ours.get(k) or ())[:2] != (theirs.get(k) or ())[:2]
    ]
    return {
        "wmap_rows": len(wmap_rows),
        "jq_rows": len(theirs_rows),
        "same_workloads_and_status": not diff,
        "status_differences": len(diff),
        "examples": diff[:10],
    }


def run(*, workloads: int, repeats: int, log: Any = print) -> tuple[list[Figure], dict[str, Any]]:
    import gen_cluster

    details: dict[str, Any] = {}
    figures: list[Figure] = []
    try:
        import workload_map.sources.kube  # noqa: F401
    except ImportError as exc:
        log(f"live layer missing: {exc}")
        return [Figure("live", "live layer (src/workload_map/sources/kube)", 0, "-", note="MISSING")], {
            "missing": str(exc)
        }
    t = time.perf_counter()
    cluster = start_cluster()
    details["cluster_start_s"] = time.perf_counter() - t
    try:
        objects = gen_cluster.generate(workloads, NAMESPACES, SEED)
        pods = sum(1 for o in objects if o["kind"] == "Pod")
        log(f"live: test cluster up in {details['cluster_start_s']:.1f}s; {len(objects)} objects ({pods} pods) to load")
        crds = install_crds(cluster, objects, log)
        details["crds"] = {k: v for k, v in crds.items() if k != "served"}
        loaded = load(cluster, objects, crds["served"], log)
        details["load"] = loaded
        label = f"{workloads} workloads / {loaded['created'].get('Pod', 0)} pods"
        figures.append(
            Figure(
                "live",
                f"load test cluster, {label}",
                loaded["seconds"],
                "s",
                note=(
                    f"{loaded['requests']} requests, {loaded['requests'] / loaded['seconds']:.0f} req/s, "
                    f"{WORKERS} threads"
                ),
            )
        )
        kubeconfig = str(cluster.kubeconfig_path)
        # wmap get -A
        rows, source = wmap_get(kubeconfig)
        resources = sorted({r.resource.display for r in source.lists})
        details["resources_listed"] = resources
        econ = _economy(source)
        in_proc, _ = median_time(lambda: wmap_get(kubeconfig), repeats, warmup=0)
        walls = [_child_run(["get", kubeconfig]) for _ in range(repeats)]
        w_get = sorted(w[0] for w in walls)[len(walls) // 2]
        # kubectl | jq
        kubectl_jq(cluster, resources)  # warm kubectl's discovery cache, as a user's would be
        kj = sorted(kubectl_jq(cluster, resources)[0] for _ in range(repeats))[len(range(repeats)) // 2]
        _, jq_out, vlog = kubectl_jq(cluster, resources, verbose=True)
        k_req = _kubectl_requests(vlog)
        same = _compare(rows, jq_out)
        details.update(
            get_economy=econ,
            kubectl_requests=k_req,
            comparison=same,
            get_in_process_s=in_proc,
            get_process_s=w_get,
            kubectl_jq_s=kj,
        )
        log(
            f"live get -A: wmap process {w_get:.2f}s (in process {in_proc:.2f}s), kubectl|jq {kj:.2f}s; "
            f"wmap requests {econ['total']} ({econ['list']} LIST, "
            f"{econ['list_pages_expected']} pages of {econ['kinds_listed']} kinds), "
            f"kubectl {k_req['total']} ({k_req['list']} LIST); {same}"
        )
        figures.append(
            Figure(
                "live",
                f"kubectl get <{len(resources)} types> -A -o json | jq, {label}",
                kj,
                "s",
                note=f"{k_req['total']} requests ({k_req['list']} list)",
            )
        )
        figures.append(
            Figure(
                "live",
                f"wmap get -A (live layer, whole process), {label}",
                w_get,
                "s",
                kj,
                "kubectl | jq",
                target="faster than kubectl | jq",
                met=w_get < kj,
                note=f"{econ['total']} requests ({econ['list']} list)",
            )
        )
        figures.append(
            Figure("live", f"wmap get -A (live layer, in process), {label}", in_proc, "s", kj, "kubectl | jq")
        )
        economy_ok = econ["list"] == econ["list_pages_expected"] and not econ["relisted_paths"]
        figures.append(
            Figure(
                "live",
                "get -A LIST requests vs pages of covered kinds",
                econ["list"],
                "requests",
                econ["list_pages_expected"],
                "one per kind and page",
                target="<= 1 list per kind per page",
                met=economy_ok,
                note=f"{econ['kinds_listed']} kinds, {econ['get']} other GETs (discovery)",
            )
        )
        # describe the largest workload
        from workload_map.sources.kube import LiveOptions, index_from_kubeconfig

        view, _ = index_from_kubeconfig(LiveOptions(kubeconfig=kubeconfig, all_namespaces=True))
        best = max(view.workloads(), key=lambda w: len(view.pods_of(w)))
        kind = best["kind"]
        group = best["apiVersion"].split("/")[0] if "/" in best["apiVersion"] else ""
        type_name = f"{kind.lower()}.{group}" if group else kind.lower()
        name, ns = best["metadata"]["name"], best["metadata"]["namespace"]
        walls = [_child_run(["describe", kubeconfig, type_name, name, ns]) for _ in range(repeats)]
        w_desc = sorted(w[0] for w in walls)[len(walls) // 2]
        d_econ = walls[0][1]
        details["describe"] = {"target": f"{type_name}/{name} -n {ns}", "process_s": w_desc, "economy": d_econ}
        figures.append(
            Figure(
                "live",
                f"wmap describe {type_name}/{name} (whole process)",
                w_desc,
                "s",
                kj,
                "kubectl | jq (get -A)",
                note=f"{d_econ.get('total')} requests ({d_econ.get('list')} list)",
            )
        )
    finally:
        cluster.stop()
    return figures, details


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        sys.exit(child(sys.argv[2:]))
    workloads = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    figs, det = run(workloads=workloads, repeats=1)
    for f in figs:
        print(f.to_json())
