"""What the hooks do for sync: start it detached, never wait for it (docs/sync.md).

SessionStart starts a sync (a pull with a 1.5 s bound on the network, then carrying on
with what is local); Stop and PreCompact start one at most every ``DEBOUNCE_SECONDS``
(a push of the turns just recorded). The child is ``python -S -m missioncache_sync auto``,
started by ``missioncache_hookio.spawn`` (no ``subprocess`` import on the hook's path), its
own session, stdio on /dev/null: Claude Code never waits for it, and a remote that does not
answer costs the hook nothing. Where sync is not set up this is one ``stat``.
"""

from __future__ import annotations

import os
import sys

from missioncache_sync import paths

DEBOUNCE_SECONDS = 30.0
REASONS = ("start", "stop", "precompact")


def start_auto(reason: str) -> bool:
    """Start an automatic sync for ``reason`` unless sync is off or one started lately
    (``stop``/``precompact`` only); returns whether a child was started. Never raises."""
    try:
        if reason not in REASONS or not paths.is_set_up():
            return False
        import time

        stamp = paths.auto_stamp_path()
        if reason != "start":
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

        argv = [sys.executable, "-S", "-m", "missioncache_sync", "auto", reason]
        spawn_detached(argv, data_root(), _child_env())
        return True
    except Exception:  # a hook never fails over sync; the next trigger tries again
        return False


def _child_env() -> dict:
    env = dict(os.environ)
    lib = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    existing = env.get("PYTHONPATH")
    env["PYTHONPATH"] = os.pathsep.join([lib] + ([existing] if existing else []))
    return env


def take_notice() -> str:
    """What sync has to tell the human once (``notice.take``), or ""; never raises."""
    try:
        if not os.path.isdir(paths.sync_dir()):
            return ""
        from missioncache_sync.notice import take

        return take()
    except Exception:
        return ""
