"""The keys of an expectation: what ``wmap definitions test`` compares, in a sample's annotation, an
Expectations file or a recording's checkpoint (docs/cli.md). A format fact every reader of those inputs
checks, so it sits below the sources that read them and the checks that use them."""

from __future__ import annotations

from typing import Any

EXPECT_KEYS = ("primary", "matched", "pods", "desiredPods", "gpus", "podsCurrent", "podsReady", "gpusCurrent")


def expectation_problem(value: dict[str, Any]) -> str | None:
    """What is wrong with an expectation's keys (None: nothing); an annotation and a checkpoint alike."""
    unknown = sorted(str(k) for k in set(value) - set(EXPECT_KEYS))
    if unknown:
        return f"unknown key(s) {unknown} (known: {list(EXPECT_KEYS)})"
    return None
