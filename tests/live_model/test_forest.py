"""The live store's grouping by root: owners arriving after what they own, owners going, cycles."""

from __future__ import annotations

from workload_map.base.objects import Obj
from workload_map.live.forest import OwnerForest


def _obj(uid: str, owner: str | None = None, *, controller: bool = True) -> Obj:
    meta: dict[str, object] = {"uid": uid, "name": uid, "namespace": "ns"}
    if owner is not None:
        meta["ownerReferences"] = [{"uid": owner, "controller": controller}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta}


def test_a_child_seen_before_its_owner_moves_under_it_when_the_owner_comes() -> None:
    forest = OwnerForest()
    forest.put(_obj("pod", "job"))
    forest.set_roots()
    assert forest.root["pod"] == "pod"
    dirty: set[str] = set()
    forest.put(_obj("job"))
    forest.reroot("job", dirty)
    assert forest.root == {"pod": "job", "job": "job"}
    assert dirty == {"pod", "job"}  # the pod's old group and the new one are resolved again


def test_an_owner_removed_leaves_its_children_roots_of_their_own() -> None:
    forest = OwnerForest()
    for obj in (_obj("set"), _obj("job", "set"), _obj("pod", "job")):
        forest.put(obj)
    forest.set_roots()
    assert set(forest.root.values()) == {"set"}
    forest.remove("set")
    dirty: set[str] = set()
    for child in forest.children("set"):
        forest.reroot(child, dirty)
    assert forest.root == {"job": "job", "pod": "job"}
    assert sorted(forest.subtree("job")) == ["job", "pod"]


def test_an_ownership_cycle_ends_at_the_object_asked_about() -> None:
    forest = OwnerForest()
    forest.put(_obj("a", "b"))
    forest.put(_obj("b", "a"))
    assert forest.root_of("a") == "b" and forest.root_of("b") == "a"


def test_a_dump_keeps_file_order_among_a_roots_members() -> None:
    forest = OwnerForest()
    objects = [_obj("job"), _obj("pod-2", "job"), _obj("pod-1", "job")]
    for obj in objects:
        forest.put(obj)
    assert sorted(objects[1:], key=forest.member_order) == objects[1:]
