"""Drafts corrected by what the operator was seen to make: recordings of our own, shaped like the lab's captures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from tests.authoring.fixtures import TEMPLATE, crd

import workload_map as wm
from workload_map.authoring import observed, observedlists, observedroles
from workload_map.authoring.builder import Builder
from workload_map.authoring.transitions import Moment

NS = "lab"


def _meta(name: str, uid: str, owner: dict[str, Any] | None = None, **labels: str) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "namespace": NS, "uid": uid}
    if owner is not None:
        ref = {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"]}
        out["ownerReferences"] = [{**ref, "uid": owner["metadata"]["uid"], "controller": True}]
    if labels:
        out["labels"] = labels
    return out


def _root(kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": kind, "metadata": _meta(name, f"uid-{name}"), "spec": spec}


def _workload(kind: str, name: str, owner: dict[str, Any], replicas: int, image: str) -> dict[str, Any]:
    api = "apps/v1"
    template = {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "main", "image": image}]}}
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": _meta(name, f"uid-{kind}-{name}", owner),
        "spec": {"replicas": replicas, "template": template},
    }


def _pods(owner: dict[str, Any], count: int, image: str, ready: bool = True) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": _meta(f"{owner['metadata']['name']}-{i}", f"uid-{owner['metadata']['name']}-{i}", owner),
            "spec": {"containers": [{"name": "main", "image": image}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": str(ready)}]},
        }
        for i in range(count)
    ]


def _recording(path: Path, root: dict[str, Any], objects: list[dict[str, Any]]) -> str:
    """A `wmap record` file: the root added, then each object the operator made."""
    events = [
        {"at": f"2026-12-07T10:00:{i:02d}Z", "type": "ADDED", "object": o} for i, o in enumerate([root, *objects])
    ]
    data = {
        "apiVersion": "workload-map.run.ai/v1alpha1",
        "kind": "Recording",
        "workload": {
            "apiVersion": root["apiVersion"],
            "kind": root["kind"],
            "namespace": NS,
            "name": root["metadata"]["name"],
        },
        "recorded": {"by": "test", "started": "2026-12-07T10:00:00Z"},
        "objects": [],
        "events": events,
    }
    path.write_text(yaml.safe_dump(data))
    return str(path)


def _structure(result: wm.Draft) -> dict[str, Any]:
    structure: dict[str, Any] = result.karta["spec"]["structureDefinition"]
    return structure


# An operator that composes its pods from scattered fields: image, a member count with a schema default.
CACHE = crd(
    "example.com",
    "Cache",
    {"image": {"type": "string"}, "members": {"type": "integer", "default": 3}, "port": {"type": "integer"}},
)


def _cache_run(tmp_path: Path, name: str, members: int | None) -> str:
    spec: dict[str, Any] = {"image": "cache:2", "port": 6379}
    if members is not None:
        spec["members"] = members
    root = _root("Cache", name, spec)
    sts = _workload("StatefulSet", name, root, members or 3, "cache:2")
    return _recording(tmp_path / f"{name}.yaml", root, [sts, *_pods(sts, members or 3, "cache:2")])


def test_a_composed_pod_seen_through_a_statefulset_is_that_kind_read_from_no_path(tmp_path: Path) -> None:
    result = wm.draft_definition(CACHE, recordings=[_cache_run(tmp_path, "c1", 2), _cache_run(tmp_path, "c2", None)])
    structure = _structure(result)
    owners = [k["kind"] for k in structure.get("additionalChildKinds", [])]
    children = [c for c in structure.get("childComponents", []) if "specDefinition" in c]
    component = structure["rootComponent"] if not children else children[0]
    assert (owners[:1] if not children else [component["kind"]["kind"]]) == ["StatefulSet"]
    assert component["specDefinition"] == {"fragmentedPodSpecDefinition": {}}
    # the count: .spec.members equals the StatefulSet's replicas in both runs, the schema's 3 where unset
    assert component["scaleDefinition"]["replicasPath"] == ".spec.members // 3"
    assert "seen in " in result.text and "c1.yaml" in result.text
    assert not [t for t in result.todos if "scaleDefinition" in t or "specDefinition" in t]


def test_a_count_equal_to_other_fields_is_not_guessed(tmp_path: Path) -> None:
    # .spec.members and .spec.shards are both 3 in the only run and neither is named like a count of replicas:
    # the recording cannot tell which one counts the pods, and the draft keeps its own reading.
    root = _root("Cache", "c3", {"image": "cache:2", "members": 3, "shards": 3})
    sts = _workload("StatefulSet", "c3", root, 3, "cache:2")
    moments = [Moment(0, "t0", root, (), 0, (root, sts, *_pods(sts, 3, "cache:2")), "r.yaml")]
    (group,) = observedroles.groups(moments)
    assert observedroles.count(group, None) is None
    root["spec"]["shards"] = 5
    assert observedroles.count(group, None) is not None


def test_several_children_of_one_role_are_one_component_counted_together(tmp_path: Path) -> None:
    root = _root("Cache", "big", {"image": "cache:2", "racks": 2, "perRack": 2, "total": 4})
    racks = [_workload("StatefulSet", f"big-{i}", root, 2, "cache:2") for i in range(2)]
    objects = [root, *racks, *(p for r in racks for p in _pods(r, 2, "cache:2"))]
    (group,) = observedroles.groups([Moment(0, "t0", root, (), 0, tuple(objects), "r.yaml")])
    assert group.kind["kind"] == "StatefulSet" and group.owners == {"big-0", "big-1"}
    found = observedroles.count(group, None)
    assert found is not None and found.segments == ("spec", "total")


def test_a_deployment_is_the_owner_of_the_pods_of_its_replicasets() -> None:
    root = _root("Portal", "p", {"template": {"spec": {"containers": [{"name": "main", "image": "web:1"}]}}})
    deployment = _workload("Deployment", "p-web", root, 2, "web:1")
    replicaset = _workload("ReplicaSet", "p-web-5d8f7c9b4", deployment, 2, "web:1")
    objects = (root, deployment, replicaset, *_pods(replicaset, 2, "web:1"))
    (group,) = observedroles.groups([Moment(0, "t0", root, (), 0, objects, "r.yaml")])
    assert group.kind == {"group": "apps", "version": "v1", "kind": "Deployment"}
    # the ReplicaSet's hash is no role of the operator's: the Deployment's name after the object's is
    assert group.role == "web" and group.chain == ("Deployment",)
    shape = observedroles.template(group)
    assert (shape.segments, shape.form) == (("spec", "template"), "template")


def test_the_template_is_the_field_whose_containers_the_pods_carry(tmp_path: Path) -> None:
    # The schema types one pod template (a migration job's) and leaves the runner's open: the schema reading
    # takes the typed one; the pods carry the runner's containers.
    open_object = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    portal = crd(
        "example.com",
        "Portal",
        {
            "runner": {"type": "object", "properties": {"podTemplate": open_object}},
            "migration": {"type": "object", "properties": {"template": TEMPLATE}},
        },
    )
    main = {"containers": [{"name": "main", "image": "web:1"}]}
    migrate = {"containers": [{"name": "migrate", "image": "tools:1"}]}
    root = _root(
        "Portal", "p", {"runner": {"podTemplate": {"spec": main}}, "migration": {"template": {"spec": migrate}}}
    )
    deployment = _workload("Deployment", "p", root, 1, "web:1")
    path = _recording(tmp_path / "p.yaml", root, [deployment, *_pods(deployment, 1, "web:1")])
    result = wm.draft_definition(portal, recordings=[path])
    structure = _structure(result)
    reading = {
        str(c["specDefinition"].get("podTemplateSpecPath")): c["kind"]["kind"]
        for c in structure.get("childComponents", [])
        if "specDefinition" in c
    }
    assert reading[".spec.runner.podTemplate"] == "Deployment"
    assert "the pods carry the containers (main) of .spec.runner.podTemplate" in " ".join(result.text.split())
    # the typed template no pod was seen of stays (the object may not always set it), and says so
    assert "no pod of it was seen in" in result.text


def _cache_with_a_job() -> tuple[list[dict[str, Any]], list[Moment]]:
    """A Cache seen running a StatefulSet of 2 pods, drafted as a Job and that StatefulSet (children, moments)."""
    root = _root("Cache", "c", {"image": "cache:2", "members": 2})
    sts = _workload("StatefulSet", "c", root, 2, "cache:2")
    moments = [Moment(0, "t0", root, (), 0, (root, sts, *_pods(sts, 2, "cache:2")), "run.yaml")]
    job = {"name": "job", "ownerRef": "cache", "kind": {"group": "batch", "version": "v1", "kind": "Job"}}
    job["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
    made = {"name": "sts", "ownerRef": "cache", "kind": {"group": "apps", "version": "v1", "kind": "StatefulSet"}}
    made["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
    return [job, made], moments


def test_a_component_no_pod_was_seen_of_is_dropped_and_said() -> None:
    builder = Builder(())
    children, moments = _cache_with_a_job()
    made = children[1]
    builder.note(("spec", "structureDefinition", "childComponents", 1, "kind"), "medium", "the Go reading")
    root_component = {"name": "cache", "kind": {"group": "example.com", "version": "v1", "kind": "Cache"}}
    observed.apply(builder, None, moments, observed.Structure(root_component, children, [], {}, {"cache"}))
    assert [c["name"] for c in children] == ["sts"]
    notes = builder.notes[("spec", "structureDefinition", "childComponents", 0, "kind")]
    assert notes[0] == "[medium] the Go reading" and "seen in run.yaml" in notes[1]
    assert "dropped job (Job)" in " ".join(builder.notes[("spec", "structureDefinition", "rootComponent", "name")])
    assert made["scaleDefinition"] == {"replicasPath": ".spec.members // 1"}


def _request(conditions: list[dict[str, str]]) -> dict[str, Any]:
    obj = _root("CertRequest", "cr", {"commonName": "example.com"})
    obj["status"] = {"conditions": conditions}
    return obj


def test_a_value_only_its_words_placed_keeps_what_the_kind_says() -> None:
    # Versions without pods: the moments cannot settle what Ready means; the kind is one request, whose result
    # being there is its work done (the static reading), not a workload running.
    versions = [_request([]), _request([{"type": "Ready", "status": "True"}])]
    kind = crd("example.com", "CertRequest", {"commonName": {"type": "string"}})
    result = wm.draft_definition(kind, versions=[versions])
    mappings = result.karta["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    ready = {"byConditions": [{"type": "Ready", "status": "True"}]}
    assert ready in mappings["completed"] and ready not in mappings.get("running", [])
    assert "the moments said nothing, the kind and the source say completed" in " ".join(result.text.split())


def test_a_list_of_sidecars_the_operator_adds_is_not_the_pods_definition() -> None:
    root = _root("Cache", "c", {"image": "cache:2", "sidecars": [{"name": "exporter", "image": "exp:1"}]})
    sts = _workload("StatefulSet", "c", root, 1, "cache:2")
    (pod,) = _pods(sts, 1, "cache:2")
    pod["spec"]["containers"].append({"name": "exporter", "image": "exp:1"})
    (group,) = observedroles.groups([Moment(0, "t0", root, (), 0, (root, sts, pod), "r.yaml")])
    assert observedroles.template(group).segments is None  # composed: the sidecars join a pod the operator builds


def test_roles_of_one_kind_are_instances_of_a_component_drafted_per_item() -> None:
    builder = Builder(())
    root = _root("Temporal", "t", {"services": {"frontend": {"replicas": 1}, "history": {"replicas": 2}}})
    made = [
        _workload("Deployment", f"t-{role}", root, n, "temporal:1") for role, n in (("frontend", 1), ("history", 2))
    ]
    objects = (root, *made, *(p for d in made for p in _pods(d, d["spec"]["replicas"], "temporal:1")))
    per_service = {
        "name": "service",
        "ownerRef": "temporal",
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
    }
    per_service["instanceIdPath"] = ".spec.services // {} | keys_unsorted[]"
    per_service["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
    children = [per_service]
    root_component = {"name": "temporal", "kind": {"group": "example.com", "version": "v1", "kind": "Temporal"}}
    structure = observed.Structure(root_component, children, [], {}, {"temporal", "service"})
    observed.apply(builder, None, [Moment(0, "t0", root, (), 0, objects, "run.yaml")], structure)
    assert [c["name"] for c in children] == ["service"]  # the history Deployment is one more instance, not a new one
    assert "one more instance" in " ".join(
        builder.notes[("spec", "structureDefinition", "childComponents", 0, "instanceIdPath")]
    )


def test_a_component_of_a_kind_the_source_named_is_not_taken_for_other_pods_nor_dropped_when_it_counts_none() -> None:
    builder = Builder(())
    root = _root("Db", "d", {"db": {"size": 3}, "backup": {"enabled": False}})
    sts = _workload("StatefulSet", "d-db", root, 3, "db:1")
    moments = [Moment(0, "t0", root, (), 0, (root, sts, *_pods(sts, 3, "db:1")), "run.yaml")]
    backup = {"name": "backup", "ownerRef": "db", "kind": {"group": "apps", "version": "v1", "kind": "Deployment"}}
    backup["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
    backup["scaleDefinition"] = {"replicasPath": "if .spec.backup.enabled then 1 else 0 end"}
    children = [backup]
    root_component = {"name": "db", "kind": {"group": "example.com", "version": "v1", "kind": "Db"}}
    observed.apply(builder, None, moments, observed.Structure(root_component, children, [], {}, {"db", "backup"}))
    # the Deployment the source builds keeps its kind (0 pods on the recorded object: kept, said so); the
    # StatefulSet's pods get a component of their own, counted by the field of their role
    assert [(c["name"], c["kind"]["kind"]) for c in children] == [("backup", "Deployment"), ("dbx", "StatefulSet")]
    assert children[1]["scaleDefinition"] == {"replicasPath": ".spec.db.size // 1"}
    assert "no pod of it was seen in run.yaml" in " ".join(
        builder.notes[("spec", "structureDefinition", "childComponents", 0, "name")]
    )


def test_pods_of_several_roles_of_one_kind_find_their_own_component_and_gate() -> None:
    builder = Builder(())
    roots = [
        _root("Metrics", "m1", {"select": {"replicaCount": 2}, "storage": {"replicaCount": 3}}),
        _root("Metrics", "m2", {"storage": {"replicaCount": 1}}),
    ]
    moments = []
    for run, root in enumerate(roots):
        name = root["metadata"]["name"]
        made = [
            _workload("StatefulSet", f"{role}-{name}", root, spec["replicaCount"], "vm:1")
            for role, spec in root["spec"].items()
        ]
        objects = (root, *made, *(p for s in made for p in _pods(s, s["spec"]["replicas"], "vm:1")))
        moments.append(Moment(0, "t0", root, (), run, objects, f"{name}.yaml"))
    # the source's reading listed the two StatefulSets in the other order, without their counts
    children = []
    for role in ("storage", "select"):
        child = {"name": role, "ownerRef": "metrics", "kind": {"group": "apps", "version": "v1", "kind": "StatefulSet"}}
        child["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
        children.append(child)
    root_component = {"name": "metrics", "kind": {"group": "example.com", "version": "v1", "kind": "Metrics"}}
    observed.apply(builder, None, moments, observed.Structure(root_component, children, [], {}, {"metrics"}))
    counts = {c["name"]: c["scaleDefinition"]["replicasPath"] for c in children}
    assert counts == {
        "select": "(if .spec.select == null then 0 else 1 end) * (.spec.select.replicaCount // 1)",
        "storage": ".spec.storage.replicaCount // 1",
    }


def test_a_role_field_equal_wherever_set_counts_with_the_default_seen_where_unset() -> None:
    # .spec.redis.replicas is set in one run only; where unset the operator ran 3 (its own default, no schema
    # one); .spec.sentinel.replicas agrees more often, but it is not the redis pods' object.
    runs = [
        _root("Failover", "a", {"redis": {"replicas": 2}, "sentinel": {"replicas": 2}}),
        _root("Failover", "b", {"sentinel": {"replicas": 3}}),
        _root("Failover", "c", {"sentinel": {"replicas": 3}}),
    ]
    moments = []
    for run, root in enumerate(runs):
        sts = _workload("StatefulSet", f"{root['metadata']['name']}-redis", root, 3 if run else 2, "redis:7")
        objects = (root, sts, *_pods(sts, sts["spec"]["replicas"], "redis:7"))
        moments.append(Moment(0, "t0", root, (), run, objects, f"{run}.yaml"))
    (group,) = observedroles.groups(moments)
    found = observedroles.count(group, None)
    assert found is not None and (found.segments, found.default, found.seen_default) == (
        ("spec", "redis", "replicas"),
        3,
        True,
    )


def test_a_component_the_operators_source_builds_is_kept_when_the_capture_ended_before_it() -> None:
    # A capture often ends while the operator waits for the service it started (nothing answers in a lab).
    builder = Builder(())
    children, moments = _cache_with_a_job()
    job_read = "the operator builds a Job at cache.go:40 (jobFor, reached by R)"
    builder.note(("spec", "structureDefinition", "childComponents", 0, "kind"), "medium", job_read)
    root_component = {"name": "cache", "kind": {"group": "example.com", "version": "v1", "kind": "Cache"}}
    observed.apply(builder, None, moments, observed.Structure(root_component, children, [], {}, {"cache"}))
    assert [c["name"] for c in children] == ["job", "sts"]
    said = builder.notes[("spec", "structureDefinition", "childComponents", 0, "name")]
    assert "no pod of it was seen" in " ".join(said)


def test_a_job_that_ran_to_success_beside_a_role_is_a_step_not_a_component() -> None:
    builder = Builder(())
    root = _root("Cache", "c", {"image": "cache:2", "members": 2})
    sts = _workload("StatefulSet", "c", root, 2, "cache:2")
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _meta("c-schema", "uid-job", root),
        "spec": {"template": {"spec": {"containers": [{"name": "schema", "image": "tools:1"}]}}},
    }
    done = {**_pods(job, 1, "tools:1")[0], "status": {"phase": "Succeeded"}}
    done["spec"] = {"containers": [{"name": "schema", "image": "tools:1"}]}
    moments = [
        Moment(0, "t0", root, (), 0, (root, job, done), "run.yaml"),
        Moment(1, "t1", root, (), 0, (root, job, done, sts, *_pods(sts, 2, "cache:2")), "run.yaml"),
    ]
    made = {"name": "sts", "ownerRef": "cache", "kind": {"group": "apps", "version": "v1", "kind": "StatefulSet"}}
    made["specDefinition"] = {"fragmentedPodSpecDefinition": {}}
    children = [made]
    root_component = {"name": "cache", "kind": {"group": "example.com", "version": "v1", "kind": "Cache"}}
    observed.apply(builder, None, moments, observed.Structure(root_component, children, [], {}, {"cache"}))
    assert [c["kind"]["kind"] for c in children] == ["StatefulSet"]
    notes = " ".join(builder.notes[("spec", "structureDefinition", "rootComponent", "name")])
    assert "ran to success: a step of the operator's" in notes


def _store(name: str, parts: list[tuple[str, int]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A root listing named parts; the operator makes one StatefulSet per part, named after the root and it."""
    root = _root("Store", name, {"parts": [{"name": part, "replicas": n} for part, n in parts]})
    made = [_workload("StatefulSet", f"{name}-{part}", root, n, f"{part}:1") for part, n in parts]
    return root, [*made, *(p for s in made for p in _pods(s, s["spec"]["replicas"], "x:1"))]


