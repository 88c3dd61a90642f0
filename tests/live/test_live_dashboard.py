"""The dashboard over `wmap serve` on the genuine API server: a status change appears without a reload."""

from __future__ import annotations

import secrets

import pytest
from live_data import admin, create_namespace, deployment_scenario, set_pod_running
from tests.browser.support import browser_page, screenshot, serve
from tests.cluster.apiserver import TestCluster

pytestmark = pytest.mark.live


def test_a_change_through_the_api_appears_without_reload(test_cluster: TestCluster) -> None:
    conn = admin(test_cluster)
    namespace = create_namespace(conn, f"dash-{secrets.token_hex(3)}")
    deployment_scenario(conn, namespace, name="web", replicas=3)
    pods = conn.request("GET", f"/api/v1/namespaces/{namespace}/pods")["items"]
    with serve("--kubeconfig", str(test_cluster.kubeconfig_path)) as base, browser_page() as page:
        page.goto(base + "/")
        row = f'#workloads tbody tr[data-path="{namespace}/deployment.apps/web"]'
        page.wait_for_selector(row)
        assert page.inner_text(row + ' td[data-col="pods"]') == "0/3"
        page.evaluate("window.__marker = 'same page'")
        for pod in pods:
            set_pod_running(conn, namespace, pod["metadata"]["name"])
        page.wait_for_function(
            f"document.querySelector('{row} td[data-col=\"pods\"]').innerText === '3/3'", timeout=60_000
        )
        assert page.evaluate("window.__marker") == "same page"  # updated by the event stream, not a reload
        screenshot(page, "dashboard-live")
    conn.close()
