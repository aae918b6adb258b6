"""``python -S -m missioncache_team auto``: the hooks' detached push (docs/team.md).

Its output goes to ``team/push.log`` (kept short); a push already running makes this one
leave at once (the running one sends what there is, the next turn's push the rest).
"""

from __future__ import annotations

import sys

from missioncache_state import lean_os as os

MAX_LOG = 64 * 1024
# A push normally takes seconds; one past this is stopped (a server that accepted the
# connection, then hung) so the next turn's push can run, and the person is told.
PUSH_SECONDS = 300
HUNG = (
    "the push to the team's server took over {minutes} minutes and was stopped;"
    " the next turn tries again (run `missioncache team status` to see what waits)"
)


def auto() -> int:
    from missioncache_state.lock import FileLock, LockTimeout
    from missioncache_team import launch, paths, status

    if not paths.is_set_up():
        return 0
    log = paths.log_path()
    try:
        if os.path.getsize(log) > MAX_LOG:
            os.replace(log, log + ".old")
    except OSError:
        pass
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    try:
        with FileLock(paths.push_lock_path(), timeout=0):
            try:
                return launch.run(["push", "--auto"], timeout=PUSH_SECONDS)
            except launch.TimedOut:  # a server that took the connection, then hung
                error_text = HUNG.format(minutes=PUSH_SECONDS // 60)
            except RuntimeError as error:  # no uv: the push cannot start at all
                error_text = str(error)
            status.record(0, -1, error_text)
            print(error_text, file=sys.stderr)
            return 1
    except LockTimeout:
        return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["auto"]:
        return auto()
    print("usage: python -m missioncache_team auto", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
