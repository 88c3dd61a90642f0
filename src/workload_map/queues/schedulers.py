"""Each scheduler's objects in the queue model's terms: its queues (quota, limits, hierarchy, its own status)
and its verdict on one workload (admission state and reason). Field names follow the schedulers' APIs:
Kueue v1beta2 (v1beta1 spells the cohort ``spec.cohort``), KAI ``scheduling.run.ai/v2`` Queues and
``v2alpha2`` PodGroups, Volcano ``scheduling.volcano.sh/v1beta1`` Queues and PodGroups."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from workload_map.base.objects import Obj, meta, name_of, namespace_of
from workload_map.queues.model import ADMITTED, FINISHED, INACTIVE, PENDING, RESERVED, Amounts, Queue
from workload_map.resolve.quantity import QuantityError, parse_quantity


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def quantity(value: Any, warnings: list[str], where: str) -> Decimal | None:
    if value is None:
        return None
    try:
        return parse_quantity(value)
    except QuantityError as exc:
        warnings.append(f"{where}: {exc}: left out")
        return None


def amounts(values: Any, warnings: list[str], where: str) -> Amounts:
    out: Amounts = {}
    for name, value in _dict(values).items():
        parsed = quantity(value, warnings, f"{where}.{name}")
        if parsed is not None:
            out[str(name)] = parsed
    return out


def conditions(obj: Obj) -> dict[str, dict[str, Any]]:
    """type -> the condition (the last one of a type wins)."""
    return {str(c.get("type")): c for c in _list(_dict(obj.get("status")).get("conditions"))}


def _true(found: Mapping[str, dict[str, Any]], kind: str) -> bool:
    return str(found.get(kind, {}).get("status")) == "True"


# --------------------------------------------------------------------------- Kueue


def kueue_queues(objects: Iterable[Obj], kind: str, warnings: list[str]) -> list[Queue]:
    """ClusterQueues, Cohorts (with their resource groups) or LocalQueues as queues, with their status."""
    out = []
    for obj in objects:
        name, spec, status = name_of(obj), _dict(obj.get("spec")), _dict(obj.get("status"))
        where = f"{kind.lower()}.kueue.x-k8s.io/{name}"
        if kind == "LocalQueue":
            queue = Queue("kueue", kind, name, namespace=namespace_of(obj))
            cluster_queue = spec.get("clusterQueue")
            queue.parent = f"kueue/ClusterQueue/{cluster_queue}" if cluster_queue else None
        else:
            queue = Queue("kueue", kind, name)
            parent = spec.get("parentName") if kind == "Cohort" else spec.get("cohortName") or spec.get("cohort")
            queue.parent = f"kueue/Cohort/{parent}" if parent else None
        for group in _list(spec.get("resourceGroups")):
            for flavor in _list(group.get("flavors")):
                for quota in _list(flavor.get("resources")):
                    item = queue.resource(str(quota.get("name")), str(flavor.get("name") or ""))
                    at = f"{where} {item.flavor}/{item.resource}"
                    item.quota = quantity(quota.get("nominalQuota", "0"), warnings, at + " nominalQuota")
                    borrowing = quantity(quota.get("borrowingLimit"), warnings, at + " borrowingLimit")
                    if borrowing is not None and item.quota is not None:
                        item.limit = item.quota + borrowing
                    elif queue.parent is None and kind == "ClusterQueue":
                        item.limit = item.quota  # nothing to borrow from
                    item.lending_limit = quantity(quota.get("lendingLimit"), warnings, at + " lendingLimit")
        for field_name, attribute in (("flavorsReservation", "reported_used"), ("flavorsUsage", "reported_admitted")):
            for flavor in _list(status.get(field_name)):
                for usage in _list(flavor.get("resources")):
                    item = queue.resource(str(usage.get("name")), str(flavor.get("name") or ""))
                    at = f"{where} status.{field_name}"
                    setattr(item, attribute, quantity(usage.get("total", "0"), warnings, at))
                    if field_name == "flavorsReservation" and kind == "ClusterQueue":
                        item.reported_borrowed = quantity(usage.get("borrowed", "0"), warnings, at + " borrowed")
        for counter in ("pendingWorkloads", "reservingWorkloads", "admittedWorkloads"):
            if isinstance(status.get(counter), int):
                queue.reported_counts[counter] = status[counter]
        active = conditions(obj).get("Active")
        if active is not None and str(active.get("status")) != "True":
            queue.state = str(active.get("reason") or "Inactive")
        out.append(queue)
    return out


def kueue_state(workload: Obj) -> tuple[str, str, str]:
    """(state, reason, message) of a Kueue Workload from its conditions and spec.active."""
    found = conditions(workload)
    if _true(found, "Finished"):
        return FINISHED, str(found["Finished"].get("reason") or ""), str(found["Finished"].get("message") or "")
    if _dict(workload.get("spec")).get("active") is False:
        return INACTIVE, "Deactivated", str(found.get("Evicted", {}).get("message") or "")
    if _true(found, "Admitted"):
        return ADMITTED, str(found["Admitted"].get("reason") or ""), str(found["Admitted"].get("message") or "")
    if _true(found, "QuotaReserved"):
        reserved = found["QuotaReserved"]
        return RESERVED, str(reserved.get("reason") or ""), str(reserved.get("message") or "")
    if _true(found, "Evicted"):
        evicted = found["Evicted"]
        return PENDING, f"Evicted: {evicted.get('reason') or ''}", str(evicted.get("message") or "")
    reserved = found.get("QuotaReserved", {})
    return PENDING, str(reserved.get("reason") or ""), str(reserved.get("message") or "")


def kueue_usage(workload: Obj, warnings: list[str]) -> tuple[str | None, dict[str, Amounts]]:
    """(admitting ClusterQueue, flavor -> amounts) of a Workload's admission: each PodSet's resourceUsage
    (for its ``count`` pods) less the share of its reclaimable pods, as Kueue counts quota."""
    status = _dict(workload.get("status"))
    admission = _dict(status.get("admission"))
    if not admission:
        return None, {}
    where = f"workload.kueue.x-k8s.io/{name_of(workload)} in {namespace_of(workload)}"
    reclaimable = {str(r.get("name")): r.get("count") for r in _list(status.get("reclaimablePods"))}
    counts = {str(p.get("name")): p.get("count") for p in _list(_dict(workload.get("spec")).get("podSets"))}
    out: dict[str, Amounts] = {}
    for assignment in _list(admission.get("podSetAssignments")):
        name = str(assignment.get("name"))
        count = assignment.get("count", counts.get(name))
        factor = Decimal(1)
        freed = reclaimable.get(name)
        if isinstance(count, int) and count > 0 and isinstance(freed, int) and freed > 0:
            factor = Decimal(max(count - freed, 0)) / Decimal(count)
        flavors = _dict(assignment.get("flavors"))
        for resource, value in amounts(assignment.get("resourceUsage"), warnings, where).items():
            flavor = str(flavors.get(resource) or "")
            bucket = out.setdefault(flavor, {})
            bucket[resource] = bucket.get(resource, Decimal(0)) + value * factor
    return str(admission.get("clusterQueue") or "") or None, out


# --------------------------------------------------------------------------- KAI

# KAI's Queue gives cpu in millicpus, memory in megabytes (10^6 bytes) and gpu in devices (its CRD).
_KAI_RESOURCES = {
    "gpu": ("nvidia.com/gpu", Decimal(1)),
    "cpu": ("cpu", Decimal("0.001")),
    "memory": ("memory", Decimal(10**6)),
}


def _kai_amount(value: Any, scale: Decimal, warnings: list[str], where: str) -> Decimal | None:
    parsed = quantity(value, warnings, where)
    if parsed is None or parsed < 0:  # -1: no quota or no limit
        return None
    return parsed * scale


def kai_queues(objects: Iterable[Obj], warnings: list[str]) -> list[Queue]:
    out = []
    for obj in objects:
        name, spec, status = name_of(obj), _dict(obj.get("spec")), _dict(obj.get("status"))
        queue = Queue("kai", "Queue", name)
        parent = spec.get("parentQueue")
        queue.parent = f"kai/Queue/{parent}" if parent else None
        where = f"queue.scheduling.run.ai/{name}"
        for kai_name, (resource, scale) in _KAI_RESOURCES.items():
            given = _dict(_dict(spec.get("resources")).get(kai_name))
            if not given:
                continue
            item = queue.resource(resource)
            item.quota = _kai_amount(given.get("quota"), scale, warnings, f"{where} {kai_name}.quota")
            item.limit = _kai_amount(given.get("limit"), scale, warnings, f"{where} {kai_name}.limit")
            item.over_quota_weight = quantity(given.get("overQuotaWeight"), warnings, f"{where} {kai_name}.weight")
        for resource, value in amounts(status.get("allocated"), warnings, where + " status.allocated").items():
            queue.resource(_kai_status_name(resource)).reported_used = value
        out.append(queue)
    return out


def _kai_status_name(resource: str) -> str:
    return "nvidia.com/gpu" if resource == "gpu" else resource


def kai_pending(pod_group: Obj | None) -> tuple[str, str]:
    """(reason, message) KAI gives for a PodGroup it has not scheduled: its last scheduling condition."""
    if pod_group is None:
        return "", ""
    status = _dict(pod_group.get("status"))
    scheduling = _list(status.get("schedulingConditions")) or _list(status.get("conditions"))
    if not scheduling:
        return "", ""
    last = scheduling[-1]
    return str(last.get("reason") or last.get("type") or ""), str(last.get("message") or "")


# --------------------------------------------------------------------------- Volcano


def volcano_queues(objects: Iterable[Obj], warnings: list[str]) -> list[Queue]:
    out = []
    for obj in objects:
        name, spec, status = name_of(obj), _dict(obj.get("spec")), _dict(obj.get("status"))
        queue = Queue("volcano", "Queue", name)
        parent = spec.get("parent")
        queue.parent = f"volcano/Queue/{parent}" if parent and parent != name else None
        where = f"queue.scheduling.volcano.sh/{name}"
        queue.weight = quantity(spec.get("weight"), warnings, where + " weight")
        for field_name, attribute in (("deserved", "quota"), ("capability", "limit")):
            for resource, value in amounts(spec.get(field_name), warnings, f"{where} {field_name}").items():
                setattr(queue.resource(resource), attribute, value)
        guaranteed = _dict(spec.get("guarantee")).get("resource")
        for resource, value in amounts(guaranteed, warnings, where + " guarantee").items():
            queue.resource(resource).guarantee = value
        for resource, value in amounts(status.get("allocated"), warnings, where + " status.allocated").items():
            queue.resource(resource).reported_used = value
        queue.state = str(status.get("state") or spec.get("state") or "")
        for counter in ("pending", "inqueue", "running", "completed", "unknown"):
            if isinstance(status.get(counter), int):
                queue.reported_counts[counter] = status[counter]
        out.append(queue)
    return out


_VOLCANO_PHASES = {"Inqueue": ADMITTED, "Running": ADMITTED, "Completed": FINISHED}


def volcano_state(pod_group: Obj) -> tuple[str, str, str]:
    """(state, reason, message) of a Volcano PodGroup: Inqueue and Running are admitted (its enqueue action
    let it in), Pending and Unknown wait; the reason is its last Unschedulable condition."""
    phase = str(_dict(pod_group.get("status")).get("phase") or "Pending")
    state = _VOLCANO_PHASES.get(phase, PENDING)
    found = conditions(pod_group).get("Unschedulable", {})
    if state == PENDING and found:
        return state, str(found.get("reason") or phase), str(found.get("message") or "")
    return state, phase, ""


def spec_queue(obj: Obj) -> str | None:
    """A PodGroup's or Kueue Workload's queue (``spec.queue``, ``spec.queueName``)."""
    spec = _dict(obj.get("spec"))
    value = spec.get("queue") or spec.get("queueName")
    return str(value) if isinstance(value, str) and value else None


def labels_of(obj: Obj) -> dict[str, Any]:
    labels = meta(obj).get("labels")
    return labels if isinstance(labels, dict) else {}
