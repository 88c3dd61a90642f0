from __future__ import annotations

from helpers import JOBSET_DEFINITION, karta
from workload_map.definition.model import ResourceStatus
from workload_map.resolve.status import evaluate_status

STATUS = karta(JOBSET_DEFINITION).root.status_definition


def test_all_matches_primary_by_precedence_and_explanations() -> None:
    obj = {
        "status": {
            "conditions": [
                {"type": "Completed", "status": "True", "reason": "AllJobsCompleted", "message": "jobs completed"},
                {"type": "Suspended", "status": "True", "reason": "SuspendedJobs"},
            ],
            "replicatedJobsStatus": [{"name": "w", "ready": 1}],
        }
    }
    result = evaluate_status(STATUS, obj)
    assert result.matched == [ResourceStatus.COMPLETED, ResourceStatus.SUSPENDED, ResourceStatus.RUNNING]
    assert result.primary is ResourceStatus.COMPLETED
    completed = next(e for e in result.explanations if e.status is ResourceStatus.COMPLETED)
    check = completed.matchers[0].checks[0]
    assert check.ok and check.actual == "type=Completed status=True reason=AllJobsCompleted"
    assert check.detail == "jobs completed"
    failed = next(e for e in result.explanations if e.status is ResourceStatus.FAILED)
    assert not failed.matched and failed.matchers[0].checks[0].detail == "no condition of type Failed"
    assert result.conditions[0].message == "jobs completed"


def test_no_status_is_undefined() -> None:
    result = evaluate_status(STATUS, {"spec": {}})
    assert result.primary is ResourceStatus.UNDEFINED and result.matched == []


def test_last_condition_of_a_type_wins() -> None:
    obj = {"status": {"conditions": [{"type": "Failed", "status": "True"}, {"type": "Failed", "status": "False"}]}}
    assert ResourceStatus.FAILED not in evaluate_status(STATUS, obj).matched


def test_failing_matcher_is_reported_and_does_not_hide_others() -> None:
    definition = karta(
        JOBSET_DEFINITION.replace(
            "'[.status.replicatedJobsStatus[]?.ready] | add // 0 | . > 0'", "'.status.restarts | ascii_downcase'"
        )
    )
    obj = {"status": {"restarts": 3, "conditions": [{"type": "Failed", "status": "True", "reason": "FailedJobs"}]}}
    result = evaluate_status(definition.root.status_definition, obj)
    assert result.primary is ResourceStatus.FAILED
    running = next(e for e in result.explanations if e.status is ResourceStatus.RUNNING)
    assert running.matchers[0].error == "byExpression failed: explode input must be a string"
    assert "ascii_downcase" in running.matchers[0].checks[0].detail
    assert any("statusMappings.running[0]" in e for e in result.errors)


def test_phase_matching_and_expression_text() -> None:
    definition = karta("""
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: p}
spec:
  structureDefinition:
    rootComponent:
      name: pod
      kind: {group: "", version: v1, kind: Pod}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running:
          - byPhase: Running
            byExpression: {expression: '.status.containerStatuses | length', expectedResult: "2"}
          initializing: [{byPhase: Pending}]
""")
    status = definition.root.status_definition
    running = evaluate_status(status, {"status": {"phase": "Running", "containerStatuses": [{}, {}]}})
    assert running.primary is ResourceStatus.RUNNING and running.phase == "Running"
    partial = evaluate_status(status, {"status": {"phase": "Running", "containerStatuses": [{}]}})
    assert partial.primary is ResourceStatus.UNDEFINED
    running_explanation = next(e for e in partial.explanations if e.status is ResourceStatus.RUNNING)
    check = running_explanation.matchers[0].checks[1]
    assert (check.expected, check.actual, check.ok) == ("2", "1", False)
