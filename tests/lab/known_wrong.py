"""Steps of the lab's scenarios where wmap disagrees with docs/semantics.md: (framework, scenario, step) ->
the rule broken and why. Their tests are ``xfail(strict=True)``, in the lab and in the replay of the
recordings (tests/lab_replay), so a fix shows up as an unexpected pass in both."""

from __future__ import annotations

KNOWN_WRONG: dict[tuple[str, str, str], str] = {
    ("jobset", "suspend-update-resume", "suspend acted on, pods still terminating"): (
        "docs/semantics.md Transitions: Suspending is a stop acted on while pods are still going away (the Job "
        "rule counts status.terminating for it), but the JobSet rule reads only replicatedJobsStatus.active, which "
        "JobSet v0.10.1 counts from Job.status.active: the suspended Jobs' pods are terminating, not active, so a "
        "JobSet whose 4 pods are still terminating reads Suspended"
    ),
}
