"""Build never-seen operators from their snapshots and capture, in the cluster lab, what they do.

For drafts made from live behaviour (issue 31): each run-config ``bench/authoring_live/<owner>+<name>.yaml``
(format: that folder's README.md; checked by live_config.py) names a snapshot under /work/.mirror, the
commit, the main package, how to run it and which samples to apply.

- ``build``: the operator's binary (live_build.py: unpacked once, ``go build`` under the machine-wide build
  lock, cached by repo + commit + package + ``go version``); a failed build is named with the compiler's
  last lines.
- ``capture``: build (cached), then run it in a lab of its own and record, per sample object, the root and
  everything whose owner chain reaches it (live_capture.py) into
  ``~/.cache/workload-map/authoring-live/captures/<owner>+<name>-<commit12>/<sample-file-stem>-<name>.yaml``,
  with the operator's log beside them. ``bench/score_authoring.py --unseen --live`` drafts with them.

Usage (NAME: a run-config's stem; none: every one):
    .venv/bin/python -m bench.authoring_live build [NAME ...]
    .venv/bin/python -m bench.authoring_live capture [NAME ...] [--quiet S] [--max S]
Exit code 1 when a config, build or capture failed (the others still run), 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO_ROOT = BENCH.parent
for where in (BENCH, REPO_ROOT):  # run as `python -m bench.authoring_live` or as a script: siblings and tests.lab
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))

import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

from tests.lab.lab import Lab, LabError, build_lab_binaries, build_testcluster_binaries  # noqa: E402

from live_build import MIRROR, BuildError, Built, build  # noqa: E402
from live_capture import MAX_S, QUIET_S, capture  # noqa: E402
from live_config import CACHE, CONFIGS, ConfigError, RunConfig, load_config  # noqa: E402

LAB_BUILD_TIMEOUT_S = 3600.0


def configs(directory: Path, names: list[str]) -> tuple[list[RunConfig], list[str]]:
    """The named run-configs (all when none named), and an error per file that does not load."""
    available = {p.stem: p for p in sorted(directory.glob("*.yaml"))}
    unknown = [n for n in names if n not in available]
    errors = [f"no run-config {n} in {directory} (there are: {', '.join(available) or 'none'})" for n in unknown]
    loaded = []
    for name in names or list(available):
        if name in available:
            try:
                loaded.append(load_config(available[name]))
            except ConfigError as exc:
                errors.append(str(exc))
    return loaded, errors


def _lab_factory() -> Callable[[Path], Lab]:
    """Labs on the binaries tools/testcluster/build.sh and tools/lab/build.sh give (built once, cached)."""
    cluster_bin = build_testcluster_binaries(LAB_BUILD_TIMEOUT_S)

    def make(work: Path) -> Lab:
        return Lab(cluster_bin, lambda names: build_lab_binaries(names, LAB_BUILD_TIMEOUT_S), work)

    return make


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build", "capture"])
    parser.add_argument("names", nargs="*", metavar="NAME", help="run-config stems (default: all)")
    parser.add_argument("--configs", type=Path, default=CONFIGS, help="the run-config folder [%(default)s]")
    parser.add_argument("--cache", type=Path, default=CACHE, help="sources, binaries, captures [%(default)s]")
    parser.add_argument("--mirror", type=Path, default=MIRROR, help="the snapshots <owner>+<name>/repo [%(default)s]")
    parser.add_argument(
        "--adopt",
        action="store_true",
        help="take a binary already in the cache without a stamp (built by hand in the same layout) as built",
    )
    parser.add_argument("--quiet", type=float, default=None, help="end a recording after S s without change [15]")
    parser.add_argument("--max", type=float, default=None, help="end a recording after S s anyway [180]")
    args = parser.parse_intermixed_args(argv)  # names before or after the options
    loaded, errors = configs(args.configs, args.names)
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    failed = bool(errors)
    for config in loaded:
        try:
            built = build(config, args.cache, args.mirror, adopt=args.adopt)
        except BuildError as exc:
            print(f"{config.name}: BUILD FAILED: {exc}", file=sys.stderr)
            failed = True
            continue
        how = "cached" if built.cached else f"built in {built.seconds:.0f} s"
        print(f"{config.name}: {how}: {built.binary}", flush=True)
        if args.command == "capture":
            failed |= not _capture(config, built, args)
    return 1 if failed else 0


def _capture(config: RunConfig, built: Built, args: argparse.Namespace) -> bool:
    began = time.monotonic()
    out_root = args.cache / "captures"
    try:
        outcomes = capture(
            config,
            built,
            lab_factory=_lab_factory(),
            out_root=out_root,
            quiet_s=args.quiet if args.quiet is not None else QUIET_S,
            max_s=args.max if args.max is not None else MAX_S,
            say=lambda line: print(f"{config.name}: {line}", flush=True),
        )
    except (LabError, OSError, RuntimeError, ValueError) as exc:
        print(f"{config.name}: CAPTURE FAILED: {exc}", file=sys.stderr)
        return False
    recorded = sum(o.recording is not None for o in outcomes)
    print(
        f"{config.name}: {recorded}/{len(outcomes)} sample object(s) recorded in {time.monotonic() - began:.0f} s "
        f"-> {out_root / config.key}",
        flush=True,
    )
    return recorded == len(outcomes) and bool(outcomes)


if __name__ == "__main__":
    sys.exit(main())
