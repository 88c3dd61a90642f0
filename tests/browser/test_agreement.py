"""One truth across the surfaces (docs/semantics.md "Figures"): one fleet of scenarios (the built-in example
plus Deployments whose pods cannot pull their image, crash-loop out of memory, or have a broken config, and the
queues of Kueue, KAI and Volcano of tests/queues/cluster.py with their workloads) read by the CLI (`get` table
and JSON, `capacity`, `fit`, `queues`, `describe`), the JSON API, `/metrics` and the dashboard in a real
Chromium; every figure of every workload, queue and of the cluster must be the same number on each."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from tests.browser.support import EXAMPLE, WMAP, browser_page, screenshot, serve
from tests.queues.cluster import all_objects as queue_objects, volcano_pytorchjob

FINISHED = ("Completed", "Failed", "Suspended")
NODE = "gpu-h100-00-04"  # the example's node with 5 GPUs free


def _deployment(name: str, container_status: dict[str, Any], phase: str = "Running") -> list[dict[str, Any]]:
    """A one-replica Deployment asking 1 GPU, its ReplicaSet and its pod bound to NODE in ``container_status``."""
    labels = {"app": name}
    template = {
        "metadata": {"labels": labels},
        "spec": {
            "containers": [
                {
                    "name": "server",
                    "image": f"registry.example/{name}:1",
                    "resources": {"limits": {"nvidia.com/gpu": 1}},
                }
            ]
        },
    }
    created = "2025-06-07T09:00:00Z"
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "scenarios", "uid": f"uid-{name}", "creationTimestamp": created},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": template},
        "status": {
            "observedGeneration": 1,
            "replicas": 1,
            "updatedReplicas": 1,
            "unavailableReplicas": 1,
            "conditions": [
                {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"},
                {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"},
            ],
        },
    }
    owner = {"apiVersion": "apps/v1", "kind": "Deployment", "name": name, "uid": f"uid-{name}", "controller": True}
    replicaset = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": f"{name}-rs",
            "namespace": "scenarios",
            "uid": f"uid-{name}-rs",
            "ownerReferences": [owner],
            "creationTimestamp": created,
        },
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": template},
        "status": {"replicas": 1},
    }
    rs_owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{name}-rs", "uid": f"uid-{name}-rs"}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{name}-rs-x1",
            "namespace": "scenarios",
            "uid": f"uid-{name}-pod",
            "labels": labels,
            "ownerReferences": [{**rs_owner, "controller": True}],
            "creationTimestamp": created,
        },
        "spec": {"nodeName": NODE, **template["spec"]},
        "status": {
            "phase": phase,
            "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}],
            "containerStatuses": [{"name": "server", "ready": False, **container_status}],
        },
    }
    return [deployment, replicaset, pod]


SCENARIOS = [
    *_deployment("pull-broken", {"restartCount": 0, "state": {"waiting": {"reason": "ImagePullBackOff"}}}, "Pending"),
    *_deployment(
        "oom-loop",
        {
            "restartCount": 7,
            "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}},
            "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137, "finishedAt": "2025-06-07T09:30:00Z"}},
        },
    ),
    *_deployment(
        "config-broken",
        {"restartCount": 0, "state": {"waiting": {"reason": "CreateContainerConfigError", "message": "no secret"}}},
        "Pending",
    ),
]


def _node(name: str, gpus: int) -> dict[str, Any]:
    """A node holding exactly the GPUs the queue scenarios bind to it: the example's free GPUs stay as they are."""
    resources = {"cpu": "16", "memory": "128Gi", "pods": "110", "nvidia.com/gpu": str(gpus)}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "uid": f"uid-node-{name}", "labels": {"kubernetes.io/hostname": name}},
        "spec": {},
        "status": {
            "capacity": resources,
            "allocatable": resources,
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


# tests/queues/cluster.py binds a1 to gpu-0 and gpu-1 (4 GPUs each), a2 to gpu-2 (4), x1 to gpu-3 (6).
QUEUE_SCENARIOS = [
    *queue_objects(),
    *volcano_pytorchjob(),
    *(_node(name, gpus) for name, gpus in (("gpu-0", 4), ("gpu-1", 4), ("gpu-2", 4), ("gpu-3", 6))),
]


@pytest.fixture(scope="module")
def fleet_files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("scenarios")
    scenarios, queues = folder / "problems.json", folder / "queues.json"
    scenarios.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": SCENARIOS}))
    queues.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": QUEUE_SCENARIOS}))
    return [str(EXAMPLE), str(scenarios), str(queues)]


@pytest.fixture(scope="module")
def server(fleet_files: list[str]) -> Iterator[str]:
    with serve(*(arg for path in fleet_files for arg in ("--from-file", path))) as base:
        yield base


def _from_files(files: list[str]) -> list[str]:
    return [arg for path in files for arg in ("--from-file", path)]


def _wmap(*args: str) -> str:
    return subprocess.run([*WMAP, *args], capture_output=True, text=True, check=True).stdout


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=20) as answer:
        return json.loads(answer.read())


