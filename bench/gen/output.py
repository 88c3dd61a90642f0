"""Writing a generated cluster: one ``v1 List`` as YAML (with an optional header) or JSON (orjson)."""

from __future__ import annotations

from pathlib import Path

from .core import Obj

EXAMPLE_HEADER = """\
# A small, realistic snapshot of an AI cluster: workloads of several frameworks with their operator-created
# children (Jobs, ReplicaSets, StatefulSets, RayCluster, PodCliques, ...), their pods and the nodes they run on.
# GENERATED - do not edit by hand. Regenerate with:
#   python bench/gen_cluster.py --example -o src/workload_map/examples/ai-cluster.yaml
"""


def as_list(objects: list[Obj]) -> Obj:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objects}


def dump_yaml(objects: list[Obj], header: str = "") -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return header + yaml.dump(
        as_list(objects), Dumper=dumper, sort_keys=False, default_flow_style=False, width=120, allow_unicode=True
    )


def dump_json(objects: list[Obj]) -> bytes:
    import orjson

    return orjson.dumps(as_list(objects))


def write(objects: list[Obj], path: Path, header: str = "") -> int:
    data = dump_json(objects) if path.suffix == ".json" else dump_yaml(objects, header).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)
