"""``wmap`` leaves no process behind: the libjq worker ends before the command does, however it ends.

Each run is the installed console script in a session of its own (its process group), on a definition
whose status expression needs libjq (a regular expression with a character class), so the worker
starts. After the command has ended, no process of that group may be alive. The signal cases
interrupt the command while it is still running: its output (larger than a pipe's buffer) is not read
until the signal has been sent.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from processes import children_of, in_group, wait_until

from .conftest import WMAP

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

WIDGETS = 2000  # rows: well over a pipe's 64 KiB, so the command blocks until its output is read
DEFINITION = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: test-wmap-io-widget-v1}
spec:
  structureDefinition:
    rootComponent:
      name: widget
      kind: {group: test.wmap.io, version: v1, kind: Widget}
      statusDefinition:
        statusMappings:
          running:
            - byExpression: {expression: '.status.phase // "" | test("^R[a-z]+g$")', expectedResult: "true"}
"""


@pytest.fixture(scope="module")
def widgets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("widgets")
    definition = root / "widget.yaml"
    definition.write_text(DEFINITION)
    items = [
        {
            "apiVersion": "test.wmap.io/v1",
            "kind": "Widget",
            "metadata": {"name": f"widget-{i:05d}", "namespace": "default", "uid": f"uid-{i}"},
            "status": {"phase": "Running" if i % 2 else "Pending"},
        }
        for i in range(WIDGETS)
    ]
    dump = root / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return dump, definition


def start(dump: Path, definition: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(WMAP), "get", *extra, "--from-file", str(dump), "--definitions", str(definition)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the command and whatever it started
    )


def assert_nothing_left(proc: subprocess.Popen[bytes]) -> None:
    left = in_group(proc.pid)
    assert left == [], f"processes of wmap's group alive after it ended: {left}"


def test_worker_started_and_gone_after_a_normal_exit(widgets: tuple[Path, Path]) -> None:
    proc = start(*widgets, "-A")
    wait_until(lambda: children_of(proc.pid) or proc.poll() is not None, "the libjq worker starts")
    assert children_of(proc.pid), "the definition's expression needs libjq: the worker should run"
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    assert out.count(b"\n") == WIDGETS + 1
    assert_nothing_left(proc)


def test_worker_gone_after_an_error(widgets: tuple[Path, Path]) -> None:
    # widget-00001 is resolved (the worker starts), then the missing name fails the command
    proc = start(*widgets, "widgets", "widget-00001", "widget-missing")
    _, err = proc.communicate()
    assert proc.returncode == 3, err
    assert b'"widget-missing" not found' in err
    assert b"Traceback" not in err
    assert_nothing_left(proc)


@pytest.mark.parametrize(
    "how",
    ["ctrl-c", "sigterm"],
)
def test_worker_gone_after_an_interruption(widgets: tuple[Path, Path], how: str) -> None:
    proc = start(*widgets, "-A")
    wait_until(lambda: children_of(proc.pid), "the libjq worker starts")
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C signals the whole foreground group
    else:
        proc.send_signal(signal.SIGTERM)  # what `kill`, timeout(1) and container runtimes send
    _, err = proc.communicate()
    assert proc.returncode != 0, err
    assert b"Traceback" not in err
    assert_nothing_left(proc)
