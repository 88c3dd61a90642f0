"""The operator's Go code for a kind, every Go reader's start (``--api-source``): the folders declaring the
kind loaded, its type found, the functions of the tree read as they are reached (gofuncs.py) and a locator
placing Go expressions in the kind's object (golocator.py). A draft reads the code once (``GoCode``) and
hands it to each reader.
"""

from __future__ import annotations

from pathlib import Path

from workload_map.authoring.gofuncs import _Parsed, _Program
from workload_map.authoring.golocator import _Locator
from workload_map.authoring.goread import GoType, Package
from workload_map.authoring.gosource import _find_kind


class GoCode:
    """The operator's Go code under ``root`` as the readers of one draft share it: each kind's folders
    loaded and its type found once (by kind and version), each file's functions read once. Each reader
    still gets a program and a locator of its own: the folders one loads as it goes are read the same
    for any (a folder's types whenever loaded), and the functions one takes count against its own
    MAX_FUNCTIONS, so no reader finds more or less for another having run first."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.parsed: _Parsed = {}
        self.kinds: dict[tuple[str, str], tuple[Package, GoType | None]] = {}

    def kind_code(self, go_kind: str, version: str) -> tuple[_Program, _Locator, GoType] | None:
        """The kind's code, every Go reader's start: its folders loaded, their functions, its locator and
        type."""
        if (go_kind, version) not in self.kinds:
            package = Package(self.root)
            for directory in package.folders_declaring(go_kind):
                package.load(directory)
            self.kinds[go_kind, version] = (package, _find_kind(package, go_kind, version)[0])
        package, declared = self.kinds[go_kind, version]
        if declared is None:
            return None
        program = _Program(package, self.parsed)
        return program, _Locator(program, declared), declared


def go_code(root: Path | GoCode) -> GoCode:
    """The code under a root, read afresh; or the code a draft shares, as given."""
    return root if isinstance(root, GoCode) else GoCode(root)


def kind_code(root: Path | GoCode, go_kind: str, version: str) -> tuple[_Program, _Locator, GoType] | None:
    """The kind's code (``GoCode.kind_code``), of the code a draft shares or of a root read afresh."""
    return go_code(root).kind_code(go_kind, version)
