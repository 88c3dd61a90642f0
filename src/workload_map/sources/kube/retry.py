"""Waiting out a busy API server without waiting forever: retries, backoff, deadlines, cancellation.

API Priority and Fairness answers a request it cannot queue with 429 and ``Retry-After``; an API
server that is starting, overloaded or behind a proxy answers 5xx with ``Retry-After``. Those
requests were not executed, so trying again is safe and is what kubectl does. Every wait is bounded
twice: by the policy's attempts and cap, and by the command's overall :class:`Deadline`, so a
throttled or frozen server ends the command with a clear error instead of hanging it.

Used by ``sources/kube/connection.py`` for every request, and reusable by long-running readers
(``wmap serve``'s live model) that hold their own Deadline and CancelToken.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

# client-go retries a request at most 10 times; a CLI read gives up earlier, the deadline decides.
DEFAULT_ATTEMPTS = 8
DEFAULT_BASE = 0.25  # seconds: the first retry without Retry-After
DEFAULT_CAP = 8.0  # seconds: no single wait is longer, even if Retry-After asks for more
DEFAULT_REQUEST_TIMEOUT = 30.0  # seconds for one request when --request-timeout is not given


@dataclass(frozen=True)
class RetryPolicy:
    """Which failed responses are tried again, and how long to wait before each try."""

    attempts: int = DEFAULT_ATTEMPTS  # tries in all, the first one included
    base: float = DEFAULT_BASE
    cap: float = DEFAULT_CAP

    def retryable(self, method: str, status: int, retry_after: float | None) -> bool:
        """429 for any verb (the request was rejected before it ran); 5xx only for reads and only
        when the server says when to come back (client-go's rule: without Retry-After a 500 is an answer)."""
        if status == 429:
            return True
        return 500 <= status <= 599 and retry_after is not None and method in ("GET", "HEAD")

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random | None = None) -> float:
        """Seconds to wait before try ``attempt + 1`` (``attempt`` >= 1 tries done so far).

        Exponential (base * 2^(attempt-1)) with full jitter in its upper half, so that the workers of one
        command (and many clients) do not retry in lockstep; never less than Retry-After, never more than cap.
        """
        rng = rng or _RNG
        exponential = min(self.cap, self.base * (2 ** max(0, attempt - 1)))
        jittered = exponential * (0.5 + 0.5 * rng.random())
        if retry_after is not None:
            jittered = max(jittered, retry_after)
        return float(min(self.cap, jittered))


_RNG = random.Random()


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The ``Retry-After`` header as seconds (the API server sends whole seconds), or None."""
    if not headers:
        return None
    value = headers.get("Retry-After") or headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(str(value).strip())
    except ValueError:
        return None  # an HTTP-date: no API server sends one; fall back to the exponential delay
    return max(0.0, seconds)


@dataclass
class Deadline:
    """The end of a whole command (``--timeout``); None seconds means no overall limit."""

    seconds: float | None = None
    start: float = field(default_factory=time.monotonic)

    @property
    def end(self) -> float | None:
        return None if self.seconds is None else self.start + self.seconds

    def remaining(self) -> float | None:
        end = self.end
        return None if end is None else max(0.0, end - time.monotonic())

    def expired(self) -> bool:
        remaining = self.remaining()
        return remaining is not None and remaining <= 0.0

    def bound(self, timeout: float | None) -> float | None:
        """A per-request timeout that also ends when the deadline does."""
        remaining = self.remaining()
        if remaining is None:
            return timeout
        return remaining if timeout is None else min(timeout, remaining)

    def allows(self, wait: float) -> bool:
        """Whether waiting ``wait`` seconds still leaves time to send the request again."""
        remaining = self.remaining()
        return remaining is None or wait < remaining


class CancelToken:
    """Set once a command knows its answer is lost (a fatal error in one of its parallel lists), so the
    other lists stop at their next page or retry instead of each running to its own timeout."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""

    def cancel(self, reason: str = "") -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def sleep(self, seconds: float) -> bool:
        """Wait ``seconds`` unless cancelled first; True when the full wait happened."""
        return not self._event.wait(seconds)


__all__ = [
    "DEFAULT_REQUEST_TIMEOUT",
    "CancelToken",
    "Deadline",
    "RetryPolicy",
    "retry_after_seconds",
]
