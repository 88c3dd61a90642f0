"""Fixtures for tests against a real kube-apiserver (marker: ``live``).

The binaries come from ``tools/testcluster/build.sh`` (cached outside the repo,
so only the first run on a machine builds) or from ``$WMAP_TESTCLUSTER_BIN``.
Without binaries the tests are skipped locally, but fail under CI (``$CI`` set).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO_ROOT / "tools" / "testcluster" / "build.sh"
LIVE_DIR = Path(__file__).resolve().parent

if str(REPO_ROOT) not in sys.path:  # make `tests.cluster` importable under any import mode
    sys.path.insert(0, str(REPO_ROOT))

from tests.cluster.apiserver import TestCluster  # noqa: E402

LIMITED_USERS = (
    "wmap-throttled",
    "wmap-no-kind",
    "wmap-no-pods-ns",
    "wmap-ns-only",
    "wmap-ns-list",  # test_live_gaps.py: a namespaced Role, and list on namespaces
    "wmap-serve-no-kind",  # test_live_serve_gaps.py
    "wmap-serve-no-pods",
    "wmap-record-none",  # test_live_record.py: no role at all
)

# A cold build of kube-apiserver + kubectl + etcd takes ~15 min on 2 cores.
BUILD_TIMEOUT_S = float(os.environ.get("WMAP_TESTCLUSTER_BUILD_TIMEOUT", "2700"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "live: needs a real kube-apiserver (tests/live, binaries from tools/testcluster/build.sh)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if LIVE_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.live)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"live test cluster unavailable under CI: {reason}", pytrace=False)
    pytest.skip(f"live test cluster unavailable: {reason}")


def _bin_dir() -> Path:
    env_bin = os.environ.get("WMAP_TESTCLUSTER_BIN")
    if env_bin:
        path = Path(env_bin)
        if not (path / "kube-apiserver").is_file() or not (path / "kubectl").is_file():
            _unavailable(f"WMAP_TESTCLUSTER_BIN={env_bin} lacks kube-apiserver/kubectl")
        return path
    if not BUILD_SCRIPT.is_file():
        _unavailable(f"{BUILD_SCRIPT} missing")
    try:
        proc = subprocess.run(
            ["bash", str(BUILD_SCRIPT)],
            check=False,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        _unavailable(f"{BUILD_SCRIPT} did not finish within {BUILD_TIMEOUT_S:.0f}s")
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-30:])
        _unavailable(f"{BUILD_SCRIPT} failed (exit {proc.returncode}):\n{tail}")
    lines = proc.stdout.strip().splitlines()
    if not lines:
        _unavailable(f"{BUILD_SCRIPT} printed no bin dir")
    return Path(lines[-1])


@pytest.fixture(scope="session")
def testcluster_bin_dir() -> Path:
    """The dir with kube-apiserver, kubectl and etcd (skips, or fails under CI, when they are unavailable)."""
    return _bin_dir()


@pytest.fixture(scope="session")
def test_cluster(testcluster_bin_dir: Path) -> Iterator[TestCluster]:
    """A running etcd + kube-apiserver shared by the whole session."""
    bin_dir = testcluster_bin_dir
    # The gang Workload API (scheduling.k8s.io/v1beta1, GenericWorkload) is off by default in 1.37;
    # the gang tests create Workloads and PodGroups so the real API server validates our manifests.
    cluster = TestCluster(
        bin_dir,
        # Users the fault and permission scenarios bind roles to (tests/live/test_live_faults.py,
        # test_live_gaps.py); none is in system:masters, so RBAC and API Priority and Fairness apply.
        extra_users={name: [] for name in LIMITED_USERS},
        extra_apiserver_args=[
            "--runtime-config=scheduling.k8s.io/v1beta1=true",
            "--feature-gates=GenericWorkload=true",
        ],
    )
    try:
        cluster.start()
    except Exception as exc:  # binaries exist but the cluster won't come up: a real failure
        pytest.fail(f"test cluster failed to start: {exc}", pytrace=False)
    try:
        yield cluster
    finally:
        cluster.stop()
