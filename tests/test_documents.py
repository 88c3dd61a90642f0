"""Located documents of List dumps: locations are built lazily but read exactly as before."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from workload_map.base import cache
from workload_map.errors import DocumentError, Location
from workload_map.sources import documents
from workload_map.sources.documents import Document, parse_text


def test_list_items_keep_their_locations() -> None:
    nested = {"kind": "List", "items": [{"kind": "Pod"}, {"kind": "PodList", "items": [{"kind": "Pod", "n": 1}]}]}
    text = orjson.dumps({"kind": "List", "items": [{"kind": "Job"}, nested, 7]})
    docs = parse_text(text, "dump.json", prefer_json=True)
    assert [d.data for d in docs] == [
        {"kind": "Job"},
        {"kind": "Pod"},
        {"kind": "Pod", "n": 1},
        7,
    ]
    assert [str(d.location) for d in docs] == [
        "dump.json, document 0, items[0]",
        "dump.json, document 0, items[1].items[0]",
        "dump.json, document 0, items[1].items[1].items[0]",
        "dump.json, document 0, items[2]",
    ]
    assert docs[1].location == Location("dump.json", 0).child("items", 1).child("items", 0)
    assert docs[1].location is docs[1].location  # built once


def test_plain_documents_and_equality() -> None:
    docs = parse_text("kind: Pod\n---\n---\nkind: Job\n", "x.yaml")
    assert docs == [Document({"kind": "Pod"}, Location("x.yaml", 0)), Document({"kind": "Job"}, Location("x.yaml", 2))]
    assert "Document(data={'kind': 'Pod'}" in repr(docs[0])
    # A mapping named ...List without an items list is an object, not a list.
    docs = parse_text('{"kind": "ConfigList", "items": {"a": 1}}', "c.json")
    assert len(docs) == 1 and str(docs[0].location) == "c.json, document 0"


def test_shipped_yaml_read_before_comes_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    shipped = str(Path(documents.__file__).resolve().parents[1] / "examples" / "f.yaml")
    first = b"a: 1\n---\nb: [x, y]\n"
    assert [d.data for d in parse_text(first, shipped)] == [{"a": 1}, {"b": ["x", "y"]}]
    assert len(list((tmp_path / "cache").iterdir())) == 1  # stored
    with monkeypatch.context() as patch:  # read back without PyYAML
        patch.setattr(documents, "_load_yaml", lambda *_: pytest.fail("parsed again"))
        assert [d.data for d in parse_text(first, shipped)] == [{"a": 1}, {"b": ["x", "y"]}]
    assert [d.data for d in parse_text(b"a: 2\n", shipped)] == [{"a": 2}]  # other bytes: parsed
    with pytest.raises(DocumentError, match="YAML syntax error"):  # an error is never stored
        parse_text(b"a: [1\n", shipped)
    assert len(list((tmp_path / "cache").iterdir())) == 2
    # A user's file (a dump may hold Secrets) is parsed every time and never copied into the cache.
    user = str(tmp_path / "dump.yaml")
    assert [d.data for d in parse_text(b"kind: Secret\ndata: {k: djE=}\n", user)] == [
        {"kind": "Secret", "data": {"k": "djE="}}
    ]
    assert len(list((tmp_path / "cache").iterdir())) == 2
