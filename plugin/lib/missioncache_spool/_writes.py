"""Writing to the spool: one JSON line appended to this process's own file.

The half of the spool every writer loads (Stop and StopFailure, a heartbeat tasks.db was
too busy to take, a token record): appending, the turn end (the one record kind made
here), and the cheap check whether anything waits (``pending_files``). Why a file per
process and the check after each write: ``_pending_records``, where the reader claims,
reads and quarantines what was written.
"""

from __future__ import annotations

import time

from missioncache_state import lean_os as os
from missioncache_state.json_codec import dumps

# The ``type`` of the records besides heartbeats (which have none) that the spool carries
# to tasks.db: here, with the format, so the reader needs none of their writers' modules.
TURN_END = "turn_end"
USAGE = "usage"
SPOOL_SUFFIX = ".jsonl"
CLAIMED_SUFFIX = ".claimed"  # a file an ingester has claimed (``_pending_records``)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Union

    from missioncache_state.ids import PromptId, SessionId

    StrPath = Union[str, os.PathLike]

_ATTEMPTS = 5
_token: tuple[int, str] | None = None


def spool_folder_for(db_path: StrPath) -> str:
    """The spool of a database: ``heartbeat_spool_dir()`` for the real tasks.db, a
    sibling ``<db>.spool`` for any other file, so two databases never ingest each
    other's heartbeats."""
    from missioncache_state.locations import heartbeat_spool_dir, tasks_db_path

    if os.path.realpath(db_path) == os.path.realpath(tasks_db_path()):
        return heartbeat_spool_dir()
    return os.fspath(db_path) + ".spool"


def _own_file(directory: StrPath) -> str:
    """This process's spool file (a fork gets its own: the pid is part of the name)."""
    global _token
    if _token is None or _token[0] != os.getpid():
        _token = (os.getpid(), os.urandom(6).hex())
    return os.path.join(os.fspath(directory), f"{_token[0]}-{_token[1]}{SPOOL_SUFFIX}")


def append(directory: StrPath, record: dict[str, Any]) -> str:
    """Append ``record`` as one line to this process's spool file; returns the file."""
    line = (dumps(record, separators=(",", ":"), sort_keys=True) + "\n").encode()
    path = _own_file(directory)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(_ATTEMPTS):
        fd = os.open(path, flags, 0o644)
        try:
            os.write(fd, line)
            written = os.fstat(fd)
        finally:
            os.close(fd)
        if _still_named(path, written):
            return path
    raise OSError(f"spool file {path} kept being claimed while writing")


def _still_named(path: str, written: os.stat_result) -> bool:
    try:
        current = os.stat(path)
    except FileNotFoundError:
        return False
    return (current.st_dev, current.st_ino) == (written.st_dev, written.st_ino)


def pending_files(directory: StrPath) -> bool:
    """Cheap check: is anything waiting in the spool? Here, not with the reader: the
    status line asks at every recompute and folds only when something waits."""
    try:
        with os.scandir(os.fspath(directory)) as entries:
            return any(e.name.endswith((SPOOL_SUFFIX, CLAIMED_SUFFIX)) for e in entries)
    except OSError:
        return False


# -- the turn end, spooled by Stop and StopFailure -------------------------------------
OUTCOMES = ("stop", "failure")
MAX_BACKGROUND = 1000


def new_turn_end(
    session_id: SessionId | None,
    prompt_id: PromptId | None,
    outcome: str = "stop",
    background: int = 0,
    epoch: float | None = None,
) -> dict | None:
    """A turn end as it is spooled; None without a prompt id (nothing to join). The ids
    come parsed; the spool's reader checks them again (``heartbeats.valid_record``)."""
    if prompt_id is None:
        return None
    return {
        "type": TURN_END,
        "uid": os.urandom(16).hex(),
        "session_id": session_id,
        "prompt_id": prompt_id,
        "epoch": time.time() if epoch is None else float(epoch),
        "outcome": outcome if outcome in OUTCOMES else "stop",
        "background": max(0, min(int(background), MAX_BACKGROUND)),
    }


def record_turn_end(
    session_id: SessionId | None,
    prompt_id: PromptId | None,
    outcome: str = "stop",
    background: int = 0,
) -> bool:
    """Spool the end of the turn ``prompt_id`` of ``session_id``; returns whether one was
    written. Nothing is written where MissionCache is not set up (no tasks.db); a broken
    tasks.db still gets its turn ends spooled, as the heartbeats are."""
    from missioncache_state.locations import heartbeat_spool_dir, is_set_up

    if not is_set_up():
        return False
    from missioncache_state.ids import prompt_id_or_none, session_id_or_none

    # The package's edge: the hooks pass parsed ids (a type test each); plain strings
    # from any other caller are parsed here.
    sid, pid = session_id_or_none(session_id), prompt_id_or_none(prompt_id)
    record = new_turn_end(sid, pid, outcome, background)
    if record is None:
        return False
    append(heartbeat_spool_dir(), record)
    return True
