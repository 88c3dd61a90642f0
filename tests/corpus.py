"""Reading the shared upstream corpus in place (``../shared/corpus`` from the repository root).

Karmada resource-interpreter test cases wrap the real object: ``observedObj`` holds it for health and
status cases; aggregate cases hold ``desiredObj`` plus one ``statusItems[].status`` per member
cluster, each of which is a live object of its own. Argo CD and gitops-engine fixtures are plain
objects. ``corpus_objects`` returns the unwrapped objects with a label naming where each came from.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = REPO_ROOT.parent / "shared" / "corpus"


@dataclass(frozen=True)
class CorpusObject:
    obj: dict[str, Any]
    file: str  # relative to the corpus root
    document: int
    label: str  # e.g. "pytorchjob/live/karmada-testcases-aggregatestatus.yaml#2 statusItems[1]"
    case_name: str | None = None


def load_yaml_documents(relative: str) -> list[Any]:
    with (CORPUS / relative).open() as handle:
        return list(yaml.safe_load_all(handle))


def unwrap(doc: Any, relative: str, index: int) -> list[CorpusObject]:
    if not isinstance(doc, dict):
        return []
    label = f"{relative}#{index}"
    name = doc.get("name")
    if "observedObj" in doc:
        return [CorpusObject(doc["observedObj"], relative, index, label, name)]
    if "desiredObj" in doc:
        desired = doc["desiredObj"]
        items = doc.get("statusItems") or []
        objects = [CorpusObject(desired, relative, index, f"{label} desiredObj", name)]
        for item_index, item in enumerate(items):
            if isinstance(item, dict) and isinstance(item.get("status"), dict):
                live = copy.deepcopy(desired)
                live["status"] = item["status"]
                objects.append(CorpusObject(live, relative, index, f"{label} statusItems[{item_index}]", name))
        return objects
    if "apiVersion" in doc and "kind" in doc:
        return [CorpusObject(doc, relative, index, label, name)]
    return []


def corpus_objects(relative: str) -> list[CorpusObject]:
    """Every object in one corpus file, unwrapped."""
    out: list[CorpusObject] = []
    for index, doc in enumerate(load_yaml_documents(relative)):
        out.extend(unwrap(doc, relative, index))
    return out


def corpus_files(framework: str, part: str | None = None) -> list[str]:
    """YAML files of one framework folder (``examples``, ``live`` or ``crd``), relative to the corpus."""
    base = CORPUS / framework
    parts = [part] if part else ["examples", "live"]
    files: list[str] = []
    for name in parts:
        folder = base / name
        if folder.is_dir():
            files.extend(str(path.relative_to(CORPUS)) for path in sorted(folder.glob("*.y*ml")))
    return files
