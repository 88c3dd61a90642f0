"""The shipped recording rules and dashboard use only series docs/metrics.md documents."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from workload_map.serve import metrics, queue_metrics

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "metrics.md").read_text()
_SERIES = re.compile(r"\b(wmap_[a-z_]+|[a-z_]+:wmap_[a-z_]+:[a-z]+)\b")


def _documented() -> set[str]:
    names = set(re.findall(r"`(wmap_[a-z_]+)`", DOC))
    return names | {n.removesuffix("_total") + "_total" for n in names if n.endswith("_total")}


def _rules() -> list[dict[str, str]]:
    document = yaml.safe_load((ROOT / "deploy" / "monitoring" / "recording-rules.yaml").read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def test_recording_rules_read_documented_series() -> None:
    recorded = {rule["record"] for rule in _rules()}
    for rule in _rules():
        for name in _SERIES.findall(rule["expr"]):
            assert name in _documented() or name in recorded, (rule["record"], name)


def test_dashboard_reads_documented_series() -> None:
    dashboard = json.loads((ROOT / "deploy" / "monitoring" / "grafana-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    assert exprs
    for expr in exprs:
        names = _SERIES.findall(expr)
        assert names, expr
        assert set(names) <= _documented(), expr


def test_the_exporter_exposes_exactly_the_documented_series() -> None:
    source = "".join(Path(m.__file__).read_text() for m in (metrics, queue_metrics))
    exposed = set(re.findall(r'"(wmap_[a-z_]+)"', source))
    counter_names = ("wmap_watch_events", "wmap_watch_relists", "wmap_watch_errors", "wmap_model_resolves")
    counters = {n for n in exposed if n in counter_names}
    exposed = (exposed - counters) | {f"{n}_total" for n in counters}
    exposed = {n if n != "wmap_build" else "wmap_build_info" for n in exposed}
    assert exposed == set(re.findall(r"^\| `(wmap_[a-z_]+)`", DOC, re.M))


def test_every_join_and_selection_is_per_cluster() -> None:
    """A fleet's namespaces of one name are not one namespace: every join matches on `cluster`, every
    aggregation keeps it, and the dashboard selects by its `cluster` variable."""
    dashboard = json.loads((ROOT / "deploy" / "monitoring" / "grafana-dashboard.json").read_text())
    assert "cluster" in [v["name"] for v in dashboard["templating"]["list"]]
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    exprs += [rule["expr"] for rule in _rules()]
    for expr in exprs:
        for on in re.findall(r"\bon \(([^)]*)\)", expr):
            assert "cluster" in on.split(", "), expr
        for by in re.findall(r"\bby \(([^)]*)\)", expr):
            assert "cluster" in by.split(", "), expr
    for expr in (t["expr"] for p in dashboard["panels"] for t in p["targets"]):
        assert 'cluster=~"$cluster"' in expr, expr
