"""PreCompact (manual /compact and auto): leave a trace in the task's context file before
the conversation is summarised, then fold heartbeats into work sessions.

Under the context file's lock (bounded), it stamps ``**Last Updated:**`` and adds a
``### YYYY-MM-DD HH:MM`` Recent Changes entry: ``- Auto-saved before compaction (<when>,
<trigger>)`` with the last few prompts and replies as one-line sub-bullets (newlines
collapsed, cut short, behind a label) so no transcript text can become markdown structure.

Stdout becomes the compaction's "Additional Instructions" (and on manual /compact the
human sees it), so it is one short line. Never exit 2, never a block decision or JSON. A
snapshot that did not land, or landed while an editor's save of the same moment went to a
kept copy, is recorded (state ``precompact-error``) for the next SessionStart to report;
heartbeats that cannot be folded now just wait for the next writer (nothing to tell).
See docs/hooks.md.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_db import Task

LOCK_TIMEOUT = 5.0  # seconds for the context file's lock
BUSY_TIMEOUT = 20.0  # seconds for tasks.db; the hook's budget is 30
SNAPSHOT_TURNS = 3
SNAPSHOT_CHARS = 300
TRIGGERS = ("manual", "auto")


def one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNAPSHOT_CHARS else flat[: SNAPSHOT_CHARS - 1].rstrip() + "…"


def snapshot(transcript: str | None) -> list[str]:
    """The last prompts and replies as indented sub-bullets, each one labelled line. Only
    what the human typed is a "User:" line: ``/exit``, ``/compact`` and synthetic turns
    (agent notifications, command output) are not."""
    from missioncache_transcript import recent_turns

    try:
        turns = recent_turns(transcript, SNAPSHOT_TURNS, None, typed_only=True)
    except Exception:  # an unreadable transcript costs the snapshot, never the save
        return []
    labels = {"user": "User", "assistant": "Claude"}
    return [f"  - {labels.get(t.role, 'Turn')}: {one_line(t.text)}" for t in turns if t.text]


def save_snapshot(task: Task, trigger: str, transcript: str | None) -> str:
    """Write the entry; returns the context file written."""
    from missioncache_context import format_when, record_change, update_file

    when = format_when()
    body = [f"- Auto-saved before compaction ({when}, {trigger})", *snapshot(transcript)]
    result = update_file(
        task.context_path, lambda text: record_change(text, body, when=when), timeout=LOCK_TIMEOUT
    )
    written: str = result.file
    return written


def landed_anyway(error: BaseException) -> str | None:
    """The file our snapshot reached although the update raised: an editor's save of the
    same moment went to the version we replaced and is kept in a copy (SaveDivertedError)."""
    from missioncache_context import SaveDivertedError

    return error.file if isinstance(error, SaveDivertedError) else None


def describe(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())[:300]


def main() -> None:
    from missioncache_hookio.output import emit
    from missioncache_hookio.payload import identity, read_payload, text_field, well_typed

    payload = read_payload()
    if payload is None or not well_typed(payload):
        return
    ident = identity(payload)
    trigger = text_field(payload, "trigger")
    trigger = trigger if trigger in TRIGGERS else "unknown"
    from missioncache_db import open_if_set_up

    db = open_if_set_up(BUSY_TIMEOUT)
    if db is None:
        return
    with db:
        task = db.find_task_for_cwd(ident.cwd, ident.session_id)
        if task is None:
            return
        errors, saved, diverted = [], None, False
        try:
            saved = save_snapshot(task, trigger, ident.transcript_path)
        except Exception as error:  # lock timeout, missing file, not UTF-8, write failed
            saved = landed_anyway(error)
            diverted = saved is not None
            errors.append(f"context file: {describe(error)}")
        try:
            db.process_heartbeats()
        except Exception as error:  # sqlite3.OperationalError past the busy timeout
            errors.append(f"heartbeats: {describe(error)}")
    if errors and (saved is None or diverted):  # heartbeats alone wait in the spool: no loss
        from missioncache_context import format_when
        from missioncache_state.precompact_failure import record_failure

        record_failure(
            task.name, task.id, "; ".join(errors), ident.session_id, format_when(), diverted
        )
    keep = f'keep the MissionCache task name "{task.name}" and its next steps in the summary.'
    if diverted:
        emit(f"MissionCache saved a pre-compaction snapshot to {saved} ({errors[0]}); {keep}")
    elif saved:
        emit(f"MissionCache saved a pre-compaction snapshot to {saved}; {keep}")
    else:
        emit(f"MissionCache could not save a pre-compaction snapshot; {keep}")
