"""Named ports: the only doors the surfaces (``cli/``, ``serve/``, ``operator/``) use into the package
besides the public API (``workload_map``, docs/library.md) and the command-line conventions
(``workload_map.cmdline``). ``tests/test_layers.py`` enforces it and says which surface may use which port.

- ``ports.live``: the read interface over the live model (``LiveReader``) for ``wmap serve`` and its
  dashboard, JSON API and metrics.
- ``ports.present``: what presenting results needs beyond the public types: quantities, GPU counts, status
  precedence, gang tables, object accessors, JSON with integers of any size.
- ``ports.kube``: reaching a cluster for what is not a workload read: a connection from a ``ClusterOptions``,
  discovery, paged lists, the informer (list, watch, relist), the cluster's Karta definitions.
- ``ports.commands``: the back-ends of the commands that act on a cluster or a dump file: catalog install,
  snapshot export, recordings, the RBAC a reader needs, reading definition files.
- ``ports.definitions``: the definitions as the operator checks and serves them: validation, the registry,
  the built-in catalog, the Karta CRD's identity and index labels, the jq limits.
- ``ports.gang``: gang planning of workloads among a set of objects (the operator's PodGroups and pod
  attachment).

A port re-exports lazily (PEP 562, as ``workload_map`` does): a command pays only for the names it uses,
so start-up stays as fast as with direct imports. Its ``_EXPORTS`` table is the one list of its names;
the imports under ``TYPE_CHECKING`` (for type checkers) are held equal to it by tests/library/test_ports.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from workload_map.base.lazy import lazy_exports as _lazy_names


def lazy_exports(port: str, exports: dict[str, tuple[str, ...]]) -> Callable[[str], object]:
    """The module ``__getattr__`` of a port, from its ``_EXPORTS`` table (module -> names): each name
    imported from its module on first use and kept in the port's namespace."""
    home = {name: module for module, names in exports.items() for name in names}
    return _lazy_names(port, home, vars(sys.modules[port]))
