"""CLI errors: one line ``error: <what> (<where>): <why>``, an optional hint, and an exit code."""

from __future__ import annotations

import contextlib
import errno
import sys
from collections.abc import Iterator
from typing import IO, Any

import click

from workload_map.errors import NotFoundError, UnknownTypeError, WorkloadMapError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_NO_DEFINITION = 4
EXIT_PARTIAL = 5  # a live read saw only part of what was asked (forbidden or failed kinds/namespaces)


class CliError(click.ClickException):
    """An error already phrased for the user; never shown with a traceback."""

    def __init__(
        self,
        what: str,
        *,
        where: str = "",
        why: str = "",
        hint: str | None = None,
        exit_code: int = EXIT_ERROR,
    ) -> None:
        self.what = what
        self.where = where
        self.why = why
        self.hint = hint
        super().__init__(self.line())
        self.exit_code = exit_code  # type: ignore[misc]  # click declares it on the class

    def line(self) -> str:
        text = self.what
        if self.where:
            text += f" ({self.where})"
        if self.why:
            text += f": {self.why}"
        return text

    def show(self, file: IO[Any] | None = None) -> None:
        stream = file if file is not None else sys.stderr
        click.echo(f"error: {self.line()}", file=stream)
        if self.hint:
            click.echo(f"hint: {self.hint}", file=stream)


def not_found(type_name: str, name: str, namespace: str | None) -> CliError:
    where = f' in namespace "{namespace}"' if namespace else " in any namespace"
    return CliError(
        f'{type_name} "{name}" not found{where}',
        hint="list what exists with: wmap get " + type_name + (" -A" if namespace else ""),
        exit_code=EXIT_NOT_FOUND,
    )


def from_library(exc: Exception, what: str | None = None) -> CliError:
    """A library WorkloadMapError (or DocumentError) as a CLI error, keeping its location, detail and hint,
    with the exit code of its kind (docs/cli.md): not found 3, no definition for the type 4."""

    if isinstance(exc, WorkloadMapError):
        where = str(exc.location)
        hint = exc.hint
        if getattr(exc, "reason", None) == "NoConfiguration" and _reads_dumps():
            hint = f"{hint}, or --from-file PATH to read a dump"
        code = EXIT_NOT_FOUND if isinstance(exc, NotFoundError) else EXIT_ERROR
        code = EXIT_NO_DEFINITION if isinstance(exc, UnknownTypeError) else code
        if what is None:
            return CliError(exc.message, where=where, why=exc.detail, hint=hint, exit_code=code)
        why = f"{exc.message}: {exc.detail}" if exc.detail else exc.message
        return CliError(what, where=where, why=why, hint=hint, exit_code=code)
    return CliError(what or "failed", why=str(exc))


def _reads_dumps() -> bool:
    """The command being run has ``--from-file`` (a cluster-only command such as ``snapshot`` has not)."""
    ctx = click.get_current_context(silent=True)
    return ctx is not None and any(param.name == "from_file" for param in ctx.command.params)


@contextlib.contextmanager
def one_line_errors(debug: bool) -> Iterator[None]:
    """Every failure inside as one ``error:`` line, or as its traceback with ``--debug``: what ``wmap`` and
    ``wmap-operator`` do around their commands (docs/cli.md).

    A library error keeps its location and hint, an OSError names its file, anything else is an internal error.
    """
    try:
        yield
    except CliError:
        if debug:
            import traceback  # noqa: PLC0415 (only with --debug: every command runs inside this)

            traceback.print_exc()
        raise
    except (click.ClickException, click.exceptions.Exit, click.Abort):
        raise
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            raise  # click's main silences a closed pipe (wmap get | head)
        if debug:
            raise
        raise CliError("I/O error", where=exc.filename or "", why=exc.strerror or str(exc)) from None
    except Exception as exc:
        if debug:
            raise

        if isinstance(exc, WorkloadMapError):
            raise from_library(exc) from None
        raise CliError(
            "internal error",
            why=f"{type(exc).__name__}: {exc}",
            hint="rerun with --debug for a traceback, and please report it",
        ) from None
