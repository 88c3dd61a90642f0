"""Where an operator's release lives in the Go module cache, and what the lab's cluster serves.

Launchers read CRDs and webhook manifests in place from the module cache (never copied into the
repository); ``go mod download`` puts the module there once, through the Go module proxy."""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import tempfile
import urllib.request
from functools import cache
from pathlib import Path
from typing import Any


def _go() -> str:
    found = shutil.which("go") or ("/usr/local/go/bin/go" if Path("/usr/local/go/bin/go").is_file() else None)
    if found is None:
        raise RuntimeError("the Go toolchain is needed to find operator sources in the module cache (go not on PATH)")
    return found


@cache
def module_dir(module: str, version: str) -> Path:
    """The directory of ``module@version`` in the Go module cache (downloaded when missing)."""
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [_go(), "mod", "download", "-json", f"{module}@{version}"],
            cwd=scratch,
            env={**os.environ, "GOFLAGS": "-mod=mod"},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"go mod download {module}@{version} failed: {done.stdout[-500:]} {done.stderr[-500:]}")
    return Path(json.loads(done.stdout)["Dir"])


def served_crds(kubeconfig: Path) -> set[str]:
    """The names (``plural.group``) of the CRDs the lab's API server has, read with the lab's kubeconfig."""
    config: dict[str, Any] = json.loads(kubeconfig.read_text())
    cluster = config["clusters"][0]["cluster"]
    token = config["users"][0]["user"]["token"]
    context = ssl.create_default_context(cafile=cluster["certificate-authority"])
    request = urllib.request.Request(
        cluster["server"] + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        headers={"Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, context=context, timeout=30) as answer:
        listing = json.load(answer)
    return {item["metadata"]["name"] for item in listing.get("items", [])}
