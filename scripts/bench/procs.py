"""Watching processes: CPU time of our children (the detached heartbeat children are
found by ``missioncache_harness.children``)."""

from __future__ import annotations

import math
import time


def children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wait_until(predicate, timeout: float, poll: float = 0.002) -> float:
    """Seconds until ``predicate()`` is true (``math.inf`` when it never was)."""
    start = time.perf_counter()
    while True:
        if predicate():
            return time.perf_counter() - start
        if time.perf_counter() - start > timeout:
            return math.inf
        time.sleep(poll)
