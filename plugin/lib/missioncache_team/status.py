"""The last push's outcome, and what the person is told once (docs/team.md).

``team/status.json`` holds the outcome of the last push. When the server is not reached,
the person is told once (a line in ``team/notice.txt``, shown by the next Stop hook and
then deleted), not at every turn; the next push that reaches the server resets that, so
a later outage is told again. ``take`` is on the Stop hook's path: ``os`` only.
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_team import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_NOTICE = 2048


def read() -> dict[str, Any]:
    from missioncache_state.atomic import read_json_object

    return read_json_object(paths.status_path()) or {}


def record(sent: int, waiting: int, error: str | None, tell: bool = True) -> bool:
    """Store a push's outcome; returns whether the person is to be told now (the first
    failure after a success). ``tell`` False: a push run by hand, whose person saw it."""
    import time

    from missioncache_state.atomic import write_json_atomic

    before = read()
    told = bool(before.get("told_offline")) if error else False
    notify = bool(error) and not told and tell
    status = {
        "when": time.time(),
        "sent": sent,
        "waiting": waiting,
        "error": (error or "")[:300] or None,
        "told_offline": told or (bool(error) and tell),
        "last_ok": time.time() if not error else before.get("last_ok"),
    }
    os.makedirs(paths.team_dir(), exist_ok=True)
    write_json_atomic(paths.status_path(), status)
    if notify:
        with open(paths.notice_path(), "a", encoding="utf-8") as handle:
            handle.write(
                f"team: the team's server was not reached ({status['error']}); your figures"
                " wait here and go with the next push (`missioncache team status`)\n"
            )
    return notify


def take() -> str:
    """The pending notice as one line (then gone), or ""; never raises."""
    from missioncache_state.notice_file import take_notice

    return take_notice(paths.notice_path(), MAX_NOTICE)
