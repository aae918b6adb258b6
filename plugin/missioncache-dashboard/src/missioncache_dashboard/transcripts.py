"""Edits per session counted from Claude Code's own transcripts, so a session shows its
edits even when no http hook reported them (the hooks not installed, or the dashboard
started after the edits were made).

The transcript is found from the session id alone (validated: letters, digits, ``_``
and ``-``), as ``<claude>/projects/*/<session id>.jsonl``: nothing from a request
becomes a path. Counting is the status line's incremental reader
(``missioncache_statusline.edits``): each look reads only what was appended since.
"""

from __future__ import annotations

import glob
import os

from missioncache_state.ids import session_id_or_none
from missioncache_state.locations import claude_dir


class TranscriptEdits:
    """Per session: its transcript's path and the reader's state."""

    def __init__(self) -> None:
        self._found: dict[str, tuple[str | None, dict | None]] = {}

    def path_of(self, session_id: str) -> str | None:
        known = self._found.get(session_id)
        if known is not None and known[0] is not None and os.path.isfile(known[0]):
            return known[0]
        sid = session_id_or_none(session_id)
        if sid is None:
            return None
        pattern = os.path.join(glob.escape(claude_dir()), "projects", "*", f"{sid}.jsonl")
        matches = sorted(glob.glob(pattern), key=lambda p: os.stat(p).st_mtime, reverse=True)
        return matches[0] if matches else None

    def count(self, session_id: str) -> int:
        """Edits Claude made in the session so far (0 when its transcript is not found)."""
        from missioncache_statusline.edits import count_edits

        path = self.path_of(session_id)
        if path is None:
            return 0
        previous = self._found.get(session_id, (None, None))
        state = previous[1] if previous[0] == path else None
        try:
            state = count_edits(path, state)
        except (OSError, ValueError):
            return 0
        self._found[session_id] = (path, state)
        return int(state.get("count") or 0)
