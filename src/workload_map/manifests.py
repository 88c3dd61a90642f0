"""``python -m workload_map.manifests [--check] [--root DIR]``: write (or check) the generated deployment files.

Writes ``deploy/crd/kartas.run.ai.yaml``, the chart's ``templates/crd-kartas.yaml`` and its RBAC-derived
``templates/clusterrole.yaml`` and ``templates/serve-rbac.yaml`` under the
repository root (default: the current directory). With ``--check`` nothing is written and the exit status
is 1 when a file is missing or stale.

A build tool run from a checkout, at the top of the layers: it renders what the definition layer (the CRD)
and the operator (its RBAC) each generate, so neither has to import the other.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workload_map.crd import render_chart_template, render_crd
from workload_map.operator.rbac import render_clusterrole_template, render_serve_rbac_template

CRD_PATH = Path("deploy/crd/kartas.run.ai.yaml")
CHART_CRD_PATH = Path("charts/workload-map/templates/crd-kartas.yaml")
CHART_CLUSTERROLE_PATH = Path("charts/workload-map/templates/clusterrole.yaml")
CHART_SERVE_RBAC_PATH = Path("charts/workload-map/templates/serve-rbac.yaml")


def generated_files() -> dict[Path, str]:
    return {
        CRD_PATH: render_crd(),
        CHART_CRD_PATH: render_chart_template(),
        CHART_CLUSTERROLE_PATH: render_clusterrole_template(),
        CHART_SERVE_RBAC_PATH: render_serve_rbac_template(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workload_map.manifests", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="repository root (default: .)")
    parser.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    parser.add_argument("--stdout", action="store_true", help="print the CRD instead of writing files")
    args = parser.parse_args(argv)
    if args.stdout:
        sys.stdout.write(render_crd())
        return 0
    stale = []
    for rel, text in generated_files().items():
        path = args.root / rel
        if args.check:
            if not path.is_file() or path.read_text() != text:
                stale.append(str(rel))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {rel}", file=sys.stderr)
    if stale:
        print(f"stale generated files: {', '.join(stale)}; run python -m workload_map.manifests", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
