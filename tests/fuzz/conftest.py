"""Hypothesis profiles of the fuzz tests.

``default``: the bounded, seeded budget of the normal test run (same examples every run, a few minutes on
2 cores for the whole set). ``fuzz``: ``make fuzz`` (tests/fuzz/run.py), random and larger, run for a given
time with a new seed each round.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

# Deadlines are the engine's (1 s per evaluation, bench/JQ_ENGINE.md); hypothesis' own per-example
# deadline would be a timed assertion on a shared machine.
settings.register_profile(
    "default",
    max_examples=int(os.environ.get("WMAP_FUZZ_EXAMPLES", "40")),
    derandomize=True,
    deadline=None,
    suppress_health_check=_SLOW,
    print_blob=True,
)
settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("WMAP_FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=_SLOW,
    print_blob=True,
)
settings.load_profile(os.environ.get("WMAP_HYPOTHESIS_PROFILE", "default"))
