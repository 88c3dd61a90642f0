"""What the ``wmap`` program is called and how wide its help is: shared by the console scripts' entry (which
prints a cached help without click) and the click group (which renders it). Standard library only."""

from __future__ import annotations

import os
import sys

COMPLETE_VAR = "_WMAP_COMPLETE"
MAX_CONTENT_WIDTH = 110


def prog_name() -> str:
    """``kubectl wmap`` when run as the kubectl plugin, else ``wmap``."""
    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "wmap"
    return "kubectl wmap" if prog == "kubectl-wmap" else "wmap"
