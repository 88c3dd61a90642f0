"""Workloads an operator renders from manifests of its own repository (``--api-source``): a controller that
loads YAML files (``//go:embed manifests/*.yaml``, a kustomize folder named by a string,
``"manifests/base"``) and applies them for the object makes the workloads those files declare. The Go files
of the folders that name the kind are searched for such references, resolved beside the Go file or at the
repository's root (never outside it), and the built-in workloads of the YAML documents there listed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from workload_map.authoring.goowners import BUILTIN_WORKLOADS
from workload_map.authoring.goread import Package, go_type_name

_EMBED = re.compile(r"^//go:embed\s+(.+)$", re.M)
# A relative path in a string literal: a folder (``manifests/base``) or a YAML file.
_LITERAL = re.compile(r'"((?:[\w.-]+/)+[\w.-]+/?|[\w.-]+\.ya?ml)"')
_YAML = (".yaml", ".yml")
MAX_MANIFESTS = 50
# The built-in workloads by apiVersion (``apps/v1``), from the Go API packages goowners.py knows.
_WORKLOADS = {
    (f"{group}/v1" if group else "v1"): kinds
    for group, kinds in BUILTIN_WORKLOADS.values()
    if group  # a Pod in a manifest is no workload the object's pods are owned through
}


@dataclass
class Rendered:
    """A built-in workload declared by a manifest the code refers to."""

    kind: dict[str, str]
    manifest: str  # its file, relative to the repository
    named_at: str  # file:line of the Go reference


def _targets(root: Path, go_file: Path, text: str) -> list[tuple[Path, int]]:
    """The files and folders the Go file refers to: its embed patterns and string literals naming a path
    that exists, with the line."""
    out: list[tuple[Path, int]] = []
    for match in _EMBED.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        for pattern in match.group(1).split():
            out += [(p, line) for p in sorted(go_file.parent.glob(pattern.strip('"`')))]
    for match in _LITERAL.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        for base in (go_file.parent, root):
            candidate = base / match.group(1)
            if candidate.exists():
                out.append((candidate, line))
                break
    return out


def rendered_workloads(root: Path, kind: str) -> list[Rendered]:
    """The built-in workloads of the manifests the Go files naming ``kind`` refer to."""
    package = Package(root)
    mention = re.compile(rf"\b{re.escape(go_type_name(kind))}\b")
    inside = root.resolve()
    out: list[Rendered] = []
    read: set[Path] = set()
    for paths in package.folders.values():
        if not any(mention.search(package.text(p) or "") for p in paths):
            continue
        for go_file in paths:
            text = package.text(go_file) or ""
            for target, line in _targets(root, go_file, text):
                files = sorted(target.glob("*")) if target.is_dir() else [target]
                for manifest in files:
                    resolved = manifest.resolve()
                    if manifest.suffix not in _YAML or resolved in read or not resolved.is_relative_to(inside):
                        continue
                    if len(read) >= MAX_MANIFESTS:
                        return out
                    read.add(resolved)
                    where = f"{go_file.relative_to(root).as_posix()}:{line}"
                    out += _workloads(manifest, root, where)
    return out


def _workloads(manifest: Path, root: Path, where: str) -> list[Rendered]:
    try:
        documents = list(yaml.safe_load_all(manifest.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []  # a template (placeholders), not YAML
    out = []
    for document in documents:
        if not isinstance(document, dict):
            continue
        api, kind = str(document.get("apiVersion") or ""), str(document.get("kind") or "")
        if kind in _WORKLOADS.get(api, ()):
            gvk = {"group": api.partition("/")[0], "version": "v1", "kind": kind}
            out.append(Rendered(gvk, manifest.relative_to(root).as_posix(), where))
    return out


def pods_through(
    owned: list[tuple[dict[str, str], str]], rendered: list[Rendered]
) -> tuple[dict[str, str], str] | None:
    """The one built-in workload kind the root's pods are owned through, with its evidence, when the object
    holds no pod definition: the one the controller owns, else the one the manifests it renders declare."""
    builtin = [(g, why) for g, why in owned if "importPath" not in g]
    if any(g["kind"] == "Pod" for g, _ in builtin):
        return None  # it owns the pods themselves
    if builtin:
        if len({g["kind"] for g, _ in builtin}) != 1:
            return None
        return builtin[0][0], f"the controller owns {builtin[0][0]['kind']}s and no Pods ({builtin[0][1]})"
    kinds = {r.kind["kind"] for r in rendered}
    if len(kinds) != 1:
        return None
    first = rendered[0]
    return first.kind, f"the controller renders {first.manifest} (named at {first.named_at}), a {first.kind['kind']}"
