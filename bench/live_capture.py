"""Running a built operator in the cluster lab and recording what it does with its published samples.

One lab per operator (tests/lab: genuine kube-apiserver, kube-controller-manager, kube-scheduler, KWOK
nodes): the config's CRDs are applied and awaited Established, its ``before`` objects created, the binary
started (``KUBECONFIG`` set; the config's args and env with their placeholders filled; its webhooks, if
listed, registered by URL). Then each sample object of the root kind, alone in a fresh namespace with the
other documents of its file and the config's ``per_sample`` objects: watches of the root kind, the
workload kinds pods come through, the operator's other CRD kinds and ``record`` are opened first, the
object is created, every bound pod is made Ready and a Job's pods Succeeded (``Lab.auto_phase``,
``job_pods_succeed``), every claim gets a volume (the lab has no storage provisioner), and the
recording ends when nothing changed for ``quiet_s`` with no bound pod still on its way to Ready (at most
``max_s``). What is written is the root and every object whose
owner chain reaches it, as a Recording (docs/cli.md), events that changed only the lab's own annotations
thinned out as the lab's recordings are (tests/lab/recorder.py).
"""

from __future__ import annotations

import base64
import contextlib
import copy
import fnmatch
import re
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from tests.lab.certs import free_port, write_serving_cert
from tests.lab.kube import ApiError, Obj, Watch
from tests.lab.lab import Lab, LabError
from tests.lab.recorder import Recorder, save, thinned

from live_build import Built
from live_config import RunConfig, capture_dir, capture_file, fill
from workload_map.sources.recording import Recording

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
WEBHOOK_KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
OPERATOR_NAMESPACE = "wmap-operator"
WORKLOAD_KINDS = [
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("apps/v1", "ReplicaSet"),
    ("batch/v1", "Job"),
    ("v1", "Pod"),
]
# serviceaccount_namespace: the operator sees the in-cluster namespace file (some read their namespace only
# there) in a mount namespace of its own, over a tmpfs that hides /var/run from it alone; nothing outside
# the process changes.
NAMESPACE_VARIABLE = "WMAP_OPERATOR_NAMESPACE"
_SERVICEACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
IN_CLUSTER_NAMESPACE = [
    "unshare",
    "--mount",
    "--propagation",
    "private",
    "sh",
    "-c",
    f'mount -t tmpfs tmpfs /var/run && mkdir -p {_SERVICEACCOUNT} && printf %s "${NAMESPACE_VARIABLE}" '
    f'> {_SERVICEACCOUNT}/namespace && exec "$@"',
    "sh",
]
QUIET_S = 15.0
MAX_S = 180.0
STARTUP_S = 60.0  # at most, for the operator's start-up log to fall quiet before the first sample


@dataclass
class SampleObject:
    file: str  # the sample file in the snapshot
    obj: Obj
    companions: list[Obj]  # the file's other documents, created beside it


@dataclass
class Outcome:
    """What happened to one sample object; ``line()`` is the CLI's summary."""

    file: str
    name: str
    namespace: str = ""
    recording: Path | None = None
    refused: str | None = None
    notes: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)  # objects recorded, by kind
    pods: int = 0  # at the end
    ready: int = 0
    status: str = ""
    seconds: float = 0.0

    def line(self) -> str:
        head = f"{Path(self.file).stem}/{self.name}"
        if self.refused is not None:
            return f"{head}: REFUSED: {self.refused}"
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.kinds.items())) or "nothing"
        notes = "".join(f"; {n}" for n in self.notes)
        return (
            f"{head}: recorded {kinds}; pods {self.ready}/{self.pods} Ready; root {self.status or 'no status'} "
            f"({self.seconds:.0f} s){notes}"
        )


