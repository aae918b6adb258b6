"""Watching processes: CPU time of our children, the detached heartbeat children."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path


def children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def heartbeat_children(data_root: Path) -> list[int]:
    """Pids of detached ``heartbeat-auto`` children working on ``data_root`` (Linux /proc;
    elsewhere none are seen). Other helpers' processes on this machine are not ours."""
    mark = f"MISSIONCACHE_ROOT={data_root}".encode()
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if b"heartbeat-auto" not in handle.read():
                    continue
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if mark in handle.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def wait_until(predicate, timeout: float, poll: float = 0.002) -> float:
    """Seconds until ``predicate()`` is true (``math.inf`` when it never was)."""
    start = time.perf_counter()
    while True:
        if predicate():
            return time.perf_counter() - start
        if time.perf_counter() - start > timeout:
            return math.inf
        time.sleep(poll)
