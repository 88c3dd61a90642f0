"""The cluster lab: the genuine control plane with real controllers, KWOK nodes and real operators.

``Lab.start()`` runs etcd + kube-apiserver (tests/cluster's TestCluster), kube-controller-manager (Job,
StatefulSet, Deployment, ReplicaSet, garbage collector, node lifecycle, ...), kube-scheduler and KWOK
simulating the nodes of ``kwok.NODES`` (two GPU pools, CPU nodes, a tainted control-plane node) with the
lab's Stages (kwok.py: pods move when a test sets their phase annotation). Operators start on demand
(``start_operator``), as local processes with their webhooks registered by URL. Every process's log is
kept under the work dir; ``report()`` gives their tails for a failing test.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml
from click.testing import CliRunner
from tests.cluster.apiserver import TestCluster

from workload_map.cli.main import cli

from . import kwok
from .kube import ApiError, Kube, Obj, Watch
from .operators import OperatorContext, OperatorLaunch
from .procs import LabProcess

REPO_ROOT = Path(__file__).resolve().parents[2]
# The node lifecycle controller's grace: several KWOK heartbeats (kwok.HEARTBEAT_S), so a loaded machine
# does not make a healthy node NotReady, short enough that a lost node is noticed within a scenario.
NODE_MONITOR_GRACE_S = 20
SECOND_SCHEDULER = "lab-scheduler"
WAIT_S = float(os.environ.get("WMAP_LAB_WAIT", "120"))


class LabError(RuntimeError):
    pass


class Lab:
    def __init__(self, cluster_bin: Path, lab_bin: Callable[[list[str]], Path], work_dir: Path) -> None:
        """``lab_bin(names)`` returns the dir holding those binaries (tools/lab/build.sh builds them)."""
        self.cluster_bin = cluster_bin
        self._lab_bin = lab_bin
        self.work_dir = work_dir
        self.log_dir = work_dir / "logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._namespaces: list[str] = []
        self.cluster = TestCluster(
            cluster_bin,
            workdir=work_dir / "cluster",
            extra_apiserver_args=[
                # Pods leave a lost node seconds after it is marked unreachable, not after 5 minutes.
                "--default-not-ready-toleration-seconds=2",
                "--default-unreachable-toleration-seconds=2",
            ],
        )
        self.processes: dict[str, LabProcess] = {}
        self.operators: dict[str, ModuleType] = {}
        self._kube: Kube | None = None
        self.timings: dict[str, float] = {}  # seconds: "lab start", each scenario's story

    # ---------------------------------------------------------------- lifecycle

    @property
    def kube(self) -> Kube:
        if self._kube is None:
            raise LabError("the lab is not started")
        return self._kube

    @property
    def kubeconfig(self) -> Path:
        return self.cluster.kubeconfig_path

    def start(self) -> Lab:
        began = time.monotonic()
        bin_dir = self._lab_bin(["kube-controller-manager", "kube-scheduler", "kwok"])
        self.cluster.start()
        self._kube = Kube(self.cluster.server, self.cluster.admin_token, self.cluster.ssl_context())
        kc = str(self.kubeconfig)
        self._spawn(
            "kube-controller-manager",
            [
                str(bin_dir / "kube-controller-manager"),
                f"--kubeconfig={kc}",
                "--controllers=*,-serviceaccount-token",
                "--secure-port=0",
                "--leader-elect=false",
                "--use-service-account-credentials=false",
                f"--node-monitor-grace-period={NODE_MONITOR_GRACE_S}s",
                "--node-monitor-period=2s",
                "--v=2",
            ],
        )
        scheduler_config = self.work_dir / "kube-scheduler.yaml"
        scheduler_config.write_text(
            json.dumps(
                {
                    "apiVersion": "kubescheduler.config.k8s.io/v1",
                    "kind": "KubeSchedulerConfiguration",
                    "clientConnection": {"kubeconfig": kc},
                    "leaderElection": {"leaderElect": False},
                    # A second profile: pods a test moves to another scheduler (wmap update
                    # --scheduler-name) are still scheduled, by a scheduler with that name.
                    "profiles": [{"schedulerName": "default-scheduler"}, {"schedulerName": SECOND_SCHEDULER}],
                }
            )
        )
        self._spawn(
            "kube-scheduler",
            [str(bin_dir / "kube-scheduler"), f"--config={scheduler_config}", "--secure-port=0"],
        )
        config = self.work_dir / "kwok.yaml"
        config.write_text(kwok.config())
        self._spawn(
            "kwok",
            [
                str(bin_dir / "kwok"),
                f"--kubeconfig={kc}",
                f"--config={config}",
                "--manage-all-nodes=true",
                "--cidr=10.0.0.1/16",
                "--node-ip=10.0.0.1",
                # No node leases: a node's health is its status heartbeat (the lab's Stage), which stops
                # when the test loses the node.
                "--node-lease-duration-seconds=0",
            ],
            env={"HOME": str(self.work_dir)},  # KWOK reads ~/.kwok/kwok.yaml besides --config
        )
        for spec in kwok.NODES:
            self.kube.create(spec.to_object())
        names = {spec.name for spec in kwok.NODES}
        self.wait_for(
            "v1",
            "Node",
            None,
            lambda nodes: names <= {n["metadata"]["name"] for n in nodes if _schedulable(n)},
            what=f"every node ({', '.join(sorted(names))}) Ready under KWOK, without the not-ready taint",
        )
        self.timings["lab start"] = time.monotonic() - began
        return self

    def stop(self, *, graceful: bool = True) -> None:
        """Stop every process, then the cluster; ``graceful=False`` kills the apiserver at once (a lab whose
        data is thrown away: its graceful shutdown took 20 s and ended in SIGKILL anyway)."""
        for process in reversed(list(self.processes.values())):
            process.stop()
        if not graceful:
            self.cluster.stop_apiserver(graceful=False)
        self.cluster.stop()

    def _spawn(
        self, name: str, argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> LabProcess:
        if name in self.processes and self.processes[name].running():
            raise LabError(f"{name} runs already")
        process = LabProcess(name, argv, self.log_dir / f"{name}.log", env=env, cwd=cwd or self.work_dir)
        self.processes[name] = process
        time.sleep(0.2)
        if not process.running():
            raise LabError(f"{name} exited at once (code {process.proc.returncode}):\n{process.tail()}")
        return process

    def check_processes(self) -> None:
        """Fail, with its log, when a lab process has died."""
        for process in self.processes.values():
            if not process.running():
                raise LabError(f"{process.name} exited (code {process.proc.returncode}):\n{process.tail()}")

    def report(self, lines: int = 40) -> str:
        parts = [f"lab work dir: {self.work_dir}"]
        logs = [("etcd", self.cluster.etcd_log), ("kube-apiserver", self.cluster.apiserver_log)]
        logs += [(p.name, p.log) for p in self.processes.values()]
        for name, path in logs:
            try:
                text = "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
            except OSError as exc:
                text = f"<{exc}>"
            parts.append(f"----- {name} ({path}) -----\n{text}")
        return "\n".join(parts)

    # ---------------------------------------------------------------- operators

    def start_operator(self, name: str) -> ModuleType:
        """Start one operator (tests/lab/operators/<name>.py) once per lab; its module (NAME, VERSION)."""
        if name in self.operators:
            return self.operators[name]
        module = importlib.import_module(f"{__package__}.operators.{name}")
        bin_dir = self._lab_bin([module.NAME])
        op_dir = self.work_dir / "operators" / name
        op_dir.mkdir(parents=True, exist_ok=True)
        launch: OperatorLaunch = module.launch(
            OperatorContext(kubeconfig=self.kubeconfig, bin_dir=bin_dir, work_dir=op_dir)
        )
        self.install_crds(launch.crds, what=f"CRDs of {name}")
        for obj in launch.before:
            self.kube.apply(obj)
        self._spawn(name, launch.argv, env=launch.env)
        if launch.ready_port is not None:
            self._wait_tls(name, launch.ready_port)
        for webhook in launch.webhooks:
            self.kube.apply(webhook)
        self.operators[name] = module
        return module

    def install_crds(self, files: list[Path], *, what: str) -> None:
        """Apply the CRDs of YAML files (server-side) and wait until every one is Established."""
        for crd in files:
            self.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(crd))
        crd_names = set()
        for crd in files:
            crd_names |= _crd_names(crd)
        self.wait_established(crd_names, what=what)

    def wait_established(self, crd_names: set[str], *, what: str) -> None:
        """Wait until the CRDs of these names are Established (their kinds served)."""
        if crd_names:
            self.wait_for(
                "apiextensions.k8s.io/v1",
                "CustomResourceDefinition",
                None,
                lambda crds: (
                    crd_names <= {c["metadata"]["name"] for c in crds if _condition(c, "Established") == "True"}
                ),
                what=f"{what} Established",
            )

    def start_process(
        self, name: str, argv: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> LabProcess:
        """Start a process of the caller's (an operator built elsewhere) like the lab's own: its log in the
        lab's log dir, stopped with the lab, ``check_processes`` failing when it dies."""
        return self._spawn(name, argv, env=env, cwd=cwd)

    def wait_serving(self, name: str, port: int) -> None:
        """Wait until the process ``name`` accepts TLS on 127.0.0.1:``port`` (fail, with its log, when it
        dies or does not within the lab's wait)."""
        self._wait_tls(name, port)

    def _wait_tls(self, name: str, port: int) -> None:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        deadline = time.monotonic() + WAIT_S
        while True:
            self.check_processes()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=2) as raw, context.wrap_socket(raw):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise LabError(
                        f"{name} does not serve TLS on 127.0.0.1:{port}:\n{self.processes[name].tail()}"
                    ) from None
                time.sleep(0.3)

    # ---------------------------------------------------------------- acting

    def kubectl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = self.cluster.kubectl(*args)
        if check and proc.returncode != 0:
            raise LabError(f"kubectl {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
        return proc

    def namespace(self, name: str) -> str:
        """A fresh namespace for one scenario (deleted with its workloads by ``release_namespaces``)."""
        with contextlib.suppress(ApiError):
            self.kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        if name not in self._namespaces:
            self._namespaces.append(name)
        return name

    def release_namespaces(self, timeout: float = 120.0) -> None:
        """Delete the namespaces made since the last release and wait (bounded) until their pods are gone:
        one lab serves the session, and a scenario's pods left on the KWOK nodes hold GPUs the next module
        needs (kube-scheduler answered "Insufficient nvidia.com/gpu" to a PyTorchJob after the MPIJob and
        fit modules). Pods held Terminating are let go first."""
        names, self._namespaces = self._namespaces, []
        for name in names:
            held = [_name(p) for p in self.pods(name) if _held(p)]
            self.hold_deletion(name, held, hold=False)
            with contextlib.suppress(ApiError):
                self.kube.delete("v1", "Namespace", name)
        deadline = time.monotonic() + timeout
        for name in names:
            while self.pods(name) and time.monotonic() < deadline:
                time.sleep(0.5)

    def pods(self, namespace: str, label_selector: str | None = None) -> list[Obj]:
        return sorted(self.kube.list("v1", "Pod", namespace, label_selector=label_selector), key=_name)

    def set_phase(
        self, namespace: str, phase: str, pods: list[str] | None = None, *, label_selector: str | None = None
    ) -> list[str]:
        """Move pods (by name, or every pod the selector matches) to ``phase`` (kwok.PHASES): the test
        plays the kubelet. Returns the names of the pods changed."""
        if phase not in kwok.PHASES:
            raise LabError(f"phase {phase!r}: one of {kwok.PHASES}")
        names = pods if pods is not None else [_name(p) for p in self.pods(namespace, label_selector)]
        for pod in names:
            self.kube.patch(
                "v1", "Pod", pod, {"metadata": {"annotations": {kwok.PHASE_ANNOTATION: phase}}}, namespace=namespace
            )
        return names

    def hold_deletion(self, namespace: str, pods: list[str], *, hold: bool = True) -> None:
        """Deleted pods stay Terminating while held (a kubelet still stopping them); ``hold=False`` lets
        them go."""
        value = "true" if hold else None
        for pod in pods:
            with contextlib.suppress(ApiError):  # already gone
                self.kube.patch(
                    "v1", "Pod", pod, {"metadata": {"annotations": {kwok.HOLD_ANNOTATION: value}}}, namespace=namespace
                )

    @contextlib.contextmanager
    def auto_phase(
        self,
        namespace: str,
        phase: str = "Ready",
        *,
        label_selector: str | None = None,
        phase_for: Callable[[Obj], str] | None = None,
    ) -> Iterator[None]:
        """Inside the block, every pod bound to a node (now or later) is moved to ``phase`` as soon as it
        is seen: a kubelet starting pods by itself, for steps where the test waits on the workload only.
        ``phase_for(pod)``, when given, chooses each pod's phase instead (one of kwok.PHASES)."""
        if phase not in kwok.PHASES:
            raise LabError(f"phase {phase!r}: one of {kwok.PHASES}")
        stop = threading.Event()
        errors: list[BaseException] = []

        def drive() -> None:
            watch = Watch(self.kube, "v1", "Pod", namespace, label_selector=label_selector)
            try:
                for _type, pod in watch.events(time.monotonic() + 3600, stop=stop.is_set):
                    if stop.is_set():
                        return
                    meta = pod["metadata"]
                    bound = (pod.get("status") or {}).get("podIP")
                    if (
                        bound
                        and not meta.get("deletionTimestamp")
                        and kwok.PHASE_ANNOTATION not in (meta.get("annotations") or {})
                    ):
                        with contextlib.suppress(ApiError):  # gone meanwhile
                            self.set_phase(namespace, phase_for(pod) if phase_for else phase, [_name(pod)])
            except BaseException as exc:  # re-raised in the test's thread
                errors.append(exc)

        thread = threading.Thread(target=drive, daemon=True, name=f"auto-{phase}-{namespace}")
        thread.start()
        try:
            yield
        finally:
            stop.set()  # the thread ends at the watch's next event or timeout, acting no more
        if errors:
            raise LabError(f"driving pods to {phase} failed: {errors[0]!r}")

    def lose_node(self, node: str) -> list[str]:
        """The node's kubelet is gone: no heartbeat any more, its pods keep their last status (they stay
        Terminating when deleted, as on a real lost node). Returns the pods that were on it."""
        on_node: list[str] = []
        for pod in self.kube.list("v1", "Pod"):
            if (pod.get("spec") or {}).get("nodeName") == node:
                ns = pod["metadata"]["namespace"]
                self.kube.patch(
                    "v1",
                    "Pod",
                    _name(pod),
                    {"metadata": {"annotations": {kwok.FROZEN_ANNOTATION: "true"}}},
                    namespace=ns,
                )
                on_node.append(f"{ns}/{_name(pod)}")
        self.kube.patch("v1", "Node", node, {"metadata": {"labels": {kwok.LOST_LABEL: "true"}}})
        return on_node

    def take_out_of_service(self, node: str) -> None:
        """What an administrator does for a node that will not come back (the out-of-service taint): the
        pod garbage collector then removes its terminating pods, and their controllers replace them."""
        current = self.kube.get("v1", "Node", node)
        taints = [*((current.get("spec") or {}).get("taints") or [])]
        taints.append({"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown", "effect": "NoExecute"})
        self.kube.patch("v1", "Node", node, {"spec": {"taints": taints}})

    # ---------------------------------------------------------------- waiting

    def wait_for(
        self,
        api_version: str,
        kind: str,
        namespace: str | None,
        predicate: Callable[[list[Obj]], Any],
        *,
        what: str,
        timeout: float = WAIT_S,
        label_selector: str | None = None,
    ) -> Any:
        """Watch the objects of a kind until ``predicate(objects sorted by name)`` is truthy; its value.

        Every state the watch delivers is tested, so a transient state is seen, not sampled."""
        watch = Watch(self.kube, api_version, kind, namespace, label_selector=label_selector)
        deadline = time.monotonic() + timeout
        watch.relist()
        states = 1
        result = predicate(sorted(watch.objects.values(), key=_name))
        if result:
            return result
        for _event in watch.follow(deadline):
            states += 1
            result = predicate(sorted(watch.objects.values(), key=_name))
            if result:
                return result
            self.check_processes()
        summary = "\n".join(f"  {_summary(o)}" for o in sorted(watch.objects.values(), key=_name)) or "  (none)"
        raise LabError(f"not within {timeout:.0f} s: {what} ({states} states seen); last state:\n{summary}")

    def quiet(self, namespace: str, seconds: float = 3.0, *, timeout: float = WAIT_S) -> None:
        """Wait until the namespace's pods have not changed for ``seconds`` (controllers done reacting)."""
        watch = Watch(self.kube, "v1", "Pod", namespace)
        watch.relist()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if next(iter(watch.follow(time.monotonic() + seconds)), None) is None:
                return
        raise LabError(f"the pods of {namespace} kept changing for {timeout:.0f} s")

    # ---------------------------------------------------------------- wmap

    def wmap(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """The real CLI (its click command group, arguments to exit code) against the lab, in this process.

        In-process because a lab run calls wmap a few hundred times and each process start (interpreter,
        imports, catalog) cost ~0.9 CPU-s, against ~0.05 in-process after the first call; the lab tests
        are about what wmap reads and changes, and tests/cli and tests/live keep running the console script
        (exit codes, signals, start-up). A hang cannot outlast wmap's own 30-s request timeout."""
        result = CliRunner().invoke(cli, [*args, "--kubeconfig", str(self.kubeconfig)], env={"KUBECONFIG": None})
        code = result.exit_code
        stderr = result.stderr
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            stderr += "".join(traceback.format_exception(result.exception))
        proc = subprocess.CompletedProcess(["wmap", *args], code, result.stdout, stderr)
        if check and code != 0:
            raise LabError(f"wmap {' '.join(args)} exited {code}:\n{stderr}{result.stdout[-2000:]}")
        return proc

    def wmap_json(self, *args: str) -> Any:
        return json.loads(self.wmap(*args, "-o", "json").stdout)


def _name(obj: Obj) -> str:
    return str(obj["metadata"]["name"])


def _condition(obj: Obj, kind: str) -> str | None:
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if cond.get("type") == kind:
            return str(cond.get("status"))
    return None


def _schedulable(node: Obj) -> bool:
    """Ready, and the node lifecycle controller has removed the taints it puts on a new node."""
    taints = (node.get("spec") or {}).get("taints") or []
    return _condition(node, "Ready") == "True" and not any(t["key"].startswith("node.kubernetes.io/") for t in taints)


def _summary(obj: Obj) -> str:
    status = obj.get("status") or {}
    conditions = ",".join(f"{c.get('type')}={c.get('status')}" for c in status.get("conditions") or [])
    phase = status.get("phase")
    return (
        f"{obj.get('kind')}/{_name(obj)}"
        + (f" phase={phase}" if phase else "")
        + (f" [{conditions}]" if conditions else "")
    )


def _crd_names(path: Path) -> set[str]:
    # The C loader when PyYAML has it: CRD files are megabytes of YAML.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open() as f:
        return {
            doc["metadata"]["name"]
            for doc in yaml.load_all(f, Loader=loader)
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition"
        }


def build_testcluster_binaries(timeout: float) -> Path:
    """The dir with etcd, kube-apiserver and kubectl: ``$WMAP_TESTCLUSTER_BIN`` when set, else
    tools/testcluster/build.sh's last stdout line."""
    env_bin = os.environ.get("WMAP_TESTCLUSTER_BIN")
    if env_bin:
        return Path(env_bin)
    return _built(REPO_ROOT / "tools" / "testcluster" / "build.sh", [], timeout)


def _built(script: Path, names: list[str], timeout: float) -> Path:
    proc = subprocess.run(
        ["bash", str(script), *names],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = "\n".join(proc.stderr.strip().splitlines()[-30:])
        raise FileNotFoundError(f"{script} {' '.join(names)} failed (exit {proc.returncode}):\n{tail}")
    return Path(lines[-1])


def which_lab_build() -> Path | None:
    """tools/lab/build.sh of this checkout (None when absent)."""
    script = REPO_ROOT / "tools" / "lab" / "build.sh"
    return script if script.is_file() else None


def build_lab_binaries(names: list[str], timeout: float) -> Path:
    """The bin dir with ``names``: ``$WMAP_LAB_BIN`` when set, else tools/lab/build.sh's last stdout line."""
    env_bin = os.environ.get("WMAP_LAB_BIN")
    if env_bin:
        missing = [n for n in names if not (Path(env_bin) / n).is_file()]
        if missing:
            raise FileNotFoundError(f"WMAP_LAB_BIN={env_bin} lacks {', '.join(missing)}")
        return Path(env_bin)
    script = Path(os.environ.get("WMAP_LAB_BUILD", "")) if os.environ.get("WMAP_LAB_BUILD") else which_lab_build()
    if script is None or not script.is_file():
        raise FileNotFoundError("tools/lab/build.sh missing (or set WMAP_LAB_BIN / WMAP_LAB_BUILD)")
    return _built(script, names, timeout)


def remove_work_dir(path: Path) -> None:
    if os.environ.get("WMAP_LAB_KEEP") != "1":
        shutil.rmtree(path, ignore_errors=True)


def _held(pod: Obj) -> bool:
    return kwok.HOLD_ANNOTATION in (pod["metadata"].get("annotations") or {})
