"""The read-only checks behind ``missioncache doctor``: the database, the task folders and
MissionCache's parts of settings.json. Each returns findings and changes nothing, so the
dashboard's health banner can run them on every refresh; doctor adds the checks that also
repair (the spool, session bindings, sync) and prints the lot.
"""

from __future__ import annotations

import os
import sqlite3
from typing import NamedTuple

from missioncache_db._db import TaskDB
from missioncache_db._health import is_broken, plain_reason
from missioncache_db._model import Task
from missioncache_state import locations
from missioncache_state.words import plural, verb

DOCTOR_BUSY_TIMEOUT = 10.0


class Finding(NamedTuple):
    """One line of the report: ``status`` is ``ok``, ``fixed`` or ``problem``."""

    status: str
    area: str
    text: str
    fix: str = ""


def check_database(launcher: str) -> tuple[TaskDB | None, list[Finding]]:
    """Open tasks.db and run SQLite's quick check; the open database when usable."""
    path = locations.tasks_db_path()
    if not os.path.lexists(path):
        return None, [Finding("ok", "database", f"not set up yet (no {path}); nothing to check")]
    if not os.path.isfile(path):
        return None, [
            Finding(
                "problem",
                "database",
                f"{path} is not a regular file",
                f"move it out of the way (`mv {path} {path}.broken`); {launcher} create-task"
                " or /missioncache:new then starts a new database",
            )
        ]
    try:
        db = TaskDB(busy_timeout=DOCTOR_BUSY_TIMEOUT)
        verdict = [row[0] for row in db.conn.execute("PRAGMA quick_check").fetchall()]
        count = db.conn.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
    except sqlite3.Error as error:
        return None, [_database_problem(path, error, launcher)]
    if verdict != ["ok"]:
        db.close()
        return None, [
            Finding(
                "problem",
                "database",
                f"{path} is damaged: {'; '.join(verdict[:3])}",
                _move_aside_fix(path, launcher),
            )
        ]
    return db, [
        Finding("ok", "database", f"{path}: {plural(count, 'task')}, readable and consistent")
    ]


def _database_problem(path: str, error: sqlite3.Error, launcher: str) -> Finding:
    if not is_broken(error):
        return Finding(
            "problem",
            "database",
            f"{path} stayed locked by another program for {DOCTOR_BUSY_TIMEOUT:.0f} s",
            "close other MissionCache tools and try again; heartbeats wait in the spool",
        )
    return Finding(
        "problem",
        "database",
        f"{path} cannot be used: {plain_reason(error)}",
        _move_aside_fix(path, launcher),
    )


def _move_aside_fix(path: str, launcher: str) -> str:
    return (
        f"restore it from a backup, or move it aside (`mv {path} {path}.broken`) and"
        f" re-register your tasks with `{launcher} create-task NAME --repo DIR` (existing task"
        " files are kept); heartbeats wait in the spool until a database works again"
    )


def folder_problem(task: Task, launcher: str) -> Finding | None:
    """A task whose folder or files are gone, with the ways out."""
    from missioncache_db._tasks import folder_gone, folder_ways_out

    name = task.full_path.split("/", 1)[-1]
    if not os.path.isdir(task.directory_path):
        return Finding(
            "problem",
            "task folder",
            f"{name}: {folder_gone(task)}",
            f"move it back, or run {folder_ways_out(name, launcher)}",
        )
    missing = [p for p in (task.context_path, task.tasks_path) if not os.path.isfile(p)]
    if missing:
        return Finding(
            "problem",
            "task folder",
            f"{name}: missing {', '.join(missing)}",
            f"run `{launcher} recreate {name}`",
        )
    return None


def check_task_folders(db: TaskDB | None, launcher: str) -> list[Finding]:
    if db is None:
        return []
    open_tasks = [task for task in db.list_tasks() if task.is_open]
    found = [f for f in (folder_problem(task, launcher) for task in open_tasks) if f]
    if found:
        return found
    return [
        Finding(
            "ok",
            "task folder",
            f"{plural(len(open_tasks), 'open task')}"
            f" {verb(len(open_tasks), 'has its', 'have their')} files",
        )
    ]


def _missing_paths(command: str) -> list[str]:
    """Absolute paths of ours (mentioning missioncache) in a command that do not exist."""
    words = command.replace('"', " ").replace("'", " ").split()
    return [w for w in words if w.startswith("/") and "missioncache" in w and not os.path.exists(w)]


def check_settings(launcher: str) -> list[Finding]:
    """Only our parts of ``<claude>/settings.json``: a status line or hook command of ours
    that points at a file that is gone (a plugin update or a moved clone), and the rules
    file an earlier version installed (removed when it still carries its marker)."""
    from missioncache_state.json_codec import loads
    from missioncache_state.rules import remove_legacy_rules

    findings = [
        Finding("fixed", "settings", f"removed the legacy rules file {name}")
        for name in remove_legacy_rules()
    ]
    path = os.path.join(locations.claude_dir(), "settings.json")
    try:
        with open(path, "rb") as handle:
            settings = loads(handle.read(4 * 1024 * 1024).decode("utf-8"))
    except FileNotFoundError:
        return findings or [Finding("ok", "settings", "no settings.json; nothing of ours in it")]
    except (OSError, ValueError) as error:
        return [*findings, Finding("problem", "settings", f"{path} cannot be read: {error}")]
    if not isinstance(settings, dict):
        return [*findings, Finding("problem", "settings", f"{path} is not a JSON object")]
    for where, command in _commands(settings):
        for missing in _missing_paths(command):
            findings.append(
                Finding(
                    "problem",
                    "settings",
                    f"{where} in {path} runs {missing}, which does not exist",
                    f"reinstall it (for the status line: `{launcher} statusline install`)",
                )
            )
    return findings or [Finding("ok", "settings", f"{path}: our entries point at real files")]


def _commands(settings: dict) -> list[tuple]:
    """(where, command) for the status line and every hook command in the settings."""
    found = []
    line = settings.get("statusLine")
    if isinstance(line, dict) and isinstance(line.get("command"), str):
        found.append(("the status line", line["command"]))
    hooks = settings.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else ():
                if isinstance(entry, dict) and isinstance(entry.get("command"), str):
                    found.append((f"a {event} hook", entry["command"]))
    return found
