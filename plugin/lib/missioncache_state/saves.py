"""When a task was last saved for real: ``<task folder>/.missioncache-saved``.

"saved 13:05" on the status line must mean the person's or Claude's last save
(``/missioncache:save``, the ``update_context_file`` / ``update_tasks_file`` tools or their
fallback), not the time the template was written nor MissionCache's own pre-compaction
snapshot, both of which also stamp the context file's ``**Last Updated:**`` line. So the
tools record each save here, and a new task starts with ``{"saved": null}`` ("never
saved"). A folder without the file is a task from before this record: its stamp is used,
as before.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SAVED_FILE = ".missioncache-saved"


def saved_marker(folder: Any) -> str:
    return os.path.join(str(folder), SAVED_FILE)


def record_save(folder: Any, when: float | None = None) -> None:
    """Remember a real save of the task in ``folder`` (now, unless ``when``)."""
    import time

    from missioncache_state.atomic import write_json_atomic

    stamp = time.time() if when is None else float(when)
    write_json_atomic(saved_marker(folder), {"saved": stamp}, durable=False)


def mark_never_saved(folder: Any) -> None:
    """A new task: "never saved" until its first save (an existing record is kept)."""
    from missioncache_state.atomic import write_json_atomic

    if not os.path.lexists(saved_marker(folder)):
        write_json_atomic(saved_marker(folder), {"saved": None}, durable=False)


def last_save(folder: Any) -> tuple[bool, float | None]:
    """(whether the folder keeps the record, the last save's epoch or None for never)."""
    from missioncache_state.atomic import read_json_object

    record = read_json_object(saved_marker(folder))
    if record is None:
        return False, None
    value = record.get("saved")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return True, float(value)
    return True, None
