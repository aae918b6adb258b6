"""A failed pre-compaction snapshot, kept until someone tells the user.

PreCompact cannot tell anyone itself (an automatic compaction shows the user nothing), so
it leaves this one small record; the next SessionStart or ``/missioncache:load`` reports
it once and clears it. One module owns the record's shape, so the writer and its readers
cannot drift apart.
"""

from __future__ import annotations

from missioncache_state.statefile import one_line, save_state, take_state

KIND = "precompact-error"


def record_failure(
    task_name: str,
    task_id: int,
    error: str,
    session_id: str | None,
    when: str,
    saved: bool = False,
) -> None:
    """Remember that the snapshot of ``task_name`` went wrong with ``error`` at ``when``;
    ``saved``: the snapshot itself landed, but an editor's save of the same moment did not
    (it is in a kept copy that ``error`` names), which asks the user for another step."""
    save_state(
        KIND,
        {
            "task": task_name,
            "task_id": task_id,
            "error": error,
            "time": when,
            "session_id": session_id,
            "saved": saved,
        },
    )


def take_failure() -> dict[str, str] | None:
    """The pending failure as ``{"task", "time", "error", "saved"}`` one-line strings
    (missing ones empty; ``saved`` is ``"yes"`` or empty), cleared as it is taken; None
    when there is none. A record that exists but cannot be read is still a failure worth
    reporting once."""
    data = take_state(KIND)
    if data is None:
        return None
    taken = {key: one_line(data.get(key)) for key in ("task", "time", "error")}
    taken["saved"] = "yes" if data.get("saved") is True else ""
    return taken


def headline(failure: dict[str, str]) -> tuple[str, str]:
    """(what happened, what to do) for a taken failure, in the words every reader uses."""
    task, when = failure["task"] or "?", failure["time"] or "?"
    error = failure["error"] or "unknown error"
    if failure.get("saved"):
        return (
            f"the pre-compaction snapshot of {task} at {when} was saved, but an editor's save"
            f" of the same moment could not be merged into it ({error})",
            "Open the kept copy it names and put its changes back into the context file.",
        )
    return (
        f"the pre-compaction snapshot of {task} at {when} was not saved ({error})",
        "Run `/missioncache:save` to save the context by hand.",
    )
