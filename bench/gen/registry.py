"""The framework registry: ``@framework`` records each framework's one builder with its shape sampler, states,
weight and name pool.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .core import Built, Ctx, W


@dataclass(frozen=True)
class Framework:
    name: str
    build: Callable[[Ctx, W], Built]
    sample: Callable[[random.Random, int], dict[str, Any]]  # rng, target pod count -> shape
    states: dict[str, int]  # state -> weight
    weight: int
    names: tuple[str, ...]


# Filled by the @framework decorators; gen.frameworks.FRAMEWORKS is the same in generation order.
REGISTERED: dict[str, Framework] = {}


def framework(
    name: str,
    *,
    weight: int,
    states: dict[str, int],
    names: tuple[str, ...],
    sample: Callable[[random.Random, int], dict[str, Any]],
) -> Callable[[Callable[[Ctx, W], Built]], Callable[[Ctx, W], Built]]:
    """Register the one builder of a framework (with its shape sampler, states and name pool)."""

    def deco(fn: Callable[[Ctx, W], Built]) -> Callable[[Ctx, W], Built]:
        REGISTERED[name] = Framework(name, fn, sample, states, weight, names)
        return fn

    return deco


def sample_gpus(rng: random.Random, choices: tuple[int, ...] = (1, 2, 4, 8, 8, 8)) -> int:
    return rng.choice(choices)
