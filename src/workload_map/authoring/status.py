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
    # The operator taking the pods down on request and keeping the object (``ShuttingDown``, ``Shutdown``).
    "shutting": "suspending",
    "shutdown": "suspended",
    "resuming": "resuming",
    "running": "running",
    "ready": "running",
    "available": "running",
    "active": "running",
    "healthy": "running",
    "stable": "running",
    "operational": "running",
    "deployed": "running",
    "serving": "running",
    "restarting": "degraded",
    "resetting": "degraded",
    "failing": "degraded",
    "invalid": "failed",
    "unsupported": "failed",  # the object asks for what the operator cannot do (``UnsupportedConfiguration``)
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
    "upgrading": "running",  # a new version rolled over the serving pods, as an update is
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
    "configuring": "initializing",  # the operator setting up what it made (replication, the network)
    "seeding": "initializing",  # data put in place before the work starts (models, a database's seed)
    "scaled": "running",  # a scale went through: the pods it asked for run
    "fallback": "degraded",  # serving a fallback instead of what was asked
    "scheduling": "initializing",
    "waiting": "initializing",
    "reconciling": "initializing",
    "initialization": "initializing",
    "bootstrap": "initializing",
    "bootstrapping": "initializing",
    "building": "initializing",
    "preparing": "initializing",
    "installing": "initializing",
    # An operation on a serving object (``ScalingUp``, ``ResizingVolumes``, ``RollingRestart``): its pods keep
    # serving while it goes on; a node being recovered or repaired is a part lost.
    "scaling": "running",
    "resizing": "running",
    "replacing": "running",
    "rolling": "running",
    "rebalancing": "running",
    "recovering": "degraded",
    "repairing": "degraded",
    "failover": "degraded",  # another member takes over from a lost one
    # The operator takes the workload's pods away (Camel K's ``Undeploying``): it stops, the object stays.
    "undeploying": "suspending",
    "undeployed": "suspended",
}
# The operator's own work as the subject (``ReconciliationComplete``, ``ReconciliationPaused``): its reconcile
# loop finished or paused, while the pods it made keep running; a failed reconcile is a degraded object.
OPERATOR_WORK = ("reconcile", "reconciled", "reconciliation", "reconciler", "sync", "synced")
# The operator's work said done by its own verb (``Reconciled``, ``Synced``): as ``ReconciliationComplete``.
OPERATOR_DONE = ("reconciled", "synced")
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
    "upgrading",
    "migrating",
    "applying",
    "scaling",
    "resizing",
    "replacing",
    "rolling",
    "rebalancing",
    "undeploying",
    "undeployed",
)
# A build (or its image) as the subject (``Build Running``, ``BuildComplete``): the workload's build runs or
# is over, the workload itself still to start; a failed build is a failed workload. Not for a kind that is
# itself a build (``classify(..., building=True)``): its build completing is its own end.
BUILD_WORDS = ("build", "builds", "image")
# An operation over running pods whose progress the value says (``UpdateInProgress``, ``RolloutProgressing``):
# the pods keep serving while it goes on.
OPERATION_NOUNS = ("update", "rollout", "scale", "resize", "restart", "migration", "rebalance")
# A recovery from a lost part whose progress the value says (``FailoverInProgress``): the object is degraded
# while it goes on.
RECOVERY_NOUNS = ("failover", "recovery", "repair")
# The object being deleted (``PendingDeletion``, ``Terminating``): no shared status says it.
DELETION_WORDS = ("deletion", "deleting", "deleted", "terminating", "finalizing")
# A prefix that negates a word (``Inactive``, ``Unavailable``, ``Unready``).
NEGATING_PREFIXES = ("in", "un", "non")
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
    (``OperatorStageResultSuccess = "success"``), or its doc comment says the object was reconciled
    (``Completed means the cluster has been reconciled``): the value says how its work went, not the pods'."""
    named = DECLARED_AS.match(evidence)
    if named is None:
        return False
    doc = evidence[named.end() :]
    return (
        "operator" in words(named.group(1)) or about_the_operator(named.group(1)) or _RECONCILED.search(doc) is not None
    )


# A doc comment saying the operator's reconcile of the object is what the value reports.
_RECONCILED = re.compile(r"(?i)\b(?:has been|was|is|got|were) (?:successfully |fully )?reconciled\b")


