"""The package's layers, enforced: every import points down (the developers' guide, architecture.md).

Every module of ``workload_map`` is parsed with ``ast`` and each of its imports (at module level, inside
functions and under ``TYPE_CHECKING`` alike: a lazy import is still a dependency) is checked against the
table below. A new module must be given a layer here; a new dependency must be allowed here, in review.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "workload_map"

# Bottom first. A module belongs to the layer of its longest listed prefix.
LAYERS: dict[str, tuple[str, ...]] = {
    # Shared by every layer, importing nothing of the package but each other: errors, the object accessors,
    # the Snapshot (a read-only object set with ownership walks) and the gaps of a partial read it carries,
    # JSON with integers of any size, the on-disk store of compiled definitions, the bulk-allocation GC pause.
    "foundation": (
        "workload_map.errors",
        "workload_map._version",
        "workload_map.base",
        # YAML/JSON text -> located documents: definition files and dumps both read through it (its docstring).
        "workload_map.sources.documents",
        # A JSON List read item by item, for documents.py.
        "workload_map.sources.lists",
    ),
    "jq": ("workload_map.jq",),
    # The Karta model and what is generated from it or shipped as it: the CRD schema, the index labels,
    # the built-in catalog, and the registry of definitions in effect by kind.
    "definition": ("workload_map.definition", "workload_map.crd", "workload_map.catalog"),
    # Drafting a definition from a CRD, samples and their pods (`wmap definitions new`): reads schemas and
    # objects, writes a Karta; resolves nothing.
    "authoring": ("workload_map.authoring",),
    "resolve": ("workload_map.resolve",),
    "tree": ("workload_map.tree",),
    "gang": ("workload_map.gang",),
    # Capacity and placement: nodes, quotas and pods -> free capacity; trees and gang plans -> requirements,
    # and how many copies fit (docs/placement.md).
    "placement": ("workload_map.placement",),
    # Queues and quotas: the schedulers' queue objects (Kueue, KAI, Volcano) and the workload trees ->
    # per-queue quota, usage and waiting demand, per-workload admission (docs/queues.md).
    "queues": ("workload_map.queues",),
    # A definition checked against sample objects and its own expressions: it resolves and builds trees.
    "views": ("workload_map.checks",),
    "sources": ("workload_map.sources", "workload_map.live"),
    # The public library API: the package's own __init__ and the private modules it re-exports from.
    "api": ("workload_map", "workload_map.api"),
    # The named ports: the doors the surfaces use besides the public API (SURFACE_PORTS below says which).
    "ports": ("workload_map.ports",),
    # What every command line shares (docs/cli.md): the one-line error and exit-code conventions and
    # kubectl's connection flags, for the CLI and the operator alike. Nothing of either surface.
    "cli-conventions": ("workload_map.cmdline",),
    "cli": ("workload_map.cli",),
    # The exporter of `wmap serve`: HTTP and Prometheus exposition over a live model.
    "serve": ("workload_map.serve",),
    "operator": ("workload_map.operator",),
    # Build tools run from a checkout: ``python -m workload_map.manifests`` writes the CRD and the chart's RBAC.
    "tools": ("workload_map.manifests",),
}

CORE = ("foundation", "jq", "definition", "authoring", "resolve", "tree", "gang", "placement", "queues")
_BELOW_VIEWS = (*CORE,)
_BELOW_PORTS = (*CORE, "views", "sources", "api")
_BELOW_SURFACES = (*_BELOW_PORTS, "ports")

# layer -> the layers it may import (itself always).
ALLOWED: dict[str, tuple[str, ...]] = {
    "foundation": (),
    "jq": ("foundation",),
    "definition": ("foundation", "jq"),
    "authoring": ("foundation", "jq", "definition"),
    "resolve": ("foundation", "jq", "definition"),
    "tree": ("foundation", "jq", "definition", "resolve"),
    "gang": ("foundation", "jq", "definition", "resolve"),
    "placement": ("foundation", "jq", "definition", "resolve", "tree", "gang"),
    "queues": ("foundation", "jq", "definition", "resolve", "tree"),
    "views": _BELOW_VIEWS,
    "sources": _BELOW_VIEWS,  # a source reads; checking what it read is the API's (api/recordings.py)
    "api": (*_BELOW_VIEWS, "views", "sources"),
    "ports": _BELOW_PORTS,
    "cli-conventions": _BELOW_PORTS,
    # The two surfaces are peers: neither reaches into the other (catalog install, which both need, is a
    # cluster operation: workload_map.api.catalog_install).
    "cli": (*_BELOW_SURFACES, "cli-conventions", "serve"),  # `wmap serve` starts the service
    "serve": _BELOW_SURFACES,
    "operator": (*_BELOW_SURFACES, "cli-conventions"),
    "tools": tuple(LAYERS),
}

# Third-party modules only some layers may use: the core never talks to a cluster, a user or a network.
RESTRICTED: dict[str, tuple[str, ...]] = {
    "kubernetes": ("sources",),  # the Kubernetes client: workload_map.sources.kube only (README)
    "urllib3": ("sources",),
    "click": ("cli-conventions", "cli", "operator", "tools"),
    "rich": ("cli",),
    "http": ("operator", "serve"),
    "prometheus_client": ("serve",),
    "aiohttp": ("serve",),  # the HTTP server of `wmap serve`
    "ssl": ("operator",),
    "socketserver": ("operator",),
    "cryptography": ("operator",),
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def layer_of(module: str) -> str | None:
    best: tuple[int, str] | None = None
    for layer, prefixes in LAYERS.items():
        for prefix in prefixes:
            # The package itself is one module (its __init__), not a prefix of every other.
            within = module == prefix or (prefix != PACKAGE and module.startswith(prefix + "."))
            if within and (best is None or len(prefix) > best[0]):
                best = (len(prefix), layer)
    return best[1] if best else None


def imports_of(module: str, path: Path) -> list[tuple[int, str]]:
    """(line, imported module) for every import in the file, relative ones resolved; ``from A import B``
    names the submodule ``A.B`` when there is one (``from workload_map.api import catalog_install``)."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.append((node.lineno, sub if sub in MODULES else base))
    return sorted(set(out))


