"""Dumps read item by item (sources/lists.py) and kept compact (``open_dump(compact=True)``, what `wmap get`
reads): the same documents as the whole-document parse, and the same answers as the full objects."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from tests.corpus import CORPUS, REPO_ROOT

import workload_map as wm
from gen.cluster import generate
from workload_map.api.open import _Compact
from workload_map.catalog import builtin_definitions
from workload_map.errors import DocumentError, Location
from workload_map.live.projection import Projection, pod_decoder, project_pod
from workload_map.sources import documents
from workload_map.sources.lists import split_items


def _generate(workloads: int, namespaces: int, seed: int) -> list[dict[str, Any]]:
    bench = str(REPO_ROOT / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)

    return list(generate(workloads, namespaces, seed))


def _whole(content: bytes) -> list[documents.Document]:
    """The documents as the reader gave them before it streamed: one orjson document, expanded."""
    docs: list[documents.Document] = []
    documents._expand(orjson.loads(content), Location("dump.json", 0), docs)
    return docs


def _list(items: list[Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


@pytest.fixture(scope="module")
def generated() -> list[dict[str, Any]]:
    return _generate(60, 4, seed=7)


@pytest.mark.parametrize("layout", ["compact", "kubectl", "indent2"])
def test_a_list_read_item_by_item_gives_the_same_documents(generated: list[dict[str, Any]], layout: str) -> None:
    document = _list(generated)
    if layout == "compact":
        content = orjson.dumps(document)
    else:
        content = json.dumps(document, indent=4 if layout == "kubectl" else 2).encode()
    split = split_items(content)
    assert split is not None and split[0] == {**document, "items": []}
    streamed = documents.parse_text(content, "dump.json", prefer_json=True)
    assert streamed == _whole(content)
    assert streamed[-1].location == Location("dump.json", 0).child("items", len(generated) - 1)


def test_a_boundary_inside_an_item_is_not_taken_for_one() -> None:
    """Two owner references: `},{"apiVersion":` inside an item."""
    ref = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "1"}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "ownerReferences": [ref, {**ref, "uid": "2"}]}}
    inner = _list([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}])
    for content in (orjson.dumps(_list([pod, pod, inner, pod])), json.dumps(_list([pod, inner]), indent=4).encode()):
        streamed = documents.parse_text(content, "dump.json", prefer_json=True)
        assert streamed == _whole(content)
        assert [d.data["kind"] for d in streamed].count("ConfigMap") == 1  # the nested List expanded


@pytest.mark.parametrize(
    "document",
    [
        _list([]),
        _list([{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "Pod"}]),
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "items": [{"apiVersion": "x"}]},
        [{"apiVersion": "v1", "kind": "Pod"}],
        {"metadata": {"name": "m"}, "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod"}, 3]},
    ],
    ids=["empty", "another-first-key", "not-a-list", "top-level-array", "a-number-item"],
)
def test_what_does_not_split_reads_as_before(document: Any) -> None:
    content = orjson.dumps(document)
    assert documents.parse_text(content, "dump.json", prefer_json=True) == _whole(content)


def test_a_broken_item_is_the_same_error_as_before(generated: list[dict[str, Any]]) -> None:
    content = orjson.dumps(_list(generated[:50]))
    cut = content.index(b'{"apiVersion"', len(content) // 2)
    broken = content[:cut] + b'{"apiVersion": "v1", "kind": Pod}' + content[cut - 1 :]
    with pytest.raises(DocumentError) as streamed:
        documents.parse_text(broken, "dump.json", prefer_json=True)
    with pytest.raises(orjson.JSONDecodeError) as whole:
        orjson.loads(broken)
    assert str(whole.value) in streamed.value.message


def _answer(view: wm.View) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    listing = view.workloads()
    return [tree.to_json() for tree in listing], listing.problems, view.warnings


def _both(*paths: str) -> None:
    try:
        full = _answer(wm.open_dump(*paths, namespace=None))
    except wm.WorkloadMapError as exc:  # a file that holds no Kubernetes object (Karmada's wrapped test cases)
        assert "not a Kubernetes object" in str(exc.detail)
        with pytest.raises(wm.WorkloadMapError) as compact:
            wm.open_dump(*paths, namespace=None, compact=True)
        assert (compact.value.location, compact.value.detail) == (exc.location, exc.detail)
        return
    assert _answer(wm.open_dump(*paths, namespace=None, compact=True)) == full


def test_a_compact_generated_dump_resolves_the_same(generated: list[dict[str, Any]], tmp_path: Path) -> None:
    dump = tmp_path / "dump.json"
    dump.write_bytes(orjson.dumps(_list(generated)))
    view = wm.open_dump(str(dump), namespace=None, compact=True)
    pods = [o for o in view.objects if o["kind"] == "Pod" and o["metadata"].get("ownerReferences")]
    assert pods and all("volumes" not in p["spec"] and "tolerations" not in p["spec"] for p in pods)
    nodes = [o for o in view.objects if o["kind"] == "Node"]
    assert nodes and all(set(n) == {"apiVersion", "kind", "metadata"} for n in nodes)
    _both(str(dump))


def _corpus_files() -> list[str]:
    return sorted(str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/live/*.yaml"))


@pytest.mark.parametrize("relative", _corpus_files())
def test_a_compact_corpus_file_resolves_the_same(relative: str) -> None:
    _both(str(CORPUS / relative))


def test_a_karta_in_the_dump_that_covers_another_kind_is_read_for(tmp_path: Path) -> None:
    """A dump's own Karta makes a kind covered that the built-in catalog does not know: the dump is read
    again for it, so its objects are whole and resolve as without ``compact``."""
    definition = json.loads(json.dumps(_karta_for_widgets()))
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "a", "uid": "W"},
        "spec": {"replicas": 2},
        "status": {"phase": "Running"},
    }
    dump = tmp_path / "dump.json"
    dump.write_bytes(orjson.dumps(_list([widget, definition])))
    compact = wm.open_dump(str(dump), namespace=None, compact=True)
    assert [t.kind for t in compact.workloads()] == ["Widget"]
    assert compact.objects[0]["spec"] == {"replicas": 2}
    _both(str(dump))


def _karta_for_widgets() -> dict[str, Any]:
    text = (REPO_ROOT / "src" / "workload_map" / "catalog" / "definitions" / "apps-replicaset-v1.yaml").read_text()
    karta = yaml.safe_load(text)
    karta["metadata"] = {"name": "widgets"}
    identity = karta["spec"]["structureDefinition"]["rootComponent"]["kind"]
    identity.update(group="example.com", version="v1", kind="Widget")
    return dict(karta)


def _compact() -> Any:
    return _Compact(builtin_definitions())


def test_objects_decoded_in_one_step_are_what_the_transform_keeps(generated: list[dict[str, Any]]) -> None:
    compact = _compact()
    decoded = 0
    for item in generated:
        text = orjson.dumps(item)
        found = compact.decode(memoryview(text))
        if found is not None:
            decoded += 1
            assert found == compact(orjson.loads(text))
        elif item["kind"] == "Pod":
            assert not item["metadata"].get("ownerReferences")  # a bare pod is kept whole
    assert decoded > len(generated) // 2


@pytest.mark.parametrize(
    "change",
    [
        lambda pod: pod["status"]["conditions"].append("Ready"),  # not an object: parsed whole
        lambda pod: pod["spec"].update(containers={"name": "x"}),
        lambda pod: pod["status"]["containerStatuses"].append({"name": "c", "state": None}),
        lambda pod: pod["metadata"].pop("ownerReferences"),  # a bare pod: kept whole
        lambda pod: pod.update(metadata=[]),
    ],
)
def test_a_pod_the_decoder_cannot_take_is_left_to_the_transform(generated: list[dict[str, Any]], change: Any) -> None:
    pod = json.loads(json.dumps(next(o for o in generated if o["kind"] == "Pod" and o["status"].get("conditions"))))
    pod["status"].setdefault("containerStatuses", [])
    change(pod)
    assert _compact().decode(memoryview(orjson.dumps(pod))) is None


def test_a_pod_decoded_with_extra_paths_keeps_them() -> None:
    extra = frozenset({("spec", "hostname"), ("spec", "containers"), ("status",), ("foo", "bar", "baz")})
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "ownerReferences": [{"kind": "Job", "name": "j"}], "managedFields": [{}]},
        "spec": {"hostname": "h", "containers": [{"name": "c", "image": "i", "env": []}], "volumes": [{}]},
        "status": {"phase": "Running", "hostIP": "10.0.0.1"},
        "foo": {"bar": {"baz": 1}, "qux": 2},
    }
    decode = pod_decoder(Projection(extra=extra))
    assert decode is not None
    assert decode(orjson.dumps(pod)) == project_pod(pod, extra)
    assert pod_decoder(Projection(whole_pods=True)) is None


def test_a_large_dump_keeps_a_long_integer_exact(generated: list[dict[str, Any]], tmp_path: Path) -> None:
    items = json.loads(json.dumps(generated))
    workload = next(o for o in items if o["kind"] == "Deployment")
    workload["spec"]["progressDeadlineSeconds"] = 2**64 + 1
    dump = tmp_path / "dump.json"
    dump.write_bytes(json.dumps(_list(items)).encode())
    assert dump.stat().st_size >= documents._DECODE_FROM  # read through the one-step decoder
    view = wm.open_dump(str(dump), namespace=None, compact=True)
    read = next(o for o in view.objects if o["metadata"]["uid"] == workload["metadata"]["uid"])
    assert read["spec"]["progressDeadlineSeconds"] == 2**64 + 1
