"""Stop: after an exchange in which Claude edited files on a MissionCache task, remind
the human to save the task's context.

The reminder is a JSON ``systemMessage``: the only exit-0 channel a human sees after a
Stop (stderr reaches nobody; ``additionalContext`` or exit 2 would make Claude carry on).
Edits are found by parsing the transcript's current exchange (a ``tool_use`` block of an
editing tool, not a mention of one), and that cheap check comes first: most exchanges
edit nothing and never touch SQLite. Silent when ``stop_hook_active``. See docs/hooks.md.

Before any of that it records the end of the turn for time tracking: one line appended
to the heartbeat spool (``missioncache_spool.record_turn_end``), no SQLite (docs/time.md), and the
tokens the turn used, read from where the last Stop stopped reading (docs/cost.md).
"""

from __future__ import annotations

import sys

from missioncache_state import lean_os as os

BUSY_TIMEOUT = 1.0  # seconds; a read, and the budget is 10

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_hookio.payload import Identity


def running_background_tasks(payload: dict[str, Any]) -> int:
    """How many of the turn's background tasks (subagents) are still running: Claude's
    work goes on after this Stop until they report back (docs/time.md)."""
    tasks = payload.get("background_tasks")
    if not isinstance(tasks, list):
        return 0
    return sum(1 for t in tasks if isinstance(t, dict) and t.get("status") == "running")


def record_end(payload: dict[str, Any], ident: Identity) -> None:
    """Spool the end of this turn first (no SQLite, no task lookup): the time model's
    turn end, recorded even when the reminder below has nothing to say. Also after a
    continued turn (``stop_hook_active``): the later end is the real one."""
    from missioncache_spool import record_turn_end

    try:
        record_turn_end(
            ident.session_id, ident.prompt_id, "stop", running_background_tasks(payload)
        )
    except OSError as error:  # a full disk costs this turn's end, never the reminder
        sys.stderr.write(f"missioncache: turn end not recorded: {error}\n")


FILES_NAMED = 3


def reminder(task_name: str, paths: list, cwd: str) -> str:
    """``Claude changed 2 files in this turn (a.py, b.py) …``: files, not edits (the
    status line counts edits, every change; this counts the files they touched), with a
    real plural and their names, so the two never read as contradicting each other."""
    names: list = []
    for path in paths:
        name = path if isinstance(path, str) and path else "a file"
        if isinstance(path, str) and path.startswith(cwd.rstrip("/") + "/"):
            name = path[len(cwd.rstrip("/")) + 1 :]
        if name not in names:
            names.append(name)
    count = len(names)
    shown = ", ".join(names[:FILES_NAMED]) + (
        f" and {count - FILES_NAMED} more" if count > FILES_NAMED else ""
    )
    return (
        f"MissionCache: Claude changed {count} file{'' if count == 1 else 's'} in this turn"
        f" ({shown}) while working on {task_name}. Run /missioncache:save to save context"
        " before you leave."
    )


def record_tokens(ident: Identity, transcript_path: str) -> None:
    """Spool the tokens the transcripts gained during this turn (docs/cost.md): a read
    from where the last one stopped, so it costs the same on any transcript size."""
    from missioncache_spool import record_usage

    try:
        record_usage(ident.session_id, transcript_path, ident.prompt_id)
    except OSError as error:  # the next Stop reads the same lines again
        sys.stderr.write(f"missioncache: tokens not recorded: {error}\n")


def main() -> None:
    from missioncache_hookio.payload import identity, read_payload, well_typed

    payload = read_payload()
    if payload is None or not well_typed(payload):
        return
    ident = identity(payload)  # the ids: parsed once, here
    record_end(payload, ident)
    if ident.transcript_path:
        record_tokens(ident, ident.transcript_path)

    from missioncache_state.locations import dashboard_dir, sync_dir, team_dir

    # Each only where its folder exists: elsewhere one stat, no import (docs/hooks.md).
    if os.path.isdir(sync_dir()):
        from missioncache_sync.hooks import start_auto

        start_auto("stop")  # a detached, debounced push
    notes = []
    if os.path.isdir(team_dir()):  # one stat where no team is set up (docs/team.md)
        from missioncache_team.hooks import start_auto as push_to_team
        from missioncache_team.hooks import take_notice

        push_to_team()  # detached and debounced: this hook never waits on the network
        notes.append(take_notice())  # the server out of reach: told once
    if os.path.isdir(dashboard_dir()):
        from missioncache_hookio.dashboard_left import tidy_in_background

        notes.append(tidy_in_background())  # a killed dashboard's hooks: out, and said so
    if not payload.get("stop_hook_active"):
        notes.append(save_reminder(ident))
    message = " · ".join(note for note in notes if note)
    if message:
        from missioncache_hookio.output import emit_json, hook_json

        emit_json(hook_json("Stop", system_message=message))


def save_reminder(ident: Identity) -> str:
    """The reminder when Claude edited files of a task in this exchange, else ""."""
    if not ident.transcript_path:
        return ""
    from missioncache_transcript import find_edits

    edits = find_edits(ident.transcript_path, prompt_id=ident.prompt_id)
    if not edits:
        return ""
    from missioncache_db import find_task

    task = find_task(ident.cwd, ident.session_id, BUSY_TIMEOUT)
    if task is None or not os.path.isfile(task.context_path):
        return ""
    return reminder(task.name, [edit.file_path for edit in edits], ident.cwd)
