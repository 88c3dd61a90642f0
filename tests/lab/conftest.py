"""The ``lab`` fixture (marker ``lab``, ``make lab``): one cluster lab for the whole session.

Binaries: etcd, kube-apiserver and kubectl from tools/testcluster/build.sh (or ``$WMAP_TESTCLUSTER_BIN``);
kube-controller-manager, kube-scheduler, kwok and the operators from tools/lab/build.sh (or
``$WMAP_LAB_BIN``). Without them the lab tests are skipped locally and fail under CI (``$CI`` set).
``WMAP_LAB_KEEP=1`` keeps the work dir (every process's log) after the run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
LAB_DIR = Path(__file__).resolve().parent
if str(REPO_ROOT) not in sys.path:  # `tests.cluster` importable under any import mode
    sys.path.insert(0, str(REPO_ROOT))

from .lab import Lab, LabError, build_lab_binaries, build_testcluster_binaries, remove_work_dir  # noqa: E402

# Cold builds take long on 2 cores (kube-apiserver ~15 min, each operator a few minutes).
BUILD_TIMEOUT_S = float(os.environ.get("WMAP_LAB_BUILD_TIMEOUT", "3600"))
_LAB_KEY = pytest.StashKey["Lab"]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "lab: needs the cluster lab (tests/lab: real controllers, KWOK, operators)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if LAB_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.lab)


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"cluster lab unavailable under CI: {reason}", pytrace=False)
    pytest.skip(f"cluster lab unavailable: {reason}")


def _testcluster_bin() -> Path:
    try:
        return build_testcluster_binaries(BUILD_TIMEOUT_S)
    except (FileNotFoundError, subprocess.TimeoutExpired) as exc:
        unavailable(str(exc))
        raise  # unreachable: unavailable() skips or fails


def lab_bin(names: list[str]) -> Path:
    """The dir holding the lab binaries ``names`` (skips, or fails under CI, when they cannot be built)."""
    try:
        return build_lab_binaries(names, BUILD_TIMEOUT_S)
    except (FileNotFoundError, subprocess.TimeoutExpired) as exc:
        unavailable(str(exc))
        raise  # unreachable: unavailable() skips or fails


@pytest.fixture(scope="session")
def testcluster_bin() -> Path:
    """etcd, kube-apiserver and kubectl (skips, or fails under CI, when they are unavailable)."""
    return _testcluster_bin()


@pytest.fixture(scope="session")
def lab(request: pytest.FixtureRequest, testcluster_bin: Path) -> Iterator[Lab]:
    work_dir = Path(tempfile.mkdtemp(prefix="wmap-lab-"))
    instance = Lab(testcluster_bin, lab_bin, work_dir)
    request.config.stash[_LAB_KEY] = instance
    try:
        instance.start()
    except (LabError, OSError, RuntimeError) as exc:
        report = instance.report()
        instance.stop()
        pytest.fail(f"the lab did not start: {exc}\n{report}", pytrace=False)
    failed_before = request.session.testsfailed
    try:
        yield instance
    finally:
        instance.stop()
        if request.session.testsfailed == failed_before:
            remove_work_dir(work_dir)
        else:
            print(f"\nlab work dir kept (a lab test failed): {work_dir}", file=sys.stderr)


@pytest.fixture(autouse=True, scope="module")
def _module_namespaces_released(request: pytest.FixtureRequest) -> Iterator[None]:
    """A module's scenarios end with their workloads still running; the next module's must find the GPUs free."""
    yield
    instance = request.config.stash.get(_LAB_KEY, None)
    if instance is not None:
        instance.release_namespaces()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    instance = config.stash.get(_LAB_KEY, None)
    if instance is not None and instance.timings:
        terminalreporter.section("lab timings")
        for what, seconds in instance.timings.items():
            terminalreporter.write_line(f"{what}: {seconds:.1f} s")
        terminalreporter.write_line(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    report = yield
    instance = item.config.stash.get(_LAB_KEY, None)
    if instance is not None and getattr(report, "failed", False) and "lab" in getattr(item, "fixturenames", ()):
        report.sections.append(("lab processes (last lines of each log)", instance.report()))  # type: ignore[attr-defined]
    return report
