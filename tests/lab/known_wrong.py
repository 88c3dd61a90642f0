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
    ("jobset", "suspend-update-resume", "suspend acted on, pods still terminating"): (
        "docs/semantics.md Transitions: Suspending is a stop acted on while pods are still going away (the Job "
        "rule counts status.terminating for it), but the JobSet rule reads only replicatedJobsStatus.active, which "
        "JobSet v0.10.1 counts from Job.status.active: the suspended Jobs' pods are terminating, not active, so a "
        "JobSet whose 4 pods are still terminating reads Suspended"
    ),
}

# wmap update's own documented behaviour (docs/cli.md) broken against a real operator's webhook.
UPDATE_DENIED_BY_WEBHOOK = (
    "docs/cli.md wmap update: 'The API server's own rules still apply ... and the server's message is shown', but "
    "an admission webhook's denial (HTTP 403, reason Forbidden, message 'admission webhook \"vjobset.kb.io\" "
    "denied the request: spec.replicatedJobs: ... field is immutable') is reported as RBAC: 'error: Forbidden: "
    "user cannot patch jobsets.jobset.x-k8s.io/train in namespace ...', hiding the server's message"
)
