"""The shared status of a workload, with an explanation of every matcher.

The reference returns every matched status and leaves the choice to each consumer; we also choose
one primary status by a single precedence (most final and most specific first) and say, status by
status and matcher by matcher, why it matched or not.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from workload_map.base.model import Model, field
from workload_map.definition.model import (
    ConditionsDefinition,
    ExpectedCondition,
    ResourceStatus,
    StatusDefinition,
    StatusMatcher,
)
from workload_map.jq import to_text
from workload_map.resolve.evaluate import run

if TYPE_CHECKING:
    from workload_map.resolve.pods import PodState

# The index of the resolver's own matcher in an explanation: it is no matcher of the definition.
RESOLVER_RULE = -1

PRECEDENCE: tuple[ResourceStatus, ...] = (
    ResourceStatus.FAILED,
    ResourceStatus.COMPLETED,
    ResourceStatus.SUSPENDING,
    ResourceStatus.RESUMING,
    ResourceStatus.SUSPENDED,
    ResourceStatus.DEGRADED,
    ResourceStatus.RUNNING,
    ResourceStatus.INITIALIZING,
)


class Condition(Model, kw_only=False):
    type: str
    status: str | None
    reason: str | None
    message: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"type": self.type, "status": self.status, "reason": self.reason, "message": self.message}


class Check(Model, frozen=False, kw_only=False):
    """One criterion of a matcher and how it fared."""

    kind: str  # phase | condition | expression
    expected: str
    actual: str | None
    ok: bool
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "expected": self.expected,
            "actual": self.actual,
            "ok": self.ok,
            "detail": self.detail,
        }


class MatcherResult(Model, frozen=False, kw_only=False):
    index: int
    matched: bool
    checks: list[Check] = field(default_factory=list)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "matched": self.matched,
            "error": self.error,
            "checks": [c.to_json() for c in self.checks],
        }


class StatusExplanation(Model, frozen=False, kw_only=False):
    status: ResourceStatus
    matched: bool
    matchers: list[MatcherResult]

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status.value, "matched": self.matched, "matchers": [m.to_json() for m in self.matchers]}


class StatusResult(Model, frozen=False, kw_only=False):
    primary: ResourceStatus
    matched: list[ResourceStatus]
    phase: str | None
    conditions: list[Condition]
    explanations: list[StatusExplanation]
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "primary": self.primary.value,
            "matched": [s.value for s in self.matched],
            "phase": self.phase,
            "conditions": [c.to_json() for c in self.conditions],
            "explanations": [e.to_json() for e in self.explanations],
            "errors": list(self.errors),
        }


def _text(value: Any) -> str | None:
    return None if value is None else to_text(value)


def read_conditions(definition: ConditionsDefinition, workload: Any) -> tuple[list[Condition], str | None]:
    outputs, error = run(definition.path, workload)
    if error is not None:
        return [], f"conditionsDefinition.path failed: {error}"
    raw: list[Any] = []
    for output in outputs:
        if isinstance(output, list):
            raw.extend(output)
        elif output is not None:
            raw.append(output)
    conditions = []
    for item in raw:
        if not isinstance(item, dict):
            continue
        kind = item.get(definition.type_field_name)
        if kind is None:
            continue
        conditions.append(
            Condition(
                type=to_text(kind),
                status=_text(item.get(definition.status_field_name)),
                reason=_text(item.get(definition.reason_field_name)) if definition.reason_field_name else None,
                message=_text(item.get(definition.message_field_name)) if definition.message_field_name else None,
            )
        )
    return conditions, None


def read_phase(definition: StatusDefinition, workload: Any) -> tuple[str | None, str | None]:
    if definition.phase_definition is None:
        return None, None
    outputs, error = run(definition.phase_definition.path, workload)
    if error is not None:
        return None, f"phaseDefinition.path failed: {error}"
    if not outputs or outputs[0] is None:
        return None, None
    return to_text(outputs[0]), None


def _check_condition(expected: ExpectedCondition, by_type: dict[str, Condition]) -> Check:
    wanted = [f"type={expected.type}"]
    if expected.status is not None:
        wanted.append(f"status={expected.status}")
    if expected.reason is not None:
        wanted.append(f"reason={expected.reason}")
    found = by_type.get(expected.type)
    if found is None:
        return Check("condition", " ".join(wanted), None, False, f"no condition of type {expected.type}")
    actual = f"type={found.type} status={found.status} reason={found.reason}"
    ok = (expected.status is None or expected.status == found.status) and (
        expected.reason is None or expected.reason == found.reason
    )
    return Check("condition", " ".join(wanted), actual, ok, found.message or "")


def _evaluate_matcher(
    index: int,
    matcher: StatusMatcher,
    workload: Any,
    phase: str | None,
    by_type: dict[str, Condition],
) -> MatcherResult:
    result = MatcherResult(index, False)
    if matcher.by_phase is not None:
        result.checks.append(Check("phase", matcher.by_phase, phase, phase == matcher.by_phase))
    for expected in matcher.by_conditions or []:
        result.checks.append(_check_condition(expected, by_type))
    if matcher.by_expression is not None:
        expression = matcher.by_expression.expression
        outputs, error = run(expression, workload)
        if error is not None:
            result.error = f"byExpression failed: {error}"
            result.checks.append(
                Check("expression", matcher.by_expression.expected_result, None, False, f"{expression}: {error}")
            )
        else:
            actual = to_text(outputs[0]) if outputs else None
            detail = expression if outputs else f"{expression}: produced no output"
            result.checks.append(
                Check(
                    "expression",
                    matcher.by_expression.expected_result,
                    actual,
                    actual == matcher.by_expression.expected_result,
                    detail,
                )
            )
    result.matched = bool(result.checks) and all(c.ok for c in result.checks) and result.error is None
    return result


def evaluate_status(definition: StatusDefinition | None, workload: Any) -> StatusResult:
    if definition is None:
        return StatusResult(ResourceStatus.UNDEFINED, [], None, [], [], ["the root has no statusDefinition"])
    errors: list[str] = []
    phase, phase_error = read_phase(definition, workload)
    if phase_error:
        errors.append(phase_error)
    conditions: list[Condition] = []
    if definition.conditions_definition is not None:
        conditions, condition_error = read_conditions(definition.conditions_definition, workload)
        if condition_error:
            errors.append(condition_error)
    # Later entries win: lists that keep a history end with the current condition of each type.
    by_type = {c.type: c for c in conditions}
    explanations = []
    for status, field_name, matchers in definition.status_mappings.entries():
        results = [_evaluate_matcher(i, m, workload, phase, by_type) for i, m in enumerate(matchers)]
        for result in results:
            if result.error:
                errors.append(f"statusMappings.{field_name}[{result.index}]: {result.error}")
        explanations.append(StatusExplanation(status, any(r.matched for r in results), results))
    matched_set = {e.status for e in explanations if e.matched}
    matched = [s for s in PRECEDENCE if s in matched_set]
    primary = matched[0] if matched else ResourceStatus.UNDEFINED
    return StatusResult(primary, matched, phase, conditions, explanations, errors)


def pods_going_away(status: StatusResult, pods: Iterable[PodState]) -> None:
    """A stop acted on while pods are still going away is Suspending (docs/semantics.md "Transitions"): a
    Suspended status while the workload's pods are all terminating and none is finished yet becomes
    Suspending. Statuses that count only active pods cannot see pods being deleted (JobSet's
    replicatedJobsStatus, from the Jobs' ``active``), the tree can. Pods running beside them (a paused
    Deployment scaled down) leave it Suspended: those are not going away."""
    if status.primary is not ResourceStatus.SUSPENDED:
        return
    states = list(pods)
    going = sum(1 for s in states if s.terminating and s.phase not in ("Succeeded", "Failed"))
    if not going or any(s.active for s in states):
        return
    check = Check(
        "pods",
        "every pod not finished is terminating",
        f"{going} terminating",
        True,
        "Suspended while its pods are still going away is Suspending (the resolver's rule, not a matcher)",
    )
    rule = MatcherResult(RESOLVER_RULE, True, [check])
    explanation = next((e for e in status.explanations if e.status is ResourceStatus.SUSPENDING), None)
    if explanation is None:
        status.explanations.append(StatusExplanation(ResourceStatus.SUSPENDING, True, [rule]))
    else:
        explanation.matched = True
        explanation.matchers.append(rule)
    matched = {*status.matched, ResourceStatus.SUSPENDING}
    status.matched = [s for s in PRECEDENCE if s in matched]
    status.primary = ResourceStatus.SUSPENDING