def test_every_module_has_a_layer() -> None:
    unplaced = [m for m in MODULES if layer_of(m) is None]
    assert unplaced == [], f"give these modules a layer in tests/test_layers.py LAYERS: {unplaced}"


def test_imports_point_down() -> None:
    violations = []
    for module, path in MODULES.items():
        layer = layer_of(module)
        if layer is None:  # reported by test_every_module_has_a_layer
            continue
        allowed = {layer, *ALLOWED[layer]}
        for line, target in imports_of(module, path):
            if target != PACKAGE and not target.startswith(PACKAGE + "."):
                continue
            target_layer = layer_of(target)
            if target_layer not in allowed:
                where = f"{path.relative_to(SRC)}:{line}"
                violations.append(f"{where}: {module} ({layer}) imports {target} ({target_layer})")
    assert violations == [], "imports against the layering:\n" + "\n".join(violations)


def test_restricted_libraries_stay_in_their_layers() -> None:
    violations = []
    for module, path in MODULES.items():
        layer = layer_of(module)
        if layer is None:
            continue
        for line, target in imports_of(module, path):
            top = target.split(".")[0]
            if top in RESTRICTED and layer not in RESTRICTED[top]:
                violations.append(f"{path.relative_to(SRC)}:{line}: {module} ({layer}) imports {target}")
    assert violations == [], "libraries outside their layers:\n" + "\n".join(violations)


@pytest.mark.parametrize(
    ("module", "layer"),
    [
        ("workload_map.checks.expressions", "views"),
        ("workload_map.api.catalog_install", "api"),
        ("workload_map.resolve.workloads", "resolve"),
        ("workload_map.base.snapshot", "foundation"),
        ("workload_map.crd.labels", "definition"),
        ("workload_map.sources.documents", "foundation"),
        ("workload_map.manifests", "tools"),
        ("workload_map.cmdline.errors", "cli-conventions"),
        ("workload_map", "api"),
        ("workload_map.api.view", "api"),
    ],
)
def test_layer_table(module: str, layer: str) -> None:
    assert module in MODULES
    assert layer_of(module) == layer


def test_the_checker_sees_lazy_relative_and_submodule_imports(tmp_path: Path) -> None:
    """The parser itself: a function-level import, a relative one and ``from package import submodule``."""
    source = tmp_path / "probe.py"
    source.write_text(
        "from __future__ import annotations\n"
        "from .definition import registry\n"
        "from .api import catalog_install\n"
        "def f() -> None:\n"
        "    from workload_map.operator.main import Operator\n"
    )
    found = {target for _, target in imports_of("workload_map.probe", source)}
    assert {
        "workload_map.definition.registry",
        "workload_map.api.catalog_install",
        "workload_map.operator.main",
    } <= found
    # and the verdict on such an import: the core may not reach a surface
    assert layer_of("workload_map.operator.main") not in ALLOWED["resolve"]


SURFACES = ("cli", "serve", "operator")

