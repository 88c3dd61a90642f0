"""jq engine for workload definitions: libjq semantics, sandboxed and bounded.

See bench/JQ_ENGINE.md for the design and measurements.
"""

from __future__ import annotations

from .errors import JqError, JqLimitError, JqRuntimeError, JqSandboxError, JqSyntaxError
from .limits import LIMITS, Limits
from .program import Program, Verdict, compile_expression, expression_errors, packed, prime, verdict, verdicts
from .sandbox import check_expression
from .text import to_text

__all__ = [
    "LIMITS",
    "JqError",
    "JqLimitError",
    "JqRuntimeError",
    "JqSandboxError",
    "JqSyntaxError",
    "Limits",
    "Program",
    "Verdict",
    "check_expression",
    "compile_expression",
    "expression_errors",
    "packed",
    "prime",
    "to_text",
    "verdict",
    "verdicts",
]
