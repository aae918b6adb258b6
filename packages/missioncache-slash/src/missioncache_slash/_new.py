"""``/missioncache:new``: a task created (or its gone folder recreated) from what was
typed, tied to the repository the session runs in, and the session bound to it."""

from __future__ import annotations

import os
import re
import subprocess

from missioncache_slash._common import mcp_notice, session_from_env, task_instructions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_JIRA = re.compile(r"[A-Z][A-Z0-9]+-\d+")


def split_new_args(words: Sequence[str]) -> tuple:
    """(name, jira key or None, whether the name was derived from several words)."""
    tokens = " ".join(words).split()
    jira = next((t for t in tokens if _JIRA.fullmatch(t)), None)
    rest = [t for t in tokens if t != jira]
    if len(rest) == 1 and re.fullmatch(r"[a-z0-9][a-z0-9-]*", rest[0]):
        return rest[0], jira, False
    slug = re.sub(r"[^a-z0-9]+", "-", " ".join(rest).lower()).strip("-")
    return slug, jira, True


def repository_dir(cwd: str) -> str | None:
    """The git work tree containing ``cwd`` (else ``cwd``); None for the home directory,
    the file-system root or the data root, where tying a task would catch everything."""
    from missioncache_state.locations import data_root, is_within

    top = cwd
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
        if done.returncode == 0 and done.stdout.strip():
            top = done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    real = os.path.realpath(top)
    if real in (os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.sep)):
        return None
    return None if is_within(real, data_root()) else real


def cmd_new(words: list[str]) -> list[str]:
    from missioncache_pm import taskinfo

    name, jira, derived = split_new_args(words)
    if not name:
        return ["MISSIONCACHE: no task name given. Usage: /missioncache:new <name> [JIRA-KEY]."]
    repo = repository_dir(os.getcwd())
    recreated = recreate_if_gone(name)
    if recreated is not None:
        return recreated
    text = taskinfo.create_task(name, repo, jira, session_from_env())
    out = [f"MISSIONCACHE: {text.splitlines()[0]}"]
    if derived:
        out.append(f"(The name {name!r} was derived from what was typed.)")
    if repo is None:
        out.append("(Not tied to a repository: this directory is too broad to track.)")
    return [*out, *text.splitlines()[1:], "", *mcp_notice(), task_instructions()]


def recreate_if_gone(name: str) -> list[str] | None:
    """``/missioncache:new NAME`` for a task that exists but whose folder is gone: the
    user wants its files back, so they are recreated from the templates (its recorded
    time is kept) and the session is bound; None when that is not the case."""
    from missioncache_db import validate_name
    from missioncache_pm import taskinfo

    validate_name(name)
    with taskinfo.open_db() as db:
        task = db.get_task_by_name(name)
        if task is None or not db.task_folder_missing(task):
            return None
        db.recreate_task_files(task)
        facts = taskinfo.task_lines(db, task)
    bound = taskinfo.bind(task, session_from_env())
    return [
        f"MISSIONCACHE: task {name} already existed but its folder was gone; its context and"
        " tasks files were recreated from the templates (its recorded time is kept).",
        *facts,
        bound,
        "",
        *mcp_notice(),
        task_instructions(),
    ]
