"""PreCompact (manual /compact and auto): leave a trace in the task's context file before
the conversation is summarised, then fold heartbeats into work sessions.

Under the context file's lock (bounded), it stamps ``**Last Updated:**`` and adds a
``### YYYY-MM-DD HH:MM`` Recent Changes entry: ``- Auto-saved before compaction (<when>,
<trigger>)`` with the exchanges since the last save (each prompt once with Claude's last
reply to it) and the files Claude changed, as one-line sub-bullets (newlines collapsed,
cut short, behind a label) so no transcript text can become markdown structure.

Stdout becomes the compaction's "Additional Instructions" (and on manual /compact the
human sees it under the command), so it is one short line for the summariser only. Never
exit 2, never a block decision or JSON. A snapshot that did not land, or landed while an
editor's save of the same moment went to a kept copy, is recorded (state
``precompact-error``) for the next SessionStart to report; heartbeats that cannot be folded
now just wait for the next writer (nothing to tell).
See docs/hooks.md.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_db import Task

LOCK_TIMEOUT = 5.0  # seconds for the context file's lock
BUSY_TIMEOUT = 20.0  # seconds for tasks.db; the hook's budget is 30
SNAPSHOT_EXCHANGES = 5  # newest exchanges since the last save: the entry stays short
SNAPSHOT_FILES = 12
SNAPSHOT_CHARS = 300
TRIGGERS = ("manual", "auto")


def one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNAPSHOT_CHARS else flat[: SNAPSHOT_CHARS - 1].rstrip() + "…"


def snapshot(
    transcript: str | None, since: float | None = None, cwd: str | None = None
) -> list[str]:
    """The exchanges since the last save as indented one-line sub-bullets: each prompt the
    human typed once (``/exit``, ``/compact`` and synthetic turns are not prompts), with
    Claude's last reply to it, then the files Claude changed (relative to ``cwd``)."""
    from missioncache_transcript import since_last_save

    try:
        recap = since_last_save(transcript, since, SNAPSHOT_EXCHANGES)
    except Exception:  # an unreadable transcript costs the snapshot, never the save
        return []
    lines = []
    if recap.more:
        lines.append(
            f"  - (earlier exchanges since the last save not shown; last {SNAPSHOT_EXCHANGES})"
        )
    for prompt, reply in recap.exchanges:
        lines.append(f"  - User: {one_line(prompt)}")
        if reply.strip():
            lines.append(f"  - Claude: {one_line(reply)}")
    if recap.files:
        shown = [_relative(path, cwd) for path in recap.files[:SNAPSHOT_FILES]]
        extra = len(recap.files) - len(shown)
        listed = ", ".join(shown) + (f" and {extra} more" if extra > 0 else "")
        lines.append(f"  - Files changed: {one_line(listed)}")
    return lines


def _relative(path: str, cwd: str | None) -> str:
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


def last_save(task: Task) -> float | None:
    """When the task was last saved for real (missioncache_state.saves), else None."""
    from missioncache_state.saves import last_save as recorded

    try:
        return recorded(task.directory_path)[1]
    except Exception:
        return None


def save_snapshot(task: Task, trigger: str, transcript: str | None, cwd: str | None = None) -> str:
    """Write the entry; returns the context file written."""
    from missioncache_context import format_when, record_change, update_file

    when = format_when()
    recap = snapshot(transcript, last_save(task), cwd)
    body = [f"- Auto-saved before compaction ({when}, {trigger})", *recap]
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


def start_sync() -> None:
    """The snapshot just saved goes to the person's other machines: a detached, debounced
    sync when sync is set up (docs/sync.md); never waited for. Where it is not, one stat
    and no import of sync."""
    from missioncache_state import lean_os as os
    from missioncache_state.locations import sync_dir

    if os.path.isdir(sync_dir()):
        from missioncache_sync.hooks import start_auto

        start_auto("precompact")


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
    from missioncache_time import process_pending

    db = open_if_set_up(BUSY_TIMEOUT)
    if db is None:
        return
    with db:
        task = db.find_task_for_cwd(ident.cwd, ident.session_id)
        if task is None:
            return
        errors, saved, diverted = [], None, False
        try:
            saved = save_snapshot(task, trigger, ident.transcript_path, ident.cwd)
        except Exception as error:  # lock timeout, missing file, not UTF-8, write failed
            saved = landed_anyway(error)
            diverted = saved is not None
            errors.append(f"context file: {describe(error)}")
        try:
            process_pending(db)
        except Exception as error:  # sqlite3.OperationalError past the busy timeout
            errors.append(f"heartbeats: {describe(error)}")
    if errors and (saved is None or diverted):  # heartbeats alone wait in the spool: no loss
        from missioncache_context import format_when
        from missioncache_state.precompact_failure import record_failure

        try:
            record_failure(
                task.name, task.id, "; ".join(errors), ident.session_id, format_when(), diverted
            )
        except OSError:  # a read-only ~/.claude: no later SessionStart can tell it, so now
            emit(f"{unrecorded_failure(task.name, errors[0])} {summariser_instruction(task.name)}")
            return
    start_sync()
    emit(summariser_instruction(task.name))


def unrecorded_failure(task_name: str, error: str) -> str:
    """The one failure said on stdout: a snapshot that did not land and whose record could
    not be written either would otherwise be told to nobody (on a manual /compact the
    person reads this line; the summariser reads it too, and keeps the task all the same)."""
    return (
        f"MissionCache could not save a pre-compaction snapshot of {task_name} ({error});"
        " run /missioncache:save after the compaction."
    )


def summariser_instruction(task_name: str) -> str:
    """The one line stdout carries: the compaction's "Additional Instructions". On a manual
    /compact the person sees it too, dimmed after the command, so it is written to the
    summariser and nothing else goes with it: a snapshot that did not land reaches the
    person through the next SessionStart (``precompact-error``), in their own words."""
    return f'Keep the MissionCache task name "{task_name}" and its Next Steps in the summary.'
