"""``heartbeat-auto``: the command the UserPromptSubmit hook starts on every prompt.

It runs detached (the hook never waits for it), so it is kept apart from the rest of the
command line: ``python -m missioncache_time heartbeat-auto`` comes straight here without
importing argparse and the other commands (milliseconds of CPU on a machine where the two
prompt hooks are running at the same moment). It prints nothing to stdout and exits 0,
unless its hard wall ends it first (killed by SIGALRM).
"""

from __future__ import annotations

import sys

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_state.ids import PromptId, SessionId

HEARTBEAT_BUSY_TIMEOUT = 0.75  # the 2 s wall below ends us; spooling must fit before it
HEARTBEAT_WALL_SECONDS = 2


def prompt_epoch_from_env(now: float | None = None) -> float | None:
    """When the prompt was submitted (``MISSIONCACHE_PROMPT_EPOCH``, set by the hook), if
    it is a number within the last minute; else None (record the time of recording)."""
    import time

    now = time.time() if now is None else now
    try:
        epoch = float(os.environ.get("MISSIONCACHE_PROMPT_EPOCH", ""))
    except ValueError:
        return None
    return epoch if now - 60 <= epoch <= now else None


def arm_hard_wall(seconds: int) -> None:
    """End this process after ``seconds`` whatever it is doing.

    The UserPromptSubmit hook starts ``heartbeat-auto`` detached and never waits for it, so
    nothing else bounds it. The busy timeout bounds waiting for the SQLite lock (then the
    heartbeat is spooled, not lost); this wall bounds everything else (a hung file system,
    a read that never returns). ``SIGALRM`` with its default action kills the process even
    inside a C call that retries on EINTR, where a Python handler would never run. Where
    there is no ``SIGALRM`` (Windows) a daemon timer thread exits the process instead.
    """
    # ``_signal``, the C module every interpreter loads at start: ``signal`` imports
    # ``enum`` (with functools and collections), 15 M instructions on every prompt.
    import _signal  # type: ignore[import-not-found]

    if hasattr(_signal, "SIGALRM"):
        _signal.signal(_signal.SIGALRM, _signal.SIG_DFL)
        _signal.alarm(seconds)
        return
    import threading

    timer = threading.Timer(seconds, os._exit, args=(0,))
    timer.daemon = True
    timer.start()


NICENESS = 5  # below the prompt's hooks, well inside the hard wall on a busy machine


def yield_to_the_prompt() -> None:
    """Run below the prompt's own hooks: this child starts while the task tracker still
    works out what to tell Claude, and on a busy machine the two share a core. Only the
    heartbeat's moment matters here, and that was taken by the hook before the start."""
    try:
        os.nice(NICENESS)
    except (AttributeError, OSError):  # Windows has no nice; a refused one changes nothing
        pass


def turn_from_env() -> tuple[PromptId | None, str]:
    """(prompt id, kind) of the turn this heartbeat starts, as the UserPromptSubmit hook
    passed them."""
    from missioncache_state.ids import prompt_id_or_none

    # Process boundary: the hook parsed it, but the environment is a hand-off anyone can set.
    prompt_id = prompt_id_or_none(os.environ.get("MISSIONCACHE_PROMPT_ID"))
    return prompt_id, os.environ.get("MISSIONCACHE_PROMPT_KIND") or "prompt"


def spool_unresolved(cwd: str, session_id: SessionId | None) -> None:
    """Keep the heartbeat in the spool while tasks.db is broken: the task comes from the
    session's binding when there is one, else it is resolved from the cwd when the spool
    is ingested into a working database (``heartbeats.ingest_spool``)."""
    import missioncache_spool as spool
    from missioncache_state.bindings import read_session_binding
    from missioncache_state.locations import heartbeat_spool_dir
    from missioncache_time._heartbeats import new_heartbeat

    binding = read_session_binding(session_id) if session_id else None
    task_id = binding.get("taskId") if binding else None
    prompt_id, kind = turn_from_env()
    record = new_heartbeat(
        task_id, session_id, {"cwd": cwd}, prompt_epoch_from_env(), prompt_id, kind
    )
    spool.append(heartbeat_spool_dir(), record)


def heartbeat_auto() -> int:
    """Record one heartbeat for the cwd and the session in the environment: the start of
    the turn ``MISSIONCACHE_PROMPT_ID``, of kind ``MISSIONCACHE_PROMPT_KIND`` (``prompt``
    or ``synthetic``), both set by the UserPromptSubmit hook."""
    from missioncache_state.ids import session_id_from_env

    arm_hard_wall(HEARTBEAT_WALL_SECONDS)
    yield_to_the_prompt()
    # Process boundary: the hook handed its parsed id over through the environment.
    cwd, session_id = os.getcwd(), session_id_from_env()
    try:
        from missioncache_db import open_if_set_up

        db = open_if_set_up(HEARTBEAT_BUSY_TIMEOUT)  # no tasks yet: create nothing
        if db is None:
            from missioncache_db import not_a_file_reason

            if not_a_file_reason():
                spool_unresolved(cwd, session_id)
            return 0
        from missioncache_time._heartbeats import record_heartbeat_auto

        with db:
            prompt_id, kind = turn_from_env()
            record_heartbeat_auto(db, cwd, session_id, prompt_epoch_from_env(), prompt_id, kind)
    except Exception as error:  # the hook must never fail the prompt
        try:
            from missioncache_db import is_broken

            if is_broken(error):
                spool_unresolved(cwd, session_id)  # kept until the database works again
                return 0
        except Exception as spool_error:
            error = spool_error
        print(f"missioncache: heartbeat not recorded: {error}", file=sys.stderr)
    return 0
