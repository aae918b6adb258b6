"""What the hooks do for the team: start a push detached, never wait for it (docs/team.md).

Stop starts one at most every ``DEBOUNCE_SECONDS`` (SessionStart at its start): the child
is ``python -S -m missioncache_team auto``, started by ``missioncache_hookio.spawn`` (its
own session, stdio on /dev/null), which hands over to ``uvx`` for psycopg. A server that
does not answer costs the hook nothing. Where no team is set up this is one ``stat``.
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_team import paths

DEBOUNCE_SECONDS = 30.0


def start_auto(debounce: bool = True) -> bool:
    """Start a push unless no team is set up or one started lately; returns whether a
    child was started. Never raises."""
    try:
        if not paths.is_set_up():
            return False
        from missioncache_hookio.spawn import start_debounced

        wait = DEBOUNCE_SECONDS if debounce else 0.0
        return start_debounced(["missioncache_team", "auto"], paths.auto_stamp_path(), wait)
    except Exception:  # a hook never fails over the team; the next turn tries again
        return False


def take_notice() -> str:
    """What the team push has to tell the person once, or ""; never raises."""
    try:
        if not os.path.isdir(paths.team_dir()):
            return ""
        from missioncache_team.status import take

        return take()
    except Exception:
        return ""
