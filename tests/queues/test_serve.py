"""`wmap serve` over the three-scheduler dump: /api/v1/queues and the wmap_queue_* series say what
`wmap queues` says (the same report, built from the served model's objects)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families
from tests.browser.support import browser_page, chromium, screenshot, serve

import workload_map as wm
from workload_map.cli.main import cli

from .cluster import all_objects


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("queues-serve") / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(all_objects()))
    return path


@pytest.fixture(scope="module")
def server(dump: Path) -> Iterator[str]:
    with serve("--from-file", str(dump)) as base:
        yield base


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


def _queues(server: str) -> dict[str, Any]:
    (row,) = _get(server + "/api/v1/queues")["clusters"]
    return dict(row)


def test_api_queues_is_the_library_report(server: str, dump: Path) -> None:
    row = _queues(server)
    expected = wm.open_dump(str(dump), namespace=None).queues().to_json()
    assert row["cluster"] == "" and row["stale"] == [] and row["version"] >= 1
    assert row["queues"] == expected["queues"]
    assert row["workloads"] == expected["workloads"]


def test_metrics_carry_the_queue_figures(server: str) -> None:
    _queues(server)
    with urllib.request.urlopen(server + "/metrics", timeout=10) as answer:
        families = {f.name: f for f in text_string_to_metric_families(answer.read().decode())}
    team_a = {"cluster": "", "scheduler": "kueue", "queue_kind": "ClusterQueue", "namespace": "", "queue": "team-a"}

    def value(name: str, **labels: str) -> float:
        wanted = {**team_a, **labels}
        found = [s.value for s in families[name].samples if s.labels == wanted]
        assert len(found) == 1, (name, wanted)
        return float(found[0])

    gpu = {"flavor": "h100", "resource": "nvidia.com/gpu"}
    assert (value("wmap_queue_quota", **gpu), value("wmap_queue_limit", **gpu)) == (8, 12)
    assert (value("wmap_queue_used", **gpu), value("wmap_queue_borrowed", **gpu)) == (12, 4)
    assert value("wmap_queue_reported_used", **gpu) == 12
    assert value("wmap_queue_workloads", state="Pending") == 1 and value("wmap_queue_workloads", state="Admitted") == 2
    assert value("wmap_queue_gpus_waiting") == 8
    assert value("wmap_queue_info", parent="kueue/Cohort/research") == 1
    # No limit is no series, never 0: team-b is in a cohort without a borrowing limit.
    team_b = {**team_a, "queue": "team-b", **gpu}
    assert not [s for s in families["wmap_queue_limit"].samples if s.labels == team_b]


def test_queues_page_in_chromium(server: str) -> None:
    """The Queues page draws the same tree and figures, and the waiting workloads with the scheduler's words."""

    chromium()
    _queues(server)
    with browser_page() as page:
        page.goto(server + "/")
        page.click("#nav-queues")
        page.wait_for_selector("table.queues tr[data-queue='kueue/ClusterQueue/team-a']")
        row = page.locator("tr[data-queue='kueue/ClusterQueue/team-a']")
        cells = {
            c: row.locator(f"td[data-col='{c}']").inner_text()
            for c in ("quota", "limit", "used", "borrowed", "waiting")
        }
        assert cells == {"quota": "8", "limit": "12", "used": "12", "borrowed": "4", "waiting": "1"}
        why = page.locator("tr[data-workload='team-a/a3'] td.why").inner_text()
        assert why.startswith("Pending: couldn't assign flavors to pod set main")
        assert page.locator("tr[data-workload='team-x/x2']").count() == 1
        screenshot(page, "dashboard-queues")


def test_queues_interval_is_deprecated_and_said_so(dump: Path) -> None:
    """The queues are watched, so the periodic re-read's flag means nothing now: accepted, said, ignored."""
    args = ["serve", "--from-file", str(dump), "--port", "0", "--serve-timeout", "0", "--capacity-interval", "0"]
    args += ["--queues-interval", "30"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "--queues-interval is deprecated and ignored: wmap serve watches the queue kinds" in result.stderr
