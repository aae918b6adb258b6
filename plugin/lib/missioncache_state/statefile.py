"""Small JSON state files a hook keeps between runs (reminder de-duplication, the last
pre-compact failure), under ``<state>/<kind>/<session-id>.json`` or ``<state>/<name>.json``.
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_state.atomic import read_json_object, remove_file, write_json_atomic
from missioncache_state.ids import session_id_or_none
from missioncache_state.locations import state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_state.ids import SessionId

_KIND_OK = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
UNREADABLE = "the failure record could not be read"


def state_path(kind: str, session_id: SessionId | None = None) -> str | None:
    """The file of a state ``kind`` (a fixed lowercase name chosen by our code), per
    session when ``session_id`` is given; None for an invalid session id."""
    if not kind or not set(kind) <= _KIND_OK:
        raise ValueError(f"bad state kind {kind!r}")
    if session_id is None:
        return os.path.join(state_dir(), f"{kind}.json")
    sid = session_id_or_none(session_id)  # file boundary: the id becomes a file name
    if sid is None:
        return None
    return os.path.join(state_dir(), kind, f"{sid}.json")


def load_state(kind: str, session_id: SessionId | None = None) -> dict[str, Any] | None:
    path = state_path(kind, session_id)
    return None if path is None else read_json_object(path)


def save_state(kind: str, data: dict[str, Any], session_id: SessionId | None = None) -> bool:
    path = state_path(kind, session_id)
    if path is None:
        return False
    write_json_atomic(path, data, durable=False)  # small, rebuildable: no fsync wait
    return True


def clear_state(kind: str, session_id: SessionId | None = None) -> bool:
    return remove_file(state_path(kind, session_id))


def take_state(kind: str) -> dict[str, Any] | None:
    """A one-shot record (a failure to tell the user once), cleared as it is taken; None
    when there is none. A record that exists but cannot be read is ``{"error":
    UNREADABLE}``, still taken: it stands for a failure the user must hear about, and
    left in place it would never be reported nor cleared."""
    data = load_state(kind)
    if data is None:
        path = state_path(kind)
        if path is None or not os.path.lexists(path):
            return None
        data = {"error": UNREADABLE}
    clear_state(kind)
    return data


def one_line(value: Any, limit: int = 300) -> str:
    """A field of a record as one line of at most ``limit`` characters for a message to
    the user ("" for anything but a string or a number: a damaged record shows a gap,
    not a repr)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return ""
    return " ".join(str(value).split())[:limit]
