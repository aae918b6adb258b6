"""The shell helper behind ``/missioncache:load``, ``/missioncache:save`` and ``/missioncache:new``.

Each command file runs this script with ``!`python3 "${CLAUDE_PLUGIN_ROOT}/missioncache-pm/
src/missioncache_pm/slash.py" <command> "$ARGUMENTS"``` before Claude sees the prompt, and
its output becomes part of the prompt. Doing the deterministic part here (binding the
session, reading the files, folding heartbeats) means it happens even when the model would
forget a step, costs no tool calls or permission prompts (the task files live outside the
project), and works without the MCP server (which needs uvx and a network on first start).

It runs on any ``python3`` (3.9+, standard library plus the plugin's bundled libraries)
and ALWAYS exits 0: Claude Code aborts the whole command, showing the user only a shell
error, when a ``!`` line fails. Problems are printed as a line for Claude to relay.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" and not __package__:  # run as a file from the installed plugin
    # This file is <plugin>/missioncache-pm/src/missioncache_pm/slash.py.
    _HERE = os.path.dirname(os.path.abspath(__file__))
    _SRC = os.path.dirname(_HERE)
    _PLUGIN = os.path.dirname(os.path.dirname(_SRC))
    if sys.path and os.path.abspath(sys.path[0]) == _HERE:
        sys.path.pop(0)  # our module names must not shadow anything as top-level modules
    for _path in (os.path.join(_PLUGIN, "missioncache-db"), _SRC):
        if os.path.isdir(_path) and _path not in sys.path:
            sys.path.insert(0, _path)

import re
import subprocess
from typing import TYPE_CHECKING, Any, List, Optional, Sequence

if TYPE_CHECKING:
    from missioncache_db import Task, TaskDB

FILE_LIMIT = 20_000
_JIRA = re.compile(r"[A-Z][A-Z0-9]+-\d+")


def _read(path: Any) -> Optional[str]:
    from missioncache_context import read_file

    try:
        return read_file(path)
    except (OSError, ValueError):
        return None


def file_block(label: str, path: Any) -> List[str]:
    """The file's text in a fence long enough never to be closed by its content."""
    text = _read(path)
    if text is None:
        return [f"### {label}: {path}", "", "(missing or unreadable)", ""]
    note = ""
    if len(text) > FILE_LIMIT:
        text = text[:FILE_LIMIT]
        note = f"(first {FILE_LIMIT} characters shown; read the file for the rest)"
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    lines = [f"### {label}: {path}", "", f"{fence}markdown", text.rstrip("\n"), fence]
    return [*lines, note, ""] if note else [*lines, ""]


def _session_from_env() -> Optional[str]:
    from missioncache_state.ids import session_id_from_env

    return session_id_from_env()


def _task_for_session(db: TaskDB, sid: Optional[str]) -> Optional[Task]:
    return db.find_task_for_cwd(os.getcwd(), sid)


def cmd_load(words: List[str]) -> List[str]:
    from missioncache_pm import taskinfo
    from missioncache_pm.pending import take_precompact_error

    sid = _session_from_env()
    name = " ".join(words).strip()
    with taskinfo.open_db() as db:
        task = taskinfo.task_named(db, name) if name else _task_for_session(db, sid)
        if task is None:
            return [
                "MISSIONCACHE: no task given and none is tracked here.",
                taskinfo.no_task_message(db, os.getcwd()),
            ]
        facts = taskinfo.task_lines(db, task)
    out = [f"MISSIONCACHE: loaded task {task.name}.", *facts, taskinfo.bind(task, sid), ""]
    failure = take_precompact_error()
    if failure:
        out += [f"WARNING: {failure}", ""]
    out += file_block("Context file", task.context_file)
    out += file_block("Tasks file", task.tasks_file)
    return out


def cmd_save(words: List[str]) -> List[str]:
    from missioncache_pm import taskinfo

    sid = _session_from_env()
    with taskinfo.open_db() as db:
        task = _task_for_session(db, sid)
        if task is None:
            return [
                "MISSIONCACHE: this session is not tracking a task, so there is nothing to save.",
                taskinfo.known_tasks(db) + ".",
            ]
        facts = taskinfo.task_lines(db, task)  # folds pending heartbeats into sessions first
    out = [f"MISSIONCACHE: saving task {task.name}.", *facts, ""]
    out += file_block("Context file", task.context_file)
    out += file_block("Tasks file", task.tasks_file)
    return out


def split_new_args(words: Sequence[str]) -> tuple:
    """(name, jira key or None, whether the name was derived from several words)."""
    tokens = " ".join(words).split()
    jira = next((t for t in tokens if _JIRA.fullmatch(t)), None)
    rest = [t for t in tokens if t != jira]
    if len(rest) == 1 and re.fullmatch(r"[a-z0-9][a-z0-9-]*", rest[0]):
        return rest[0], jira, False
    slug = re.sub(r"[^a-z0-9]+", "-", " ".join(rest).lower()).strip("-")
    return slug, jira, True


def repository_dir(cwd: str) -> Optional[str]:
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


def cmd_new(words: List[str]) -> List[str]:
    from missioncache_pm import taskinfo

    name, jira, derived = split_new_args(words)
    if not name:
        return ["MISSIONCACHE: no task name given. Usage: /missioncache:new <name> [JIRA-KEY]."]
    repo = repository_dir(os.getcwd())
    text = taskinfo.create_task(name, repo, jira, _session_from_env())
    out = [f"MISSIONCACHE: {text.splitlines()[0]}"]
    if derived:
        out.append(f"(The name {name!r} was derived from what was typed.)")
    if repo is None:
        out.append("(Not tied to a repository: this directory is too broad to track.)")
    return [*out, *text.splitlines()[1:]]


def _sentence(error: Exception) -> str:
    if isinstance(error, ImportError):  # nothing else can be imported to word it
        return (
            f"MissionCache's bundled libraries could not be loaded ({error}); reinstall the plugin."
        )
    try:
        from missioncache_pm.errors import sentence

        return sentence(error)
    except Exception:
        return " ".join(f"{type(error).__name__}: {error}".split())


COMMANDS = {"load": cmd_load, "save": cmd_save, "new": cmd_new}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Print the command's text; never fail (see the module docstring)."""
    args = list(sys.argv[1:] if argv is None else argv)
    command = COMMANDS.get(args[0]) if args else None
    try:
        if command is None:
            raise ValueError(f"usage: slash.py {{{','.join(COMMANDS)}}} [arguments]")
        lines = command(args[1:])
    except Exception as error:
        lines = [f"MISSIONCACHE ERROR: {_sentence(error)}"]
    print("\n".join(lines).rstrip("\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
