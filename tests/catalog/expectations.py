"""Reading tests/catalog/expectations/*.yaml: expected results written by hand from FACTS.md.

Each file lists corpus objects (by their label from tests/corpus.py) or inline objects of our own
with the desired pods, roles, GPUs and status the resolver must produce, and pods built as the
operator labels them with where they must land. See the catalog authors' format in README notes of
this folder (the keys are read below).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from corpus import CorpusObject, corpus_objects

HERE = Path(__file__).resolve().parent / "expectations"


@dataclass(frozen=True)
class Case:
    file: str  # expectations file stem
    label: str
    obj: dict[str, Any]
    expect: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.file}:{self.label}"


@dataclass(frozen=True)
class PodCase:
    file: str
    index: int
    workload: dict[str, Any]
    children: list[dict[str, Any]]
    pod: dict[str, Any]
    expect: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.file}:pods[{self.index}]:{self.pod.get('metadata', {}).get('name')}"


def expectation_files() -> list[Path]:
    return sorted(HERE.glob("*.yaml"))


@cache
def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict), f"{path}: expected a mapping"
    return data


@cache
def _corpus_index(relative_file: str) -> dict[str, CorpusObject]:
    return {o.label: o for o in corpus_objects(relative_file)}


def corpus_object(label: str) -> dict[str, Any]:
    relative_file = label.split("#", 1)[0]
    index = _corpus_index(relative_file)
    assert label in index, f"no corpus object labelled {label!r} (have: {sorted(index)})"
    return index[label].obj


def _resolve_workload(ref: str, inline: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if ref.startswith("inline:"):
        return inline[ref.removeprefix("inline:")]
    return corpus_object(ref)


def cases() -> list[Case]:
    out = []
    for path in expectation_files():
        for entry in _load(path).get("objects") or []:
            if "inline" in entry:
                label, obj = f"inline:{entry['name']}", entry["inline"]
            else:
                label, obj = entry["object"], corpus_object(entry["object"])
            out.append(Case(path.stem, label, obj, entry))
    return out


def pod_cases() -> list[PodCase]:
    out = []
    for path in expectation_files():
        data = _load(path)
        inline = {e["name"]: e["inline"] for e in data.get("objects") or [] if "inline" in e}
        for index, entry in enumerate(data.get("pods") or []):
            workload = _resolve_workload(entry["workload"], inline)
            out.append(PodCase(path.stem, index, workload, list(entry.get("children") or []), entry["pod"], entry))
    return out


def covered_labels() -> set[str]:
    return {c.label for c in cases()}


def definitions_of(stem: str) -> list[str]:
    return list(_load(HERE / f"{stem}.yaml").get("definitions") or [])
