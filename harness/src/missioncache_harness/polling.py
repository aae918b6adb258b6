"""Waiting, bounded, for something another process does on its own time.

WHY one helper: the heartbeat child, spawned processes and the real CLI all finish after
the call that started them returns, so tests poll. Every copy of the loop had to get the
same two things right: a bound generous enough for a loaded CI machine, and one last look
after the deadline (a check that turns true while the poller slept still counts).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def poll_until(check: Callable[[], T], timeout: float = 20.0, step: float = 0.05) -> T:
    """Call ``check`` every ``step`` seconds until it returns something truthy, and return
    that; after ``timeout`` seconds, return its last (falsy) answer."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(step)
    return check()
