"""Kueue v0.17.0 with its webhooks served on 127.0.0.1 and registered by URL.

Kueue's own defaults assume a Deployment: internal certificate management (a Secret and a Service), leader
election, a visibility API server. The lab turns these off in a Configuration file, serves the webhooks with
the lab's certificate and enables the job integrations whose CRDs the cluster has when Kueue starts (Kueue
skips a framework without its CRD, and a webhook registered for a path it does not serve would reject every
object of that kind)."""

from __future__ import annotations

import base64
import json
import shlex
from pathlib import Path
from typing import Any

import yaml

from . import OperatorContext, OperatorLaunch
from ._sources import module_dir, served_crds

NAME = "kueue"
VERSION = "v0.17.0"
MODULE = "sigs.k8s.io/kueue"
NAMESPACE = "kueue-system"

# Kueue framework name -> the CRD (plural.group) it needs; batch/job is built in.
FRAMEWORK_CRDS = {
    "jobset.x-k8s.io/jobset": "jobsets.jobset.x-k8s.io",
    "ray.io/raycluster": "rayclusters.ray.io",
    "ray.io/rayjob": "rayjobs.ray.io",
    "kubeflow.org/pytorchjob": "pytorchjobs.kubeflow.org",
    "kubeflow.org/mpijob": "mpijobs.kubeflow.org",
}
# Kueue reads the metrics server's certificate from this fixed path when it does not manage certificates.
METRICS_CERT_DIR = "/etc/kueue/metrics/certs"


def frameworks(served: set[str]) -> list[str]:
    """The integrations to enable: batch/job and each framework whose CRD is served."""
    return ["batch/job", *(name for name, crd in FRAMEWORK_CRDS.items() if crd in served)]


def _served_resources(enabled: list[str]) -> set[tuple[str, str]]:
    resources = {("batch", "jobs")}
    for name in enabled:
        if name in FRAMEWORK_CRDS:
            plural, group = FRAMEWORK_CRDS[name].split(".", 1)
            resources.add((group, plural))
    return resources


def webhook_configurations(manifests: Path, port: int, ca_bundle: bytes, enabled: list[str]) -> list[dict[str, Any]]:
    """Kueue's webhook configurations, by URL on 127.0.0.1, keeping the webhooks Kueue serves: its own kinds
    and the enabled frameworks' (the pod, deployment, ... webhooks are for integrations left off)."""
    wanted = _served_resources(enabled)
    ca = base64.b64encode(ca_bundle).decode()
    configurations = []
    for document in yaml.safe_load_all(manifests.read_text()):
        if not document:
            continue
        hooks = []
        for hook in document.get("webhooks", []):
            kinds = {(g, r) for rule in hook.get("rules", []) for g in rule["apiGroups"] for r in rule["resources"]}
            if not any(group == "kueue.x-k8s.io" for group, _ in kinds) and not kinds & wanted:
                continue
            path = hook["clientConfig"]["service"]["path"]
            hooks.append({**hook, "clientConfig": {"url": f"https://127.0.0.1:{port}{path}", "caBundle": ca}})
        short = "mutating" if document["kind"].startswith("Mutating") else "validating"
        configurations.append(
            {
                "apiVersion": document["apiVersion"],
                "kind": document["kind"],
                "metadata": {"name": f"lab-kueue-{short}"},
                "webhooks": hooks,
            }
        )
    return configurations


def launch(ctx: OperatorContext) -> OperatorLaunch:
    source = module_dir(MODULE, VERSION)
    cert = ctx.serving_cert()
    port = ctx.free_port()
    enabled = frameworks(served_crds(ctx.kubeconfig))
    config = {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "namespace": NAMESPACE,
        "health": {"healthProbeBindAddress": f"127.0.0.1:{ctx.free_port()}"},
        "metrics": {"bindAddress": "0"},
        "webhook": {"port": port, "host": "127.0.0.1", "certDir": str(cert.dir)},
        "leaderElection": {"leaderElect": False},
        "internalCertManagement": {"enable": False},
        "integrations": {"frameworks": enabled},
    }
    ctx.work_dir.mkdir(parents=True, exist_ok=True)
    config_file = ctx.work_dir / "kueue-config.yaml"
    config_file.write_text(json.dumps(config, indent=2) + "\n")
    # Without internal certificate management Kueue insists on reading a metrics certificate from a fixed
    # path under /etc. The process gets it in a private mount namespace: an overlay of /etc whose writes land
    # in work_dir, so the host's /etc is never touched.
    upper, scratch = ctx.work_dir / "etc-upper", ctx.work_dir / "etc-work"
    upper.mkdir(exist_ok=True)
    scratch.mkdir(exist_ok=True)
    kueue = [str(ctx.bin_dir / NAME), f"--config={config_file}", "--feature-gates=VisibilityOnDemand=false"]
    script = " && ".join(
        [
            f"mount -t overlay overlay -o lowerdir=/etc,upperdir={upper},workdir={scratch} /etc",
            f"mkdir -p {METRICS_CERT_DIR}",
            f"cp {shlex.quote(str(cert.cert_file))} {shlex.quote(str(cert.key_file))} {METRICS_CERT_DIR}/",
            "exec " + shlex.join(kueue),
        ]
    )
    crd_dir = source / "config" / "components" / "crd" / "bases"
    return OperatorLaunch(
        argv=["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        env={"KUBECONFIG": str(ctx.kubeconfig)},
        crds=sorted(crd_dir.glob("kueue.x-k8s.io_*.yaml")),
        before=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}],
        webhooks=webhook_configurations(
            source / "config" / "components" / "webhook" / "manifests.yaml", port, cert.ca_bundle, enabled
        ),
        ready_port=port,
    )
