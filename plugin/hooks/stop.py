#!/usr/bin/env python3
"""Stop: after an exchange in which Claude edited files on a MissionCache task, remind
the human to save the task's context.

The reminder is a JSON ``systemMessage``: the only exit-0 channel a human sees after a
Stop (stderr reaches nobody; ``additionalContext`` or exit 2 would make Claude carry on).
Edits are found by parsing the transcript's current exchange (a ``tool_use`` block of an
editing tool, not a mention of one), and that cheap check comes first: most exchanges
edit nothing and never touch SQLite. Silent when ``stop_hook_active``. See docs/hooks.md.
"""

from __future__ import annotations

import os
import sys

# Bundled libraries for marketplace installs (no pip install step).
_BUNDLED_MISSIONCACHE_DB = os.path.join(
    os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "missioncache-db"
)
if os.path.isdir(_BUNDLED_MISSIONCACHE_DB) and _BUNDLED_MISSIONCACHE_DB not in sys.path:
    sys.path.insert(0, _BUNDLED_MISSIONCACHE_DB)

BUSY_TIMEOUT = 1.0  # seconds; a read, and the budget is 10


def main() -> None:
    from missioncache_hookio.payload import identity, read_payload, text_field, well_typed

    payload = read_payload()
    if payload is None or not well_typed(payload) or payload.get("stop_hook_active"):
        return
    ident = identity(payload)
    if not ident.transcript_path:
        return
    from missioncache_transcript import find_edits

    edits = find_edits(ident.transcript_path, prompt_id=text_field(payload, "prompt_id"))
    if not edits:
        return
    from missioncache_db import find_task

    task = find_task(ident.cwd, ident.session_id, BUSY_TIMEOUT)
    if task is None or not os.path.isfile(task.context_path):
        return
    from missioncache_hookio.output import emit_json, hook_json

    files = len({edit.file_path for edit in edits})
    message = (
        f"MissionCache: Claude edited {files} file(s) while working on {task.name}."
        " Run /missioncache:save to save context before you leave."
    )
    emit_json(hook_json("Stop", system_message=message))


if __name__ == "__main__":
    try:
        from missioncache_hookio.output import run_hook
    except ImportError:
        sys.exit(0)
    run_hook(main)