def test_roles_named_by_the_items_of_a_list_are_instances_of_one_component_keyed_by_it() -> None:
    builder = Builder(())
    moments = []
    for number, (name, parts) in enumerate((("a", [("db", 2), ("proxy", 1)]), ("b", [("cache", 3)]))):
        root, objects = _store(name, parts)
        moments.append(Moment(number, "t0", root, (), 0, (root, *objects), f"{name}.yaml"))
    root_component = {"name": "store", "kind": {"group": "example.com", "version": "v1", "kind": "Store"}}
    children: list[dict[str, Any]] = []
    structure = observed.Structure(root_component, children, [], {}, {"store"})
    observed.apply(builder, None, moments, structure)
    assert len(children) == 1  # db, proxy and cache: items of .spec.parts, not three components
    (component,) = children
    assert component["kind"]["kind"] == "StatefulSet"
    assert component["instanceIdPath"] == ".spec.parts[]? | .name"
    assert component["scaleDefinition"]["replicasPath"] == ".spec.parts[]? | (.replicas // 1)"


def test_a_role_only_one_object_lists_stays_its_own_component() -> None:
    # One role per list: nothing tells a list of parts from a coincidence of names.
    root, objects = _store("a", [("db", 2)])
    (group,) = observedroles.groups([Moment(0, "t0", root, (), 0, (root, *objects), "a.yaml")])
    merged, keyed = observedlists.merge([group])
    assert merged == [group] and not keyed


