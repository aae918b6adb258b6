#!/usr/bin/env python3
"""Run the test suite under coverage and report per package.

Hooks and command lines run as child processes; ``[tool.coverage.run] patch =
["subprocess"]`` (pyproject.toml) makes coverage follow them, so the figures include
code that only ever runs in a hook process; ``patch = ["_exit"]`` saves the data of hooks,
which end with ``os._exit(0)``. Hooks run from a plugin tree built into a temp dir, and
``[tool.coverage.paths]`` maps those copies back to their packages. Processes started with
``python3 -S`` (the real hook command lines, and tests proving a bare interpreter suffices)
skip ``site`` and with it coverage's start-up hook, so they are not measured.

Usage: ``uv run scripts/coverage.py [pytest args...]``
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def units() -> list[tuple[str, str]]:
    """(name, include pattern) for every workspace package and the harness."""
    found = [(p.name, f"{p}/*") for p in sorted((REPO / "packages").iterdir()) if p.is_dir()]
    return [*found, ("harness", f"{REPO / 'harness'}/*")]


def coverage(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "coverage", *args]
    return subprocess.run(cmd, cwd=REPO, check=check, capture_output=True, text=True)


def total_percent(include: str) -> str:
    proc = coverage("report", f"--include={include}", "--format=total", check=False)
    return proc.stdout.strip() + "%" if proc.returncode == 0 else "no data"


def main(argv: list[str]) -> int:
    coverage("erase")
    run_tests = [sys.executable, "-m", "coverage", "run", "-m", "pytest", *argv]
    tests = subprocess.run(run_tests, cwd=REPO)
    coverage("combine", "-q", check=False)
    print("\n| package | line+branch coverage |\n|---|---|")
    for name, include in units():
        print(f"| {name} | {total_percent(include)} |")
    print(f"| **all** | {total_percent('*')} |")
    return tests.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