class SourceTree:
    """The operator's unpacked sources (``Built.source``), its files named by globs relative to the root as
    the scorer names them in a snapshot (``fnmatch``: ``*`` crosses ``/``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._listed: list[str] | None = None

    def files(self, patterns: list[str]) -> list[str]:
        if self._listed is None:
            self._listed = sorted(str(p.relative_to(self.root)) for p in self.root.rglob("*") if p.is_file())
        return sorted({f for f in self._listed for p in patterns if fnmatch.fnmatchcase(f, p)})

    def read(self, path: str) -> str:
        return (self.root / path).read_text(errors="replace")


def sample_objects(config: RunConfig, tree: SourceTree) -> tuple[list[SampleObject], list[str]]:
    """The config's sample objects of the root kind, each with the other documents of its file; and the
    sample files that are not YAML (templates) or hold no object of the kind."""
    found: list[SampleObject] = []
    problems: list[str] = []
    for name in tree.files(config.samples):
        try:
            docs = list(yaml.load_all(tree.read(name), Loader=LOADER))
        except yaml.YAMLError:
            problems.append(f"{name}: not YAML (a template?): skipped")
            continue
        docs = [d for d in docs if isinstance(d, dict) and d.get("kind") and d.get("apiVersion")]
        roots = [d for d in docs if _is_root(d, config)]
        others = [d for d in docs if not _is_root(d, config) and d.get("kind") != "Namespace"]
        for root in roots:
            if not (root.get("metadata") or {}).get("name"):
                problems.append(f"{name}: a {config.kind.kind} without metadata.name: skipped")
                continue
            found.append(SampleObject(name, root, others))
    if not found:
        problems.append(f"no {config.kind.kind}.{config.kind.group} in the samples {config.samples}")
    return found, problems


def _is_root(obj: Obj, config: RunConfig) -> bool:
    return obj.get("kind") == config.kind.kind and str(obj.get("apiVersion")).rpartition("/")[0] == config.kind.group


def crd_documents(config: RunConfig, tree: SourceTree) -> list[Obj]:
    crds = []
    for name in tree.files(config.crds):
        for doc in yaml.load_all(tree.read(name), Loader=LOADER):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                crds.append(doc)
    return crds


def servable(crd: Obj) -> Obj:
    """The CRD as the lab can serve it: apiextensions.k8s.io/v1 only, and without a conversion webhook (the
    operator runs without its webhooks: one nobody serves would fail every read of another version, so the
    versions are served as stored instead)."""
    name = (crd.get("metadata") or {}).get("name")
    if crd.get("apiVersion") != "apiextensions.k8s.io/v1" or not name:
        raise LabError(f"CRD {name}: {crd.get('apiVersion')} (the apiserver serves apiextensions.k8s.io/v1 only)")
    conversion = (crd.get("spec") or {}).get("conversion") or {}
    if conversion.get("strategy") == "Webhook":
        return {**crd, "spec": {**crd["spec"], "conversion": {"strategy": "None"}}}
    return crd


def tree_webhooks(config: RunConfig, tree: SourceTree) -> list[Obj]:
    """The webhook configurations in the files of the config's ``webhooks`` globs."""
    found = []
    for name in tree.files(config.webhooks):
        for doc in yaml.load_all(tree.read(name), Loader=LOADER):
            if isinstance(doc, dict) and doc.get("kind") in WEBHOOK_KINDS:
                found.append(doc)
    return found


def webhooks_by_url(configurations: list[Obj], port: int, ca_bundle: bytes) -> list[Obj]:
    """Webhook configurations calling the operator on 127.0.0.1:``port`` (the lab runs it as a local process,
    not behind a Service): each service reference becomes a URL with its path, trusted through ``ca_bundle``."""
    ca = base64.b64encode(ca_bundle).decode()
    out = []
    for configuration in configurations:
        hooks = []
        for hook in configuration.get("webhooks") or []:
            service = (hook.get("clientConfig") or {}).get("service")
            url = f"https://127.0.0.1:{port}{(service or {}).get('path') or '/'}"
            hooks.append(hook if service is None else {**hook, "clientConfig": {"url": url, "caBundle": ca}})
        meta = {"name": (configuration.get("metadata") or {}).get("name")}
        out.append({**configuration, "metadata": meta, "webhooks": hooks})
    return out


def _served_kinds(crds: list[Obj]) -> list[tuple[str, str]]:
    """(apiVersion, kind) of every CRD, at its storage version (else its first served one)."""
    out = []
    for crd in crds:
        spec = crd.get("spec") or {}
        versions = spec.get("versions") or []
        chosen = next((v for v in versions if v.get("storage")), None) or next(
            (v for v in versions if v.get("served", True)), None
        )
        if chosen is not None:
            out.append((f"{spec['group']}/{chosen['name']}", str((spec.get("names") or {}).get("kind"))))
    return out


def namespace_for(index: int, sample: SampleObject) -> str:
    """A fresh DNS-label namespace per sample object, readable: ``live-<n>-<file stem>-<name>``."""
    name = str(sample.obj["metadata"]["name"])
    text = re.sub(r"[^a-z0-9-]+", "-", f"live-{index}-{Path(sample.file).stem}-{name}".lower())
    return text[:63].strip("-")


