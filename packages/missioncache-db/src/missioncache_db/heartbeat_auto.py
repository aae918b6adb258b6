"""``heartbeat-auto``: the command the UserPromptSubmit hook starts on every prompt.

It runs detached (the hook never waits for it), so it is kept apart from the rest of the
command line: ``python -m missioncache_db heartbeat-auto`` comes straight here without
importing argparse and the other commands (milliseconds of CPU on a machine where the two
prompt hooks are running at the same moment). It prints nothing to stdout and exits 0,
unless its hard wall ends it first (killed by SIGALRM).
"""

from __future__ import annotations

import os
import sys

HEARTBEAT_BUSY_TIMEOUT = 0.75  # the 2 s wall below ends us; spooling must fit before it
HEARTBEAT_WALL_SECONDS = 2


def arm_hard_wall(seconds: int) -> None:
    """End this process after ``seconds`` whatever it is doing.

    The UserPromptSubmit hook starts ``heartbeat-auto`` detached and never waits for it, so
    nothing else bounds it. The busy timeout bounds waiting for the SQLite lock (then the
    heartbeat is spooled, not lost); this wall bounds everything else (a hung file system,
    a read that never returns). ``SIGALRM`` with its default action kills the process even
    inside a C call that retries on EINTR, where a Python handler would never run. Where
    there is no ``SIGALRM`` (Windows) a daemon timer thread exits the process instead.
    """
    import signal

    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(seconds)
        return
    import threading

    timer = threading.Timer(seconds, os._exit, args=(0,))
    timer.daemon = True
    timer.start()


def main() -> int:
    """Record one heartbeat for the cwd and the session in the environment."""
    arm_hard_wall(HEARTBEAT_WALL_SECONDS)
    try:
        from missioncache_db.db import open_if_set_up
        from missioncache_state.ids import session_id_from_env

        db = open_if_set_up(HEARTBEAT_BUSY_TIMEOUT)  # no tasks yet: create nothing
        if db is None:
            return 0
        with db:
            db.record_heartbeat_auto(os.getcwd(), session_id_from_env())
    except Exception as error:  # the hook must never fail the prompt
        print(f"missioncache-db: heartbeat not recorded: {error}", file=sys.stderr)
    return 0
