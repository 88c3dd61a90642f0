"""The workload and pod series of the built-in example, as `/metrics` exposes them, against a golden file: a
changed series, label or value is a change of the versioned interface (docs/metrics.md) and shows in review.

Refresh after an intended change: ``WMAP_UPDATE_GOLDEN=1 pytest tests/serve/test_metrics_golden.py``."""

from __future__ import annotations

import os
from pathlib import Path

from prometheus_client import CollectorRegistry, generate_latest

import workload_map as wm
from workload_map.serve.fleet import Clusters
from workload_map.serve.metrics import FleetCollector
from workload_map.serve.server import Service

EXAMPLE = Path(wm.__file__).parent / "examples" / "ai-cluster.yaml"
GOLDEN = Path(__file__).parent / "golden" / "example-metrics.txt"
# Series of workloads and pods only: the model's own (ages, durations, event counts) change from run to run.
PREFIXES = ("wmap_workload_", "wmap_pod_")


def _exposition() -> str:
    model = wm.open_dump(str(EXAMPLE), namespace=None).to_model()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FleetCollector(Clusters({"example": model})))
    lines = generate_latest(registry).decode().splitlines()
    kept = [line for line in lines if line.removeprefix("# HELP ").removeprefix("# TYPE ").startswith(PREFIXES)]
    return "\n".join(kept) + "\n"


def test_the_example_exposes_the_golden_series() -> None:
    text = _exposition()
    if os.environ.get("WMAP_UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()
    # what the golden file must hold for issue 29: the crash-looping pod, its restarts, finished workloads
    problem = 'pod="tei-embeddings-gqmv6fw7bk-9zfkm",reason="CrashLoopBackOff"'
    assert any(line.startswith("wmap_pod_problem{") and problem in line for line in text.splitlines())
    restarts = 'last_termination="Error",namespace="ml-serving",pod="tei-embeddings-gqmv6fw7bk-9zfkm"'
    assert any(line.startswith("wmap_pod_restarts{") and restarts in line for line in text.splitlines())
    finished = 'wmap_workload_pods_not_ready{cluster="example",namespace="ml-training",workload="resnet-train"'
    assert any(line.startswith(finished) and line.endswith(" 0.0") for line in text.splitlines())


def test_the_exporter_exports_its_process_metrics() -> None:
    model = wm.open_dump(str(EXAMPLE), namespace=None).to_model()
    service = Service(model, port=0)
    try:
        text = generate_latest(service.registry).decode()
    finally:
        service.stop()
    for name in ("process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds"):
        assert f"\n{name} " in text, name
