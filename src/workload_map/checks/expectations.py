"""Expectations files: what `wmap definitions test --expect FILE` checks, kept beside unmodified samples.

An Expectations document (``kind: Expectations``, docs/cli.md ``wmap definitions test``) lists, per workload of
the samples (``TYPE/NAME`` as ``get`` takes them, an optional namespace), an expectation with the keys of
the ``workload-map.run.ai/expect`` annotation; with ``after: N`` it is a checkpoint of a recording of that
workload (the state after its first N events), so recorded fixtures stay as they were recorded.

Read through :mod:`workload_map.sources.documents` like every input; every malformed part is a
DocumentError naming the file, the document and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workload_map.base.expectation import expectation_problem
from workload_map.errors import DocumentError, Location
from workload_map.sources.documents import Document, read_source

EXPECTATIONS_API_VERSION = "workload-map.run.ai/v1alpha1"
EXPECTATIONS_KIND = "Expectations"
_TOP_KEYS = ("apiVersion", "kind", "expectations")
_ITEM_KEYS = ("workload", "namespace", "after", "name", "expect")


@dataclass(frozen=True)
class Expectation:
    """One expectation about the workload ``type_name/name`` (in ``namespace``, or any when None)."""

    type_name: str
    name: str
    namespace: str | None
    expect: dict[str, Any]
    location: Location
    after: int | None = None  # a recording's state after this many events; None: a plain sample
    label: str | None = None  # a checkpoint's name

    @property
    def workload(self) -> str:
        return f"{self.type_name}/{self.name}" + (f" in {self.namespace}" if self.namespace else "")


def is_expectations(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and data.get("kind") == EXPECTATIONS_KIND
        and data.get("apiVersion") == EXPECTATIONS_API_VERSION
    )


def load_expectations(path: str) -> list[Expectation]:
    """Every expectation of the Expectations documents of a file (or ``-``); other documents are an error."""
    out: list[Expectation] = []
    docs = [d for d in read_source(path) if d.data is not None]
    if not docs:
        raise DocumentError("no Expectations document", Location(path), hint=_HINT)
    for doc in docs:
        out.extend(expectations_from_document(doc))
    return out


_HINT = f"apiVersion: {EXPECTATIONS_API_VERSION}, kind: {EXPECTATIONS_KIND}, expectations: [{{workload, expect}}]"


def expectations_from_document(doc: Document) -> list[Expectation]:

    where = doc.location
    data = doc.data
    if not is_expectations(data):
        what = f"kind {data.get('kind')!r}" if isinstance(data, dict) else "not a mapping"
        raise DocumentError(f"not an Expectations document ({what})", where, hint=_HINT)
    unknown = sorted(str(k) for k in data if k not in _TOP_KEYS)
    if unknown:
        raise DocumentError(f"unknown field(s) {unknown} (known: {list(_TOP_KEYS)})", where)
    items = data.get("expectations")
    if not isinstance(items, list):
        raise DocumentError("must be a list of {workload, expect}", where.child("expectations"))
    out = []
    for index, item in enumerate(items):
        at = where.child("expectations", index)
        if not isinstance(item, dict):
            raise DocumentError("an expectation must be a mapping", at)
        unknown = sorted(str(k) for k in item if k not in _ITEM_KEYS)
        if unknown:
            raise DocumentError(f"unknown field(s) {unknown} (known: {list(_ITEM_KEYS)})", at)
        workload = item.get("workload")
        type_name, _, name = workload.partition("/") if isinstance(workload, str) else ("", "", "")
        if not type_name or not name or "/" in name:
            raise DocumentError(
                f"workload must be TYPE/NAME as get takes it, not {workload!r}",
                at.child("workload"),
                hint="e.g. trainrun/bert or trainrun.example.com/bert",
            )
        namespace = item.get("namespace")
        if namespace is not None and (not isinstance(namespace, str) or not namespace):
            raise DocumentError("must be a namespace name", at.child("namespace"))
        after = item.get("after")
        if after is not None and (isinstance(after, bool) or not isinstance(after, int) or after < 0):
            raise DocumentError("must be a whole number of events (0: the recording's start)", at.child("after"))
        label = item.get("name")
        if label is not None and (not isinstance(label, str) or after is None):
            raise DocumentError("a name is a checkpoint's: a string, with after", at.child("name"))
        expect = item.get("expect")
        if not isinstance(expect, dict):
            raise DocumentError(
                "must be a mapping of expected facts", at.child("expect"), hint="e.g. {primary: Running}"
            )
        problem = expectation_problem(expect)
        if problem:
            raise DocumentError(problem, at.child("expect"))
        out.append(Expectation(type_name, name, namespace, expect, at, after, label))
    return out


__all__ = [
    "EXPECTATIONS_API_VERSION",
    "EXPECTATIONS_KIND",
    "Expectation",
    "expectations_from_document",
    "is_expectations",
    "load_expectations",
]