def owned_by_root(recording: Recording, root_uid: str) -> Recording:
    """The recording with only the root and the objects whose owner chain (any version's ownerReferences)
    reaches it."""
    owners: dict[str, set[str]] = {}
    for obj in [*recording.objects, *(e.object for e in recording.events)]:
        meta = obj.get("metadata") or {}
        refs = {str(r.get("uid")) for r in meta.get("ownerReferences") or []}
        owners.setdefault(str(meta.get("uid")), set()).update(refs)
    keep = {root_uid}
    grew = True
    while grew:
        grew = False
        for uid, refs in owners.items():
            if uid not in keep and refs & keep:
                keep.add(uid)
                grew = True

    def kept(obj: Obj) -> bool:
        return str((obj.get("metadata") or {}).get("uid")) in keep

    recording.objects = [o for o in recording.objects if kept(o)]
    recording.events = [e for e in recording.events if kept(e.object)]
    return recording


@contextlib.contextmanager
def volumes_provided(lab: Lab, namespace: str) -> Iterator[None]:
    """Inside the block, every claim of the namespace gets a PersistentVolume made for it (bound by the
    claim reference, of the class and size it asks): a storage provisioner, which the lab has not, so that
    the pods of a StatefulSet with volume claim templates can be scheduled."""
    stop = threading.Event()

    def provide() -> None:
        made: set[str] = set()
        watch = Watch(lab.kube, "v1", "PersistentVolumeClaim", namespace)
        with contextlib.suppress(ApiError, OSError):  # the lab stopping under it ends the block anyway
            for _type, claim in watch.events(time.monotonic() + 3600, stop=stop.is_set):
                meta, spec = claim["metadata"], claim.get("spec") or {}
                if stop.is_set():
                    return
                if meta["uid"] in made or spec.get("volumeName") or meta.get("deletionTimestamp"):
                    continue
                made.add(meta["uid"])
                size = ((spec.get("resources") or {}).get("requests") or {}).get("storage", "1Gi")
                with contextlib.suppress(ApiError):
                    lab.kube.create(_volume(claim, size))

    thread = threading.Thread(target=provide, daemon=True, name=f"volumes-{namespace}")
    thread.start()
    try:
        yield
    finally:
        stop.set()


def _volume(claim: Obj, size: str) -> Obj:
    meta, spec = claim["metadata"], claim.get("spec") or {}
    volume: Obj = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": f"pv-{meta['uid']}", "labels": {"lab.workload-map.run.ai/claim": meta["name"][:63]}},
        "spec": {
            "capacity": {"storage": size},
            "accessModes": spec.get("accessModes") or ["ReadWriteOnce"],
            "volumeMode": spec.get("volumeMode") or "Filesystem",
            "persistentVolumeReclaimPolicy": "Delete",
            "hostPath": {"path": f"/tmp/wmap-lab-volumes/{meta['uid']}"},
            "claimRef": {"namespace": meta["namespace"], "name": meta["name"], "uid": meta["uid"]},
        },
    }
    if spec.get("storageClassName"):
        volume["spec"]["storageClassName"] = spec["storageClassName"]
    return volume


def _status_summary(root: Obj | None) -> str:
    if root is None:
        return "gone"
    status = root.get("status") or {}
    if not status:
        return ""
    parts = []
    for key in ("phase", "state", "status"):
        if isinstance(status.get(key), str):
            parts.append(f"{key}={status[key]}")
    conditions = [f"{c.get('type')}={c.get('status')}" for c in status.get("conditions") or [] if isinstance(c, dict)]
    if conditions:
        parts.append("conditions " + ",".join(conditions))
    return " ".join(parts) or f"status keys {sorted(status)}"


def _on_its_way(pod: Obj) -> bool:
    """Bound to a node, not going away, not ended and not Ready yet: the lab will make it Ready."""
    status = pod.get("status") or {}
    bound = bool((pod.get("spec") or {}).get("nodeName"))
    ended = status.get("phase") in ("Succeeded", "Failed")
    return bound and not pod["metadata"].get("deletionTimestamp") and not ended and not _ready(pod)


