"""A compaction summary PostCompact could not keep, kept until someone tells the user.

After an automatic compaction PostCompact's output reaches nobody, and it runs after
SessionStart(compact) (docs/claude-code-contract.md 11.4), so it leaves this one small
record and the next SessionStart shows it to the human once and clears it. After a manual
/compact PostCompact prints the same note itself (its stdout is a line the human sees).
One module owns the record and its wording, so the writer and the reader cannot drift.
"""

from __future__ import annotations

from missioncache_state.statefile import one_line, save_state, take_state

KIND = "postcompact-error"


def summary_note(task_name: str, error: str, when: str = "") -> str:
    """The one line the human reads: what was lost and what to do about it."""
    at = f" at {when}" if when else ""
    return (
        f"MissionCache could not keep the compaction summary of task {task_name}{at}"
        f" ({error}); run /missioncache:save so the context file says where the work stands"
    )


def record_summary_failure(task_name: str, error: str, when: str) -> bool:
    """Remember the failure for the next SessionStart; False when even that failed."""
    data = {"task": one_line(task_name), "error": one_line(error), "time": one_line(when)}
    try:
        return save_state(KIND, data)
    except (OSError, ValueError):
        return False


def take_summary_note() -> str | None:
    """The pending note, cleared as it is taken; None when there is none. A record that
    exists but cannot be read still tells the user once that a summary was lost."""
    data = take_state(KIND)
    if data is None:
        return None
    fields = {key: one_line(data.get(key)) for key in ("task", "error", "time")}
    return summary_note(fields["task"] or "?", fields["error"] or "unknown error", fields["time"])
