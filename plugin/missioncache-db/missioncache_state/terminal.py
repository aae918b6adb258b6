"""The terminal-tab to Claude-session map the statusline uses to find its session.

Two stores hold the same mapping because different readers use different ones: a
plain-text file per terminal id, and a row in hooks-state.db.
"""

from __future__ import annotations

import os

from missioncache_state.atomic import atomic_write_text
from missioncache_state.ids import session_id_or_none, terminal_file_name, terminal_id_from_env
from missioncache_state.locations import term_sessions_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


def record_terminal_session(env: Mapping[str, str], session_id: str) -> str | None:
    """Map this terminal (from ``env``) to ``session_id`` in both stores; returns the file
    written, or None when there is no usable terminal id or session id. The file is
    written first: it needs no SQLite and is what most statuslines read."""
    sid = session_id_or_none(session_id)
    raw = terminal_id_from_env(env)
    name = terminal_file_name(raw)
    if sid is None or name is None:
        return None
    path = os.path.join(term_sessions_dir(), name)
    atomic_write_text(path, sid + "\n", durable=False)  # rewritten every session start
    from missioncache_state.hooks_state_db import record_term_session

    record_term_session(name, sid)
    return path
