"""The terminal-tab to Claude-session map the statusline uses to find its session.

Two stores hold the same mapping because different readers use different ones: a
plain-text file per terminal id (named by the sanitised id, since it is a path), and a
row in hooks-state.db keyed by the RAW id, which is what a status line finds in its own
``TERM_SESSION_ID`` / ``WT_SESSION``. (Keying the row by the sanitised file name made a
raw iTerm2 id, ``w0t1p0:UUID``, miss it.)
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_state.atomic import atomic_write_text
from missioncache_state.ids import (
    session_id_or_none,
    terminal_db_key,
    terminal_file_name,
    terminal_id_from_env,
)
from missioncache_state.locations import term_sessions_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from missioncache_state.ids import SessionId


def record_terminal_session(env: Mapping[str, str], session_id: SessionId | None) -> str | None:
    """Map this terminal (from ``env``) to ``session_id`` in both stores; returns the file
    written, or None when there is no usable terminal id or session id. The file is
    written first: it needs no SQLite and is what most statuslines read."""
    sid = session_id_or_none(session_id)  # file boundary: written for other processes to read
    raw = terminal_id_from_env(env)
    name = terminal_file_name(raw)
    key = terminal_db_key(raw)
    if sid is None or name is None or key is None:
        return None
    path = os.path.join(term_sessions_dir(), name)
    atomic_write_text(path, sid + "\n", durable=False)  # rewritten every session start
    from missioncache_state.hooks_state_db import record_term_session

    record_term_session(key, sid)
    return path


def lookup_terminal_session(env: Mapping[str, str]) -> SessionId | None:
    """The Claude session id last recorded for this terminal (from ``env``), or None.

    The database row is looked up by the raw id, then by the sanitised name (rows
    written before the key fix), then the plain-text file is read; whatever is found
    must still be a valid session id."""
    raw = terminal_id_from_env(env)
    key, name = terminal_db_key(raw), terminal_file_name(raw)
    if key is None or name is None:
        return None
    from missioncache_state.hooks_state_db import lookup_term_session

    for candidate in (key, name):
        try:
            found = session_id_or_none(lookup_term_session(candidate))  # read back from a file
        except Exception:  # a locked or damaged database: the file may still answer
            break
        if found:
            return found
    try:
        with open(os.path.join(term_sessions_dir(), name), encoding="utf-8") as handle:
            return session_id_or_none(handle.read(200).strip())
    except (OSError, ValueError):
        return None
