"""Counts the operator's code defaults where the CRD declares none (godefaults.py): a ``Validate()`` of the API
types turning 0 into a constant, a webhook's ``Default()`` filling a missing object and its count, a struct
field that is no pointer (never missing for the operator). Our own small Go files and CRD."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from workload_map.authoring import draft, godefaults
from workload_map.authoring.godefaults import FILLED_OBJECT
from workload_map.base.snapshot import Snapshot
from workload_map.definition.loader import LoadedDefinition, definition_from_dict
from workload_map.definition.registry import DefinitionRegistry
from workload_map.errors import Location
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.tree.build import tree_of

from .fixtures import crd

TYPES = """\
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Beacon struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec BeaconSpec   `json:"spec,omitempty"`
}

type BeaconSpec struct {
	Relay RelaySettings `json:"relay,omitempty"`
	Watch *WatchSpec    `json:"watch,omitempty"`
	Extra *ExtraSpec    `json:"extra,omitempty"`
	Image string        `json:"image,omitempty"`
	Spare int32         `json:"spare,omitempty"`
}

type RelaySettings struct {
	Replicas int32 `json:"replicas,omitempty"`
}

type WatchSpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
}

type ExtraSpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
}
"""

DEFAULTS = """\
package v1

const (
	defaultRelays = 4
	defaultImage  = "beacon:1"
)

func (b *Beacon) Validate() error {
	if b.Spec.Image == "" {
		b.Spec.Image = defaultImage
	}
	if b.Spec.Relay.Replicas <= 0 {
		b.Spec.Relay.Replicas = defaultRelays
	}
	return nil
}
"""

WEBHOOK = """\
package webhook

import (
	v1 "example.com/beacon/api/v1"
	"k8s.io/utils/ptr"
)

func (d *Defaulter) Default(b *v1.Beacon) {
	if b.Spec.Watch == nil {
		b.Spec.Watch = new(v1.WatchSpec)
	}
	if b.Spec.Watch.Replicas == nil {
		b.Spec.Watch.Replicas = ptr.To[int32](2)
	}
}
"""

CONTROLLER = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/beacon/api/v1"
)

func (r *Reconciler) Reconcile(b *v1.Beacon) error {
	_ = b.Validate()
	relays := &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: &b.Spec.Relay.Replicas}}
	watch := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: b.Spec.Watch.Replicas}}
	extra := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: b.Spec.Extra.Replicas}}
	_, _, _ = relays, watch, extra
	return nil
}
"""

COUNT = {"replicas": {"type": "integer"}}
BEACON_CRD = crd(
    "beacon.example.com",
    "Beacon",
    {
        "relay": {"type": "object", "properties": COUNT},
        "watch": {"type": "object", "properties": COUNT},
        "extra": {"type": "object", "properties": COUNT},
        "image": {"type": "string"},
    },
)


