"""A partial read on the genuine test apiserver: the generated cluster, a user who may not list RayClusters.

Loads the generated cluster (bench_live.load), binds a ClusterRole that reads everything except
``rayclusters.ray.io``, then runs ``wmap get -A`` as the admin (the truth) and as that user, with this
checkout and, given ``--before-src``, with another checkout's ``src`` (e.g. a worktree of main) as
"before". Reports rows, phantom Pod rows (Pod rows the admin does not have), warning lines, exit code
and wall time of each: the figures of bench/README.md "Partial reads".

    python bench/bench_gaps.py [--workloads 100] [--before-src ../main/src]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import NAMESPACES, SEED

USER = "bench-no-rayclusters"
WMAP = Path(sys.executable).parent / "wmap"


def _role(cluster: Any) -> None:
    """Read on every resource of every group except ray.io's RayClusters (RBAC has no deny: list the rest)."""
    from workload_map.sources.kube.connection import ConnectionOptions, connect

    conn = connect(ConnectionOptions(kubeconfig=str(cluster.kubeconfig_path)))
    groups = conn.get("/apis")["groups"]
    conn.close()
    names = [g["name"] for g in groups if g["name"] != "ray.io"]
    read = ["get", "list", "watch"]
    rules = [
        {"apiGroups": ["", *names], "resources": ["*"], "verbs": read},
        {"apiGroups": ["ray.io"], "resources": ["rayjobs", "rayservices"], "verbs": read},
    ]
    docs = [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": USER},
            "rules": rules,
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": USER},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": USER},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": USER}],
        },
    ]
    proc = cluster.kubectl("apply", "-f", "-", input="\n---\n".join(json.dumps(d) for d in docs))
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)


def _get(kubeconfig: Path, src: Path | None) -> dict[str, Any]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    t = time.perf_counter()
    proc = subprocess.run(
        [str(WMAP), "get", "-A", "--kubeconfig", str(kubeconfig)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - t
    rows = [re.split(r" {3,}", line.strip()) for line in proc.stdout.splitlines()[1:] if line.strip()]
    return {
        "seconds": seconds,
        "exit": proc.returncode,
        "rows": len(rows),
        "pod_rows": sum(1 for r in rows if len(r) > 2 and r[2] == "Pod"),
        "unknown_counts": sum(1 for r in rows if len(r) > 5 and r[5].startswith("?/")),
        "warning_lines": sum(1 for line in proc.stderr.splitlines() if line.startswith("Warning:")),
        "error": next((line for line in proc.stderr.splitlines() if line.startswith("error:")), ""),
    }


def run(workloads: int, before_src: Path | None, log: Any = print) -> dict[str, Any]:
    import gen_cluster
    from bench_common import REPO_ROOT
    from bench_live import bin_dir, install_crds, load

    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    from tests.cluster.apiserver import TestCluster

    cluster = TestCluster(bin_dir(), extra_users={USER: []})
    cluster.start()
    try:
        objects = gen_cluster.generate(workloads, NAMESPACES, SEED)
        crds = install_crds(cluster, objects, log)
        loaded = load(cluster, objects, crds["served"], log)
        log(f"gaps: loaded {sum(loaded['created'].values())} objects ({loaded['created'].get('Pod', 0)} pods)")
        _role(cluster)
        tmp = Path(tempfile.mkdtemp(prefix="wmap-bench-gaps-"))
        limited = cluster.kubeconfig_for(cluster.token_for(USER), tmp / "limited.kubeconfig", user=USER)
        time.sleep(2)  # RBAC caches of a fresh binding
        out: dict[str, Any] = {"pods": loaded["created"].get("Pod", 0), "workloads": workloads}
        out["admin"] = _get(cluster.kubeconfig_path, None)
        out["after"] = _get(limited, None)
        if before_src is not None:
            out["before"] = _get(limited, before_src)
        for side in ("after", "before"):
            if side in out:
                out[side]["phantom_pod_rows"] = out[side]["pod_rows"] - out["admin"]["pod_rows"]
        return out
    finally:
        cluster.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", type=int, default=100)
    parser.add_argument("--before-src", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(args.workloads, args.before_src)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
