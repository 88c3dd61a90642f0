"""Kueue v0.17.0 with its webhooks served on 127.0.0.1 and registered by URL.

Kueue's own defaults assume a Deployment: internal certificate management (a Secret and a Service), leader
election, a visibility API server. The lab turns these off (the Configuration of ``manager_config`` plus
Kueue's namespace and integrations, the visibility server by feature gate), and enables the job integrations
whose CRDs the cluster serves when Kueue starts: Kueue skips a framework without its CRD, and a webhook
registered for a path it does not serve would reject every object of that kind."""

from __future__ import annotations

import json
import shlex
import ssl
import urllib.request
from pathlib import Path
from typing import Any

from . import OperatorContext, OperatorLaunch
from ._kubebuilder import manager_config, module_dir, webhooks_by_url

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


def served_crds(kubeconfig: Path) -> set[str]:
    """The names (``plural.group``) of the CRDs the lab's API server has, read with the lab's kubeconfig."""
    config: dict[str, Any] = json.loads(kubeconfig.read_text())
    cluster = config["clusters"][0]["cluster"]
    request = urllib.request.Request(
        cluster["server"] + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        headers={"Authorization": f"Bearer {config['users'][0]['user']['token']}"},
    )
    context = ssl.create_default_context(cafile=cluster["certificate-authority"])
    with urllib.request.urlopen(request, context=context, timeout=30) as answer:
        listing = json.load(answer)
    return {item["metadata"]["name"] for item in listing.get("items", [])}


def frameworks(served: set[str]) -> list[str]:
    """The integrations to enable: batch/job and each framework whose CRD is served."""
    return ["batch/job", *(name for name, crd in FRAMEWORK_CRDS.items() if crd in served)]


def served_webhooks(configurations: list[dict[str, Any]], enabled: list[str]) -> list[dict[str, Any]]:
    """Of Kueue's webhooks, those it serves: its own kinds' and the enabled frameworks' (the pod, deployment,
    ... webhooks belong to integrations left off)."""
    wanted = {("batch", "jobs")}
    for name in enabled:
        if name in FRAMEWORK_CRDS:
            plural, group = FRAMEWORK_CRDS[name].split(".", 1)
            wanted.add((group, plural))

    def served(hook: dict[str, Any]) -> bool:
        kinds = {(g, r) for rule in hook.get("rules", []) for g in rule["apiGroups"] for r in rule["resources"]}
        return any(group == "kueue.x-k8s.io" for group, _ in kinds) or bool(kinds & wanted)

    return [{**c, "webhooks": [h for h in c["webhooks"] if served(h)]} for c in configurations]


def launch(ctx: OperatorContext) -> OperatorLaunch:
    source = module_dir(MODULE, VERSION)
    cert = ctx.serving_cert()
    port = ctx.free_port()
    enabled = frameworks(served_crds(ctx.kubeconfig))
    config_file = manager_config(ctx, "config.kueue.x-k8s.io/v1beta2", port)
    config = json.loads(config_file.read_text())
    config.update({"namespace": NAMESPACE, "integrations": {"frameworks": enabled}})
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
    webhooks = webhooks_by_url(source / "config" / "components" / "webhook", NAME, port, cert.ca_bundle)
    return OperatorLaunch(
        argv=["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        env={"KUBECONFIG": str(ctx.kubeconfig)},
        crds=sorted((source / "config" / "components" / "crd" / "bases").glob("kueue.x-k8s.io_*.yaml")),
        before=[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}],
        webhooks=served_webhooks(webhooks, enabled),
        ready_port=port,
    )
