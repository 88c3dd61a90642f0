"""One module per framework, each registering its builder with ``@framework``.

``FRAMEWORKS`` holds them in the order ``generate()`` goes through them. That order is part of the output (the
same seed gives the same bytes), so it is written out here instead of following the order of the imports.
"""

from __future__ import annotations

from ..registry import REGISTERED, Framework
from . import (
    apps,
    batch,
    dynamo,
    grove,
    jobset,
    knative,
    kserve,
    lws,
    milvus,
    mpijob,
    nim,
    pytorchjob,
    ray,
    trainjob,
    volcano,
)

ORDER = (
    "jobset",
    "trainjob",
    "pytorchjob",
    "mpijob",
    "volcano-job",
    "job",
    "cronjob",
    "raycluster",
    "rayjob",
    "rayservice",
    "leaderworkerset",
    "knative-service",
    "kserve-inferenceservice",
    "kserve-llminferenceservice",
    "nimservice",
    "nimcache",
    "milvus",
    "grove-podcliqueset",
    "dynamo",
    "deployment",
    "statefulset",
)


def _in_order() -> dict[str, Framework]:
    unlisted = set(REGISTERED) ^ set(ORDER)
    if unlisted:
        raise RuntimeError(f"frameworks registered but not in ORDER, or listed but not registered: {sorted(unlisted)}")
    return {name: REGISTERED[name] for name in ORDER}


FRAMEWORKS = _in_order()

__all__ = [
    "FRAMEWORKS",
    "ORDER",
    "apps",
    "batch",
    "dynamo",
    "grove",
    "jobset",
    "knative",
    "kserve",
    "lws",
    "milvus",
    "mpijob",
    "nim",
    "pytorchjob",
    "ray",
    "trainjob",
    "volcano",
]
