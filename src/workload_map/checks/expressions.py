"""Checking a definition against sample objects: `wmap validate --against`.

It resolves (components, templates, status), so it lives above ``definition/``, next to the resolver.

Static validation proves a definition is well formed; this proves it reads real objects: every
expression evaluates without error, and pod templates, replicas and status resolve to something.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from workload_map.base.snapshot import group_of, is_pod, key_of, version_of
from workload_map.definition.expressions import Target, iter_expressions
from workload_map.definition.gaps import template_gap
from workload_map.definition.model import LoadedDefinition
from workload_map.errors import Finding, Location, Severity
from workload_map.jq import JqError, compile_expression
from workload_map.resolve.components import resolve_components
from workload_map.resolve.evaluate import Diagnostics, run
from workload_map.resolve.status import evaluate_status
from workload_map.sources.documents import Document


def _is_workload(definition: LoadedDefinition, obj: dict[str, Any]) -> bool:
    gvk = definition.karta.identity
    if gvk is None:
        return False
    api_version = str(obj.get("apiVersion") or "")
    return group_of(api_version) == gvk.group and obj.get("kind") == gvk.kind


def check_against(definition: LoadedDefinition, samples: Iterable[Document]) -> list[Finding]:
    karta = definition.karta
    base = definition.location
    findings: list[Finding] = []
    docs = [d for d in samples if isinstance(d.data, dict)]
    workloads = [d for d in docs if _is_workload(definition, d.data)]
    pods = [d for d in docs if is_pod(d.data)]
    if not workloads and not pods:
        gvk = karta.identity
        return [
            Finding(
                base, f"no sample object of kind {gvk.kind if gvk else '?'} or Pod to check against", Severity.WARNING
            )
        ]
    expressions = list(iter_expressions(karta))
    for doc in workloads:
        obj = doc.data
        subject = f"{key_of(obj)} ({doc.location})"
        if karta.identity is not None and version_of(str(obj.get("apiVersion"))) != karta.identity.version:
            findings.append(
                Finding(
                    base,
                    f"{subject}: served at {obj.get('apiVersion')}, the definition is for {karta.identity.version}",
                    Severity.WARNING,
                )
            )
        for ref in expressions:
            if ref.target is not Target.WORKLOAD:
                continue
            if "suspendDefinition" in ref.path:
                _check_writable(ref.expression, obj, base.child(*ref.path), subject, findings)
                continue
            _, error = run(ref.expression, obj)
            if error is not None:
                findings.append(Finding(base.child(*ref.path), f"{subject}: {error}", expression=ref.expression))
        findings += _resolution_findings(definition, obj, subject)
    for doc in pods:
        for ref in expressions:
            if ref.target is Target.POD:
                _, error = run(ref.expression, doc.data)
                if error is not None:
                    findings.append(
                        Finding(
                            base.child(*ref.path),
                            f"pod {key_of(doc.data)} ({doc.location}): {error}",
                            expression=ref.expression,
                        )
                    )
    return findings


def _check_writable(expression: str, obj: Any, location: Location, subject: str, findings: list[Finding]) -> None:
    try:
        compile_expression(expression).paths(obj)
    except JqError as exc:
        findings.append(Finding(location, f"{subject}: not a writable path: {exc}", expression=expression))


def _resolution_findings(definition: LoadedDefinition, obj: dict[str, Any], subject: str) -> list[Finding]:
    karta = definition.karta
    base = definition.location
    diagnostics = Diagnostics(subject, base)
    components = resolve_components(karta, obj, diagnostics)
    findings = [Finding(f.location, f.message, Severity.ERROR, f.expression) for f in diagnostics.findings]
    for component in components.values():
        where = base.child(*component.path)
        if component.error is not None:
            continue
        if component.has_pods:
            if not component.instances:
                findings.append(
                    Finding(where, f"{subject}: component {component.name!r} has no instances", Severity.WARNING)
                )
            for instance in component.instances:
                label = component.name + (f"[{instance.id}]" if instance.id is not None else "")
                if instance.template is None:
                    # An object may leave a pod to the operator's default (a RayJob without
                    # submitterPodTemplate, a Dynamo component without podTemplate): nothing to read or
                    # write, which matters only when pods are expected. A draft's gap there is already
                    # one "left to do" warning of its own.
                    if instance.desired_pods > 0 and not template_gap(component.definition):
                        findings.append(
                            Finding(
                                where.child("specDefinition"),
                                f"{subject}: pod template of {label} resolves to nothing (the object gives none; "
                                "the operator's default pod applies, with no fields to read or update)",
                                Severity.WARNING,
                            )
                        )
                elif not (instance.template.get("spec") or {}).get("containers"):
                    findings.append(
                        Finding(
                            where.child("specDefinition"),
                            f"{subject}: pod template of {label} has no containers",
                            Severity.WARNING,
                        )
                    )
        scale = component.definition.scale_definition
        if scale is not None and scale.replicas_path is not None:
            for instance in component.instances:
                if instance.scale.replicas is None:
                    label = component.name + (f"[{instance.id}]" if instance.id is not None else "")
                    findings.append(
                        Finding(
                            where.child("scaleDefinition", "replicasPath"),
                            f"{subject}: replicas of {label} resolve to nothing",
                            expression=scale.replicas_path,
                        )
                    )
    status = evaluate_status(karta.root.status_definition, obj)
    status_loc = base.child("spec", "structureDefinition", "rootComponent", "statusDefinition")
    findings += [Finding(status_loc, f"{subject}: {e}") for e in status.errors]
    has_status = bool(obj.get("status"))
    if has_status and status.phase is None and not status.conditions and not status.matched:
        findings.append(
            Finding(
                status_loc,
                f"{subject}: the object has a status but neither phase nor conditions resolve and no mapping matches",
                Severity.WARNING,
            )
        )
    return findings
