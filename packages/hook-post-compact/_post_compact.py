"""PostCompact (after every manual /compact and auto compaction): keep the model's summary
of the session with the task, so tomorrow's session and ``/missioncache:load`` see it.

Claude Code passes ``compact_summary``, the model's raw reply (``<analysis>`` included);
``missioncache_db._compactions`` keeps its ``<summary>`` part as one bounded record in the
task's folder under the data root. It finds the task from the session binding, reading
tasks.db only when that does not answer, and never writes tasks.db, so a busy database
costs nothing but a short wait.

Prints nothing when the summary is kept: on manual /compact plain stdout becomes a dim
line the human sees AND text the model receives in every later request, JSON is not
interpreted, and ``hookSpecificOutput`` is reported as a failure (contract 11.4). When it
cannot be kept (full disk, read-only data root) the human is told in one line what to do:
on that dim line after a manual /compact, by the next SessionStart after an auto one
(missioncache_state.summary_failure); plus a breadcrumb on stderr, exit 0 (the compaction
has already happened and must not be disturbed). See docs/compactions.md.
"""

from __future__ import annotations

BUSY_TIMEOUT = 3.0  # seconds; reads only, and the hook's budget is 10


def main() -> None:
    from missioncache_hookio.payload import (
        identity,
        prose_field,
        read_payload,
        text_field,
        well_typed,
    )

    payload = read_payload()
    if payload is None or not well_typed(payload):
        return
    summary = prose_field(payload, "compact_summary")  # a NUL in it is replaced, not fatal
    if summary is None:
        return  # not a PostCompact payload we understand: nothing to keep
    ident = identity(payload)
    from missioncache_db import find_task

    task = find_task(ident.cwd, ident.session_id, BUSY_TIMEOUT)
    if task is None:
        return
    from missioncache_db import record_compaction

    trigger = text_field(payload, "trigger")
    try:
        record_compaction(task, summary, trigger, ident.session_id)
    except (OSError, ValueError) as error:  # full disk, read-only data root, unsafe path
        tell_the_human(task.name, str(error), trigger)


def tell_the_human(task_name: str, error: str, trigger: str | None) -> None:
    """A lost summary must reach the person, not only the log. After a manual /compact our
    stdout is a line they see (the model reads it too, and may act on it); after an auto
    compaction it reaches nobody, so the note waits for the next SessionStart."""
    from missioncache_hookio.output import breadcrumb, emit
    from missioncache_state.summary_failure import record_summary_failure, summary_note

    breadcrumb(f"compaction summary of {task_name} not saved: {error}")
    if trigger == "manual":
        emit(summary_note(task_name, error) + ".")
        return
    from missioncache_context import format_when

    record_summary_failure(task_name, error, format_when())