# The named ports (src/workload_map/ports/__init__.py) and the surfaces each one serves. A surface imports
# of the package only the public API (``workload_map``), the command-line conventions (``workload_map.cmdline``),
# its own package and these ports; anything else is a listed exception.
SURFACE_PORTS: dict[str, tuple[str, ...]] = {
    "workload_map.ports.objects": ("cli", "operator"),
    "workload_map.ports.present": ("cli", "serve"),
    "workload_map.ports.live": ("serve",),
    "workload_map.ports.kube": ("cli", "operator"),
    "workload_map.ports.commands": ("cli", "operator"),
    "workload_map.ports.definitions": ("cli", "operator"),
    "workload_map.ports.gang": ("operator",),
}

# (surface module, what it imports beyond that rule) -> why. The list only shrinks: an exception that is no
# longer needed fails test_every_surface_exception_is_still_needed.
SURFACE_EXCEPTIONS: dict[tuple[str, str], str] = {
    # `wmap serve` starts the service surface (its HTTP server and a fleet's clusters) over the live models
    # the public API's watch_cluster starts: the one place a surface runs another.
    ("workload_map.cli.commands.serve", "workload_map.serve"): "wmap serve runs the service surface",
}


def _surface_of(module: str) -> str | None:
    layer = layer_of(module)
    return layer if layer in SURFACES else None


def _beyond_the_doors(module: str, surface: str, target: str) -> bool:
    """``target`` is none of what every surface may import (see SURFACE_PORTS)."""
    if not target.startswith(PACKAGE + ".") or target.startswith("workload_map.cmdline"):
        return False  # the public API itself, a third-party library, the command-line conventions
    if layer_of(target) == surface:
        return False
    return not any(target == port and surface in users for port, users in SURFACE_PORTS.items())


def _surface_imports() -> list[tuple[str, str, str]]:
    """(where, surface module, target) of every import of a surface beyond the public API and its ports."""
    out = []
    for module, path in MODULES.items():
        surface = _surface_of(module)
        if surface is None:
            continue
        for line, target in imports_of(module, path):
            if _beyond_the_doors(module, surface, target):
                out.append((f"{path.relative_to(SRC)}:{line}", module, target))
    return out


def _exception_for(module: str, target: str) -> tuple[str, str] | None:
    for key in SURFACE_EXCEPTIONS:
        listed_module, listed_target = key
        if module == listed_module and (target == listed_target or target.startswith(listed_target + ".")):
            return key
    return None


def test_surfaces_use_only_the_public_api_and_named_ports() -> None:
    violations = [
        f"{where}: {module} imports {target}"
        for where, module, target in _surface_imports()
        if _exception_for(module, target) is None
    ]
    assert violations == [], (
        "a surface uses `workload_map` (docs/library.md) and the named ports (workload_map/ports/); give the "
        "surface a port, or extend one, rather than an exception:\n" + "\n".join(violations)
    )


def test_every_surface_exception_is_still_needed() -> None:
    used = {_exception_for(module, target) for _, module, target in _surface_imports()}
    unused = [key for key in SURFACE_EXCEPTIONS if key not in used]
    assert unused == [], f"no longer needed: delete them from SURFACE_EXCEPTIONS: {unused}"


def test_every_port_is_listed_and_used() -> None:
    ports = {m for m in MODULES if m.startswith("workload_map.ports.")}
    assert ports == set(SURFACE_PORTS), "every port module is in SURFACE_PORTS, and nothing else"
    used: dict[str, set[str]] = {port: set() for port in SURFACE_PORTS}
    for module, path in MODULES.items():
        surface = _surface_of(module)
        for _, target in imports_of(module, path):
            if surface is not None and target in used:
                used[target].add(surface)
    assert {port: set(users) for port, users in SURFACE_PORTS.items()} == used, "a port serves exactly its users"


def test_the_surface_rule_catches_a_detour() -> None:
    """The rule itself: a surface reaching the resolver, or a port not meant for it, is caught."""
    assert _beyond_the_doors("workload_map.operator.gang", "operator", "workload_map.resolve.workloads")
    assert _beyond_the_doors("workload_map.serve.api", "serve", "workload_map.ports.gang")
    assert _beyond_the_doors("workload_map.cli.main", "cli", "workload_map.serve.server")
    assert not _beyond_the_doors("workload_map.serve.api", "serve", "workload_map.ports.live")
    assert not _beyond_the_doors("workload_map.cli.main", "cli", "workload_map")
    assert not _beyond_the_doors("workload_map.operator.main", "operator", "workload_map.cmdline.errors")
