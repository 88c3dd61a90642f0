"""What an operator's controller makes, read from its Go source (``--api-source``): the pod-making kinds a
controller-runtime builder for the kind owns, or, for a hand-written controller, those it builds and sets
its owner on."""

from __future__ import annotations

import re

from workload_map.authoring.goread import GoType, Package, bare_type, package_folder, read_imports

# The built-in kinds that make pods, by the import path of their API package.
BUILTIN_WORKLOADS = {
    "k8s.io/api/apps/v1": ("apps", ("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet")),
    "k8s.io/api/batch/v1": ("batch", ("Job",)),
    "k8s.io/api/core/v1": ("", ("Pod",)),
}
_FOR = r"For\(\s*&(\w+)\.{kind}\{{\}}"
_OWNS = re.compile(r"Owns\(\s*&(\w+)\.(\w+)\{\}")
_END = re.compile(r"\.(Complete|Build)\(")
_GROUP = re.compile(r"Group:\s*\"([^\"]+)\"")


def owned(package: Package, kind: GoType) -> list[tuple[dict[str, str], str]]:
    """The pod-making kinds a controller-runtime builder for the kind owns: ``For(&api.Kind{})`` then every
    ``Owns(&pkg.T{})`` up to ``Complete(``/``Build(``: built-in workloads, and kinds of the repository whose
    spec holds a pod template (their group from the folder's ``Group: "..."``)."""
    found: list[tuple[dict[str, str], str]] = []
    start = re.compile(_FOR.format(kind=re.escape(kind.name)))
    for paths in package.folders.values():
        for path in paths:
            text = package.text(path) or ""
            match = start.search(text) if "Owns(" in text else None
            if match is None:
                continue
            file = read_imports(package, path, text)
            if package_folder(package, file.imports.get(match.group(1), "")) != kind.file.directory:
                continue
            end = _END.search(text, match.end())
            chain = text[match.end() : end.start() if end else match.end() + 4000]
            line = text.count("\n", 0, match.start()) + 1
            for qualifier, name in _OWNS.findall(chain):
                gvk = _workload(package, file.imports.get(qualifier, ""), name)
                if gvk is not None and gvk not in [g for g, _ in found]:
                    found.append((gvk, f"{file.path}:{line} owns {qualifier}.{name}"))
    return found or _built(package, kind)


_OWNER_CALL = re.compile(r"\b(SetControllerReference|SetOwnerReference|NewControllerRef)\(")
_BUILT = re.compile(r"\b(\w+)\.(Deployment|StatefulSet|DaemonSet|ReplicaSet|Job|Pod)\{")


def _built(package: Package, kind: GoType) -> list[tuple[dict[str, str], str]]:
    """Without a builder declaring what it owns (a hand-written controller): the built-in workloads built
    (``&appsv1.StatefulSet{``) in the files that use the kind and set an owner reference."""
    found: list[tuple[dict[str, str], str]] = []
    mention = re.compile(rf"\b(\w+)\.{re.escape(kind.name)}\b")
    for paths in package.folders.values():
        for path in paths:
            text = package.text(path) or ""
            if not _OWNER_CALL.search(text) or not mention.search(text):
                continue
            file = read_imports(package, path, text)
            qualifiers = {
                q
                for q in mention.findall(text)
                if package_folder(package, file.imports.get(q, "")) == kind.file.directory
            }
            if not qualifiers:
                continue
            for match in _BUILT.finditer(text):
                gvk = _workload(package, file.imports.get(match.group(1), ""), match.group(2))
                if gvk is not None and "importPath" not in gvk and gvk not in [g for g, _ in found]:
                    line = text.count("\n", 0, match.start()) + 1
                    found.append(
                        (gvk, f"{file.path}:{line} builds {match.group(1)}.{match.group(2)} and sets its owner")
                    )
    return found


def _workload(package: Package, import_path: str, name: str) -> dict[str, str] | None:
    builtin = BUILTIN_WORKLOADS.get(import_path)
    if builtin is not None:
        return {"group": builtin[0], "version": "v1", "kind": name} if name in builtin[1] else None
    folder = package_folder(package, import_path)
    if folder is None:
        # Another project's kind: the caller knows it only if its catalog does (by kind and version).
        version = import_path.rstrip("/").rpartition("/")[2]
        return {"group": "", "version": version, "kind": name, "importPath": import_path} if import_path else None
    package.load(folder)
    declared = package.types.get((folder, name + "Spec"))
    if declared is None or not _holds_pods(package, declared, 0):
        return None
    group = next((m.group(1) for p in package.folders[folder] if (m := _GROUP.search(package.text(p) or ""))), None)
    if group is None:
        return None
    return {"group": group, "version": import_path.rstrip("/").rpartition("/")[2], "kind": name}


def _holds_pods(package: Package, declared: GoType, depth: int) -> bool:
    if depth > 3:
        return False
    for go_field in declared.fields:
        bare = bare_type(go_field.type_expr.removeprefix("[]"))[1]
        if bare in ("PodTemplateSpec", "PodSpec"):
            return True
        nested = package.types.get((declared.file.directory, bare))
        if nested is not None and nested.underlying == "struct" and _holds_pods(package, nested, depth + 1):
            return True
    return False
