"""Effective resource requests of a pod, computed the way Kubernetes computes them.

The scheduler reserves ``max(sum of app containers and restartable sidecars, the largest init
container step) + overhead``, with pod-level resources replacing the container sum where set, and a
container's limit standing in for a request it does not declare (API defaulting). Getting this right
is what makes GPU and CPU totals match what the cluster actually reserves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from workload_map.base.model import Model, field
from workload_map.resolve.quantity import QuantityError, format_quantity, parse_quantity

Requests = dict[str, Decimal]

# Resources whose pod-level value replaces the sum over containers (PodLevelResources).
_POD_LEVEL = ("cpu", "memory")


def is_gpu_resource(name: str) -> bool:
    """Whole accelerator devices: nvidia.com/gpu, amd.com/gpu and any other ``<vendor>/gpu``."""
    return name.endswith("/gpu")


class PodResources(Model, frozen=False, kw_only=False):
    requests: Requests = field(default_factory=dict)
    resource_claims: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def gpus(self) -> Decimal:
        return sum((v for k, v in self.requests.items() if is_gpu_resource(k)), Decimal(0))


def _container_requests(container: Mapping[str, Any], problems: list[str]) -> Requests:
    resources = container.get("resources") or {}
    if not isinstance(resources, Mapping):
        problems.append(f"container {container.get('name', '?')!r}: resources is not a mapping")
        return {}
    requests = _parse_list(resources.get("requests"), container, "requests", problems)
    limits = _parse_list(resources.get("limits"), container, "limits", problems)
    for name, value in limits.items():
        requests.setdefault(name, value)
    return requests


def _parse_list(raw: Any, owner: Mapping[str, Any], what: str, problems: list[str]) -> Requests:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        problems.append(f"container {owner.get('name', '?')!r}: {what} is not a mapping")
        return {}
    out: Requests = {}
    for name, value in raw.items():
        try:
            out[str(name)] = parse_quantity(value)
        except QuantityError as exc:
            problems.append(f"container {owner.get('name', '?')!r}: {what}[{name}]: {exc}")
    return out


def _add(into: Requests, other: Mapping[str, Decimal]) -> None:
    for name, value in other.items():
        into[name] = into.get(name, Decimal(0)) + value


def _max(into: Requests, other: Mapping[str, Decimal]) -> None:
    for name, value in other.items():
        if value > into.get(name, Decimal(0)):
            into[name] = value


def _containers(spec: Mapping[str, Any], key: str, problems: list[str]) -> list[Mapping[str, Any]]:
    raw = spec.get(key) or []
    if not isinstance(raw, list):
        problems.append(f"{key} is not a list")
        return []
    return [c for c in raw if isinstance(c, Mapping)]


def pod_resources(spec: Mapping[str, Any] | None) -> PodResources:
    """Effective requests of one pod from its PodSpec."""
    key = _resources_key(spec) if isinstance(spec, dict) else None
    if key is None:
        return _pod_resources(spec)
    known = _KNOWN.get(key)
    if known is None:
        if len(_KNOWN) >= _KNOWN_MAX:
            _KNOWN.clear()
        known = _KNOWN[key] = _pod_resources(spec)
    return PodResources(dict(known.requests), known.resource_claims, list(known.problems))


# The pods of a workload repeat a few container shapes: pod_resources of each distinct shape is computed once
# (parsing and summing Decimals per pod took 0.22 s of get -A's ~3.5 s CPU at 1,000 workloads; with the
# shapes remembered, 0.09 s). A shape is everything pod_resources reads, kept only when every quantity is a
# string (1 == True == 1.0 as keys, not as quantities); anything else is computed as before.
_KNOWN: dict[tuple[Any, ...], PodResources] = {}
_KNOWN_MAX = 4096  # distinct shapes; a long-running host starts over past this


def _flat(raw: Any) -> tuple[tuple[str, str], ...] | None:
    if raw is None:
        return ()
    if type(raw) is not dict or not all(type(v) is str for v in raw.values()):
        return None
    return tuple(raw.items())


def _container_key(container: Any) -> tuple[Any, ...] | None:
    if type(container) is not dict:
        return None
    resources = container.get("resources")
    if resources is None:
        return (container.get("name", "?"), container.get("restartPolicy"))
    if type(resources) is not dict:
        return None
    requests, limits = _flat(resources.get("requests")), _flat(resources.get("limits"))
    if requests is None or limits is None:
        return None
    return (container.get("name", "?"), container.get("restartPolicy"), requests, limits)


def _resources_key(spec: dict[str, Any]) -> tuple[Any, ...] | None:
    """The shape of ``spec`` for pod_resources, hashable; None when it cannot be told exactly."""
    parts: list[Any] = []
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        if containers is None:
            parts.append(None)
            continue
        if type(containers) is not list:
            return None
        for container in containers:
            one = _container_key(container)
            if one is None:
                return None
            parts.append(one)
        parts.append(len(containers))
    pod_level = spec.get("resources")
    if pod_level is not None:
        level = _container_key({"resources": pod_level})
        if level is None:
            return None
        parts.append(level)
    else:
        parts.append(None)
    overhead = _flat(spec.get("overhead"))
    claims = spec.get("resourceClaims")
    if overhead is None or not (claims is None or type(claims) is list):
        return None
    parts.append(overhead)
    parts.append(len(claims) if claims else 0)
    try:
        hash(tuple(parts))
    except TypeError:  # a container name or restart policy that is not text
        return None
    return tuple(parts)


def _pod_resources(spec: Mapping[str, Any] | None) -> PodResources:
    result = PodResources()
    if not isinstance(spec, Mapping):
        return result
    problems = result.problems
    total: Requests = {}
    for container in _containers(spec, "containers", problems):
        _add(total, _container_requests(container, problems))
    sidecars: Requests = {}
    init_peak: Requests = {}
    for container in _containers(spec, "initContainers", problems):
        requests = _container_requests(container, problems)
        if container.get("restartPolicy") == "Always":
            _add(total, requests)
            _add(sidecars, requests)
            step = dict(sidecars)
        else:
            step = dict(requests)
            _add(step, sidecars)
        _max(init_peak, step)
    _max(total, init_peak)
    pod_level = spec.get("resources")
    if isinstance(pod_level, Mapping):
        level = _container_requests({"name": "<pod>", "resources": pod_level}, problems)
        for name in _POD_LEVEL:
            if name in level:
                total[name] = level[name]
    overhead = spec.get("overhead")
    if isinstance(overhead, Mapping):
        _add(total, _parse_list(overhead, {"name": "<overhead>"}, "overhead", problems))
    claims = spec.get("resourceClaims") or []
    result.resource_claims = len(claims) if isinstance(claims, list) else 0
    result.requests = total
    return result


def sum_requests(items: Iterable[Mapping[str, Decimal]], times: int = 1) -> Requests:
    total: Requests = {}
    for item in items:
        _add(total, item)
    if times != 1:
        total = {k: v * times for k, v in total.items()}
    return total


def scale(requests: Mapping[str, Decimal], times: int) -> Requests:
    return {k: v * times for k, v in requests.items()}


def json_number(value: Decimal) -> int | float:
    """A quantity as a JSON number: an integer when it is whole (GPUs: 8, not 8.0)."""
    return int(value) if value == value.to_integral_value() else float(value)


def to_json(requests: Mapping[str, Decimal]) -> dict[str, str]:
    """Quantities in a stable, human-readable form keyed by resource name, sorted."""
    return {name: format_quantity(requests[name], name) for name in sorted(requests)}


def gpu_count(requests: Mapping[str, Decimal]) -> Decimal:
    return sum((v for k, v in requests.items() if is_gpu_resource(k)), Decimal(0))
