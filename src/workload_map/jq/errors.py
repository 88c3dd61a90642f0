"""Error types of the jq engine; every failure a caller can see is a JqError."""

from __future__ import annotations


class JqError(Exception):
    """Base error: carries the expression, a 0-based position and the offending construct."""

    def __init__(
        self,
        message: str,
        expression: str = "",
        position: int | None = None,
        construct: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.expression = expression
        self.position = position
        self.construct = construct


class JqSyntaxError(JqError):
    """The expression does not parse (message from libjq)."""


class JqSandboxError(JqError):
    """The expression uses a construct the sandbox forbids."""


class JqRuntimeError(JqError):
    """Evaluation failed; the message is libjq's own error text."""


class JqLimitError(JqRuntimeError):
    """Evaluation exceeded a time, size or depth budget."""
