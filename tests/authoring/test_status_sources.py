"""Statuses from where an operator really keeps them: a condition list typed in a shared package, and (below)
the values its controller writes into a free string field. Our own small Go files."""

from __future__ import annotations

from pathlib import Path

from tests.authoring.fixtures import crd

from workload_map.authoring import draft
from workload_map.authoring.gosource import api_values
from workload_map.authoring.status import classify

KIND = """\
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	commonv1 "example.com/still/pkg/apis/common/v1"
)

type Still struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status StillStatus `json:"status,omitempty"`
}

type StillStatus struct {
	// ReadyBarrels is the number of barrels ready.
	ReadyBarrels int32 `json:"readyBarrels,omitempty"`
	CurrentState string `json:"currentState"`
	Conditions commonv1.Conditions `json:"conditions"`
}

type Barrel struct {
	metav1.TypeMeta `json:",inline"`
}
"""

CONDITIONS = """\
package v1

import commonv1 "example.com/still/pkg/apis/common/v1"

const (
	StillIsWarm          commonv1.ConditionType = "StillIsWarm"
	DistillationComplete commonv1.ConditionType = "DistillationComplete"
)
"""

COMMON = """\
package v1

type ConditionType string

// A condition of another kind of the project, declared in the shared package.
const CaskSealed ConditionType = "CaskSealed"

// Conditions of any kind of this project.
type Conditions []Condition

type Condition struct {
	Type   ConditionType `json:"type"`
	Status string        `json:"status"`
}
"""


def _source(root: Path) -> Path:
    for folder, name, text in [
        ("api/still/v1", "still_types.go", KIND),
        ("api/still/v1", "status.go", CONDITIONS),
        ("pkg/apis/common/v1", "common.go", COMMON),
    ]:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text)
    return root


STATUS = {
    "currentState": {"type": "string"},
    "readyBarrels": {"type": "integer"},
    "conditions": {
        "type": "array",
        "items": {"type": "object", "properties": {"type": {"type": "string"}, "status": {"type": "string"}}},
    },
}
STILL = crd("still.example.com", "Still", {}, STATUS)


def test_a_named_condition_list_of_a_shared_package_gives_the_kinds_own_condition_types(tmp_path: Path) -> None:
    root = _source(tmp_path)
    found = api_values(root, "Still", "v1")
    # The shared type's constants declared beside this kind, not another kind's (CaskSealed).
    assert [v for v, _ in found.conditions] == ["StillIsWarm", "DistillationComplete"]


def test_the_operators_own_work_and_changes_over_running_pods_are_not_the_objects_end() -> None:
    # The reconcile loop finished or paused: the pods keep running; a failed reconcile degrades.
    assert classify("ReconciliationComplete") == ("running", "low")
    assert classify("ReconciliationPaused") == ("running", "low")
    assert classify("ReconcileFailed") == ("degraded", "low")
    assert classify("DistillationComplete") == ("completed", "high")
    # A start-up phase in the past is over; a change rolls over running pods; a stalled one degrades.
    assert classify("Initialized") == ("running", "medium")
    assert classify("Updating Still Version") == ("running", "low")
    assert classify("MigratingData") == ("running", "low")
    assert classify("ApplyingChanges") == ("initializing", "low")
    assert classify("Stalled") == ("degraded", "high")
    assert classify("StillIsReachable") == ("running", "medium")


def test_a_count_of_ready_members_of_any_name_says_running() -> None:
    running = draft(STILL).karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    assert {"byExpression": {"expression": "(.status.readyBarrels // 0) > 0", "expectedResult": "true"}} in running[
        "running"
    ]
