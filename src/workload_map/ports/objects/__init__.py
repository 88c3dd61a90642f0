"""Port: Kubernetes objects as every layer reads them (``Obj`` and its accessors) and JSON with integers of
any size, for every surface."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.ports import lazy_exports

if TYPE_CHECKING:
    from workload_map.base.json_codec import dumps as dumps
    from workload_map.base.objects import (
        Obj as Obj,
        group_of as group_of,
        key_of as key_of,
        name_of as name_of,
        namespace_of as namespace_of,
        version_of as version_of,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    # orjson's speed without its 64-bit integer limit: what every JSON output of the package writes with
    "workload_map.base.json_codec": ("dumps",),
    "workload_map.base.objects": ("Obj", "group_of", "key_of", "name_of", "namespace_of", "version_of"),
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
