"""What the hooks do for sync: start it detached, never wait for it (docs/sync.md).

SessionStart starts a sync (a pull with a 1.5 s bound on the network, then carrying on
with what is local); Stop and PreCompact start one at most every ``DEBOUNCE_SECONDS``
(a push of the turns just recorded). The child is ``python -S -m missioncache_sync auto``,
started by ``missioncache_hookio.spawn`` (no ``subprocess`` import on the hook's path), its
own session, stdio on /dev/null: Claude Code never waits for it, and a remote that does not
answer costs the hook nothing. Where sync is not set up this is one ``stat``.
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_sync import paths

DEBOUNCE_SECONDS = 30.0
REASONS = ("start", "stop", "precompact")


def start_auto(reason: str) -> bool:
    """Start an automatic sync for ``reason`` unless sync is off or one started lately
    (``stop``/``precompact`` only); returns whether a child was started. Never raises."""
    try:
        if reason not in REASONS or not paths.is_set_up():
            return False
        from missioncache_hookio.spawn import start_debounced

        wait = 0.0 if reason == "start" else DEBOUNCE_SECONDS
        return start_debounced(["missioncache_sync", "auto", reason], paths.auto_stamp_path(), wait)
    except Exception:  # a hook never fails over sync; the next trigger tries again
        return False


def take_notice() -> str:
    """What sync has to tell the human once (``notice.take``), or ""; never raises."""
    try:
        if not os.path.isdir(paths.sync_dir()):
            return ""
        from missioncache_sync.notice import take

        return take()
    except Exception:
        return ""
