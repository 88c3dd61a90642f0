"""Where the on-disk cache lives (``workload_map.base.cache`` says what it keeps and how), found with ``os``
alone: ``wmap --help`` reads its entry there before it loads click, pathlib or hashlib
(``workload_map.cmdline.help_cache``)."""

from __future__ import annotations

import os

CACHE_DIR_ENV = "WMAP_CACHE_DIR"
NO_CACHE_ENV = "WMAP_NO_CACHE"


def cache_directory() -> str | None:
    """``$WMAP_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/workload-map/compiled``, else
    ``~/.cache/workload-map/compiled``; None when ``WMAP_NO_CACHE`` turns the cache off or there is no home."""
    if os.environ.get(NO_CACHE_ENV, "") not in ("", "0"):
        return None
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return os.path.join(base, "workload-map", "compiled")
    home = os.path.expanduser("~")
    if home.startswith("~"):  # no home directory to speak of (where pathlib.Path.home raises)
        return None
    return os.path.join(home, ".cache", "workload-map", "compiled")
