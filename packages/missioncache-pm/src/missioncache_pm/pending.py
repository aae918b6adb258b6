"""The pending pre-compact failure, as ``/missioncache:load`` words it.

The record itself (written by the PreCompact hook, taken once by whoever shows it first:
SessionStart or this command) belongs to ``missioncache_state.precompact_failure``.
"""

from __future__ import annotations


def take_precompact_error() -> str | None:
    """One line (when, which task, what failed), clearing the record; None when none."""
    from missioncache_state.precompact_failure import take_failure

    failure = take_failure()
    if failure is None:
        return None
    parts = ["The last automatic save before compaction failed"]
    if failure["time"]:
        parts.append(f"at {failure['time']}")
    if failure["task"]:
        parts.append(f"for task {failure['task']}")
    return f"{' '.join(parts)}: {failure['error'] or 'no details recorded'}."
