"""What KWOK simulates in the lab: the nodes, and pod and node lifecycles the tests drive.

KWOK's built-in stages make every transition at once (a pod is Ready the moment it is bound), so no test
could see the states in between. The lab's own Stages (kwok.x-k8s.io/v1alpha1, given in KWOK's config
file) move a pod only when the test says so, through the annotation ``PHASE_ANNOTATION`` on the pod (or on
its template, for pods a test does not drive one by one):

- bound to a node: ``Pending``, containers ``ContainerCreating`` (what a kubelet reports while it starts
  them), a pod IP;
- ``Running``: phase Running, containers started, not Ready;  ``Ready``: Running and Ready;
- ``Succeeded`` / ``Failed``: containers terminated with exit code 0 / 1;
- deleted: removed at once (a kubelet that stops containers instantly).

A node is Ready and sends a heartbeat every few seconds until ``LOST_LABEL`` is put on it; then, as a node
whose kubelet is gone, it stops: kube-controller-manager's node lifecycle controller marks it NotReady
(Unknown) and taints it, and its pods (``FROZEN_ANNOTATION``, set by the lab on them) keep their last status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PHASE_ANNOTATION = "lab.workload-map.run.ai/phase"
PHASES = ("Running", "Ready", "Succeeded", "Failed")
FROZEN_ANNOTATION = "lab.workload-map.run.ai/node-lost"
LOST_LABEL = "lab.workload-map.run.ai/lost"
POOL_LABEL = "lab.workload-map.run.ai/pool"
GPU_PRODUCT_LABEL = "nvidia.com/gpu.product"
GPU_RESOURCE = "nvidia.com/gpu"
# Seconds between a node's heartbeats; kube-controller-manager's --node-monitor-grace-period must be
# several of them, or a loaded machine makes healthy nodes NotReady.
HEARTBEAT_S = 3


@dataclass(frozen=True)
class NodeSpec:
    name: str
    pool: str
    cpu: str
    memory: str
    gpus: int = 0
    gpu_product: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    taints: list[dict[str, str]] = field(default_factory=list)

    def to_object(self) -> dict[str, Any]:
        resources = {"cpu": self.cpu, "memory": self.memory, "pods": "110", "ephemeral-storage": "500Gi"}
        if self.gpus:
            resources[GPU_RESOURCE] = str(self.gpus)
        labels = {
            "kubernetes.io/hostname": self.name,
            "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "type": "kwok",
            POOL_LABEL: self.pool,
            **self.labels,
        }
        if self.gpu_product:
            labels[GPU_PRODUCT_LABEL] = self.gpu_product
            labels["nvidia.com/gpu.count"] = str(self.gpus)
        node: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": self.name, "labels": labels, "annotations": {"kwok.x-k8s.io/node": "fake"}},
            "spec": {"taints": list(self.taints)} if self.taints else {},
            "status": {"capacity": dict(resources), "allocatable": dict(resources)},
        }
        return node


H100 = "NVIDIA-H100-80GB-HBM3"
A100 = "NVIDIA-A100-SXM4-80GB"

NODES: tuple[NodeSpec, ...] = (
    NodeSpec("gpu-h100-0", "h100", "96", "1Ti", gpus=8, gpu_product=H100),
    NodeSpec("gpu-h100-1", "h100", "96", "1Ti", gpus=8, gpu_product=H100),
    NodeSpec("gpu-a100-0", "a100", "64", "512Gi", gpus=8, gpu_product=A100),
    NodeSpec("gpu-a100-1", "a100", "64", "512Gi", gpus=8, gpu_product=A100),
    NodeSpec("cpu-0", "cpu", "32", "128Gi"),
    NodeSpec("cpu-1", "cpu", "32", "128Gi"),
    NodeSpec(
        "control-plane-0",
        "control-plane",
        "8",
        "32Gi",
        labels={"node-role.kubernetes.io/control-plane": ""},
        taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
    ),
)


def _pod_stage(name: str, match: list[dict[str, Any]], template: str) -> str:
    return _stage(name, "Pod", match, f"    statusTemplate: |\n{_indent(template, 6)}")


def _stage(name: str, kind: str, match: list[dict[str, Any]], next_: str, extra: str = "") -> str:
    lines = [
        "apiVersion: kwok.x-k8s.io/v1alpha1",
        "kind: Stage",
        f"metadata: {{name: lab-{name}}}",
        "spec:",
        f"  resourceRef: {{apiGroup: v1, kind: {kind}}}",
        "  selector:",
        "    matchExpressions:",
    ]
    for expression in match:
        values = expression.get("values")
        line = f"    - {{key: '{expression['key']}', operator: {expression['operator']}"
        lines.append(line + (f", values: {values!r}}}" if values else "}"))
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("  next:")
    lines.append(next_.rstrip("\n"))
    return "\n".join(lines) + "\n"


def _indent(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" if line.strip() else "\n" for line in text.strip("\n").splitlines())


_ALIVE = {"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"}
_NOT_FROZEN = {"key": f'.metadata.annotations["{FROZEN_ANNOTATION}"]', "operator": "DoesNotExist"}


def _asked(*phases: str) -> dict[str, Any]:
    return {"key": f'.metadata.annotations["{PHASE_ANNOTATION}"]', "operator": "In", "values": list(phases)}


def _phase(operator: str, *phases: str) -> dict[str, Any]:
    return {"key": ".status.phase", "operator": operator, "values": list(phases)}


_READY = '.status.conditions.[] | select( .type == "Ready" ) | .status'


def _containers(state: str, *, ready: bool, started: bool) -> str:
    return f"""
