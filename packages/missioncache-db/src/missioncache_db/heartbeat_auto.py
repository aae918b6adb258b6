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


def session_id_from_env() -> str | None:
    """``CLAUDE_SESSION_ID`` (set by our hook for this command), else Claude Code's own
    ``CLAUDE_CODE_SESSION_ID``."""
    return os.environ.get("CLAUDE_SESSION_ID") or os.environ.get("CLAUDE_CODE_SESSION_ID")


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


def spool_unresolved(cwd: str, session_id: str | None) -> None:
    """Keep the heartbeat in the spool while tasks.db is broken: the task comes from the
    session's binding when there is one, else it is resolved from the cwd when the spool
    is ingested into a working database (``heartbeats.ingest_spool``)."""
    from missioncache_db import heartbeats, spool
    from missioncache_state.bindings import read_session_binding
    from missioncache_state.locations import heartbeat_spool_dir

    binding = read_session_binding(session_id) if session_id else None
    task_id = binding.get("taskId") if binding else None
    record = heartbeats.new_record(task_id, session_id, {"cwd": cwd})
    spool.append(heartbeat_spool_dir(), record)


def main() -> int:
    """Record one heartbeat for the cwd and the session in the environment."""
    arm_hard_wall(HEARTBEAT_WALL_SECONDS)
    cwd, session_id = os.getcwd(), session_id_from_env()
    try:
        from missioncache_db.db import open_if_set_up

        db = open_if_set_up(HEARTBEAT_BUSY_TIMEOUT)  # no tasks yet: create nothing
        if db is None:
            from missioncache_db.health import not_a_file_reason

            if not_a_file_reason():
                spool_unresolved(cwd, session_id)
            return 0
        with db:
            db.record_heartbeat_auto(cwd, session_id)
    except Exception as error:  # the hook must never fail the prompt
        try:
            from missioncache_db.health import is_broken

            if is_broken(error):
                spool_unresolved(cwd, session_id)  # kept until the database works again
                return 0
        except Exception as spool_error:
            error = spool_error
        print(f"missioncache-db: heartbeat not recorded: {error}", file=sys.stderr)
    return 0
