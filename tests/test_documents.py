"""Located documents of List dumps: locations are built lazily but read exactly as before."""

from __future__ import annotations

import orjson

from workload_map.errors import Location
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
