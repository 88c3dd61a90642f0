"""``wmap snapshot``: everything the covered workloads need, in ONE file that ``--from-file`` reads.

The file is a ``List`` (``{"apiVersion": "v1", "kind": "List", "items": [...]}``) holding the
workloads, the intermediate objects (Jobs, StatefulSets, ...), the pods, the cluster's Karta objects,
the schedulers' queue objects that ``queues`` reads (when served), and the Nodes and ResourceQuotas that
``capacity`` and ``fit`` read, each with its apiVersion and kind.
``.json`` writes JSON, anything else YAML.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from workload_map.base.coverage import Coverage, coverage_document
from workload_map.base.snapshot import Obj

# Noise a dump never needs; dropping it keeps big snapshots small.
_DROP_METADATA = ("managedFields",)


def _clean(obj: Obj) -> Obj:
    metadata = obj.get("metadata")
    if isinstance(metadata, dict) and any(k in metadata for k in _DROP_METADATA):
        obj = {**obj, "metadata": {k: v for k, v in metadata.items() if k not in _DROP_METADATA}}
    return obj


def snapshot_document(
    objects: Iterable[Obj], karta_objects: Iterable[Obj] = (), coverage: Coverage | None = None
) -> dict[str, Any]:
    """The List; a read with gaps (forbidden, not served) writes them first, as one Coverage item, so that
    reading the file answers what the live read answered (no phantom rows, unknown counts)."""
    items = [coverage_document(coverage)] if coverage is not None and not coverage.complete else []
    items += [_clean(o) for o in karta_objects] + [_clean(o) for o in objects]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def write_snapshot(
    path: str | os.PathLike[str],
    objects: Iterable[Obj],
    karta_objects: Iterable[Obj] = (),
    coverage: Coverage | None = None,
) -> int:
    """Write the List atomically (temp file + rename); returns the number of items."""
    document = snapshot_document(objects, karta_objects, coverage)
    target = Path(path)
    if target.suffix.lower() == ".json":
        data = orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
    else:
        import yaml  # noqa: PLC0415 (PyYAML only for YAML input/output)

        dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        data = yaml.dump(
            document, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True
        ).encode()
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return len(document["items"])


def with_capacity(source: Any) -> tuple[list[Obj], list[str]]:
    """The objects of a LiveSource plus its cluster's Nodes and ResourceQuotas (one more LIST each), and
    the warnings of reading them."""
    from workload_map.sources.kube.capacity import fetch_capacity  # noqa: PLC0415 (the Kubernetes client only when a cluster is reached)

    read = fetch_capacity(source.connection, source.namespace, pods=source.snapshot.pods)
    warnings = list(read.warnings)
    if read.nodes and source.namespace is not None:
        warnings.append(
            f"the snapshot holds the pods of namespace {source.namespace} only: capacity read from it does not "
            "count what other namespaces' pods use on the nodes (snapshot with -A for that)"
        )
    return [*source.snapshot.objects, *read.nodes, *read.quotas], warnings