def _table(text: str) -> list[dict[str, str]]:
    """`wmap get` rows by header, cut at the header's column starts (cells may hold single spaces)."""
    header, *lines = text.splitlines()
    starts = [m.start() for m in re.finditer(r"\S+", header)]
    names = header.split()
    return [
        {n: line[s:e].strip() for n, s, e in zip(names, starts, [*starts[1:], None], strict=True)}
        for line in lines
        if line.strip()
    ]


def _number(value: float | int | None) -> str:
    if value is None:
        return "?"
    return str(int(value)) if float(value).is_integer() else str(value)


def _metrics(base: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    with urllib.request.urlopen(base + "/metrics", timeout=20) as answer:
        text = answer.read().decode()
    out: dict[str, list[tuple[dict[str, str], float]]] = defaultdict(list)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[sample.name].append((sample.labels, sample.value))
    return out


def test_every_surface_shows_the_same_figures(server: str, fleet_files: list[str]) -> None:
    trees = {
        (t["workload"]["namespace"], t["workload"]["name"]): t
        for t in json.loads(_wmap("get", "-A", "-o", "json", *_from_files(fleet_files)))["items"]
    }
    table = {
        (r["NAMESPACE"], r["NAME"]): r for r in _table(_wmap("get", "-A", "-o", "wide", *_from_files(fleet_files)))
    }
    rows = {(w["namespace"], w["name"]): w for w in _get(server + "/api/v1/workloads")["items"]}
    (cluster,) = _get(server + "/api/v1/fleet")["clusters"]
    metrics = _metrics(server)
    capacity = json.loads(_wmap("capacity", "-o", "json", *_from_files(fleet_files)))
    assert set(trees) == set(table) == set(rows) and len(rows) == 23  # 16, and 7 in queues

    def per_workload(name: str, field: str = "") -> dict[tuple[str, str], float]:
        sums: dict[tuple[str, str], float] = defaultdict(float)
        for labels, value in metrics[name]:
            if field and labels.get("state") != field:
                continue
            sums[(labels["namespace"], labels["workload"])] += value
        return sums

    desired, done = per_workload("wmap_workload_pods", "desired"), per_workload("wmap_workload_pods", "done")
    requested, in_use = per_workload("wmap_workload_gpus_requested"), per_workload("wmap_workload_gpus_in_use")
    not_ready = per_workload("wmap_workload_pods_not_ready")
    problems: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for labels, value in metrics["wmap_workload_pod_problems"]:
        problems[(labels["namespace"], labels["workload"])][labels["reason"]] = int(value)
    statuses = {
        (labels["namespace"], labels["workload"]): labels["status"]
        for labels, value in metrics["wmap_workload_status"]
        if value == 1
    }
    for key, tree in trees.items():
        row, line = rows[key], table[key]
        pods = tree["totals"]["pods"]
        # pods ready / desired: get's PODS, the tree's done, the API's ready, the metrics' done
        assert line["PODS"] == f"{pods['done']}/{pods['desired']}" == f"{row['pods']['ready']}/{row['pods']['desired']}"
        assert (done[key], desired[key]) == (pods["done"], pods["desired"]), key
        # GPUs desired, in use; pods not ready; problems
        # each under its figure's name (docs/semantics.md "Figures"); get's GPUS is GPUs desired
        gpus = _number(row["gpusDesired"])
        assert line["GPUS"] == _number(tree["totals"]["gpusDesired"]) == gpus == _number(requested[key]), key
        assert row["gpus"] == row["gpusDesired"] and tree["totals"]["gpus"] == tree["totals"]["gpusDesired"], key
        assert tree["totals"]["gpusInUse"] == row["gpusInUse"] == in_use[key], key
        assert line["GPUS-IN-USE"] == _number(row["gpusInUse"]), key
        assert row["pods"]["notReady"] == not_ready[key], key
        assert tree["totals"]["problems"] == row["problems"] == problems.get(key, {}), key
        assert tree["status"]["reason"] == row["reason"], key
        assert statuses[key] == row["status"] == tree["status"]["primary"], key
        if row["status"] in FINISHED:
            assert row["pods"]["notReady"] == 0 and row["gpusRequested"] == 0, key
    # the cluster: GPUs in use never exceed the GPUs there are, and agree with the capacity model
    total = capacity["total"]
    assert cluster["capacity"]["total"]["total"] == total["gpus"]["allocatable"]
    assert cluster["capacity"]["total"]["free"] == total["gpus"]["free"] == cluster["gpusFree"]
    assert [value for _, value in metrics["wmap_cluster_gpus_free"]] == [total["gpus"]["free"]]
    assert cluster["gpusInUse"] == sum(r["gpusInUse"] for r in rows.values()) == cluster["capacity"]["total"]["inUse"]
    assert cluster["gpusInUse"] <= cluster["capacity"]["total"]["total"]
    running = sum(r["gpusDesired"] for r in rows.values() if r["status"] not in FINISHED)
    assert cluster["gpusDesired"] == sum(r["gpusDesired"] for r in rows.values())
    assert cluster["gpusRequested"] == running == sum(r["gpusRequested"] for r in rows.values())
    assert cluster["byStatus"] == {s: sum(1 for r in rows.values() if r["status"] == s) for s in cluster["byStatus"]}
    # the scenarios: a bound Pending pod holds its GPU; each problem is named
    assert rows[("scenarios", "pull-broken")]["gpusInUse"] == 1
    assert rows[("scenarios", "pull-broken")]["problems"] == {"ImagePullBackOff": 1}
    assert rows[("scenarios", "config-broken")]["problems"] == {"CreateContainerConfigError": 1}
    oom = rows[("scenarios", "oom-loop")]
    assert oom["problems"] == {"CrashLoopBackOff": 1} and "OOMKilled (exit 137)" in oom["reason"]
    assert "crash-looping" in oom["reason"]
    # fit counts the free GPUs of tainted nodes too, and says so: capacity's free plus tainted free
    fit = _wmap("fit", "pytorchjob/bert-finetune", "-n", "ml-training", *_from_files(fleet_files))
    both = total["gpus"]["free"] + total["tainted"]["gpus"]
    assert f"; {both} GPUs free for it (on schedulable nodes, tainted ones included)" in fit

    with browser_page() as page:
        page.goto(server + "/")
        page.wait_for_selector("#capacity-cards")
        page.wait_for_selector("#workloads tbody tr")
        screenshot(page, "agreement-home")
        shown = page.eval_on_selector_all(
            "#workloads tbody tr",
            "rows => rows.map(r => Object.fromEntries([...r.cells].map(c => [c.dataset.col, c.innerText.trim()])))",
        )
        assert len(shown) == len(rows)
        for cells in shown:
            row = rows[(cells["namespace"], cells["name"])]
            assert cells["pods"] == f"{row['pods']['ready']}/{row['pods']['desired']}"
            assert cells["gpus"] == _number(row["gpusDesired"]) and cells["inuse"] == _number(row["gpusInUse"])
        # the columns say which figure they are, as get's GPUS and GPUS-IN-USE do
        headers = page.eval_on_selector_all("#workloads thead th", "hs => hs.map(h => h.innerText.trim())")
        assert "GPUs desired" in headers and "GPUs in use" in headers, headers
        figures = {
            "gpus-total": cluster["capacity"]["total"]["total"],
            "gpus-inuse": cluster["capacity"]["total"]["inUse"],
            "gpus-free": cluster["capacity"]["total"]["free"],
            "gpus-requested": cluster["gpusRequested"],
            "total-requested": cluster["gpusRequested"],
            "total-inuse": cluster["gpusInUse"],
            "total-workloads": cluster["workloads"],
        }
        for element, value in figures.items():
            assert page.inner_text(f"#{element}") == _number(value), element
        ready = sum(r["pods"]["ready"] for r in rows.values())
        assert page.inner_text("#total-pods") == f"{ready}/{sum(r['pods']['desired'] for r in rows.values())}"
        # what needs attention: every workload with a problem or a failed/degraded status is listed
        listed = set(page.eval_on_selector_all("#attention li[data-path]", "ls => ls.map(l => l.dataset.path)"))
        wanted = {r["path"] for r in rows.values() if r["problems"] or r["status"] in ("Failed", "Degraded")}
        assert listed == wanted
        group = "#attention [data-group={}] li[data-path='{}']"
        assert page.locator(group.format("problems", "scenarios/deployment.apps/pull-broken")).count() == 1
        assert page.locator(group.format("crashloop", "scenarios/deployment.apps/oom-loop")).count() == 1
        assert page.locator(group.format("pending", "ml-training/pytorchjob.kubeflow.org/bert-finetune")).count() == 1


def test_pages_read_from_1000_pixels_and_a_missing_page_says_so(server: str) -> None:
    with browser_page() as page:
        page.set_viewport_size({"width": 1000, "height": 900})
        page.goto(server + "/")
        page.wait_for_selector("#capacity-cards")
        # nothing of the page but the wide table's own scroller is wider than the window
        assert page.evaluate("document.documentElement.scrollWidth") <= 1000
        page.goto(server + "/#/w/scenarios/deployment.apps/oom-loop")
        page.wait_for_selector("#pods")
        assert "OOMKilled" in page.inner_text("#reason")
        assert page.inner_text('#pods tr[data-pod="oom-loop-rs-x1"] td[data-col="restarts"]') == "7"
        assert "CrashLoopBackOff" in page.inner_text('#pods tr[data-pod="oom-loop-rs-x1"] td[data-col="reason"]')
        assert page.evaluate("document.documentElement.scrollWidth") <= 1000
        assert not page.eval_on_selector("#rules", "d => d.open")  # the rule trace is folded away
        page.goto(server + "/#/w/ml-serving/deployment.apps/no-such-workload")
        page.wait_for_selector("#not-found")
        assert "no-such-workload" in page.inner_text("#not-found")
        page.goto(server + "/no/such/page")
        assert "Not found" in page.inner_text("#not-found")
        screenshot(page, "dashboard-404")


QUEUE_SERIES = {"quota": "wmap_queue_quota", "limit": "wmap_queue_limit", "used": "wmap_queue_used"}
QUEUE_SERIES |= {"borrowed": "wmap_queue_borrowed"}
WAITING = ("Pending", "QuotaReserved", "Unknown")


def _queue_table(text: str, headers: tuple[str, ...]) -> list[dict[str, str]]:
    """`wmap queues` rows by header; headers hold spaces ("GPU QUOTA"), so each is found left to right."""
    header, *lines = text.splitlines()
    starts, at = [], 0
    for name in headers:
        at = header.index(name, at)
        starts.append(at)
        at += len(name)
    return [
        {n: line[s:e].strip() for n, s, e in zip(headers, starts, [*starts[1:], None], strict=True)}
        for line in lines
        if line.strip()
    ]


def _queue_label(queue: dict[str, Any]) -> tuple[str, str, str]:
    """(scheduler, kind, name as `wmap queues` and the Queues page show it, without tree or state marks)."""
    name = f"{queue['namespace']}/{queue['name']}" if queue["namespace"] else queue["name"]
    return queue["scheduler"], queue["kind"], name


def _shown(value: float | None, none: str) -> str:
    return none if value is None else _number(value)


def _queue_line(item: dict[str, Any]) -> str:
    reason = item["reason"] + (f": {item['message']}" if item["message"] else "")
    found = "" if item["queueKey"] else " (not found)"
    return f"{item['scheduler']} {item['queue']}{found}: {item['state']}" + (f" ({reason})" if reason else "")


def test_every_surface_shows_the_same_queue_figures(server: str, fleet_files: list[str]) -> None:
    """Per queue (quota, limit, used, borrowed per flavor and resource; GPUs in use and waiting; workloads
    admitted and waiting) and per queued workload (queue, admission state, reason): `wmap queues` (JSON and
    table), `get -o wide`'s QUEUE, `describe`'s Queue line, /api/v1/queues, the wmap_queue_* series and the
    Queues page say the same."""
    files = _from_files(fleet_files)
    cli = json.loads(_wmap("queues", "-o", "json", *files))
    [api_row] = _get(server + "/api/v1/queues")["clusters"]
    assert api_row["stale"] == [] and api_row["queues"] is not None
    assert cli["queues"] == api_row["queues"] and cli["workloads"] == api_row["workloads"]
    queues = {q["key"]: q for q in cli["queues"]}
    workloads = {(w["namespace"], w["kind"], w["name"]): w for w in cli["workloads"]}
    # the scenarios are all there: three schedulers, a hierarchy each, every admission state they reach
    assert {q["scheduler"] for q in queues.values()} == {"kueue", "kai", "volcano"}
    assert queues["kueue/ClusterQueue/team-a"]["gpus"] | {"inUse": 0} == {
        "quota": 8, "limit": 12, "used": 12, "borrowed": 4, "inUse": 0, "waiting": 8,
    }  # fmt: skip
    assert queues["kai/Queue/team-x"]["parent"] == "kai/Queue/department"
    assert workloads[("team-v", "PyTorchJob", "pt-vq")]["queue"] == "vq"
    assert {w["state"] for w in workloads.values()} == {"Admitted", "Pending"}

    # the wmap_queue_* series: every figure of every queue, per flavor and resource, and nothing else
    metrics = _metrics(server)

    def series(name: str, *dimensions: str) -> dict[tuple[str, ...], float]:
        out = {}
        for labels, value in metrics[name]:
            key = f"{labels['scheduler']}/{labels['queue_kind']}/" + (
                f"{labels['namespace']}/{labels['queue']}" if labels["namespace"] else labels["queue"]
            )
            out[(key, *(labels[d] for d in dimensions))] = value
        return out

    for figure, name in QUEUE_SERIES.items():
        expected = {
            (key, r["flavor"], r["resource"]): r[figure]
            for key, q in queues.items()
            for r in q["resources"]
            if r[figure] is not None
        }
        assert series(name, "flavor", "resource") == expected, figure
    by_state = series("wmap_queue_workloads", "state")
    for key, q in queues.items():
        assert series("wmap_queue_gpus_waiting")[(key,)] == q["gpus"]["waiting"], key
        assert series("wmap_queue_gpus_in_use")[(key,)] == q["gpus"]["inUse"], key
        assert by_state[(key, "Admitted")] == q["workloads"]["admitted"], key
        assert sum(by_state[(key, s)] for s in WAITING) == q["workloads"]["waiting"], key
        counted = {s: int(by_state[(key, s)]) for s in q["workloads"]["byState"]}
        assert counted == q["workloads"]["byState"], key
        assert len(q["queued"]) == sum(q["workloads"]["byState"].values()), key
    assert set(series("wmap_queue_info")) == {(key,) for key in queues}

    # `wmap queues -o wide`: the same figures, GPUs summed over flavors, "-" for none
    headers = ("SCHEDULER", "QUEUE", "KIND", "GPU QUOTA", "GPU LIMIT", "GPUS USED", "BORROWED", "ADMITTED")
    headers += ("WAITING", "GPUS WAITING", "GPUS IN USE", "RUNNING", "WEIGHT")
    table = {
        (r["SCHEDULER"], r["KIND"], re.sub(r"^[│├└─ ]+| \(no Cohort object\)| \[\w+\]$", "", r["QUEUE"])): r
        for r in _queue_table(_wmap("queues", "-o", "wide", *files), headers)
    }
    assert set(table) == {_queue_label(q) for q in queues.values()}
    for q in queues.values():
        row, gpus = table[_queue_label(q)], q["gpus"]
        assert [row["GPU QUOTA"], row["GPU LIMIT"], row["GPUS USED"], row["BORROWED"]] == [
            _shown(gpus[f], "-") for f in ("quota", "limit", "used", "borrowed")
        ], q["key"]
        assert [row["GPUS WAITING"], row["GPUS IN USE"]] == [_number(gpus["waiting"]), _number(gpus["inUse"])]
        assert [row["ADMITTED"], row["WAITING"], row["RUNNING"]] == [
            str(q["workloads"][f]) for f in ("admitted", "waiting", "running")
        ], q["key"]

    # per workload: get's QUEUE column and describe's Queue line say what the report says
    rows = {(w["namespace"], w["name"]): w for w in _get(server + "/api/v1/workloads")["items"]}
    shown = {(r["NAMESPACE"], r["NAME"]): r["QUEUE"] for r in _table(_wmap("get", "-A", "-o", "wide", *files))}
    for (namespace, _, name), item in workloads.items():
        assert shown[(namespace, name)] == item["queue"], (namespace, name)
    queued = {(ns, name) for ns, _, name in workloads}
    assert {key for key, queue in shown.items() if queue != "<none>"} == queued
    describes = {
        key: subprocess.Popen(
            [*WMAP, "describe", rows[key]["path"].split("/", 1)[1], "-n", key[0], *files],
            stdout=subprocess.PIPE,
            text=True,
        )
        for key in sorted(queued)
    }
    for (namespace, kind, name), item in workloads.items():
        out, _ = describes[(namespace, name)].communicate(timeout=120)
        [line] = [line for line in out.splitlines() if line.startswith("Queue:")]
        assert line.removeprefix("Queue:").strip() == _queue_line(item), (namespace, kind, name)

    # the Queues page: every queue's row, and every waiting workload with the scheduler's words
    with browser_page() as page:
        page.goto(server + "/#/queues")
        page.wait_for_selector("table.queues tbody tr")
        screenshot(page, "agreement-queues")
        cells = page.eval_on_selector_all(
            "table.queues tbody tr",
            "rows => rows.map(r => [r.dataset.queue, Object.fromEntries([...r.cells].filter(c => c.dataset.col)"
            ".map(c => [c.dataset.col, c.innerText.trim()]))])",
        )
        assert [key for key, _ in cells] == [key for key, _ in _walk_keys(queues)]
        for key, figures in cells:
            q = queues[key]
            gpus, counts = q["gpus"], q["workloads"]
            assert figures == {
                **{f: _shown(gpus[f], "–") for f in ("quota", "limit", "used", "borrowed")},
                "admitted": str(counts["admitted"]),
                "waiting": str(counts["waiting"]),
                "gpus-waiting": _number(gpus["waiting"]),
                "gpus-in-use": _number(gpus["inUse"]),
            }, key
        waiting = page.eval_on_selector_all(
            "table.waiting tbody tr",
            "rows => rows.map(r => Object.fromEntries([...r.cells].map(c => [c.dataset.col, c.innerText.trim()])))",
        )
        expected = [w for w in cli["workloads"] if w["state"] in WAITING]
        assert len(waiting) == len(expected) >= 2
        for cells_of, item in zip(waiting, expected, strict=True):
            reason = (item["reason"] + (": " if item["message"] else "")) if item["reason"] else ""
            assert cells_of == {
                "namespace": item["namespace"],
                "workload": f"{item['kind']}/{item['name']}",
                "queue": item["queue"],
                "state": item["state"],
                "gpus": _number(item["gpus"]),
                "why": reason + item["message"],
            }


def _walk_keys(queues: dict[str, dict[str, Any]]) -> list[tuple[str, int]]:
    """The queues depth first from the roots, children in the report's order: the page's and the table's order."""
    out: list[tuple[str, int]] = []

    def visit(key: str, depth: int) -> None:
        out.append((key, depth))
        for child in queues[key]["children"]:
            if child in queues:
                visit(child, depth + 1)

    for key, queue in queues.items():
        if queue["parent"] not in queues:
            visit(key, 0)
    return out
