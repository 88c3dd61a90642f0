"""`wmap --help` from the help cache (workload_map.cmdline.help_cache): what it serves is what click printed for
the same program name, width and language, and serving it loads no click; anything else is a miss."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import click
import pytest

from workload_map.base import cache
from workload_map.cli.program import MAX_CONTENT_WIDTH
from workload_map.cmdline import help_cache

# The console script's entry, as PROG; then whether click was loaded, on stderr.
CODE = (
    "import sys\n"
    "sys.argv[0] = sys.argv.pop(1)\n"
    "from workload_map.cli.entry import main\n"
    "try:\n"
    "    main()\n"
    "finally:\n"
    "    sys.stderr.write('click loaded' if 'click' in sys.modules else 'no click')\n"
)


def run(cache_dir: Path, prog: str, *args: str, **env: str) -> tuple[str, str]:
    environ = {**os.environ, cache.CACHE_DIR_ENV: str(cache_dir), **env}
    environ.pop(cache.NO_CACHE_ENV, None)
    if "COLUMNS" not in env:
        environ.pop("COLUMNS", None)
    result = subprocess.run(
        [sys.executable, "-c", CODE, prog, *args], capture_output=True, text=True, env=environ, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout, result.stderr


@pytest.mark.parametrize(
    ("prog", "option", "env"),
    [
        ("wmap", "--help", {}),  # a pipe: 80 columns
        ("kubectl-wmap", "--help", {"COLUMNS": "60"}),
        ("wmap", "-h", {"COLUMNS": "200"}),  # beyond max_content_width
    ],
)
def test_served_help_is_what_click_printed(tmp_path: Path, prog: str, option: str, env: dict[str, str]) -> None:
    printed, first = run(tmp_path, prog, option, **env)  # a miss: click prints, and the text is kept
    assert first == "click loaded"
    assert printed.startswith(f"Usage: {prog.replace('-', ' ')} [OPTIONS] COMMAND")
    assert run(tmp_path, prog, option, **env) == (printed, "no click")


def test_what_decides_the_text_is_a_miss(tmp_path: Path) -> None:
    printed, _ = run(tmp_path, "wmap", "--help", LANG="C.UTF-8")
    assert run(tmp_path, "wmap", "--help", LANG="de_DE.UTF-8") == (printed, "click loaded")  # gettext's language
    assert run(tmp_path, "wmap", "--help", LANG="de_DE.UTF-8") == (printed, "no click")
    wide, served = run(tmp_path, "wmap", "--help", LANG="de_DE.UTF-8", COLUMNS="100")  # another width
    assert served == "click loaded" and wide != printed
    assert run(tmp_path, "kubectl-wmap", "--help", LANG="de_DE.UTF-8")[1] == "click loaded"  # another name


def test_a_damaged_or_foreign_entry_is_a_miss(tmp_path: Path) -> None:
    printed, _ = run(tmp_path, "wmap", "--help")
    (entry,) = tmp_path.glob("help-*")
    whole = entry.read_bytes()
    for damaged in (whole[:-10], whole.replace(b"Usage", b"Usag\xe9"), whole.replace(b"help-1", b"help-0", 1)):
        entry.write_bytes(damaged)
        assert run(tmp_path, "wmap", "--help") == (printed, "click loaded")
        assert entry.read_bytes() == whole  # written again whole
    if os.geteuid() == 0:  # another user's entry (only root can make one here) is never printed
        os.chown(entry, 65534, -1)
        assert run(tmp_path, "wmap", "--help") == (printed, "click loaded")
        assert entry.stat().st_uid == 0


def test_other_arguments_run_click(tmp_path: Path) -> None:
    run(tmp_path, "wmap", "--help")
    out, loaded = run(tmp_path, "wmap", "version")
    assert out.startswith("wmap version") and loaded == "click loaded"


@pytest.mark.parametrize("columns", ["", "0", "abc", "40", "72", "112", "300"])
def test_width_is_clicks(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    assert help_cache.help_width(MAX_CONTENT_WIDTH) == click.formatting.HelpFormatter(max_width=MAX_CONTENT_WIDTH).width


@pytest.mark.parametrize("terminal", [30, 95, 150])
def test_width_on_a_terminal_is_clicks(monkeypatch: pytest.MonkeyPatch, terminal: int) -> None:
    try:
        controller, terminal_fd = pty.openpty()
    except OSError as exc:  # a sandbox without pseudo-terminals: the COLUMNS and pipe cases above still run
        pytest.skip(f"no pseudo-terminal: {exc}")
    try:
        fcntl.ioctl(terminal_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, terminal, 0, 0))
        with os.fdopen(os.dup(terminal_fd), "w") as stdout:
            monkeypatch.setattr(sys, "__stdout__", stdout)
            monkeypatch.delenv("COLUMNS", raising=False)
            width = click.formatting.HelpFormatter(max_width=MAX_CONTENT_WIDTH).width
            assert help_cache.help_width(MAX_CONTENT_WIDTH) == width
    finally:
        os.close(controller)
        os.close(terminal_fd)
