"""Status mappings from the words a schema enumerates or samples show (docs/semantics.md, Status).

A condition type or phase value is mapped by its words (``PyTorchJobRunning`` -> running, ``DEPLOYED``
-> running, ``Succeeded`` -> completed). Only what was seen is mapped; precedence among several matches
is the resolver's (Failed > Completed > Suspending > ... > Initializing), so overlaps are harmless.
"""

from __future__ import annotations

import re

from workload_map.authoring.evidence import HIGH, LOW, MEDIUM

# word -> shared status; the longest matching word wins (``Suspending`` before ``Suspend``).
VOCABULARY: dict[str, str] = {
    "failed": "failed",
    "failure": "failed",
    "error": "failed",
    "errored": "failed",
    "crashed": "failed",
    "succeeded": "completed",
    "success": "completed",
    "complete": "completed",
    "completed": "completed",
    "finished": "completed",
    "done": "completed",
    "suspended": "suspended",
    "stopped": "suspended",
    "paused": "suspended",
    "suspending": "suspending",
    "stopping": "suspending",
    "resuming": "resuming",
    "running": "running",
    "ready": "running",
    "available": "running",
    "active": "running",
    "healthy": "running",
    "stable": "running",
    "deployed": "running",
    "serving": "running",
    "restarting": "degraded",
    "resetting": "degraded",
    "failing": "degraded",
    "invalid": "failed",
    "unrecoverable": "failed",
    "succeeding": "completed",
    "started": "running",
    "progressing": "initializing",
    "progress": "initializing",
    "submitted": "initializing",
    "admitted": "initializing",
    "reserved": "initializing",
    "degraded": "degraded",
    "unhealthy": "degraded",
    "pending": "initializing",
    "created": "initializing",
    "creating": "initializing",
    "initializing": "initializing",
    # Past participles of a start-up phase say it is over: the object is up (low confidence, below).
    "initialized": "running",
    "reachable": "running",
    # A change rolled over running pods: they keep serving while it goes on (or stalls).
    "updating": "running",
    "migrating": "running",
    "applying": "initializing",
    "stalled": "degraded",
    "starting": "initializing",
    "provisioning": "initializing",
    "deploying": "initializing",
    "queued": "initializing",
    "queuing": "initializing",
    "queueing": "initializing",
    "requested": "initializing",
    "setting": "initializing",  # "Setting up ...": a start-up step
    "scaled": "running",  # a scale went through: the pods it asked for run
    "fallback": "degraded",  # serving a fallback instead of what was asked
    "scheduling": "initializing",
    "waiting": "initializing",
    "upgrading": "initializing",
    "reconciling": "initializing",
}
# The operator's own work as the subject (``ReconciliationComplete``, ``ReconciliationPaused``): its reconcile
# loop finished or paused, while the pods it made keep running; a failed reconcile is a degraded object.
OPERATOR_WORK = ("reconcile", "reconciled", "reconciliation", "reconciler", "sync", "synced")
# Words whose status is only likely (an update may also be the first rollout; a reachable endpoint is not
# every pod): the mapping's confidence is lowered.
WEAK_WORDS = (
    "scaled",
    "setting",
    "ready",
    "available",
    "active",
    "error",
    "created",
    "waiting",
    "initialized",
    "reachable",
    "updating",
    "migrating",
    "applying",
)
# Words that turn the meaning around: "NotReady", "DEPLOYED_NOT_READY".
NEGATIONS = ("not", "un", "no")
# A failure word first and a noun after it names an action that failed (FailedScale, ErrorSync), not the object.
FAILURE_WORDS = ("failed", "failure", "error")


def words(value: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", value)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def about_the_operator(value: str) -> bool:
    """The value says how the operator's reconcile went (``ReconciliationComplete``), not how the workload
    did: it is no outcome of the workload and does not say the workload ever finishes."""
    return any(w in OPERATOR_WORK for w in words(value))


# The status a value says of the operator's work means for the pods it made: a finished or paused reconcile
# leaves them running; a failed one leaves the object degraded.
OPERATOR_MEANING = {"completed": "running", "suspended": "running", "failed": "degraded"}
# A Go constant declaring a value as the operator's (``OperatorStageResultSuccess``, ``ReconcileFailed``).
DECLARED_AS = re.compile(r"^declared in \S+ \((\w+)[:)]")


def declared_about_the_operator(evidence: str) -> bool:
    """The constant a value is declared with names the operator or its reconcile as the subject
    (``OperatorStageResultSuccess = "success"``): the value says how its work went, not the pods'."""
    named = DECLARED_AS.match(evidence)
    return named is not None and ("operator" in words(named.group(1)) or about_the_operator(named.group(1)))


def classify(value: str) -> tuple[str, str] | None:
    """(shared status, confidence) for a condition type or phase value, by its words; None when unknown.

    The last known word of an identifier decides (``PyTorchJobRunning``, ``RayClusterProvisioned``...
    ``Provisioned`` is not a word we know, so it is left to the reviewer); the first of a sentence (``Waiting
    for the instances to become active``: its verb leads). A negation before it makes it unknown; a failure
    word leading an identifier names an action that failed (``FailedUpdate``): degraded, not failed. With the
    operator's reconcile as its subject (``ReconciliationComplete``, ``ReconciliationPaused``) a word says how
    the operator's work went, not the pods': done or paused is running, failed is degraded (low confidence).
    """
    parts = words(value)
    if not parts:
        return None
    known = [(i, w) for i, w in enumerate(parts) if w in VOCABULARY]
    if not known:
        return None
    index, word = known[0] if " " in value.strip() else known[-1]
    if word in FAILURE_WORDS and index == 0 and len(parts) > 1 and len(known) == 1 and " " not in value.strip():
        return "degraded", LOW
    if any(p in NEGATIONS for p in parts[:index]):
        if VOCABULARY[word] == "running":
            return "initializing", LOW
        return None
    confidence = HIGH if len(parts) == 1 or index == len(parts) - 1 else MEDIUM
    if word in WEAK_WORDS:
        confidence = MEDIUM if confidence == HIGH else LOW
    if about_the_operator(" ".join(parts[:index])):
        meant = OPERATOR_MEANING.get(VOCABULARY[word])
        return (meant, LOW) if meant is not None else (VOCABULARY[word], LOW)
    return VOCABULARY[word], confidence


# Knative-style "happy" conditions: one condition whose status tells the outcome (Tekton's Succeeded:
# True done, False failed, Unknown still running).
OUTCOME_CONDITIONS = ("succeeded", "complete", "completed")
