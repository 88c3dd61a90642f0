"""The cluster lab's binaries (tools/lab/build.sh) start and are the versions tools/lab pins.

Marker ``lab`` (``make lab``). A cold build of all of them takes most of an hour, so the test does not
build: it reads ``$WMAP_LAB_BIN`` or the default cache directory, skips a binary that is not built yet
locally, and fails under CI (``$CI`` set).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
TOOLS = REPO_ROOT / "tools"


@dataclass(frozen=True)
class LabBinary:
    name: str
    group: str  # its Go module directory under tools/
    module: str  # the Go module whose pinned version the binary is built from
    args: tuple[str, ...]  # a command line that exits 0 without a cluster
    prints_version: bool  # whether that command prints the pinned version
    exit_code: int = 0  # pflag without ExitOnError's help special case exits 2 after printing usage


BINARIES = (
    LabBinary("kube-controller-manager", "testcluster", "k8s.io/kubernetes", ("--version",), True),
    LabBinary("kube-scheduler", "testcluster", "k8s.io/kubernetes", ("--version",), True),
    LabBinary("kwok", "lab/kwok", "sigs.k8s.io/kwok", ("--version",), True),
    LabBinary("jobset", "lab/jobset-kuberay", "sigs.k8s.io/jobset", ("-help",), False),
    LabBinary(
        "kuberay",
        "lab/jobset-kuberay",
        "github.com/ray-project/kuberay/ray-operator",
        ("-help",),
        False,
    ),
    LabBinary("kueue", "lab/kueue", "sigs.k8s.io/kueue", ("-help",), False),
    LabBinary("lws", "lab/lws", "sigs.k8s.io/lws", ("-help",), False),
    # A kube-scheduler: it reports the Kubernetes release it is built on (v1.33.5), as upstream's image does,
    # not scheduler-plugins' own tag; the build information below checks the tag.
    LabBinary(
        "coscheduling",
        "lab/scheduler-plugins",
        "sigs.k8s.io/scheduler-plugins",
        ("--version",),
        False,
    ),
    LabBinary(
        "coscheduling-controller",
        "lab/scheduler-plugins",
        "sigs.k8s.io/scheduler-plugins",
        ("--help",),
        False,
        2,
    ),
    LabBinary(
        "training-operator",
        "lab/training-operator",
        "github.com/kubeflow/training-operator",
        ("-help",),
        False,
    ),
    LabBinary("mpi-operator", "lab/mpi-operator", "github.com/kubeflow/mpi-operator", ("--version",), True),
    LabBinary("trainer", "lab/trainer", "github.com/kubeflow/trainer/v2", ("-help",), False),
)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"lab binary unavailable under CI: {reason}", pytrace=False)
    pytest.skip(f"lab binary unavailable: {reason}")


def _bin_dir() -> Path:
    env_bin = os.environ.get("WMAP_LAB_BIN")
    if env_bin:
        return Path(env_bin)
    cache = os.environ.get("WMAP_LAB_CACHE") or str(Path.home() / ".cache/workload-map/lab")
    return Path(cache) / "bin"


def _pinned_version(binary: LabBinary) -> str:
    """The version the binary's module requires (its go.mod), the single place the pin lives."""
    go_mod = (TOOLS / binary.group / "go.mod").read_text(encoding="utf-8")
    match = re.search(rf"^\s*(?:require\s+)?{re.escape(binary.module)}\s+(v\S+)", go_mod, re.MULTILINE)
    assert match, f"tools/{binary.group}/go.mod does not require {binary.module}"
    return match.group(1)


def _go() -> str:
    go = shutil.which("go") or ("/usr/local/go/bin/go" if Path("/usr/local/go/bin/go").is_file() else None)
    if go is None:
        _unavailable("no go toolchain to read the binaries' build information")
    assert go is not None
    return go


@pytest.mark.parametrize("binary", BINARIES, ids=lambda b: b.name)
def test_lab_binary_starts_and_is_the_pinned_version(binary: LabBinary) -> None:
    path = _bin_dir() / binary.name
    if not path.is_file():
        _unavailable(f"{path} not built (bash tools/lab/build.sh {binary.name})")
    pinned = _pinned_version(binary)

    proc = subprocess.run(
        [str(path), *binary.args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == binary.exit_code, f"{binary.name} {' '.join(binary.args)}: {output[-2000:]}"
    if binary.prints_version:
        assert pinned in output, f"{binary.name} does not report {pinned}: {output[-500:]}"

    # The module versions linked into the binary, as Go records them (`mod` for the module of the
    # main package, `dep` for the others): the pinned release, whatever the binary prints.
    build_info = subprocess.run(
        [_go(), "version", "-m", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert re.search(
        rf"^\s*(?:mod|dep)\s+{re.escape(binary.module)}\s+{re.escape(pinned)}\s", build_info, re.MULTILINE
    ), f"{binary.name} is not built from {binary.module} {pinned}:\n{build_info[:1500]}"
