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

from missioncache_spool import TURN_END

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_state.ids import PromptId, SessionId

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
    import missioncache_spool as spool

    spool.append(heartbeat_spool_dir(), record)
    return True
