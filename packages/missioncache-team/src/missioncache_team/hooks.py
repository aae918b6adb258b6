"""What the hooks do for the team: start a push detached, never wait for it (docs/team.md).

Stop starts one at most every ``DEBOUNCE_SECONDS`` (SessionStart at its start): the child
is ``python -S -m missioncache_team auto``, started by ``missioncache_hookio.spawn`` (its
own session, stdio on /dev/null), which hands over to ``uvx`` for psycopg. A server that
does not answer costs the hook nothing. Where no team is set up this is one ``stat``.
"""

from __future__ import annotations

import os
import sys

from missioncache_team import paths

DEBOUNCE_SECONDS = 30.0


def start_auto(debounce: bool = True) -> bool:
    """Start a push unless no team is set up or one started lately; returns whether a
    child was started. Never raises."""
    try:
        if not paths.is_set_up():
            return False
        import time

        stamp = paths.auto_stamp_path()
        if debounce:
            try:
                if time.time() - os.stat(stamp).st_mtime < DEBOUNCE_SECONDS:
                    return False
            except OSError:
                pass
        with open(stamp, "a"):
            pass
        os.utime(stamp, None)
        from missioncache_hookio.spawn import spawn_detached
        from missioncache_state.locations import data_root

        argv = [sys.executable, "-S", "-m", "missioncache_team", "auto"]
        spawn_detached(argv, data_root(), _child_env())
        return True
    except Exception:  # a hook never fails over the team; the next turn tries again
        return False


def _child_env() -> dict:
    env = dict(os.environ)
    lib = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    existing = env.get("PYTHONPATH")
    env["PYTHONPATH"] = os.pathsep.join([lib] + ([existing] if existing else []))
    return env


def take_notice() -> str:
    """What the team push has to tell the person once, or ""; never raises."""
    try:
        if not os.path.isdir(paths.team_dir()):
            return ""
        from missioncache_team.status import take

        return take()
    except Exception:
        return ""
