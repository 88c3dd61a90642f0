"""``make fuzz``: the property tests for a given time (FUZZ_SECONDS, default 600), a new seed each round.

Each round is one pytest run of tests/fuzz/test_properties.py with the ``fuzz`` hypothesis profile (random,
more examples); a failing round is a crash found (hypothesis prints the shrunk example and keeps it in
.hypothesis/, so the next round tries it first).
Prints the rounds and crashes; exits 1 if any crash was found.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    budget = float(os.environ.get("FUZZ_SECONDS", "600"))
    examples = os.environ.get("WMAP_FUZZ_EXAMPLES", "200")
    seed = int(os.environ.get("FUZZ_SEED", str(random.SystemRandom().randrange(2**32))))
    # Random rounds try huge strings and expressions of megabytes; the seeded unit run keeps them small.
    huge = os.environ.get("WMAP_FUZZ_HUGE", "3000000")
    env = {**os.environ, "WMAP_HYPOTHESIS_PROFILE": "fuzz", "WMAP_FUZZ_EXAMPLES": examples, "WMAP_FUZZ_HUGE": huge}
    started = time.monotonic()
    rounds = crashes = 0
    while rounds == 0 or time.monotonic() - started < budget:
        round_seed = seed + rounds
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(HERE / "test_properties.py"),
            f"--hypothesis-seed={round_seed}",
        ]
        print(f"fuzz round {rounds + 1}: seed {round_seed}, {examples} examples per property", flush=True)
        result = subprocess.run(command, env=env, cwd=HERE.parents[1], check=False)
        rounds += 1
        if result.returncode != 0:
            crashes += 1
            print(f"fuzz round {rounds}: FAILED (seed {round_seed}); the failing example is printed above", flush=True)
    elapsed = time.monotonic() - started
    print(f"fuzz: {rounds} round(s) in {elapsed:.0f} s, {crashes} crash(es) (first seed {seed})")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
