"""Printing the way kubectl prints: tables, ages, JSON/YAML documents and trailing warnings."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.console import Console

COLUMN_GAP = "   "
NONE = "<none>"


def now() -> datetime:
    return datetime.now(UTC)


MIN_TRUNCATED = 12  # a truncated column keeps at least this many characters (ellipsis included)


def format_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    width: int | None = None,
    optional: Sequence[str] = (),
    truncate: Sequence[str] = (),
) -> str:
    """Upper-case headers, three spaces between columns, widths from the content. Within ``width`` (a
    terminal's columns; None: never cut): the ``optional`` columns are left out, the first named first, until
    the table fits; then the widest ``truncate`` column is cut (with an ellipsis), until it fits or every one
    is down to MIN_TRUNCATED. ``-o wide`` and output to a pipe pass no width: everything, whole."""
    table = [[h.upper() for h in headers], *[[str(c) for c in row] for row in rows]]
    keep = list(range(len(headers)))
    widths = [max(len(row[i]) for row in table) for i in range(len(headers))]

    def total() -> int:
        return sum(widths[i] for i in keep) + len(COLUMN_GAP) * (len(keep) - 1)

    if width is not None:
        names = [h.upper() for h in headers]
        for name in optional:
            if total() <= width:
                break
            if name.upper() in names and names.index(name.upper()) in keep:
                keep.remove(names.index(name.upper()))
        cuttable = [names.index(n.upper()) for n in truncate if n.upper() in names and names.index(n.upper()) in keep]
        while total() > width and cuttable:
            widest = max(cuttable, key=lambda i: widths[i])
            if widths[widest] <= MIN_TRUNCATED:
                break
            widths[widest] = max(MIN_TRUNCATED, widths[widest] - (total() - width))
    ellipsis = "…" if can_encode("…", stdout_encoding()) else "~"

    def cell(text: str, i: int) -> str:
        return text if len(text) <= widths[i] else text[: widths[i] - 1] + ellipsis

    lines = [COLUMN_GAP.join(cell(row[i], i).ljust(widths[i]) for i in keep).rstrip() for row in table]
    return "\n".join(lines) + "\n"


def terminal_width() -> int | None:
    """The terminal's columns when stdout is one (``$COLUMNS`` first, as the shell sets it), else None: a
    pipe or a file gets whole rows, for scripts, as kubectl does."""
    if not _is_tty(sys.stdout):
        return None
    import shutil  # noqa: PLC0415 (only on a terminal: shutil loads the compression modules, start-up)

    return shutil.get_terminal_size().columns


def echo_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    optional: Sequence[str] = (),
    truncate: Sequence[str] = (),
    fit: bool = True,
) -> None:
    """Print a table; ``fit``: within the terminal's width (format_table), not for ``-o wide``."""
    width = terminal_width() if fit else None
    click.echo(format_table(headers, rows, width=width, optional=optional, truncate=truncate), nl=False)


def human_duration(seconds: float) -> str:
    """kubectl's ``duration.HumanDuration`` (the AGE column)."""
    total = int(seconds)
    if total < -1:
        return "<invalid>"
    if total < 0:
        return "0s"
    if total < 120:
        return f"{total}s"
    minutes = total // 60
    if minutes < 10:
        rest = total % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = total // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        return f"{hours // 24 // 365}y{days}d" if days else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"


def parse_timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def age(timestamp: Any) -> str:
    created = parse_timestamp(timestamp)
    if created is None:
        return "<unknown>"
    return human_duration((now() - created).total_seconds())


def number(value: Any) -> str:
    """Quantities without a spurious ``.0`` (GPU counts are usually whole)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def to_json_text(data: Any) -> str:
    import orjson  # noqa: PLC0415 (a command's --help loads only click)

    from workload_map.ports.objects import dumps  # noqa: PLC0415 (a command's --help loads only click)

    return dumps(data, option=orjson.OPT_INDENT_2, default=str).decode() + "\n"


def to_yaml_text(data: Any) -> str:
    import yaml  # noqa: PLC0415 (a command's --help loads only click)

    dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text = yaml.dump(data, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1 << 16)
    return str(text)


def as_list(items: list[Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": items}


def echo_document(data: Any, fmt: str) -> None:
    click.echo(to_json_text(data) if fmt == "json" else to_yaml_text(data), nl=False)


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def emit_warnings(warnings: Iterable[str]) -> None:
    """``Warning: ...`` lines on stderr, after stdout is flushed so the two never interleave."""
    seen: set[str] = set()
    lines = []
    for warning in warnings:
        text = one_line(warning)
        if text and text not in seen:
            seen.add(text)
            lines.append(f"Warning: {text}")
    if not lines:
        return
    sys.stdout.flush()
    for line in lines:
        click.echo(line, err=True)


def _is_tty(stream: IO[Any]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def stdout_encoding() -> str:
    """The encoding of the real stdout (click forces UTF-8 on ASCII locales; the fallback must not)."""
    return str(getattr(sys.stdout, "encoding", None) or "ascii")


def can_encode(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


class _Capture(io.StringIO):
    """A string buffer that claims the real stream's encoding, so rich picks ASCII guides when needed."""

    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def console(stream: IO[Any] | None = None) -> Console:
    """A rich console for ``stream`` (default stdout): colour only on a terminal, never with NO_COLOR,
    no wrapping when piped."""
    from rich.console import Console  # noqa: PLC0415 (a command's --help loads only click)

    target = stream if stream is not None else sys.stdout
    tty = _is_tty(target)
    no_color = bool(os.environ.get("NO_COLOR"))
    return Console(
        file=target,
        force_terminal=tty,
        color_system=None if (no_color or not tty) else "auto",
        no_color=no_color or not tty,
        width=None if tty else 1 << 15,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=not tty,
    )


def render(renderable: Any) -> str:
    """Render with rich for stdout, as text to print with click (keeps one writer on stdout)."""
    from rich.console import Console  # noqa: PLC0415 (a command's --help loads only click)

    tty = _is_tty(sys.stdout)
    no_color = bool(os.environ.get("NO_COLOR"))
    color = tty and not no_color
    buffer = _Capture("utf-8" if can_encode("└─├│", stdout_encoding()) else "ascii")
    width = terminal_width()
    out = Console(
        file=buffer,
        force_terminal=color,
        color_system="auto" if color else None,
        no_color=not color,
        width=width or 1 << 15,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=not tty,
    )
    out.print(renderable)
    return buffer.getvalue()


def stderr_is_tty() -> bool:
    return _is_tty(sys.stderr)