def declared_not_yet_running(evidence: str) -> bool:
    """The doc comment of the constant a value is declared with says the object is not yet up
    (``Initialized indicates the cluster is initialized but not yet provisioned``): a step on the way, whatever
    the word of the value itself says. The author's sentence outranks the word rule."""
    named = DECLARED_AS.match(evidence)
    return named is not None and _NOT_YET.search(evidence[named.end() :]) is not None


# "not yet" before a word of a workload being up: provisioned, ready, running, available, started, deployed...
_NOT_YET = re.compile(
    r"(?i)\bnot yet (?:been |fully )?(?:provisioned|ready|running|available|started|deployed|created|operational)\b"
)


def classify(value: str, building: bool = False) -> tuple[str, str] | None:
    """(shared status, confidence) for a condition type or phase value, by its words; None when unknown.

    The last known word of an identifier decides (``PyTorchJobRunning``, ``RayClusterProvisioned``...
    ``Provisioned`` is not a word we know, so it is left to the reviewer); the first of a sentence (``Waiting
    for the instances to become active``: its verb leads). A negation before it makes it unknown; a failure
    word leading an identifier names an action that failed (``FailedUpdate``): degraded, not failed. With the
    operator's reconcile as its subject (``ReconciliationComplete``, ``ReconciliationPaused``) a word says how
    the operator's work went, not the pods': done or paused is running, failed is degraded (low confidence).
    An operation over running pods in progress (``UpdateInProgress``) is running. With a build as its
    subject (``Build Running``, ``BuildComplete``) the workload is still to start, unless the kind is itself
    a build (``building``). A running word behind a negating prefix (``Inactive``) is not running yet; the
    object's deletion (``PendingDeletion``) is no shared status.
    """
    parts = words(value)
    if not parts or any(p in DELETION_WORDS for p in parts):
        return None
    known = [(i, w) for i, w in enumerate(parts) if w in VOCABULARY]
    if not known and parts[-1] in OPERATOR_DONE and not any(p in NEGATIONS for p in parts):
        return "running", LOW  # the operator's work done (``Reconciled``): the pods it made run
    if not known:
        negated = [p for p in parts if _negated_running(p)]
        return ("initializing", LOW) if len(negated) == 1 and len(parts) <= 2 else None
    index, word = known[0] if " " in value.strip() else known[-1]
    if word in ("progress", "progressing") and any(p in OPERATION_NOUNS for p in parts[:index]):
        return "running", LOW
    if word in ("progress", "progressing") and any(p in RECOVERY_NOUNS for p in parts[:index]):
        return "degraded", LOW
    started = VOCABULARY[word] in ("running", "completed", "initializing")
    if started and not building and any(p in BUILD_WORDS for p in parts[:index]):
        return "initializing", MEDIUM
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


def about_a_build(value: str) -> bool:
    """The value says how a build went (``Build Complete``, ``BuildFailed``), the build its subject."""
    parts = words(value)
    return any(p in BUILD_WORDS for p in parts[:-1])


def builds(kind: str) -> bool:
    """The kind is itself a build (``ImageBuild``, ``BuildRun``): a build word is its own subject."""
    return any(w in BUILD_WORDS for w in words(kind))


# A kind that is one request (``BentoRequest``): the result it asked for being there (``BentoAvailable``,
# ``ModelsExists``) is its work done, not something that serves on.
REQUEST_WORDS = ("request", "requests")
RESULT_WORDS = ("available", "ready", "exists")


def requests(kind: str) -> bool:
    """The kind is itself one request (``BentoRequest``, ``CertificateRequest``): its last word says so."""
    parts = words(kind)
    return bool(parts) and parts[-1] in REQUEST_WORDS


def a_result(value: str) -> bool:
    """The value says a result is there (``BentoAvailable``, ``ModelsExists``), not negated."""
    parts = words(value)
    return bool(parts) and parts[-1] in RESULT_WORDS and not any(p in NEGATIONS for p in parts[:-1])


def _negated_running(word: str) -> bool:
    """``inactive``, ``unavailable``: a running word behind a negating prefix (``unhealthy`` is a word of its own)."""
    return any(
        word.startswith(prefix) and VOCABULARY.get(word[len(prefix) :]) == "running" for prefix in NEGATING_PREFIXES
    )


# Knative-style "happy" conditions: one condition whose status tells the outcome (Tekton's Succeeded:
# True done, False failed, Unknown still running).
OUTCOME_CONDITIONS = ("succeeded", "complete", "completed")