def job_pods_succeed(pod: Obj) -> str:
    """The phase the capture gives a pod: a Job's pods exit 0, every other pod becomes Ready. A Job is
    meant to finish (a schema migration, a bootstrap step), and operators wait for it before making
    the workloads that serve: with its pods held Running, the capture would end at that wait."""
    owners = pod["metadata"].get("ownerReferences") or []
    return "Succeeded" if any(o.get("kind") == "Job" and o.get("controller") for o in owners) else "Ready"


def _ready(pod: Obj) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    webhook_port: int
    ca_bundle: bytes


@dataclass
class Capture:
    """One operator's run in one lab (``run``); outcomes per sample object."""

    config: RunConfig
    built: Built
    lab: Lab
    out_dir: Path  # where the recordings go (a fresh folder; the caller moves it into place)
    quiet_s: float = QUIET_S
    max_s: float = MAX_S
    say: Callable[[str], None] = print
    outcomes: list[Outcome] = field(default_factory=list)
    launch: Launch | None = None  # how the operator is started (set up once, started again per sample)

    def run(self) -> list[Outcome]:
        tree = SourceTree(self.built.source)
        samples, problems = sample_objects(self.config, tree)
        for problem in problems:
            self.say(f"{self.config.name}: {problem}")
        crds = crd_documents(self.config, tree)
        kinds = _served_kinds(crds)
        if (self.config.kind.group, self.config.kind.kind) not in {(a.rpartition("/")[0], k) for a, k in kinds}:
            kind = f"{self.config.kind.kind}.{self.config.kind.group}"
            raise LabError(f"{self.config.path}: kind {kind} is in none of the CRDs {self.config.crds}")
        # Server-side apply over the lab's REST client: kubectl took ~20 s more for KubeRay's 3 MB of CRDs.
        for given in crds:
            crd = servable(given)
            name = crd["metadata"]["name"]
            if crd is not given:
                self.say(f"CRD {name}: its conversion webhook left out (strategy None)")
            try:
                self.lab.kube.apply(crd)
            except ApiError as exc:
                raise LabError(f"CRD {name} refused: {exc}") from None
        self.lab.wait_established({c["metadata"]["name"] for c in crds}, what=f"the CRDs of {self.config.name}")
        self._start_operator()
        server = str(self.lab.kube.request("GET", "/version").get("gitVersion"))
        watched = [*WORKLOAD_KINDS, *(k for k in kinds), *((r.api_version, r.kind) for r in self.config.record)]
        for index, sample in enumerate(samples):
            outcome = Outcome(sample.file, str(sample.obj["metadata"]["name"]))
            self.outcomes.append(outcome)
            try:
                if index and self.config.restart_per_sample:
                    # An operator whose reconcile blocks on the workload's own service (which never answers
                    # under KWOK) would hold the next sample back: a fresh process for each.
                    self.lab.processes["operator"].stop()
                    self.lab.release_namespaces(timeout=60)
                    self._launch()
                self.lab.check_processes()
            except LabError as exc:
                outcome.refused = f"not applied: {str(exc).splitlines()[0]}"
                continue
            began = time.monotonic()
            self._one(index, sample, outcome, watched, server)
            outcome.seconds = time.monotonic() - began
            self.say(outcome.line())
        return self.outcomes

    def _start_operator(self) -> None:
        op_dir = self.lab.work_dir / "operator"
        op_dir.mkdir(parents=True, exist_ok=True)
        self.lab.kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": OPERATOR_NAMESPACE}})
        # controller-runtime's default layout under TMPDIR: an operator that always starts its webhook server
        # (no flag for the folder) finds the certificate with env TMPDIR: "{workdir}".
        certdir = op_dir / "k8s-webhook-server" / "serving-certs"
        _, _, ca_bundle = write_serving_cert(certdir)
        webhook_port = free_port()
        values = {
            "kubeconfig": str(self.lab.kubeconfig),
            "workdir": str(op_dir),
            "certdir": str(certdir),
            "namespace": OPERATOR_NAMESPACE,
            "webhookport": str(webhook_port),
        }
        for index, given in enumerate(self.config.before):
            obj = copy.deepcopy(given)
            try:
                if self.lab.kube.resource(obj["apiVersion"], obj["kind"]).namespaced:
                    obj["metadata"].setdefault("namespace", OPERATOR_NAMESPACE)
                self.lab.kube.apply(obj)
            except ApiError as exc:
                what = f"{obj['kind']}/{obj['metadata']['name']}"
                raise LabError(f"{self.config.path}: before[{index}] ({what}) refused: {exc}") from None
        # A CRD of ours (a kind of another project the operator watches, e.g. monitoring.coreos.com's
        # ServiceMonitor) must be served before the operator's informers start.
        ours = {o["metadata"]["name"] for o in self.config.before if o["kind"] == "CustomResourceDefinition"}
        self.lab.wait_established(ours, what="the CRDs of before")
        argv = [str(self.built.binary), *(fill(a, values) for a in self.config.args)]
        env = {"KUBECONFIG": str(self.lab.kubeconfig), **{k: fill(v, values) for k, v in self.config.env.items()}}
        if self.config.serviceaccount_namespace:
            argv = [*IN_CLUSTER_NAMESPACE, *argv]
            env[NAMESPACE_VARIABLE] = OPERATOR_NAMESPACE
        self.launch = Launch(argv, env, op_dir, self.config.webhook_port or webhook_port, ca_bundle)
        self._launch()

    def _launch(self) -> None:
        """Start the operator's process (again, with ``restart_per_sample``) and register its webhooks."""
        launch = self.launch
        if launch is None:
            raise LabError("the operator was never set up")
        process = self.lab.start_process("operator", launch.argv, env=launch.env, cwd=launch.cwd)
        # No readiness signal is common to every operator: its start-up log falling quiet (informers
        # synced, workers started) is what tells a sample applied now is seen at once.
        began = time.monotonic()
        size, still = -1, 0
        while time.monotonic() < began + STARTUP_S and still < 6:
            self.lab.check_processes()
            now = process.log.stat().st_size
            still = still + 1 if now == size else 0
            size = now
            time.sleep(0.5)
        self.say(f"operator started ({time.monotonic() - began:.0f} s until its log fell quiet)")
        if self.config.webhooks:
            port = launch.webhook_port
            self.lab.wait_serving("operator", port)
            hooks = tree_webhooks(self.config, SourceTree(self.built.source))
            for hook in webhooks_by_url(hooks, port, launch.ca_bundle):
                try:
                    self.lab.kube.apply(hook)
                except ApiError as exc:
                    raise LabError(f"webhook configuration {hook['metadata']['name']} refused: {exc}") from None
            self.say(f"webhooks registered at https://127.0.0.1:{port}")

    def _one(
        self, index: int, sample: SampleObject, outcome: Outcome, watched: list[tuple[str, str]], server: str
    ) -> None:
        self.lab.release_namespaces(timeout=60)  # the previous sample's pods off the nodes
        namespace = self.lab.namespace(namespace_for(index, sample))
        outcome.namespace = namespace
        root = copy.deepcopy(sample.obj)
        meta = root["metadata"]
        for key in ("namespace", "resourceVersion", "uid", "creationTimestamp"):
            meta.pop(key, None)
        meta["namespace"] = namespace
        for companion in [*self.config.per_sample, *sample.companions]:
            problem = self._create_companion(companion, namespace)
            if problem:
                outcome.notes.append(problem)
        # One watch per kind name (the recorder keeps its state by kind): the root first, then the workload
        # kinds, then the operator's other kinds.
        kinds: dict[str, str] = {str(root["kind"]): str(root["apiVersion"])}
        for api_version, kind in watched:
            kinds.setdefault(kind, api_version)
        workload = {"apiVersion": str(root["apiVersion"]), "kind": str(root["kind"]), "namespace": namespace}
        workload["name"] = str(meta["name"])
        recorder = Recorder(
            self.lab.kube,
            namespace,
            [(api_version, kind) for kind, api_version in kinds.items()],
            workload,
            {"name": self.config.repo, "version": self.config.commit[:12]},
        )
        recorder.start()
        try:
            try:
                created = self.lab.kube.create(root)
            except ApiError as exc:
                outcome.refused = str(exc)
                return
            with self.lab.auto_phase(namespace, phase_for=job_pods_succeed), volumes_provided(self.lab, namespace):
                stopped = self._until_quiet(recorder)
            if stopped:
                outcome.notes.append(stopped)
            with contextlib.suppress(RuntimeError):
                recorder.settle()
        finally:
            recorder.stop()
        recording = owned_by_root(recorder.recording(server), str(created["metadata"]["uid"]))
        path = capture_file(self.out_dir, sample.file, str(meta["name"]))
        if path.exists():  # the same file stem and name in another folder of the snapshot
            path = path.with_name(f"{path.stem}-{index}.yaml")
        save(thinned(recording), path)
        outcome.recording = path
        final = list(recording.state_at(len(recording.events)))
        seen = {o["metadata"].get("uid"): o for o in [*recording.objects, *(e.object for e in recording.events)]}
        outcome.kinds = Counter(str(o.get("kind")) for o in seen.values())  # deleted ones too
        pods = [o for o in final if o.get("kind") == "Pod"]
        outcome.pods, outcome.ready = len(pods), sum(_ready(p) for p in pods)
        last = next((o for o in final if o["metadata"].get("uid") == created["metadata"]["uid"]), None)
        outcome.status = _status_summary(last)
        if set(outcome.kinds) == {root["kind"]}:
            outcome.notes.append("nothing recorded is owned by it (no ownerReferences to it among the kinds watched)")
        if recorder.errors:
            outcome.notes.append(f"recording has a gap: {'; '.join(recorder.errors)}")

    def _create_companion(self, obj: Obj, namespace: str) -> str | None:
        obj = copy.deepcopy(obj)
        try:
            if self.lab.kube.resource(str(obj["apiVersion"]), str(obj["kind"])).namespaced:
                obj.setdefault("metadata", {})["namespace"] = namespace
            self.lab.kube.apply(obj)
        except ApiError as exc:
            return f"companion {obj.get('kind')}/{(obj.get('metadata') or {}).get('name')} refused: {exc}"
        return None

    def _until_quiet(self, recorder: Recorder) -> str | None:
        """Wait until no event came for ``quiet_s`` while no pod is on its way to Ready (None), or ``max_s``
        passed / the operator exited (why). A pod bound to a node and not yet Ready is the lab still acting
        (KWOK and ``auto_phase`` make it Ready), so the quiet window counts from when none is left."""
        began = last_change = time.monotonic()
        seen = 0
        pods: dict[str, Obj] = {}
        while True:
            now = time.monotonic()
            events = recorder.events[seen:]
            if events:
                seen += len(events)
                last_change = now
                for event in events:
                    if event["object"].get("kind") == "Pod":
                        uid = event["object"]["metadata"]["uid"]
                        if event["type"] == "DELETED":
                            pods.pop(uid, None)
                        else:
                            pods[uid] = event["object"]
            waiting = sum(_on_its_way(pod) for pod in pods.values())
            if waiting:
                last_change = now
            if now - last_change >= self.quiet_s:
                return None
            if now - began >= self.max_s:
                why = f"{waiting} bound pod(s) not Ready" if waiting else "events still coming"
                return f"cut after {self.max_s:.0f} s ({why})"
            try:
                self.lab.check_processes()
            except LabError as exc:
                return f"the operator exited: {str(exc).splitlines()[0]}"
            time.sleep(0.5)


