"""A click group's ``--help`` served without importing click: the text click rendered the first time, kept in
the on-disk cache's directory (``workload_map.base.cache_location``) and printed again while nothing that
decides it has changed.

Why: importing click alone costs more CPU than ``kubectl version --client`` in the same run (1.24x, load ~10;
``bench/bench_commands.py``); ``wmap --help`` through click cost 1.44x, served from here about a third of
that. The text still comes from click and from the group's definition only (one source of truth): an entry is
written from click's own rendering, and tests/cli/test_help_cache.py holds what is served equal to what
click prints.

What decides the text, all of it in the key an entry is checked against before it is printed:

- the code: the module defining the group, the console script's entry module, this module, and every module
  of the click package that would be imported (sizes and modification times, as ``.pyc`` files are checked),
  and the Python version (click wraps with ``textwrap``);
- the program name (``wmap``, ``kubectl wmap``);
- the width: click wraps at the terminal's columns as ``shutil.get_terminal_size`` gives them ($COLUMNS,
  else the terminal of stdout, else 80), less 2, between 50 and the group's ``max_content_width``; an entry
  is written only when click's own formatter has the width computed here;
- the language: click's own words ("Usage:", "Options") go through gettext, which reads $LANGUAGE, $LC_ALL,
  $LC_MESSAGES and $LANG.

Only plain ASCII text is kept (what click writes then does not depend on the stream's encoding). A missing,
foreign, stale or damaged entry is a miss: click renders the help as without this module and the entry is
written again.
"""

from __future__ import annotations

import os
import sys

from workload_map.base.cache_location import cache_directory

FORMAT = "wmap-help-1"
_LANGUAGE_ENV = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
_MIN_WIDTH = 50  # click.formatting.HelpFormatter's floor


def help_width(max_width: int) -> int:
    """The width click's HelpFormatter wraps at for a context with ``max_content_width=max_width``."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:  # as shutil.get_terminal_size, without importing shutil
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return max(min(columns, max_width) - 2, _MIN_WIDTH)


def _stat(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}:-"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def _click_files() -> list[str] | None:
    """The modules of the click package the interpreter would import, or None when it cannot be located."""
    from importlib.machinery import PathFinder  # noqa: PLC0415 (already loaded by the interpreter: no cost)

    spec = PathFinder.find_spec("click")
    if spec is None or not spec.origin:
        return None
    package = os.path.dirname(spec.origin)
    try:
        names = sorted(name for name in os.listdir(package) if name.endswith(".py"))
    except OSError:
        return None
    return [os.path.join(package, name) for name in names]


def _key(prog_name: str, width: int, modules: tuple[str, ...]) -> str | None:
    click_files = _click_files()
    if click_files is None:
        return None
    parts = [FORMAT, sys.version, prog_name, str(width)]
    parts += [f"{name}={os.environ.get(name, '')}" for name in _LANGUAGE_ENV]
    parts += [_stat(path) for path in (__file__, *modules, *click_files)]
    return repr(parts)  # one line: repr escapes every newline a path or a value could hold


def _entry(directory: str, prog_name: str, width: int) -> str:
    return os.path.join(directory, f"help-{prog_name.replace(' ', '-')}-{width}.txt")


def cached_help(prog_name: str, max_width: int, modules: tuple[str, ...]) -> str | None:
    """The help text stored for ``prog_name`` at the width in effect, when its key still holds (``modules``:
    the files that define the group), else None."""
    directory = cache_directory()
    if directory is None:
        return None
    width = help_width(max_width)
    try:
        with open(_entry(directory, prog_name, width), "rb") as stream:
            if os.fstat(stream.fileno()).st_uid != os.geteuid():
                return None
            # bytes.decode("ascii") needs no codec module (a text-mode open would import encodings.ascii)
            stored_key, newline, text = stream.read().decode("ascii").partition("\n")
    except (OSError, ValueError):  # absent, unreadable, or not ASCII (damaged): a miss
        return None
    key = _key(prog_name, width, modules)
    if not newline or key is None or stored_key != f"{key}:{len(text)}":
        return None
    return text


def store_help(prog_name: str, max_width: int, modules: tuple[str, ...], text: str, click_width: int) -> bool:
    """Keep ``text``, what click prints for ``--help`` with its formatter at ``click_width``; False (nothing
    written) when the cache is off or unwritable, the text is not ASCII, or click's width is not the one
    :func:`cached_help` would look up."""
    directory = cache_directory()
    width = help_width(max_width)
    if directory is None or click_width != width or not text.isascii():
        return False
    key = _key(prog_name, width, modules)
    if key is None:
        return False
    from pathlib import Path  # noqa: PLC0415 (only when writing)

    from workload_map.base.cache import write_file  # noqa: PLC0415 (only when writing)

    entry = Path(_entry(directory, prog_name, width))
    return write_file(entry.parent, entry.name, f"{key}:{len(text)}\n{text}".encode("ascii"))
