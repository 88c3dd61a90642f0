"""Evaluation budgets; one mutable instance so a host process can tune them."""

from __future__ import annotations

from workload_map.base.model import Model


class Limits(Model, frozen=False, kw_only=False):
    timeout_seconds: float = 1.0
    max_input_bytes: int = 8 * 1024 * 1024
    max_output_bytes: int = 8 * 1024 * 1024
    max_string_bytes: int = 1024 * 1024
    # orjson's fixed nesting limit; documented so error messages can name it.
    max_input_depth: int = 254
    worker_memory_bytes: int = 1024 * 1024 * 1024
    # Steps (outputs produced) of the in-process fast path before it gives up.
    max_fast_steps: int = 1_000_000
    max_expression_chars: int = 16 * 1024


LIMITS = Limits()
