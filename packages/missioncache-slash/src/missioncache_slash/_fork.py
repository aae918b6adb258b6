"""``/missioncache:fork`` and ``/missioncache:fork-done``: a fork of the session's task
made and bound, and a fork's outcome handed to its parent (docs/forks.md)."""

from __future__ import annotations

import os

from missioncache_slash._common import (
    mcp_notice,
    session_from_env,
    task_for_session,
    task_instructions,
)
from missioncache_slash._load import shared_layer_block

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_db import Task


def cmd_fork(words: list[str]) -> list[str]:
    """``/missioncache:fork NAME``: fork this session's task and bind the session to the
    fork (tied to this git worktree when the session runs in one no fork is tied to)."""
    from missioncache_db import validate_name
    from missioncache_pm import forkinfo, taskinfo

    name = " ".join(words).strip()
    if not name:
        return ["MISSIONCACHE: no fork name given. Usage: /missioncache:fork <name>."]
    validate_name(name)
    sid = session_from_env()
    with taskinfo.open_db() as db:
        parent = task_for_session(db, sid)
        if parent is None:
            return [
                "MISSIONCACHE: this session is not tracking a task, so there is nothing to fork.",
                taskinfo.known_tasks(db) + ".",
            ]
        fork = forkinfo.fork_here(db, parent, name, os.getcwd())
        facts = taskinfo.task_lines(db, fork) + forkinfo.parent_lines(db, fork)
    tied = (
        f"Sessions started in {fork.repo_path} will be on this fork."
        if fork.repo_path and fork.repo_path != parent.repo_path
        else "No directory is tied to it: other sessions reach it with /missioncache:load."
    )
    out = [f"MISSIONCACHE: created fork {fork.name} of {parent.key}.", *facts, tied]
    out += [taskinfo.bind(fork, sid), "", *mcp_notice(), task_instructions(), ""]
    return out + shared_layer_block(parent, sid)


def cmd_fork_done(words: list[str]) -> list[str]:
    """``/missioncache:fork-done [NAME] [OUTCOME]``: the fork's outcome into its parent's
    Recent Changes, and the fork closed (its files and time are kept). Without a name, the
    session's task; without an outcome, the fork's newest Recent Changes entry."""
    from missioncache_context.fork_outcome import write_fork_outcome
    from missioncache_db import finish_fork, is_valid_name, validate_name
    from missioncache_pm import taskinfo

    sid = session_from_env()
    with taskinfo.open_db() as db:
        first = words[0].split(None, 1) if words and words[0].strip() else []
        named = db.get_task_by_name(first[0]) if first and is_valid_name(first[0]) else None
        fork: Task | None
        if named is not None and named.fork_of is not None:
            fork, outcome = named, " ".join([first[1] if len(first) > 1 else "", *words[1:]])
        else:
            fork, outcome = task_for_session(db, sid), " ".join(words)
        if fork is None:
            return ["MISSIONCACHE: no fork named and this session is not tracking one."]
        validate_name(fork.name)
        done, parent = finish_fork(db, fork.key, outcome.strip() or None, write_fork_outcome)
    return [
        f"MISSIONCACHE: fork {done.name} is finished ({done.status}); its outcome was added to"
        f" the Recent Changes of {parent.key} ({parent.context_path}). Its files and time are"
        f" kept, and its time still counts in {parent.key}'s. This session is no longer bound"
        f" to it: run `/missioncache:load {parent.key}` to go on with the parent.",
    ]
