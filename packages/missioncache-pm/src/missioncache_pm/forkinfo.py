"""Forks as the commands and tools show them (docs/forks.md): a fork's parent and its
shared layer, what changed there since this session last read it, the shared-seen
marker, writing a decision to the shared layer, creating and finishing a fork.

Standard library only: ``slash.py`` runs it under the user's own ``python3``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from missioncache_pm.errors import PmError

if TYPE_CHECKING:
    from missioncache_db import Task, TaskDB

DIFF_LIMIT = 6000  # characters of the change /missioncache:load shows
DIGEST_LIMIT = 4000


def clock(epoch: float) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


def stamp_seen(session_id: str | None, parent: Task) -> bool:
    """This session has just read ``parent``'s context: restamp its marker."""
    if not session_id:
        return False
    from missioncache_state.shared_seen import stamp

    try:
        return stamp(session_id, parent.id, parent.key, parent.context_path)
    except OSError:
        return False


def change_lines(session_id: str | None, parent: Task) -> list[str]:
    """``PARENT UPDATED`` with when and what changed, when the parent's context changed
    after this session's mark; nothing otherwise (also when it never read it)."""
    from missioncache_state.shared_seen import changed_since_mark, seen_text

    if not session_id:
        return []
    changed = changed_since_mark(session_id, parent.context_path)
    if changed is None:
        return []
    lines = [
        f"PARENT UPDATED: the shared layer (the context of the parent task {parent.key}) changed"
        f" at {clock(changed / 1e9)}, after this session last read it: another fork saved"
        " to it. Tell the user, and take the change into account:",
        "",
    ]
    diff = _diff(seen_text(session_id), parent.context_path)
    if diff:
        fence = "`" * (max(3, _longest_backticks(diff)) + 1)
        lines += [f"{fence}diff", diff, fence, ""]
    else:
        lines += ["(the earlier text was not kept; the whole file is shown below)", ""]
    return lines


def _longest_backticks(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def _diff(before: str | None, path: str) -> str:
    import difflib

    from missioncache_context import read_file

    if before is None:
        return ""
    try:
        after = read_file(path)
    except (OSError, ValueError):
        return ""
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), "as last read", "now", n=1, lineterm=""
    )
    text = "\n".join(lines)
    if len(text) > DIFF_LIMIT:
        text = text[:DIFF_LIMIT].rstrip() + "\n[… the rest of the change is in the file]"
    return text


def parent_lines(db: TaskDB, task: Task) -> list[str]:
    """The facts line of a fork about its parent, or of a parent about its forks."""
    parent = db.parent_of(task)
    if parent is not None:
        state = "" if os.path.isdir(parent.directory_path) else "; its folder is gone"
        return [
            f"**Fork of:** {parent.key} ({parent.status}{state}); shared layer (the parent's"
            f" context file): {parent.context_path}"
        ]
    forks = db.forks_of(task.id, open_only=True)
    if forks:
        names = ", ".join(fork.key for fork in forks)
        return [f"**Open forks:** {names} (their time counts in this task's total)"]
    return []


def task_for_context_file(db: TaskDB, path: Any) -> Task | None:
    """The task whose context file ``path`` is (symlinks resolved)."""
    real = os.path.realpath(os.fspath(path))
    for task in db.list_tasks():
        if os.path.realpath(task.context_path) == real:
            return task
    return None


def restamp_after_write(session_id: str | None, written: Any) -> None:
    """A save by this session to its parent's context is no news to this session: the
    status line must not show ``parent updated`` for it (the other forks' lines do)."""
    if not session_id:
        return
    from missioncache_db import TaskDB
    from missioncache_state.ids import session_id_or_none

    try:
        with TaskDB(busy_timeout=2.0) as db:
            task = db.find_task_for_cwd(os.getcwd(), session_id_or_none(session_id))
            parent = db.parent_of(task) if task is not None else None
    except Exception:
        return  # a busy or broken database costs the restamp only
    real = os.path.realpath(os.fspath(written))
    if parent is not None and os.path.realpath(parent.context_path) == real:
        stamp_seen(session_id, parent)


def shared_target(context_file: Any) -> tuple[Task, Task]:
    """``(fork, parent)`` for a decision to the shared layer given the fork's context file
    (or the parent's own, then the session decides nothing: PmError)."""
    from missioncache_db import TaskDB

    with TaskDB(busy_timeout=5.0) as db:
        task = task_for_context_file(db, context_file)
        if task is None:
            raise PmError(f"{context_file} is no MissionCache task's context file")
        parent = db.parent_of(task)
    if parent is None:
        raise PmError(
            f"{task.key} is not a fork, so it has no shared layer; put the decision in"
            " recent_change instead"
        )
    if not os.path.isdir(parent.directory_path):
        from missioncache_db import folder_gone

        raise PmError(f"The shared layer cannot be written: {parent.key}'s {folder_gone(parent)}")
    return task, parent


def digest_text(name: Any, session_id: str | None) -> str:
    """The ``get_context_digest`` tool: a task's Next Steps and newest Recent Changes
    entries. A fork reading its parent restamps its shared-seen marker."""
    from missioncache_context import newest_recent_change, read_file, recent_changes, section
    from missioncache_pm import taskinfo
    from missioncache_state.ids import session_id_or_none

    sid = session_id_or_none(session_id)
    with taskinfo.open_db() as db:
        task = taskinfo.task_named(db, name)
        own = db.find_task_for_cwd(os.getcwd(), sid) if sid else None
        reader_parent = db.parent_of(own) if own is not None else None
        facts = parent_lines(db, task)
    try:
        text = read_file(task.context_path)
    except (OSError, ValueError) as error:
        raise PmError(f"The context file of {task.key} cannot be read: {error}") from None
    lines = [f"Digest of {task.key}'s context file ({task.context_path}).", *facts, ""]
    steps = section(text, "Next Steps")
    if steps and steps.strip():
        lines += ["## Next Steps", steps.strip(), ""]
    entries = recent_changes(text) or [newest_recent_change(text) or ""]
    shown = "\n\n".join(entry.strip() for entry in entries[:5] if entry.strip())
    if shown:
        lines += ["## Recent Changes (newest first)", shown]
    out = "\n".join(lines).strip()
    if len(out) > DIGEST_LIMIT:
        out = out[:DIGEST_LIMIT].rstrip() + "\n[… cut; read the file for the rest]"
    if reader_parent is not None and reader_parent.id == task.id:
        stamp_seen(session_id, task)
    return out


def fork_here(db: TaskDB, parent: Task, name: str, cwd: str) -> Task:
    """``/missioncache:fork``: fork ``parent``; a session in a linked git worktree that no
    open fork is tied to ties the new fork to that worktree (sessions started there later
    are on the fork too)."""
    from missioncache_db import linked_worktree

    found = linked_worktree(os.path.realpath(cwd))
    tie = found[0] if found is not None else None
    if tie is not None:
        try:
            return db.create_fork(parent.key, name, tie)
        except ValueError as error:
            if "already tied" not in str(error):
                raise
    return db.create_fork(parent.key, name)
