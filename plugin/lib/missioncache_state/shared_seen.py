"""The shared-seen marker: which version of its parent's context a fork session last read.

``<state>/shared-seen/<session id>.json`` holds the parent context file's modification
time (nanoseconds) when this session last read it: at SessionStart, ``/missioncache:load``,
a ``/missioncache:save`` that wrote the parent, and the MCP ``get_context_digest`` tool.
When the file is newer than the mark, another fork saved a decision to the shared layer
that this session has not read: the status line says ``● parent updated HH:MM`` and the
next ``/missioncache:load`` shows the change (docs/forks.md). A session with no mark never
read the parent, so nothing can have changed "since"; it shows no note.
"""

from __future__ import annotations

import time

from missioncache_state import lean_os as os
from missioncache_state.ids import session_id_or_none
from missioncache_state.statefile import load_state, save_state, state_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KIND = "shared-seen"
COPY_LIMIT = 256 * 1024  # of the parent's text kept beside the mark, to show what changed
COPY_SUFFIX = ".seen.md"


def mtime_ns(path: Any) -> int | None:
    version = file_version(path)
    return version[0] if version else None


def file_version(path: Any) -> tuple[int, int] | None:
    """``(mtime_ns, size)``: the size too, because a file system's clock may be coarser
    than two writes in a row (a save right after a read keeps the mtime, never the size)."""
    try:
        info = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return info.st_mtime_ns, info.st_size


def marker_path(session_id: Any) -> str | None:
    """The session's marker; None without a valid session id (never a shared file: the
    mark belongs to one session)."""
    sid = session_id_or_none(session_id)
    return state_path(KIND, sid) if sid is not None else None


def copy_path(session_id: Any) -> str | None:
    """The parent's text as this session last read it (``<session id>.seen.md``)."""
    path = marker_path(session_id)
    return path[: -len(".json")] + COPY_SUFFIX if path else None


def stamp(session_id: Any, parent_id: int, parent_name: str, context_path: str) -> bool:
    """Record that this session has now read the parent's context as it is on disk, and
    keep a copy of that text (``/missioncache:load`` shows what changed since). False when
    there is no valid session id or the file cannot be read (nothing was read). The
    version is taken before the read: a save landing in between makes the next look
    report a change, never miss one."""
    from missioncache_state.atomic import atomic_write_bytes

    sid = session_id_or_none(session_id)
    version = file_version(context_path)
    copy = copy_path(sid)
    if sid is None or version is None or copy is None:
        return False
    try:
        with open(context_path, "rb") as handle:
            atomic_write_bytes(copy, handle.read(COPY_LIMIT), durable=False)
    except OSError:
        return False
    record = {
        "parentTaskId": parent_id,
        "parent": parent_name,
        "context": context_path,
        "mtimeNs": version[0],
        "size": version[1],
        "stamped": time.time(),
    }
    return save_state(KIND, record, sid)


def seen_text(session_id: Any) -> str | None:
    """The parent's text when this session last read it (None without a copy)."""
    path = copy_path(session_id)
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(COPY_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return None


def read_mark(session_id: Any) -> dict | None:
    """The session's mark, checked field by field (a damaged file is no mark)."""
    mark = load_state(KIND, session_id) if marker_path(session_id) else None
    if mark is None:
        return None
    seen, context = mark.get("mtimeNs"), mark.get("context")
    if isinstance(seen, bool) or not isinstance(seen, int) or not isinstance(context, str):
        return None
    return mark


def changed_since_mark(session_id: Any, context_path: str) -> int | None:
    """The parent context's mtime (ns) when it changed after this session's mark of that
    same file; None when unchanged, never marked, or unreadable."""
    mark = read_mark(session_id)
    if mark is None or mark["context"] != context_path:
        return None
    version = file_version(context_path)
    if version is None or version[0] < mark["mtimeNs"]:
        return None
    if version[0] == mark["mtimeNs"] and version[1] == mark.get("size", version[1]):
        return None
    return version[0]