containerStatuses:
{{{{ range .spec.containers }}}}
- image: {{{{ .image | Quote }}}}
  name: {{{{ .name | Quote }}}}
  ready: {str(ready).lower()}
  started: {str(started).lower()}
  restartCount: 0
  state:
{_indent(state, 4)}{{{{ end }}}}
"""


def _conditions(ready: bool, reason: str = "") -> str:
    status = '"True"' if ready else '"False"'
    why = f"\n  reason: {reason}" if reason and not ready else ""
    return f"""
conditions:
- type: Initialized
  status: "True"
  lastTransitionTime: {{{{ Now | Quote }}}}
- type: Ready
  status: {status}
  lastTransitionTime: {{{{ Now | Quote }}}}{why}
- type: ContainersReady
  status: {status}
  lastTransitionTime: {{{{ Now | Quote }}}}{why}
"""


def _terminated(exit_code: int, reason: str) -> str:
    return f"""terminated:
  exitCode: {exit_code}
  reason: {reason}
  startedAt: {{{{ Now | Quote }}}}
  finishedAt: {{{{ Now | Quote }}}}"""


def pod_stages() -> list[str]:
    started = "running:\n  startedAt: {{ Now | Quote }}"
    return [
        _pod_stage(
            "pod-bound",
            [_ALIVE, _NOT_FROZEN, {"key": ".status.podIP", "operator": "DoesNotExist"}],
            _conditions(False, "ContainersNotReady")
            + _containers("waiting:\n  reason: ContainerCreating", ready=False, started=False)
            + "hostIP: {{ NodeIPWith .spec.nodeName | Quote }}\n"
            + 'podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" )'
            + ' ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}\n'
            + "phase: Pending\n",
        ),
        _pod_stage(
            "pod-running",
            [
                _ALIVE,
                _NOT_FROZEN,
                {"key": ".status.podIP", "operator": "Exists"},
                _phase("In", "Pending"),
                _asked("Running", "Ready"),
            ],
            _conditions(False, "ContainersNotReady")
            + _containers(started, ready=False, started=True)
            + "phase: Running\nstartTime: {{ Now | Quote }}\n",
        ),
        _pod_stage(
            "pod-ready",
            [
                _ALIVE,
                _NOT_FROZEN,
                _phase("In", "Running"),
                _asked("Ready"),
                {"key": _READY, "operator": "NotIn", "values": ["True"]},
            ],
            _conditions(True) + _containers(started, ready=True, started=True),
        ),
        _pod_stage(
            "pod-unready",
            [
                _ALIVE,
                _NOT_FROZEN,
                _phase("In", "Running"),
                _asked("Running"),
                {"key": _READY, "operator": "In", "values": ["True"]},
            ],
            _conditions(False, "ContainersNotReady") + _containers(started, ready=False, started=True),
        ),
        _pod_stage(
            "pod-succeeded",
            [
                _ALIVE,
                _NOT_FROZEN,
                {"key": ".status.podIP", "operator": "Exists"},
                _phase("NotIn", "Succeeded", "Failed"),
                _asked("Succeeded"),
            ],
            _conditions(False, "PodCompleted")
            + _containers(_terminated(0, "Completed"), ready=False, started=False)
            + "phase: Succeeded\n",
        ),
        _pod_stage(
            "pod-failed",
            [
                _ALIVE,
                _NOT_FROZEN,
                {"key": ".status.podIP", "operator": "Exists"},
                _phase("NotIn", "Succeeded", "Failed"),
                _asked("Failed"),
            ],
            _conditions(False, "PodFailed")
            + _containers(_terminated(1, "Error"), ready=False, started=False)
            + "phase: Failed\n",
        ),
        _stage(
            "pod-delete",
            "Pod",
            [_NOT_FROZEN, {"key": ".metadata.deletionTimestamp", "operator": "Exists"}],
            "    finalizers: {empty: true}\n    delete: true\n",
        ),
    ]


_NODE_CONDITIONS = """
conditions:
{{ range NodeConditions }}
- lastHeartbeatTime: {{ Now | Quote }}
  lastTransitionTime: {{ or $.metadata.creationTimestamp Now | Quote }}
  message: {{ .message | Quote }}
  reason: {{ .reason | Quote }}
  status: {{ .status | Quote }}
  type: {{ .type | Quote }}
{{ end }}
"""


def node_stages() -> list[str]:
    not_lost = {"key": f'.metadata.labels["{LOST_LABEL}"]', "operator": "DoesNotExist"}
    initialize = (
        _NODE_CONDITIONS
        + """
