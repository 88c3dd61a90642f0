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
_BELOW_SURFACES = (*CORE, "views", "sources", "api")

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
    "sources": (*_BELOW_VIEWS, "views"),
    "api": (*_BELOW_VIEWS, "views", "sources"),
    "cli-conventions": _BELOW_SURFACES,
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


# What the CLI may import of the package: the public API (``workload_map``), its own modules, the
# foundation's accessors and errors, and the core's result types it renders (trees, statuses, quantities,
# gang tables). Everything that reads or resolves workloads goes through ``workload_map``'s View.
CLI_RENDERS = (
    "workload_map._version",
    "workload_map.base.json_codec",
    "workload_map.errors",
    "workload_map.base.objects",
    "workload_map.tree.model",
    "workload_map.resolve.status",
    "workload_map.resolve.quantity",
    "workload_map.resolve.resources",
    "workload_map.resolve.pods",
    "workload_map.gang.report",
)
# CLI modules that perform cluster operations which are not workload reads, and why.
CLI_CLUSTER_OPERATIONS: dict[str, str] = {
    # Shell completion lists names with one short request and a discovery; it must not read workloads.
    "workload_map.cli.complete": (
        "workload_map.sources.kube workload_map.definition.registry workload_map.base.snapshot workload_map.api"
    ),
    # `wmap snapshot` writes the raw objects a live read returns into a dump file.
    "workload_map.cli.commands.snapshot": (
        "workload_map.sources.kube workload_map.api.definitions workload_map.api.snapshot_export"
    ),
    # `wmap record` writes the raw objects a live watch of one workload returns into a recording file; it
    # declares kubectl's connection flags without the whole-command --timeout (its --timeout ends the recording).
    "workload_map.cli.commands.record": "workload_map.sources.kube",
    # `wmap serve` starts the service surface over the public API's live model.
    "workload_map.cli.commands.serve": "workload_map.serve",
    # `wmap catalog install|diff` applies definitions to a cluster (a cluster operation, not a read).
    "workload_map.cli.commands.catalog": (
        "workload_map.sources.kube workload_map.catalog workload_map.api.catalog_install"
    ),
    # `wmap auth` prints the CLI's RBAC, derived by the code that derives the operator's (no cluster access).
    "workload_map.cli.commands.auth": "workload_map.sources.kube.access",
}


def test_the_cli_reads_workloads_only_through_the_public_api() -> None:
    violations = []
    for module, path in MODULES.items():
        if not module.startswith("workload_map.cli"):
            continue
        extra = tuple(CLI_CLUSTER_OPERATIONS.get(module, "").split())
        for line, target in imports_of(module, path):
            if not target.startswith(PACKAGE + ".") or target.startswith(("workload_map.cli", "workload_map.cmdline")):
                continue  # the public API itself, third-party libraries, the CLI's own modules and conventions
            if target in CLI_RENDERS or any(target == e or target.startswith(e + ".") for e in extra):
                continue
            violations.append(f"{path.relative_to(SRC)}:{line}: {module} imports {target}")
    assert violations == [], "the CLI must use `workload_map` (docs/library.md):\n" + "\n".join(violations)
