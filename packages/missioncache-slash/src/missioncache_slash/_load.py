"""``/missioncache:load`` and ``/missioncache:save``: the task's facts and files shown to
Claude, the session bound (load), the way to save without the server (save)."""

from __future__ import annotations

import os

from missioncache_slash._common import (
    compaction_blocks,
    file_block,
    folder_gone,
    helper_script,
    mcp_notice,
    session_from_env,
    task_for_session,
    task_instructions,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_db import Task


def cmd_load(words: list[str]) -> list[str]:
    from missioncache_pm import forkinfo, taskinfo
    from missioncache_pm.pending import take_precompact_error
    from missioncache_state.summary_failure import take_summary_note

    sid = session_from_env()
    name = " ".join(words).strip()
    with taskinfo.open_db() as db:
        task = taskinfo.task_named(db, name) if name else task_for_session(db, sid)
        if task is None:
            return [
                "MISSIONCACHE: no task given and none is tracked here.",
                taskinfo.no_task_message(db, os.getcwd()),
            ]
        if db.task_folder_missing(task):
            return folder_gone(task)
        facts = taskinfo.task_lines(db, task)
        facts += forkinfo.parent_lines(db, task)
        parent = db.parent_of(task)
    out = [f"MISSIONCACHE: loaded task {task.name}.", *facts, taskinfo.bind(task, sid), ""]
    out += forkinfo.change_lines(sid, parent) if parent is not None else []
    failure = take_precompact_error()
    if failure:
        out += [f"WARNING: {failure}", ""]
    lost_summary = take_summary_note()
    if lost_summary:
        out += [f"WARNING: {lost_summary}.", ""]
    out += [*mcp_notice(), task_instructions(), ""]
    out += file_block("Context file", task.context_file)
    out += file_block("Tasks file", task.tasks_file)
    if parent is not None:
        out += shared_layer_block(parent, sid)
    out += compaction_blocks(task)
    return out


def shared_layer_block(parent: Task, sid: str | None) -> list[str]:
    """A fork's parent context, the shared layer, shown whole; reading it restamps this
    session's shared-seen marker (docs/forks.md)."""
    from missioncache_pm import forkinfo

    if not os.path.isdir(parent.directory_path):
        return [f"(The shared layer cannot be read: the folder of {parent.key} is gone.)", ""]
    block = file_block(
        f"Shared layer (context of the parent task {parent.key})", parent.context_file
    )
    forkinfo.stamp_seen(sid, parent)
    return block


def cmd_save(words: list[str]) -> list[str]:
    from missioncache_pm import forkinfo, taskinfo

    sid = session_from_env()
    with taskinfo.open_db() as db:
        task = task_for_session(db, sid)
        if task is None:
            return [
                "MISSIONCACHE: this session is not tracking a task, so there is nothing to save.",
                taskinfo.known_tasks(db) + ".",
            ]
        if db.task_folder_missing(task):
            return folder_gone(task)
        facts = taskinfo.task_lines(db, task)  # folds pending heartbeats into sessions first
        facts += forkinfo.parent_lines(db, task)
        parent = db.parent_of(task)
    from missioncache_hookio.guide import helper_command

    notice = mcp_notice()
    if not notice:  # the server looked fine; Claude may still find its tools gone
        notice = [f"Helper, should the tools be unavailable: `{helper_command(helper_script())}`"]
    out = [f"MISSIONCACHE: saving task {task.name}.", *facts, "", *notice]
    if parent is not None:
        out += [
            f"THIS TASK IS A FORK of {parent.key}: decisions that hold for every fork go to"
            " the shared layer with `shared_decision` (see the command's instructions);"
            " this fork's own progress stays in its own files.",
            "",
        ]
        out += forkinfo.change_lines(sid, parent)
    out += conflict_lines(str(task.context_file))
    out += file_block("Context file", task.context_file)
    out += file_block("Tasks file", task.tasks_file)
    return out


def conflict_lines(path: str) -> list[str]:
    """The sync conflict a save would meet in ``## Next Steps``, said before the file."""
    from missioncache_context.conflicts import conflict_note, section_conflict
    from missioncache_context.reading import read_file

    try:
        text = read_file(path)
    except (OSError, ValueError):
        return []
    return [conflict_note(path), ""] if section_conflict(text, "Next Steps") else []
