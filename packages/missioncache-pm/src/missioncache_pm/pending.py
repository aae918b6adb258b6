"""The pending pre-compact failure: reported once by whoever shows it first.

When the PreCompact hook cannot save its snapshot it records the failure as the global
state file ``<claude>/hooks/state/precompact-error.json`` (missioncache_state.statefile
kind ``precompact-error``: task, error, time, session id). SessionStart reports it, and so
does ``/missioncache:load``; each clears it after showing it so it is never repeated.
"""

from __future__ import annotations

from typing import Any, Optional

KIND = "precompact-error"
_KEYS = {
    "task": ("task", "taskName", "projectName", "project"),
    "error": ("error", "message", "reason"),
    "time": ("time", "timestamp", "when", "updated"),
}


def _first(record: dict, names: tuple) -> Optional[str]:
    for name in names:
        value = record.get(name)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and value != "":
            return " ".join(str(value).split())[:300]
    return None


def describe(record: dict) -> str:
    """One line: when, which task, what failed."""
    when, task, error = (_first(record, _KEYS[k]) for k in ("time", "task", "error"))
    parts = ["The last automatic save before compaction failed"]
    if when:
        parts.append(f"at {when}")
    if task:
        parts.append(f"for task {task}")
    text = " ".join(parts)
    return f"{text}: {error or 'no details recorded'}."


def take_precompact_error() -> Optional[str]:
    """The pending failure's description, clearing it; None when there is none. A record
    that exists but cannot be read is still a failure worth mentioning (and clearing)."""
    from missioncache_state.statefile import clear_state, load_state, state_file

    record: Any = load_state(KIND)
    if record is None:
        path = state_file(KIND)
        if path is None or not path.exists():
            return None
        record = {"error": "the failure record could not be read"}
    clear_state(KIND)
    return describe(record)
