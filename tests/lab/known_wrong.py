"""Steps of the lab's scenarios where wmap disagrees with docs/semantics.md: (framework, scenario, step) ->
the rule broken and why. Their tests are ``xfail(strict=True)``, in the lab and in the replay of the
recordings (tests/lab_replay), so a fix shows up as an unexpected pass in both."""

from __future__ import annotations

KNOWN_WRONG: dict[tuple[str, str, str], str] = {}
