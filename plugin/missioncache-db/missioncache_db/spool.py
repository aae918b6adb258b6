"""The heartbeat spool: where a heartbeat waits when tasks.db is too busy to take it.

Dropping a heartbeat under contention would under-count exactly the busiest sessions, so
a writer that cannot get the lock within its budget appends the heartbeat as one JSON
line (with a unique ``uid``) to a spool file instead. Design, and why it is crash-safe:

- Each process appends to its own file ``<pid>-<token>.jsonl`` with ``O_APPEND`` and one
  ``write`` per line, so lines from different processes never interleave (Windows'
  ``O_APPEND`` is not atomic across processes; a file per writer needs no such promise).
- An ingester, holding the database write lock, first *claims* a file by renaming it to
  a unique ``*.claimed`` name, then reads it, inserts with ``INSERT OR IGNORE`` on the
  unique ``uid``, commits, and only then deletes the claimed file. A crash before the
  commit leaves the claimed file to be read again; a crash after it leaves rows that
  the unique ``uid`` makes a no-op to replay. Nothing is lost and nothing counted twice.
- A writer that opened its file just before the rename would write into the claimed
  (perhaps already read) file. So after writing it checks that its path still names the
  file it wrote to, and otherwise appends the same line again to a fresh file: the
  duplicate ``uid`` is ignored if the first copy was ingested after all.
"""

from __future__ import annotations

import os

from missioncache_state.json_codec import dumps, loads
from missioncache_state.locations import heartbeat_spool_dir, tasks_db_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any, Union

    StrPath = Union[str, os.PathLike]

SPOOL_SUFFIX = ".jsonl"
CLAIMED_SUFFIX = ".claimed"
MAX_LINE = 65536  # a heartbeat line is tiny; anything longer is not ours
_ATTEMPTS = 5
_token: tuple[int, str] | None = None


def spool_folder_for(db_path: StrPath) -> str:
    """The spool of a database: ``heartbeat_spool_dir()`` for the real tasks.db, a
    sibling ``<db>.spool`` for any other file, so two databases never ingest each
    other's heartbeats."""
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


def claim(directory: StrPath, limit: int | None = None) -> list[str]:
    """Claim spool files (rename to a unique ``*.claimed`` name) and return every claimed
    file waiting, including ones a crashed ingester left behind. Call while holding
    the database write lock, which serialises ingesters."""
    directory = os.fspath(directory)
    try:
        names = sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return []
    claimed = [os.path.join(directory, n) for n in names if n.endswith(CLAIMED_SUFFIX)]
    for name in names:
        if limit is not None and len(claimed) >= limit:
            break
        if not name.endswith(SPOOL_SUFFIX):
            continue
        unique = f"{name[: -len(SPOOL_SUFFIX)]}.{os.urandom(8).hex()}{CLAIMED_SUFFIX}"
        target = os.path.join(directory, unique)
        try:
            os.rename(os.path.join(directory, name), target)
        except OSError:  # gone, or (Windows) still open by its writer: next time
            continue
        claimed.append(target)
    return claimed[:limit] if limit is not None else claimed


def read_records(path: StrPath) -> Iterator[dict[str, Any]]:
    """The JSON objects of a claimed file, one per line; torn or foreign lines skipped."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - a missing file is simply empty
    except OSError:
        return
    with handle:
        for raw in handle:
            if len(raw) > MAX_LINE or not raw.endswith(b"\n"):
                continue
            try:
                record = loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                continue
            if isinstance(record, dict):
                yield record


def remove(paths: Iterable[StrPath]) -> None:
    """Delete claimed files once their rows are committed."""
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass


def pending_files(directory: StrPath) -> bool:
    """Cheap check: is anything waiting in the spool?"""
    try:
        with os.scandir(os.fspath(directory)) as entries:
            return any(e.name.endswith((SPOOL_SUFFIX, CLAIMED_SUFFIX)) for e in entries)
    except OSError:
        return False