def capture(
    config: RunConfig,
    built: Built,
    *,
    lab_factory: Callable[[Path], Lab],
    out_root: Path,
    quiet_s: float = QUIET_S,
    max_s: float = MAX_S,
    say: Callable[[str], None] = print,
) -> list[Outcome]:
    """Run the operator in a lab of its own and write one recording per sample object (and the operator's
    log) to ``<out_root>/<key>/``, replacing an earlier capture; the lab is stopped whatever happens."""
    final = capture_dir(out_root, config.repo, config.commit)
    final.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=final.parent))
    work = Path(tempfile.mkdtemp(prefix=f"wmap-live-{config.name}-"))
    lab = lab_factory(work)
    runner = Capture(config, built, lab, fresh, quiet_s, max_s, say)
    ok = False
    try:
        lab.start()
        runner.run()
        ok = True
    finally:
        lab.stop(graceful=False)
        operator_log = lab.log_dir / "operator.log"
        if operator_log.is_file():
            shutil.copyfile(operator_log, fresh / "operator.log")
        if any(fresh.glob("*.yaml")) or ok:  # what was recorded before a failure is kept too
            shutil.rmtree(final, ignore_errors=True)
            fresh.rename(final)
            for outcome in runner.outcomes:
                if outcome.recording is not None:
                    outcome.recording = final / outcome.recording.name
        else:
            shutil.rmtree(fresh, ignore_errors=True)
        if ok:
            shutil.rmtree(work, ignore_errors=True)
        else:
            say(f"lab work dir kept (every process's log): {work}")
    return runner.outcomes
