"""Every link and every cited repository path of the documentation exists: a moved or missing file, a
renamed heading or module is a failing test, not a dead reference a reader finds."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "workload_map"
_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)|!\[[^\]\n]*\]\(([^)\s]+)\)")
_CODE = re.compile(r"`([^`\n]+)`")
_FENCE = re.compile(r"^```.*?^```$", re.M | re.S)
# A cited path: a repository folder first, or a package-relative module path (`resolve/writes.py`).
_TOP = ("src/", "tests/", "docs/", "bench/", "tools/", "deploy/", "charts/", ".ci/")
_MODULE = re.compile(r"^workload_map(\.[A-Za-z_][A-Za-z0-9_]*)+$")


def markdown_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in listed if (ROOT / name).is_file()]


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes."""
    out = set()
    for line in _FENCE.sub("", path.read_text()).splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", title)))
    return out


def _cited(text: str) -> str | None:
    """The repository path a backticked text cites, or None when it is not one."""
    candidate = text.strip().rstrip(".,:;").split(":", 1)[0]  # `cli/sources.py:open_objects` cites the file
    if not candidate or candidate.startswith(("/", "./", "~")):
        return None  # an absolute path (on a node, in a container) or an HTTP path, not the repository's
    if any(c in candidate for c in " <>*{}$|\\") or "..." in candidate or "://" in candidate:
        return None
    if candidate.startswith(_TOP) and "/" in candidate:
        return candidate
    first = candidate.split("/", 1)[0]
    if "/" in candidate and first not in ("..", ".") and (PACKAGE / first).is_dir():
        return candidate
    return None


def _module_exists(dotted: str) -> bool:
    """``workload_map.a.b`` is a module or package, or a name defined at the top of its module."""
    parts = dotted.split(".")[1:]
    for cut in range(len(parts), -1, -1):
        base = PACKAGE.joinpath(*parts[:cut])
        module = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if module.is_file():
            rest = parts[cut:]
            if not rest:
                return True
            if len(rest) > 2:
                return False
            source = module.read_text()
            return bool(
                re.search(rf"^\s*(def|class|async def)\s+{rest[0]}\b|^{rest[0]}\s*[:=]|\b{rest[0]}\b", source, re.M)
            )
    return False


def problems(path: Path) -> list[str]:
    text = path.read_text()
    prose = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    where = path.relative_to(ROOT)
    found = []
    for number, line in enumerate(prose.splitlines(), start=1):
        for match in _LINK.finditer(line):
            target = match.group(1) or match.group(2)
            if re.match(r"^[a-z]+:", target):
                continue
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                found.append(f"{where}:{number}: link to {target}: no such file")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                found.append(f"{where}:{number}: link to {target}: no heading #{anchor} in {linked.name}")
        for match in _CODE.finditer(line):
            problem = _code_problem(match.group(1).strip(), path)
            if problem:
                found.append(f"{where}:{number}: {problem}")
    return found


def _code_problem(code: str, page: Path) -> str | None:
    """What is missing when a backticked text cites a repository path, a module or a document."""
    cited = _cited(code)
    if cited is not None:
        if not any(p.exists() for p in (ROOT / cited, page.parent / cited, PACKAGE / cited)):
            return f"cites {cited}: no such file or folder in the repository"
    elif _MODULE.match(code) and not _module_exists(code):
        return f"cites module {code}: it does not exist"
    elif re.fullmatch(r"[a-z0-9-]+\.md", code) and not any(
        (folder / code).exists() for folder in (page.parent, ROOT / "docs", ROOT)
    ):
        return f"cites {code}: no such document"
    return None


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_links_and_cited_paths_exist(path: Path) -> None:
    assert not problems(path)


def test_the_checker_finds_what_is_missing(tmp_path: Path) -> None:
    page = ROOT / "docs" / "definition-format.md"
    assert anchors(page) >= {"gaps-in-a-draft", "evaluation-rules", "a-kind-without-a-pod-template-a-vm"}
    assert _cited("src/workload_map/nothing-here.py") == "src/workload_map/nothing-here.py"
    assert _cited("resolve/writes.py") == "resolve/writes.py"
    assert _cited("my-karta.yaml") is None and _cited("tests/transitions/<framework>/*.yaml") is None
    assert _module_exists("workload_map.definition.model") and _module_exists("workload_map.definition.model.Karta")
    assert not _module_exists("workload_map.no_such_module")


# What a user receives (the package, its catalog, the docs, the chart and manifests) must stand alone: a
# reference to the development machine's shared corpus or to a sibling checkout is a dead end for them.
_OUTSIDE = re.compile(r"\.\./shared\b|/work/")
_SHIPPED = ("src/", "docs/", "charts/", "deploy/", "README.md", "CHANGELOG.md", "CONTRIBUTING.md", "Dockerfile")


def shipped_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *_SHIPPED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [name for name in listed if (ROOT / name).is_file()]


def test_shipped_files_cite_nothing_outside_the_repository() -> None:
    found = []
    for name in shipped_files():
        try:
            text = (ROOT / name).read_text()
        except UnicodeDecodeError:
            continue  # a binary (an image): it cites nothing
        found += [f"{name}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if _OUTSIDE.search(line)]
    assert not found, "\n".join(found)
