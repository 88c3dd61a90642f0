"""The dashboard in a real browser over `wmap serve --from-file` (the built-in example), and its JSON API."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.browser.support import EXAMPLE, WMAP, browser_page, screenshot, serve


def _get(url: str, token: str | None = None) -> Any:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def _wmap_get(*args: str) -> list[dict[str, Any]]:
    proc = subprocess.run([*WMAP, "get", "-A", "-o", "json", *args], capture_output=True, text=True, check=True)
    document = json.loads(proc.stdout)
    return list(document["items"] if document.get("kind") == "List" else [document])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve("--from-file", str(EXAMPLE)) as base:
        yield base


def test_the_table_shows_the_rows_of_wmap_get(server: str) -> None:
    expected = [
        (
            t["workload"]["namespace"],
            t["workload"]["name"],
            t["status"]["primary"],
            f"{t['totals']['pods']['done']}/{t['totals']['pods']['desired']}",  # get's PODS: a Completed job is 3/3
        )
        for t in _wmap_get("--from-file", str(EXAMPLE))
    ]
    with browser_page() as page:
        page.goto(server + "/")
        page.wait_for_selector("#workloads tbody tr")
        rows = page.eval_on_selector_all(
            "#workloads tbody tr",
            "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))",
        )
        screenshot(page, "dashboard-table")
        shown = [(r[0], r[1], r[3], r[5]) for r in rows]
        assert sorted(shown) == sorted(expected)
        assert page.inner_text("#total-workloads") == str(len(expected))
        # filtering by status narrows the table to those rows
        page.select_option("#f-status", "Running")
        running = sum(1 for e in expected if e[2] == "Running")
        assert 0 < running < len(expected)
        page.wait_for_function(
            f"document.querySelectorAll('#workloads tbody tr').length === {running}"
            " && [...document.querySelectorAll('#workloads tbody tr td:nth-child(4)')]"
            ".every(c => c.innerText.trim() === 'Running')"
        )
        # the totals follow the filters: the cards and bars are those of the rows shown
        gpus = sum(w["gpusRequested"] for w in _get(server + "/api/v1/workloads?status=running")["items"])
        assert page.inner_text("#total-workloads") == str(running)
        assert page.inner_text("#total-workloads-label") == f"workloads (filtered, of {len(expected)})"
        assert float(page.inner_text("#total-requested")) == gpus
        screenshot(page, "dashboard-filtered")
        page.select_option("#f-status", "")
        name = expected[0][1]
        page.fill("#search", name)
        page.wait_for_function(
            f"document.getElementById('total-workloads').innerText === '{sum(name in e[1] for e in expected)}'"
        )
        page.fill("#search", "")
        page.wait_for_function(f"document.getElementById('total-workloads').innerText === '{len(expected)}'")
        assert page.inner_text("#total-workloads-label") == "workloads"


def test_the_workload_page_draws_every_pod_of_a_multi_node_workload(server: str) -> None:
    (tree,) = [t for t in _wmap_get("--from-file", str(EXAMPLE)) if t["workload"]["name"] == "llama3-8b-pretrain"]
    pods = sorted(p["name"] for p in tree["pods"])
    assert len(pods) >= 4
    with browser_page() as page:
        page.goto(server + "/")
        page.wait_for_selector("#workloads tbody tr")
        row = page.locator('#workloads tbody tr[data-path*="llama3-8b-pretrain"]')
        row.focus()
        page.keyboard.press("Enter")  # keyboard navigation: a focused row opens its page
        page.wait_for_selector("#tree")
        drawn = sorted(page.eval_on_selector_all("#tree .pod", "ps => ps.map(p => p.dataset.pod)"))
        screenshot(page, "dashboard-workload")
        assert drawn == pods
        # the pod table lists them too, and the tree nests the workers under their component
        listed = sorted(page.eval_on_selector_all("#pods tbody tr", "rs => rs.map(r => r.dataset.pod)"))
        assert listed == pods
        assert page.locator('#tree li[data-instance="workers"] .pod').count() == 4
        assert page.locator('#tree li[data-instance="workers"] li.replica').count() == 2
        assert "Running" in page.inner_text("#explanation")
        assert page.locator("#gang").count() == 1


def test_the_api_filters_as_get_does_and_documents_itself(server: str) -> None:
    everything = _get(server + "/api/v1/workloads")["items"]
    assert len(everything) == len(_wmap_get("--from-file", str(EXAMPLE)))
    jobs = _get(server + "/api/v1/workloads?type=pytorchjobs")["items"]
    assert {w["name"] for w in jobs} == {
        t["workload"]["name"] for t in _wmap_get("pytorchjobs", "--from-file", str(EXAMPLE))
    }
    failed = _get(server + "/api/v1/workloads?status=failed")["items"]
    assert [w["status"] for w in failed] == ["Failed"] * len(failed) and failed
    with pytest.raises(urllib.error.HTTPError) as bad:
        _get(server + "/api/v1/workloads?type=nosuchkind")
    assert bad.value.code == 400
    one = _get(server + "/api/v1/workloads/" + everything[0]["path"])
    assert one["tree"]["workload"]["name"] == everything[0]["name"]
    assert "explanations" in one["tree"]["status"]
    openapi = _get(server + "/api/v1/openapi.json")
    assert "/api/v1/workloads/{namespace}/{type}/{name}" in openapi["paths"]
    assert _get(server + "/api/v1/definitions")["items"]


def test_a_token_guards_everything_but_the_probes() -> None:
    with serve("--from-file", str(EXAMPLE), env={"WMAP_SERVE_TOKEN": "s3cret"}) as base:
        with pytest.raises(urllib.error.HTTPError) as refused:
            _get(base + "/api/v1/workloads")
        assert refused.value.code == 401
        assert _get(base + "/api/v1/workloads", token="s3cret")["items"]
        with urllib.request.urlopen(base + "/healthz", timeout=5) as answer:
            assert answer.status == 200
        with browser_page() as page:
            page.goto(base + "/?token=s3cret")
            page.wait_for_selector("#workloads tbody tr")


def _event(name: str, about: tuple[str, str, str], **fields: Any) -> Any:
    """A core/v1 Event in ml-serving about (kind, name, uid)."""
    kind, obj, uid = about
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "ml-serving", "uid": f"event-{name}"},
        "involvedObject": {"kind": kind, "name": obj, "namespace": "ml-serving", "uid": uid},
        **fields,
    }


def test_the_workload_page_lists_its_events_and_leads_to_the_pod(tmp_path: Path) -> None:
    """The example's Deployment tei-embeddings with Events on it, its ReplicaSet and a crash-looping pod."""
    now = datetime.now(UTC)

    def stamp(minutes: int) -> str:
        return (now - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")

    pod = "tei-embeddings-gqmv6fw7bk-9zfkm"  # the example's crash-looping pod
    deployment = ("Deployment", "tei-embeddings", "e8311496-4c3c-44aa-a05e-34a7fd6caefa")
    replicaset = ("ReplicaSet", "tei-embeddings-gqmv6fw7bk", "8e1a3047-7c3e-4e95-9691-5d5653da5cd7")
    events = [
        _event("scaled", deployment, type="Normal", reason="ScalingReplicaSet",
               message="Scaled up replica set tei-embeddings-gqmv6fw7bk to 2", count=1, firstTimestamp=stamp(42),
               lastTimestamp=stamp(42), source={"component": "deployment-controller"}),
        _event("created", replicaset, type="Normal", reason="SuccessfulCreate", message=f"Created pod: {pod}",
               count=1, firstTimestamp=stamp(41), lastTimestamp=stamp(41),
               source={"component": "replicaset-controller"}),
        _event("backoff", ("Pod", pod, "ffaee2b6-8a89-428d-8fab-f852e541467c"), type="Warning", reason="BackOff",
               message=f"Back-off restarting failed container server in pod {pod}", count=12, firstTimestamp=stamp(30),
               lastTimestamp=stamp(1), source={"component": "kubelet", "host": "gpu-h100-00-01"}),
    ]  # fmt: skip
    dump = tmp_path / "events.yaml"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": events}))
    with serve("--from-file", str(EXAMPLE), "--from-file", str(dump)) as base, browser_page() as page:
        page.set_viewport_size({"width": 1000, "height": 900})  # the narrowest window the dashboard is made for
        page.goto(base + "/#/w/ml-serving/deployment/tei-embeddings")
        page.wait_for_selector("#events tbody tr")
        rows = page.eval_on_selector_all(
            "#events tbody tr", "rs => rs.map(r => [r.dataset.type, r.dataset.reason, r.className])"
        )
        assert rows == [
            ["Normal", "ScalingReplicaSet", ""],
            ["Normal", "SuccessfulCreate", ""],
            ["Warning", "BackOff", "warning"],
        ]
        warning = page.locator("#events tr.warning")
        assert "(x12 over 30m)" in warning.inner_text() and "kubelet, gpu-h100-00-01" in warning.inner_text()
        highlighted = warning.locator("td.type").evaluate("td => getComputedStyle(td).fontWeight")
        assert int(highlighted) >= 600
        # the table fits the window: no horizontal scroll of the page
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        # the pod's name leads to its row of the pod table
        page.click(f'#events a[data-pod-link="{pod}"]')
        page.wait_for_selector(f'#pods tr.target[data-pod="{pod}"]')
        assert page.evaluate("document.activeElement.dataset.pod") == pod
        assert page.locator("#pods tr.target").count() == 1
        page.evaluate("window.scrollTo(0, 0)")
        screenshot(page, "dashboard-events")
