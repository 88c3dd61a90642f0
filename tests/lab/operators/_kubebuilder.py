"""What the kubebuilder-made operators (JobSet, LeaderWorkerSet) need in the lab, read from their Go module.

Their releases are deployed with kustomize: a controller Configuration, CRDs and webhook configurations
pointing at an in-cluster Service. The lab runs the manager as a local process instead, so the webhook
configurations are the module's own (config/.../manifests.yaml with the kustomization's patches, e.g. the
pod webhooks' objectSelector) with each Service reference turned into a URL on 127.0.0.1. Everything is
read in place from the Go module cache; nothing is copied into the repository.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml

from . import OperatorContext


def module_dir(module: str, version: str) -> Path:
    """The module's directory in the Go module cache (downloaded through the proxy when missing)."""
    go = shutil.which("go") or "/usr/local/go/bin/go"
    with tempfile.TemporaryDirectory() as scratch:  # outside any module: go mod download -json MODULE@VERSION
        proc = subprocess.run(
            [go, "mod", "download", "-json", f"{module}@{version}"],
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "GOFLAGS": "-mod=mod"},
            check=False,
        )
    info = json.loads(proc.stdout or "{}")
    if proc.returncode != 0 or not info.get("Dir"):
        raise FileNotFoundError(f"go mod download {module}@{version}: {info.get('Error') or proc.stderr.strip()}")
    return Path(info["Dir"])


def _patched(document: dict[str, Any], patches: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON patches (op add/replace of /webhooks/N) kustomize applies to a webhook configuration."""
    out = copy.deepcopy(document)
    for patch in patches:
        parts = patch["path"].strip("/").split("/")
        if parts[0] != "webhooks" or len(parts) != 2 or patch["op"] not in ("replace", "add"):
            raise ValueError(f"unsupported webhook patch {patch['op']} {patch['path']}")
        index = int(parts[1]) if parts[1] != "-" else len(out["webhooks"])
        if patch["op"] == "replace":
            out["webhooks"][index] = patch["value"]
        else:
            out["webhooks"].insert(index, patch["value"])
    return out


def webhooks_by_url(webhook_dir: Path, operator: str, port: int, ca_bundle: bytes) -> list[dict[str, Any]]:
    """The module's webhook configurations, kustomize patches applied, calling https://127.0.0.1:PORT."""
    kustomization = yaml.safe_load((webhook_dir / "kustomization.yaml").read_text()) or {}
    patches: dict[str, list[dict[str, Any]]] = {}
    for entry in kustomization.get("patches") or kustomization.get("patchesJson6902") or []:
        target = entry.get("target") or {}
        path = entry.get("path")
        if path and target.get("kind"):
            patches.setdefault(target["kind"], []).extend(yaml.safe_load((webhook_dir / path).read_text()) or [])
    ca = base64.b64encode(ca_bundle).decode()
    out = []
    for manifest in yaml.safe_load_all((webhook_dir / "manifests.yaml").read_text()):
        if not manifest:
            continue
        document = _patched(manifest, patches.get(manifest["kind"], []))
        hooks = []
        for hook in document["webhooks"]:
            path = hook["clientConfig"]["service"]["path"]
            hooks.append({**hook, "clientConfig": {"url": f"https://127.0.0.1:{port}{path}", "caBundle": ca}})
        short = "mutating" if document["kind"].startswith("Mutating") else "validating"
        out.append(
            {
                "apiVersion": document["apiVersion"],
                "kind": document["kind"],
                "metadata": {"name": f"lab-{operator}-{short}"},
                "webhooks": hooks,
            }
        )
    return out


def manager_config(ctx: OperatorContext, api_version: str, webhook_port: int) -> Path:
    """A controller-runtime manager Configuration for a local process: no leader election, no internal
    certificate rotation (it needs a Secret and a Service), the webhook on 127.0.0.1 from the lab's
    certificate, no metrics server; written to the operator's work dir."""
    config = {
        "apiVersion": api_version,
        "kind": "Configuration",
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "webhook": {"port": webhook_port, "host": "127.0.0.1", "certDir": str(ctx.serving_cert().dir)},
        "metrics": {"bindAddress": "0"},
        "health": {"healthProbeBindAddress": f"127.0.0.1:{ctx.free_port()}"},
    }
    ctx.work_dir.mkdir(parents=True, exist_ok=True)
    path = ctx.work_dir / "config.yaml"
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


# A label no object carries: a webhook selecting it is never called.
UNREACHABLE = {"lab.workload-map.run.ai/unreachable-webhook": "true"}


def rotator_target(
    configuration: str, port: int, *, path: str, group: str, version: str, resource: str
) -> dict[str, Any]:
    """The ValidatingWebhookConfiguration an operator's certificate rotator (open-policy-agent/cert-controller)
    injects its CA into, and waits for before it reports ready; its one webhook matches no object.

    Kubeflow's operators rotate their certificates themselves (it cannot be turned off) for their Service's
    DNS name, not 127.0.0.1, so the apiserver could not call them by URL anyway: their objects go unvalidated
    (the controllers default what they need themselves)."""
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": configuration},
        "webhooks": [
            {
                "name": f"validate.{resource}.{group}",
                "admissionReviewVersions": ["v1"],
                "sideEffects": "None",
                "failurePolicy": "Ignore",
                "clientConfig": {"url": f"https://127.0.0.1:{port}{path}"},
                "rules": [
                    {
                        "apiGroups": [group],
                        "apiVersions": [version],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": [resource],
                    }
                ],
                "objectSelector": {"matchLabels": UNREACHABLE},
            }
        ],
    }
