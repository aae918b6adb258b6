"""The detached heartbeat children a UserPromptSubmit leaves behind, and waiting for them.

WHY: the activity tracker returns before its ``heartbeat-auto`` child has touched tasks.db
(that is the point: the prompt is not kept waiting). Anything that inspects or rearranges
the data root right after a prompt (a test corrupting the database, the demo counting
heartbeats, a benchmark starting its next case) must first let that child finish, or it
races a process that still holds the database open; a WAL connection closing late even
writes pages back into a file that was replaced under it.

Children are found through Linux ``/proc`` (command line ``heartbeat-auto``, environment
``MISSIONCACHE_ROOT`` equal to the data root), so other sessions' children are never
waited for. Where there is no ``/proc`` none are seen and waiting returns at once. A
process still inside its ``execve`` shows an empty command line for that instant and is
not seen yet; callers look well after the hook that spawned it has exited.
"""

from __future__ import annotations

import os
from pathlib import Path

from missioncache_harness.polling import poll_until


def heartbeat_children(data_root: Path) -> list[int]:
    """Pids of live ``heartbeat-auto`` processes working on ``data_root``."""
    return processes_running(b"heartbeat-auto", f"MISSIONCACHE_ROOT={data_root}".encode())


def processes_running(command_part: bytes, environ_entry: bytes | None = None) -> list[int]:
    """Pids whose command line contains ``command_part`` (and, when given, whose
    environment holds exactly ``environ_entry``, for example ``b"NAME=value"``)."""
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if command_part not in handle.read():
                    continue
            if environ_entry is not None:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if environ_entry not in handle.read().split(b"\0"):
                        continue
            found.append(int(entry))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def wait_heartbeat_children(data_root: Path, timeout: float = 20.0, poll: float = 0.005) -> bool:
    """Wait (bounded) until no heartbeat child of ``data_root`` is alive; False on timeout.

    The default bound is far above the child's own 2 s wall, so it only runs out when a
    child is stuck, which is worth a failure of its own."""
    return poll_until(lambda: not heartbeat_children(data_root), timeout, poll)
