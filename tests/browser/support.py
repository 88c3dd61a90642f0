"""A real browser (Debian's Chromium driven by Playwright) against a real `wmap serve` process."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "src" / "workload_map" / "examples" / "ai-cluster.yaml"
ARTIFACTS = Path(os.environ.get("WMAP_TEST_ARTIFACTS", ROOT / ".test-artifacts"))
WMAP = (sys.executable, "-m", "workload_map.cli.main")


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs the Debian package)")
        pytest.skip("chromium is not installed: apt-get install chromium")
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve(*args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`wmap serve ARGS` on a free port until the block ends; yields its base URL once it is ready."""
    port = free_port()
    proc = subprocess.Popen(
        [*WMAP, "serve", "--port", str(port), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(base + "/readyz", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise AssertionError(f"wmap serve did not start: {err}") from None
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        # a bound, not a measure: serve gives its HTTP loop 10 s and each cluster's model 5 s to end, and a
        # loaded machine (the live suite runs two workers) can use all of it for a fleet
        proc.wait(timeout=60)


@contextmanager
def browser_page() -> Iterator[Any]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            yield page
        finally:
            browser.close()


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
