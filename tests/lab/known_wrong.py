"""Steps of the lab's scenarios where wmap disagrees with docs/semantics.md: (framework, scenario, step) ->
the rule broken and why. Their tests are ``xfail(strict=True)``, in the lab and in the replay of the
recordings (tests/lab_replay), so a fix shows up as an unexpected pass in both."""

from __future__ import annotations

KNOWN_WRONG: dict[tuple[str, str, str], str] = {
    ("jobset", "restart-then-failed", "a pod failed, restarting"): (
        "docs/semantics.md JobSet reads a failure-policy restart as Degraded through the Restarting condition "
        "(said to be written from v0.9), but JobSet v0.10.1 writes no Restarting condition (only status.restarts "
        "and an event with reason Restarting): the restarted Jobs read Initializing"
    ),
}
