"""``python -m missioncache_sync auto REASON``: the detached sync the hooks start.

Bounded twice: each network step by its timeout (1.5 s at a session's start, where the
person is waiting for nothing but should see fresh figures soon; 15 s after a turn), and
the whole process by a hard wall. It skips when another sync holds the lock, prints
nothing and always exits 0: what went wrong reaches the human through the notice.
"""

from __future__ import annotations

import sys

START_TIMEOUT = 1.5
PUSH_TIMEOUT = 15.0
WALL_SECONDS = 90


def auto(reason: str) -> int:
    from missioncache_time import arm_hard_wall

    arm_hard_wall(WALL_SECONDS)
    try:
        from missioncache_sync.sync import sync

        start = reason == "start"
        sync(START_TIMEOUT if start else PUSH_TIMEOUT, lock_timeout=0, quiet=start)
    except Exception:
        pass  # busy (another sync), not set up, a broken database: the notice or doctor says
    return 0


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "auto":
        return auto(argv[1])
    print("usage: python -m missioncache_sync auto REASON", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