def _operator(root: Path, defaults: str = DEFAULTS) -> Path:
    for path, text in {
        "api/v1/types.go": TYPES,
        "api/v1/defaults.go": defaults,
        "webhook/default.go": WEBHOOK,
        "controller/beacon.go": CONTROLLER,
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _desired(text: str, spec: dict[str, Any]) -> dict[str, int]:
    loaded, findings = definition_from_dict(yaml.safe_load(text), Location("draft.yaml"))
    assert loaded is not None, findings
    beacon = {
        "apiVersion": "beacon.example.com/v1",
        "kind": "Beacon",
        "metadata": {"name": "b", "namespace": "ns", "uid": "uid-b"},
        "spec": spec,
    }
    registry = DefinitionRegistry([LoadedDefinition(loaded, Location("draft.yaml"))])
    tree = tree_of(WorkloadIndex(Snapshot([beacon]), registry), beacon).to_json()
    return {
        c["name"]: sum(int(i["desiredPods"]) for i in c.get("instances", []))
        for c in tree["components"]
        if c["name"] != "beacon"
    }


def test_the_reader_finds_the_counts_and_objects_the_code_fills_in(tmp_path: Path) -> None:
    found = godefaults.code_defaults(_operator(tmp_path), "Beacon", "v1")
    values = {segments: filled.value for segments, filled in found.items()}
    assert values == {
        ("spec", "relay", "replicas"): 4,  # the constant a Validate() gives 0 or less
        ("spec", "watch"): FILLED_OBJECT,  # a webhook's new(WatchSpec)
        ("spec", "watch", "replicas"): 2,  # ptr.To[int32](2)
        ("spec", "relay"): FILLED_OBJECT,  # a struct field, no pointer: never missing
        ("spec", "spare"): 0,  # an int32, no pointer, nothing defaults it: unset is 0
    }
    assert found["spec", "spare"].zero and not found["spec", "relay", "replicas"].zero
    assert found["spec", "relay", "replicas"].where == "api/v1/defaults.go:13"


def test_two_defaults_for_one_count_are_none(tmp_path: Path) -> None:
    """A count given 4 in one place and 5 in another (by mode, by version): which applies is not known."""
    other = DEFAULTS + "\nfunc (b *Beacon) Upgrade() {\n\tif b.Spec.Relay.Replicas == 0 {\n"
    other += "\t\tb.Spec.Relay.Replicas = 5\n\t}\n}\n"
    found = godefaults.code_defaults(_operator(tmp_path, other), "Beacon", "v1")
    assert ("spec", "relay", "replicas") not in found


def test_an_object_that_leaves_the_counts_unset_runs_the_codes_defaults(tmp_path: Path) -> None:
    made = draft(BEACON_CRD, api_source=_operator(tmp_path))
    children = {c["name"]: c for c in made.karta["spec"]["structureDefinition"]["childComponents"]}
    assert {name: c["scaleDefinition"]["replicasPath"] for name, c in children.items()} == {
        "relay": "(.spec.relay // {} | .replicas // 4)",
        "watch": "(.spec.watch // {} | .replicas // 2)",
        # Nothing fills the optional object in: without it the operator builds no such workload.
        "extra": "(if .spec.extra == null then 0 else 1 end) * (.spec.extra.replicas // 1)",
    }
    assert "the operator's default, api/v1/defaults.go:13" in made.text
    assert _desired(made.text, {}) == {"relay": 4, "watch": 2, "extra": 0}
    assert _desired(made.text, {"relay": {"replicas": 1}, "watch": {}, "extra": {}}) == {
        "relay": 1,
        "watch": 2,
        "extra": 1,
    }


PRESETS = """\
package v1

type ScaleSize struct {
	Relay PartSize
	Watch PartSize
}

type PartSize struct {
	Replicas int32
	Memory   string
}

var small = ScaleSize{
	Relay: PartSize{Replicas: 1},
	Watch: PartSize{
		Memory:   "1Gi",
		Replicas: 5,
	},
}

var DefaultScale = small
"""


def test_a_count_filled_from_a_preset_variable(tmp_path: Path) -> None:
    """``x = &pkg.DefaultScale.Watch.Replicas``: a field of a package variable given a struct literal."""
    _operator(tmp_path)
    (tmp_path / "api/v1/presets.go").write_text(PRESETS)
    webhook = WEBHOOK.replace("ptr.To[int32](2)", "&v1.DefaultScale.Watch.Replicas")
    (tmp_path / "webhook/default.go").write_text(webhook)
    found = godefaults.code_defaults(tmp_path, "Beacon", "v1")
    assert found["spec", "watch", "replicas"].value == 5


GETTER = """\
package v1

func (e *ExtraSpec) Count() int32 {
	if e.Replicas == nil {
		return 6
	}
	return *e.Replicas
}

func (e *ExtraSpec) Half() int32 {
	if e.Replicas == nil {
		return 0
	}
	return *e.Replicas / 2
}
"""


def test_a_getters_early_return_is_the_default(tmp_path: Path) -> None:
    """``if e.Replicas == nil { return 6 }`` before ``return *e.Replicas``; not in a function returning
    something else computed from it (``Half``)."""
    _operator(tmp_path)
    (tmp_path / "api/v1/getters.go").write_text(GETTER)
    found = godefaults.code_defaults(tmp_path, "Beacon", "v1")
    assert found["spec", "extra", "replicas"].value == 6
    assert found["spec", "extra", "replicas"].where == "api/v1/getters.go:5"


FLOORED = """\
package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "example.com/beacon/api/v1"
)

func spares(b *v1.Beacon) *appsv1.StatefulSet {
	n := max(b.Spec.Spare, 2)
	return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: &n}}
}
"""


def test_a_count_read_with_a_floor_runs_the_floor_when_unset(tmp_path: Path) -> None:
    """``max(b.Spec.Spare, 2)``: an int32 nothing else defaults is no 0 then, but 2."""
    _operator(tmp_path)
    (tmp_path / "controller/spares.go").write_text(FLOORED)
    found = godefaults.code_defaults(tmp_path, "Beacon", "v1")
    assert (found["spec", "spare"].value, found["spec", "spare"].zero) == (2, False)


def test_an_object_filled_with_a_literal_gives_its_counts(tmp_path: Path) -> None:
    """``b.Spec.Extra = &v1.ExtraSpec{Replicas: ptr.To[int32](7)}`` while it is nil: the object is there, and
    its count 7 unless the object says otherwise."""
    _operator(tmp_path)
    webhook = WEBHOOK.replace(
        "\tif b.Spec.Watch == nil {",
        "\tif b.Spec.Extra == nil {\n\t\tb.Spec.Extra = &v1.ExtraSpec{\n\t\t\tReplicas: ptr.To[int32](7),\n\t\t}\n\t}\n"
        "\tif b.Spec.Watch == nil {",
    )
    (tmp_path / "webhook/default.go").write_text(webhook)
    found = godefaults.code_defaults(tmp_path, "Beacon", "v1")
    assert (found["spec", "extra"].value, found["spec", "extra", "replicas"].value) == (FILLED_OBJECT, 7)
    made = draft(BEACON_CRD, api_source=tmp_path)
    assert _desired(made.text, {}) == {"relay": 4, "watch": 2, "extra": 7}


LOCAL_COPY = """\
package v1

func (b *Beacon) readWatch() int32 {
	w := b.Spec.Watch
	if w == nil {
		w = &WatchSpec{}
	}
	return 0
}
"""

GENERATED = """\
package v1

func (m *BeaconSpec) Unmarshal(data []byte) error {
	if m.Watch == nil {
		m.Watch = &WatchSpec{}
	}
	return nil
}
"""


def test_a_local_copy_or_generated_code_fills_no_object_in(tmp_path: Path) -> None:
    """An object made for reading in a local (``w := b.Spec.Watch; if w == nil { w = &WatchSpec{} }``), or by
    a protobuf Unmarshal, leaves the object without it: its workload still counts 0 while it is unset."""
    _operator(tmp_path)
    (tmp_path / "webhook/default.go").write_text(WEBHOOK.replace("new(v1.WatchSpec)", "b.Spec.Watch"))
    (tmp_path / "api/v1/read.go").write_text(LOCAL_COPY)
    (tmp_path / "api/v1/generated.pb.go").write_text(GENERATED)
    found = godefaults.code_defaults(tmp_path, "Beacon", "v1")
    assert ("spec", "watch") not in found