def test_roles_an_items_name_only_starts_are_its_copies_with_their_count_left_a_gap() -> None:
    builder = Builder(())
    root = _root("Store", "s", {"parts": [{"name": "db", "replicas": 1}], "sets": [{"name": "shard", "replicas": 2}]})
    made = [_workload("StatefulSet", f"s-{role}", root, n, "x:1") for role, n in (("db", 1), ("shard-ab", 2))]
    made.append(_workload("StatefulSet", "s-shard-cd", root, 2, "x:1"))
    objects = (root, *made, *(p for s in made for p in _pods(s, s["spec"]["replicas"], "x:1")))
    root["spec"]["parts"].append({"name": "web", "replicas": 1})
    web = _workload("StatefulSet", "s-web", root, 1, "x:1")
    objects = (*objects, web, *_pods(web, 1, "x:1"))
    children: list[dict[str, Any]] = []
    root_component = {"name": "store", "kind": {"group": "example.com", "version": "v1", "kind": "Store"}}
    structure = observed.Structure(root_component, children, [], {}, {"store"})
    observed.apply(builder, None, [Moment(0, "t0", root, (), 0, objects, "run.yaml")], structure)
    assert [c["instanceIdPath"] for c in children] == [".spec.parts[]? | .name", ".spec.sets[]? | .name"]
    assert "TODO" in children[1]["scaleDefinition"]["replicasPath"]