addresses:
- {address: {{ NodeIP | Quote }}, type: InternalIP}
- {address: {{ NodeName | Quote }}, type: Hostname}
allocatable:
{{ YAML .status.allocatable 1 }}
capacity:
{{ YAML .status.capacity 1 }}
nodeInfo:
  architecture: amd64
  operatingSystem: linux
  kubeletVersion: {{ printf "kwok-%s" Version | Quote }}
  containerRuntimeVersion: {{ printf "kwok-%s" Version | Quote }}
  kernelVersion: {{ printf "kwok-%s" Version | Quote }}
  kubeProxyVersion: {{ printf "kwok-%s" Version | Quote }}
  bootID: ""
  machineID: ""
  osImage: ""
  systemUUID: ""
phase: Running
"""
    )
    return [
        _stage(
            "node-initialize",
            "Node",
            [not_lost, {"key": _READY, "operator": "NotIn", "values": ["True"]}],
            f"    statusTemplate: |\n{_indent(initialize, 6)}",
        ),
        _stage(
            "node-heartbeat",
            "Node",
            [
                not_lost,
                {"key": ".status.phase", "operator": "In", "values": ["Running"]},
                {"key": _READY, "operator": "In", "values": ["True"]},
            ],
            f"    statusTemplate: |\n{_indent(_NODE_CONDITIONS, 6)}",
            extra=_delay(HEARTBEAT_S * 1000, HEARTBEAT_S * 1000 + 500),
        ),
    ]


def _delay(ms: int, jitter_ms: int) -> str:
    """A Stage's delay: between ``ms`` and ``jitter_ms`` milliseconds."""
    return f"  delay: {{durationMilliseconds: {ms}, jitterDurationMilliseconds: {jitter_ms}}}\n"


def config() -> str:
    """KWOK's configuration file: the lab's Stages (they replace KWOK's defaults for pods and nodes)."""
    return "---\n".join([*node_stages(), *pod_stages()])
