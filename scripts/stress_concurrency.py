#!/usr/bin/env python3
"""Run the concurrency tests again and again while every CPU core is kept busy.

A race such as "a spool entry vanished between ``listdir`` and ``lstat``" (issue 20,
defect 10) shows only when the scheduler preempts a process in a window a few
microseconds wide. On an idle machine the suite passes a thousand times; on a loaded CI
runner it failed once in a while. So CI does not wait for luck: it starts one busy-looping
burner process per core (the tests then fight for the CPU, and preemption lands inside
those windows far more often), and runs the tests that pit processes against each other
``--rounds`` times over with two xdist workers, stopping at the first failure.

Usage: ``uv run scripts/stress_concurrency.py [--rounds N] [--burners N] [pytest args]``
(with no pytest args, the concurrency tests listed in ``TESTS``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Tests whose processes race each other over the spool, the lock and the files.
TESTS = [
    "packages/missioncache-time/tests/test_concurrency.py",
    "packages/missioncache-spool/tests/test_spool_quarantine.py",
    "harness/tests/reliability/test_concurrency.py",
]

_BURN = "while True: pass"


def _burners(count: int) -> list[subprocess.Popen]:
    """Busy-looping processes that compete with the tests for every core."""
    return [
        subprocess.Popen([sys.executable, "-S", "-c", _BURN], stdin=subprocess.DEVNULL)
        for _ in range(count)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("STRESS_ROUNDS", "3")))
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2)
    args, pytest_args = parser.parse_known_args(argv)
    command = [sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider"]
    command += pytest_args or TESTS
    burners = _burners(args.burners)
    try:
        for round_number in range(1, args.rounds + 1):
            print(f"== stress round {round_number}/{args.rounds} ({args.burners} burners)")
            done = subprocess.run(command, cwd=REPO, check=False)
            if done.returncode != 0:
                print(f"stress: round {round_number} failed", file=sys.stderr)
                return done.returncode
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
