"""Telling the human about sync once, not at every prompt (docs/sync.md).

A sync records its outcome in ``sync/status.json``. What the human must hear (the remote
stopped answering; a file now holds both versions of a conflicting edit) is appended to
``sync/notice.txt`` only when it is new: the first failure after a success, each
conflicted file once. The next SessionStart shows those lines in its one-line message and
deletes the file (``take``); ``missioncache doctor`` reports the state every time.

``take`` is on SessionStart's path: ``os`` only, one failed ``open`` when there is nothing.
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_sync import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_sync.sync import Outcome

MAX_NOTICE = 4096
MAX_TOLD = 50  # lines remembered as told, so a lasting state is told once


def take() -> str:
    """The pending notice as one line (then gone), or ""."""
    from missioncache_state.notice_file import take_notice

    return take_notice(paths.notice_path(), MAX_NOTICE)


def _append(lines: list[str]) -> None:
    os.makedirs(paths.sync_dir(), exist_ok=True)
    with open(paths.notice_path(), "a", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")


def record(outcome: Outcome) -> None:
    """Store the outcome; queue what the human has not been told yet."""
    import time

    from missioncache_state.atomic import read_json_object, write_json_atomic
    from missioncache_sync.sync import conflicted_files

    status = read_json_object(paths.status_path()) or {}
    told = status.get("told_conflicts")
    told = [p for p in told if isinstance(p, str)] if isinstance(told, list) else []
    lines = []
    told_offline = bool(outcome.offline) and bool(status.get("told_offline"))
    if outcome.offline and not told_offline and not outcome.quiet:
        told_offline = True
        lines.append(  # git's own words stay in `missioncache sync status`
            "sync: the remote was not reached; your time and notes are kept here and go"
            " with the next sync (the reason: `missioncache sync status`)"
        )
    problem = outcome.failed or outcome.refused
    if problem and status.get("told_problem") != problem:
        lines.append(
            f"sync: the last sync failed ({problem[:300]}); your time and notes are kept"
            " here; `missioncache doctor` says more"
        )
    said_before = status.get("told_lines")
    said_before = (
        [x for x in said_before if isinstance(x, str)] if isinstance(said_before, list) else []
    )
    fresh = [line for line in outcome.told if line not in said_before]
    lines += fresh
    current = conflicted_files()
    for path in current:
        if path not in told:
            lines.append(
                f"sync: {path} has both versions of a conflicting edit between <<<<<<< and"
                " >>>>>>> markers; keep what you want and delete the rest"
            )
    if lines:
        _append(lines)
    write_json_atomic(
        paths.status_path(),
        {
            "at": time.time(),
            "ok": outcome.offline is None and problem is None,
            "error": outcome.offline,
            "failed": outcome.failed,
            "refused": outcome.refused,
            "told_problem": problem,
            "told_lines": (said_before + fresh)[-MAX_TOLD:],
            "told_offline": told_offline,
            "told_conflicts": current,
            "exported": outcome.exported,
            "imported": outcome.imported,
        },
    )
