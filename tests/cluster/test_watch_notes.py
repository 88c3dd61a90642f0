"""How watch failures are told: which errors are retried, and one line per cause for many resources."""

from __future__ import annotations

import pytest

from workload_map.sources.kube.connection import ClusterError, DeadlineError
from workload_map.sources.kube.watch import transient, watch_notes


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        (ClusterError("cluster unreachable (https://x): connection refused"), True),
        (ClusterError("throttled", status=429), True),
        (ClusterError("etcd leader changed", status=503), True),
        (ClusterError("Unauthorized", status=401), False),
        (ClusterError("Forbidden", status=403), False),
        (ClusterError("NotFound", status=404), False),
        (DeadlineError("timed out (https://x): the command did not finish within 3s (--timeout)"), False),
    ],
)
def test_transient(error: ClusterError, retried: bool) -> None:
    assert transient(error) is retried


def test_one_line_per_cause() -> None:
    refused = "failed, retrying: cluster unreachable (https://x): connection refused"
    notes = [(name, refused) for name in ("pods", "jobs.batch", "pods")] + [("cronjobs.batch", "listed again")]
    assert watch_notes(notes) == [f"watches of pods, jobs.batch {refused}", "watch of cronjobs.batch listed again"]


def test_many_resources_are_counted_not_listed() -> None:
    names = [f"r{i}" for i in range(7)]
    assert watch_notes([(n, "listed again after an error") for n in names]) == [
        "watches of r0, r1, r2, r3 and 3 more listed again after an error"
    ]
    assert watch_notes([]) == []
