"""The console scripts' entry (``wmap``, ``kubectl-wmap``): ``wmap --help`` is printed from the help cache
(``workload_map.cmdline.help_cache``) without importing click; everything else, and a help not cached yet,
runs :func:`workload_map.cli.main.main`.

Nothing but the interpreter's own modules and that cache's is imported here at load time.
"""

from __future__ import annotations

import os
import sys

from workload_map.cli.program import COMPLETE_VAR, MAX_CONTENT_WIDTH, prog_name
from workload_map.cmdline import help_cache

# The files that define what `--help` prints: the group (its options, docstring and command table), the
# program's name and width, and this one.
_HERE = os.path.dirname(__file__)
_DEFINITIONS = (__file__, os.path.join(_HERE, "program.py"), os.path.join(_HERE, "main.py"))


def main() -> None:
    prog = prog_name()
    if sys.argv[1:] in (["--help"], ["-h"]) and COMPLETE_VAR not in os.environ:
        text = help_cache.cached_help(prog, MAX_CONTENT_WIDTH, _DEFINITIONS)
        if text is not None:
            try:
                sys.stdout.write(text)
                sys.stdout.flush()
            except BrokenPipeError:  # the reader is gone (`wmap --help | true`): exit 1 quietly, as click does
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                raise SystemExit(1) from None
            return
        from workload_map.cli.main import group_help  # noqa: PLC0415 (click: only when the help is not cached)

        help_cache.store_help(prog, MAX_CONTENT_WIDTH, _DEFINITIONS, *group_help(prog))
    from workload_map.cli.main import main as run  # noqa: PLC0415 (click and the command table)

    run()
