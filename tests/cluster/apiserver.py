"""A real, single-node Kubernetes control plane (etcd + kube-apiserver) for tests.

No controller manager, scheduler or kubelet runs: objects are stored and served
exactly as a real API server does (validation, defaulting, RBAC, CRDs, paging,
watch), but nothing reconciles them. Pods can be created directly (with or
without ``spec.nodeName``) because the ServiceAccount admission plugin, which
needs the controller-managed ``default`` service account, is disabled.

Typical use::

    cluster = TestCluster(bin_dir)
    cluster.start()
    try:
        cluster.kubectl("get", "namespaces", check=True)
        cluster.restart_apiserver()          # same port, same data
    finally:
        cluster.stop()

The binaries come from ``tools/testcluster/build.sh`` (its last stdout line is
the bin dir holding ``kube-apiserver``, ``kubectl`` and ``etcd``). If the bin
dir has no ``etcd``, one on ``PATH`` is used.

Environment knobs:
    WMAP_TESTCLUSTER_TIMEOUT   seconds to wait for each component (default 60)
    WMAP_TESTCLUSTER_KEEP      if set to 1, keep the work dir (certs, logs,
                               etcd data) after stop() for inspection
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import datetime as _dt
import ipaddress
import json
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["TestCluster", "TestClusterError"]

ADMIN_USER = "test-admin"
RESTRICTED_USER = "test-restricted"
# a /16 (65k ClusterIPs): the generated benchmark clusters (bench/bench_live.py) hold thousands of Services
SERVICE_CLUSTER_IP_RANGE = "10.96.0.0/16"


class TestClusterError(RuntimeError):
    """The cluster could not be started (the message carries the log tails)."""

    __test__ = False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _default_timeout() -> float:
    try:
        return float(os.environ.get("WMAP_TESTCLUSTER_TIMEOUT", "60"))
    except ValueError:
        return 60.0


def _tail(path: Path, lines: int = 80) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        return f"<cannot read {path}: {exc}>"
    return "\n".join(text.splitlines()[-lines:])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Ask Linux to SIGKILL the child if the process that started it dies (e.g. kill -9)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except Exception:
        pass


# --------------------------------------------------------------------------- PKI


def _write_pki(directory: Path) -> dict[str, Path]:
    """Create a CA, a serving cert for 127.0.0.1/localhost and SA keys."""

    now = _dt.datetime.now(_dt.UTC)
    not_before = now - _dt.timedelta(hours=1)
    not_after = now + _dt.timedelta(days=365)

    def key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
        return key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "workload-map test CA")])
    ca_ski = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(ca_ski, critical=False)
        .sign(ca_key, hashes.SHA256())
    )

    srv_key = ec.generate_private_key(ec.SECP256R1())
    sans: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.DNSName("kubernetes"),
        x509.DNSName("kubernetes.default"),
        x509.DNSName("kubernetes.default.svc"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.IPAddress(ipaddress.ip_address("::1")),
        x509.IPAddress(ipaddress.ip_address("10.96.0.1")),
    ]
    srv_cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
        .issuer_name(ca_name)
        .public_key(srv_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=True,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(srv_key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )

    sa_key = ec.generate_private_key(ec.SECP256R1())

    paths = {
        "ca": directory / "ca.crt",
        "ca_key": directory / "ca.key",
        "cert": directory / "apiserver.crt",
        "key": directory / "apiserver.key",
        "sa_key": directory / "sa.key",
        "sa_pub": directory / "sa.pub",
    }
    paths["ca"].write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    paths["ca_key"].write_bytes(key_pem(ca_key))
    paths["cert"].write_bytes(srv_cert.public_bytes(serialization.Encoding.PEM))
    paths["key"].write_bytes(key_pem(srv_key))
    paths["sa_key"].write_bytes(key_pem(sa_key))
    paths["sa_pub"].write_bytes(
        sa_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    for name in ("ca_key", "key", "sa_key"):
        paths[name].chmod(0o600)
    return paths


# ----------------------------------------------------------------------- cluster

_live_clusters: weakref.WeakSet[TestCluster] = weakref.WeakSet()


@atexit.register
def _stop_all_at_exit() -> None:
    for cluster in list(_live_clusters):
        with contextlib.suppress(Exception):
            cluster.stop()


class TestCluster:
    """etcd + kube-apiserver on 127.0.0.1 with TLS, static tokens and RBAC.

    Users (static token file, read at apiserver start):
      * ``admin_token``      -> user ``test-admin`` in group ``system:masters``
      * ``restricted_token`` -> user ``test-restricted`` with no permissions
                                beyond what RBAC grants ``system:authenticated``
      * ``extra_users``      -> ``{name: [groups...]}``; tokens via ``token_for(name)``
    """

    __test__ = False  # not a pytest test class despite the name

    def __init__(
        self,
        bin_dir: str | os.PathLike[str],
        *,
        workdir: str | os.PathLike[str] | None = None,
        timeout: float | None = None,
        extra_users: Mapping[str, Sequence[str]] | None = None,
        extra_apiserver_args: Sequence[str] = (),
    ) -> None:
        self.bin_dir = Path(bin_dir).resolve()
        self.kube_apiserver_bin = self._find_binary("kube-apiserver")
        self.kubectl_bin = self._find_binary("kubectl")
        self.etcd_bin = self._find_binary("etcd")
        self.timeout = timeout if timeout is not None else _default_timeout()
        self._own_workdir = workdir is None
        self.workdir = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="wmap-testcluster-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.log_dir = self.workdir / "logs"
        self.log_dir.mkdir(exist_ok=True)
        self.etcd_log = self.log_dir / "etcd.log"
        self.apiserver_log = self.log_dir / "kube-apiserver.log"
        self.extra_apiserver_args = list(extra_apiserver_args)

        self._tokens: dict[str, tuple[str, list[str]]] = {
            ADMIN_USER: (secrets.token_hex(16), ["system:masters"]),
            RESTRICTED_USER: (secrets.token_hex(16), []),
        }
        for name, groups in (extra_users or {}).items():
            self._tokens[name] = (secrets.token_hex(16), list(groups))

        self.admin_user = ADMIN_USER
        self.admin_token = self._tokens[ADMIN_USER][0]
        self.restricted_user = RESTRICTED_USER
        self.restricted_token = self._tokens[RESTRICTED_USER][0]

        self.etcd_client_port = 0
        self.etcd_peer_port = 0
        self.apiserver_port = 0
        self._etcd: subprocess.Popen[bytes] | None = None
        self._apiserver: subprocess.Popen[bytes] | None = None
        # A test may stop the apiserver from a thread of the code under test (a LIST worker) and start it
        # again from its own: the start must wait for a stop still under way (a graceful stop closes the
        # port at once and exits seconds later), or it sees the old process running and starts none.
        self._apiserver_lifecycle = threading.RLock()
        self._log_files: list[IO[bytes]] = []
        self._pki: dict[str, Path] = {}
        self._started = False
        self._failed = False

    # ----------------------------------------------------------- public props

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.apiserver_port}"

    @property
    def etcd_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.etcd_client_port}"

    @property
    def ca_path(self) -> Path:
        return self.workdir / "pki" / "ca.crt"

    @property
    def kubeconfig_path(self) -> Path:
        return self.workdir / "admin.kubeconfig"

    @property
    def restricted_kubeconfig_path(self) -> Path:
        return self.workdir / "restricted.kubeconfig"

    @property
    def apiserver_running(self) -> bool:
        return self._apiserver is not None and self._apiserver.poll() is None

    def token_for(self, user: str) -> str:
        return self._tokens[user][0]

    # -------------------------------------------------------------- lifecycle

    def __enter__(self) -> TestCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> TestCluster:
        """Start etcd and kube-apiserver and wait until the API is ready."""
        if self._started:
            return self
        _live_clusters.add(self)
        self._started = True
        try:
            self._pki = _write_pki(self._mkdir("pki"))
            self._write_token_file()
            self._start_etcd()
            self._start_apiserver_on_a_free_port()
            self.kubeconfig_for(self.admin_token, self.kubeconfig_path, user=ADMIN_USER)
            self.kubeconfig_for(self.restricted_token, self.restricted_kubeconfig_path, user=RESTRICTED_USER)
        except BaseException:
            self._failed = True
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Terminate kube-apiserver, then etcd. Idempotent."""
        self._terminate(self._apiserver, "kube-apiserver")
        self._apiserver = None
        self._terminate(self._etcd, "etcd")
        self._etcd = None
        for f in self._log_files:
            with contextlib.suppress(Exception):
                f.close()
        self._log_files.clear()
        _live_clusters.discard(self)
        if self._started and self._own_workdir and not self._failed and os.environ.get("WMAP_TESTCLUSTER_KEEP") != "1":
            shutil.rmtree(self.workdir, ignore_errors=True)
        self._started = False

    def stop_apiserver(self, *, graceful: bool = True) -> None:
        """Stop only kube-apiserver (etcd keeps the data). SIGKILL if not graceful."""
        with self._apiserver_lifecycle:
            if self._apiserver is None:
                return
            if graceful:
                self._terminate(self._apiserver, "kube-apiserver")
            else:
                with contextlib.suppress(ProcessLookupError):
                    self._apiserver.kill()
                self._apiserver.wait(timeout=30)
            self._apiserver = None

    def start_apiserver(self) -> None:
        """Start kube-apiserver again on the same port with the same data (after a stop under way in
        another thread has ended)."""
        with self._apiserver_lifecycle:
            if self.apiserver_running:
                return
            if not self.apiserver_port:
                raise TestClusterError("start() the cluster first")
            self._start_apiserver()

    @contextlib.contextmanager
    def frozen_apiserver(self) -> Iterator[None]:
        """kube-apiserver stopped with SIGSTOP inside the block (its port accepts, nothing answers), then
        resumed with SIGCONT, whatever happens inside; ``stop_apiserver(graceful=False)`` inside the block
        kills it while frozen (a server that dies in the middle of answering)."""
        if self._apiserver is None:
            raise TestClusterError("the apiserver is not running")
        self._apiserver.send_signal(signal.SIGSTOP)
        try:
            yield
        finally:
            if self._apiserver is not None:
                self._apiserver.send_signal(signal.SIGCONT)

    def restart_apiserver(self, *, graceful: bool = True) -> None:
        with self._apiserver_lifecycle:
            self.stop_apiserver(graceful=graceful)
            self.start_apiserver()

    # ---------------------------------------------------------------- helpers

    def kubeconfig_for(
        self,
        token: str,
        path: str | os.PathLike[str],
        *,
        user: str = "user",
        namespace: str | None = None,
    ) -> Path:
        """Write a kubeconfig that talks to this cluster with ``token``."""
        context: dict[str, Any] = {"cluster": "wmap-test", "user": user}
        if namespace:
            context["namespace"] = namespace
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "wmap-test",
                    "cluster": {
                        "server": self.server,
                        "certificate-authority": str(self.ca_path),
                    },
                }
            ],
            "users": [{"name": user, "user": {"token": token}}],
            "contexts": [{"name": "wmap-test", "context": context}],
            "current-context": "wmap-test",
            "preferences": {},
        }
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # JSON is valid YAML; every kubeconfig loader accepts it.
        path.write_text(json.dumps(config, indent=2) + "\n")
        path.chmod(0o600)
        return path

    def kubectl(
        self,
        *args: str,
        kubeconfig: str | os.PathLike[str] | None = None,
        input: str | None = None,
        check: bool = False,
        timeout: float = 120.0,
    ) -> subprocess.CompletedProcess[str]:
        """Run the built kubectl against this cluster (admin unless ``kubeconfig``)."""
        env = dict(os.environ)
        env.pop("KUBECONFIG", None)
        env["KUBECACHEDIR"] = str(self.workdir / "kubectl-cache")
        cmd = [
            str(self.kubectl_bin),
            "--kubeconfig",
            str(kubeconfig or self.kubeconfig_path),
            *args,
        ]
        proc = subprocess.run(
            cmd,
            input=input,
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )
        if check and proc.returncode != 0:
            raise subprocess.CalledProcessError(proc.returncode, cmd, output=proc.stdout, stderr=proc.stderr)
        return proc

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca_path))

    def get(self, path: str, *, token: str | None = None, timeout: float = 10.0) -> tuple[int, bytes]:
        """Raw HTTPS GET against the apiserver; returns (status, body)."""
        req = urllib.request.Request(
            self.server + path,
            headers={"Authorization": f"Bearer {token or self.admin_token}"},
        )
        try:
            with urllib.request.urlopen(req, context=self.ssl_context(), timeout=timeout) as resp:
                return int(resp.status), resp.read()
        except urllib.error.HTTPError as exc:
            return int(exc.code), exc.read()

    # --------------------------------------------------------------- internals

    def _find_binary(self, name: str) -> Path:
        candidate = self.bin_dir / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
        if name == "etcd":
            found = shutil.which("etcd")
            if found:
                return Path(found)
        raise TestClusterError(f"{name} not found in {self.bin_dir}")

    def _mkdir(self, name: str) -> Path:
        p = self.workdir / name
        p.mkdir(parents=True, exist_ok=True)
        return p

    def _write_token_file(self) -> None:
        lines = []
        for user, (token, groups) in self._tokens.items():
            line = f"{token},{user},{user}-uid"
            if groups:
                line += ',"' + ",".join(groups) + '"'
            lines.append(line)
        path = self.workdir / "tokens.csv"
        path.write_text("\n".join(lines) + "\n")
        path.chmod(0o600)

    def _open_log(self, path: Path, what: str) -> IO[bytes]:
        f = open(path, "ab")  # noqa: SIM115 - closed in stop()
        stamp = _dt.datetime.now().isoformat(timespec="seconds")
        f.write(f"\n===== {what} started {stamp} =====\n".encode())
        f.flush()
        self._log_files.append(f)
        return f

    def _spawn(self, argv: list[str], log: Path, what: str) -> subprocess.Popen[bytes]:
        if threading.current_thread() is not threading.main_thread():
            # PR_SET_PDEATHSIG fires when the *thread* that forked the child exits, not the process
            raise TestClusterError(f"start {what} from the main thread: it would be killed when this thread ends")
        out = self._open_log(log, what)
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=self.workdir,
            start_new_session=True,  # a Ctrl-C to pytest must not kill it before teardown
            preexec_fn=_die_with_parent,  # noqa: PLW1509 - only calls prctl()
        )

    def _start_etcd(self) -> None:
        data_dir = self._mkdir("etcd-data")
        data_dir.chmod(0o700)  # etcd warns about anything wider
        last_error: Exception | None = None
        for _attempt in range(3):
            self.etcd_client_port = _free_port()
            self.etcd_peer_port = _free_port()
            client = f"http://127.0.0.1:{self.etcd_client_port}"
            peer = f"http://127.0.0.1:{self.etcd_peer_port}"
            argv = [
                str(self.etcd_bin),
                "--name=wmap-test",
                f"--data-dir={data_dir}",
                f"--listen-client-urls={client}",
                f"--advertise-client-urls={client}",
                f"--listen-peer-urls={peer}",
                f"--initial-advertise-peer-urls={peer}",
                f"--initial-cluster=wmap-test={peer}",
                "--initial-cluster-state=new",
                "--log-level=warn",
            ]
            if self._etcd_version() >= (3, 5):
                # Test data only: skip fsync, a big win on a loaded, slow disk.
                argv.append("--unsafe-no-fsync=true")
            else:
                argv.append("--logger=zap")  # 3.4: --log-level needs zap
            self._etcd = self._spawn(argv, self.etcd_log, "etcd")
            try:
                self._wait_until(self._etcd_healthy, self._etcd, "etcd", self.etcd_log, self.timeout)
                return
            except TestClusterError as exc:
                last_error = exc
                self._terminate(self._etcd, "etcd")
                self._etcd = None
                if "address already in use" not in _tail(self.etcd_log, 40):
                    raise
                shutil.rmtree(data_dir, ignore_errors=True)
                data_dir.mkdir(mode=0o700)
        assert last_error is not None
        raise last_error

    def _etcd_version(self) -> tuple[int, int]:
        try:
            out = subprocess.run(
                [str(self.etcd_bin), "--version"], check=False, capture_output=True, text=True, timeout=30
            ).stdout
            m = re.search(r"etcd Version:\s*(\d+)\.(\d+)", out)
            if m:
                return int(m.group(1)), int(m.group(2))
        except (OSError, subprocess.SubprocessError):
            pass
        return (3, 5)

    def _etcd_healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.etcd_endpoint + "/health", timeout=5) as resp:
                return bool(json.loads(resp.read()).get("health") == "true")
        except (OSError, ValueError):
            return False

    def _apiserver_argv(self) -> list[str]:
        pki = self._pki
        return [
            str(self.kube_apiserver_bin),
            f"--etcd-servers={self.etcd_endpoint}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--secure-port={self.apiserver_port}",
            f"--cert-dir={self._mkdir('apiserver-certs')}",
            f"--tls-cert-file={pki['cert']}",
            f"--tls-private-key-file={pki['key']}",
            f"--client-ca-file={pki['ca']}",
            f"--token-auth-file={self.workdir / 'tokens.csv'}",
            "--anonymous-auth=false",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={pki['sa_pub']}",
            f"--service-account-signing-key-file={pki['sa_key']}",
            f"--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}",
            # ServiceAccount admission needs the controller-managed "default"
            # service account; without a controller manager it blocks every pod.
            "--disable-admission-plugins=ServiceAccount",
            "--allow-privileged=true",
            # API Priority and Fairness on, as on every real cluster: its 429s with Retry-After are a
            # fault clients must handle (tests/live/test_live_faults.py throttles a user with it).
            "--enable-priority-and-fairness=true",
            "--profiling=false",
            "--endpoint-reconciler-type=none",
            "--v=1",
            *self.extra_apiserver_args,
        ]

    def _start_apiserver(self) -> None:
        self._apiserver = self._spawn(self._apiserver_argv(), self.apiserver_log, "kube-apiserver")
        try:
            self._wait_until(
                self._apiserver_ready,
                self._apiserver,
                "kube-apiserver",
                self.apiserver_log,
                self.timeout,
            )
        except BaseException:
            self._failed = True
            self._terminate(self._apiserver, "kube-apiserver")
            self._apiserver = None
            raise

    def _start_apiserver_on_a_free_port(self) -> None:
        # A port found free can be taken before kube-apiserver binds it (by another test run's server under
        # pytest-xdist, or as a client's ephemeral port): then it exits at once, and another port is tried.
        for attempt in range(3):
            self.apiserver_port = _free_port()
            try:
                self._start_apiserver()
                return
            except TestClusterError:
                if attempt == 2 or "address already in use" not in _tail(self.apiserver_log, 40):
                    raise
                self._failed = False

    def _apiserver_ready(self) -> bool:
        try:
            status, _ = self.get("/readyz", timeout=5)
            if status != 200:
                return False
            # The bootstrap controller creates "default" just after readiness
            # on some versions; tests expect it to exist.
            status, _ = self.get("/api/v1/namespaces/default", timeout=5)
            return status == 200
        except (OSError, ssl.SSLError):
            return False

    def _wait_until(
        self,
        ready: Any,
        proc: subprocess.Popen[bytes],
        what: str,
        log: Path,
        timeout: float,
    ) -> None:
        deadline = time.monotonic() + timeout
        delay = 0.1
        while True:
            if proc.poll() is not None:
                self._fail(f"{what} exited with code {proc.returncode} during startup", log)
            if ready():
                return
            if time.monotonic() > deadline:
                self._fail(f"{what} not ready after {timeout:.0f}s", log)
            time.sleep(delay)
            delay = min(delay * 1.5, 1.0)

    def _fail(self, message: str, log: Path) -> None:
        for f in self._log_files:
            with contextlib.suppress(Exception):
                f.flush()
        details = [message, f"work dir kept: {self.workdir}"]
        for path in (self.etcd_log, self.apiserver_log):
            if path.exists():
                details.append(f"----- last lines of {path.name} -----\n{_tail(path)}")
        text = "\n".join(details)
        print(text, file=sys.stderr)
        self._failed = True
        raise TestClusterError(text)

    @staticmethod
    def _terminate(proc: subprocess.Popen[bytes] | None, what: str, grace: float = 20.0) -> None:
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait(timeout=10)
