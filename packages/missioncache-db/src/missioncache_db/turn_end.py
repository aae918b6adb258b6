"""Recording the end of a turn (Stop, StopFailure) without touching SQLite.

Stop runs after every turn of every session, so it must stay cheap: it neither opens
tasks.db nor works out which task the session is on. It appends one small record
(session id, prompt id, epoch, outcome) to the heartbeat spool, whose per-process files
and claim-by-rename make it crash-safe and never counted twice (see ``spool``). The next
writer joins the end to its turn's start, the heartbeat with the same session and prompt
id, in whichever order the two arrive; an end whose prompt was never counted on a task
(an untracked session, a slash command) joins nothing and counts nothing.

Imports only ``os`` and our own light modules: no sqlite3 on the Stop hook's path.
"""

from __future__ import annotations

import os
import time

from missioncache_state.ids import session_id_or_none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TURN_END = "turn_end"  # the ``type`` of a spooled turn-end record (heartbeats have none)
OUTCOMES = ("stop", "failure")
MAX_BACKGROUND = 1000


def new_turn_end(
    session_id: Any,
    prompt_id: Any,
    outcome: str = "stop",
    background: int = 0,
    epoch: float | None = None,
) -> dict | None:
    """A turn end as it is spooled; None when the prompt id is not valid (nothing to join)."""
    prompt_id = session_id_or_none(prompt_id)
    if prompt_id is None:
        return None
    return {
        "type": TURN_END,
        "uid": os.urandom(16).hex(),
        "session_id": session_id_or_none(session_id),
        "prompt_id": prompt_id,
        "epoch": time.time() if epoch is None else float(epoch),
        "outcome": outcome if outcome in OUTCOMES else "stop",
        "background": max(0, min(int(background), MAX_BACKGROUND)),
    }


def record_turn_end(
    session_id: Any, prompt_id: Any, outcome: str = "stop", background: int = 0
) -> bool:
    """Spool the end of the turn ``prompt_id`` of ``session_id``; returns whether one was
    written. Nothing is written where MissionCache is not set up (no tasks.db); a broken
    tasks.db still gets its turn ends spooled, as the heartbeats are."""
    from missioncache_state.locations import heartbeat_spool_dir, is_set_up

    if not is_set_up():
        return False
    record = new_turn_end(session_id, prompt_id, outcome, background)
    if record is None:
        return False
    from missioncache_db import spool

    spool.append(heartbeat_spool_dir(), record)
    return True
