"""``missioncache doctor``: check everything MissionCache keeps, say what is wrong in plain
words, and repair what can be repaired without any risk to the user's data.

The hooks stay quiet by design (a hook never fails a prompt), so when something breaks
the human needs one place that looks at all of it: the database, the heartbeat spool, the
task folders, the session bindings and our parts of Claude Code's settings. Repairs are
limited to what loses nothing: folding waiting heartbeats in, removing bindings that point
at no task, removing the rules file an earlier version installed. Anything else (a corrupt
database, a missing task folder) is reported with the command that fixes it, for the user
to choose.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Callable, NamedTuple

from missioncache_db import spool
from missioncache_db.db import TaskDB
from missioncache_db.health import is_broken, plain_reason
from missioncache_db.model import Task
from missioncache_state import locations

DOCTOR_BUSY_TIMEOUT = 10.0
SPOOL_SUFFIXES = (spool.SPOOL_SUFFIX, spool.CLAIMED_SUFFIX)


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
    return db, [Finding("ok", "database", f"{path}: {count} task(s), readable and consistent")]


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


def _waiting_files(spool_dir: str) -> int:
    try:
        return sum(name.endswith(SPOOL_SUFFIXES) for name in os.listdir(spool_dir))
    except OSError:
        return 0


def check_spool(db: TaskDB | None) -> list[Finding]:
    """Heartbeats waiting in the spool are folded in when the database works. Ingesting
    never blocks on a foreign entry: the spool sets aside (quarantines) whatever it cannot
    read, a FIFO included, and every entry set aside is reported here with where it is."""
    spool_dir = locations.heartbeat_spool_dir()
    findings: list[Finding] = []
    waiting = _waiting_files(spool_dir)
    if db is None:
        if waiting:
            findings.append(
                Finding("ok", "spool", f"{waiting} file(s) of heartbeats wait to be folded in")
            )
        findings += _unattributed(spool_dir)
    elif waiting or spool.unattributed_count(spool_dir):
        try:
            processed = db.process_heartbeats()
        except sqlite3.Error as error:
            findings.append(
                Finding("problem", "spool", f"waiting heartbeats could not be folded in: {error}")
            )
        else:
            if processed:
                findings.append(
                    Finding(
                        "fixed", "spool", f"folded in waiting heartbeats ({processed} processed)"
                    )
                )
            findings += _unattributed(spool_dir)
    findings += [_set_aside(path) for path in spool.quarantined(spool_dir)]
    return findings or [Finding("ok", "spool", "no heartbeats waiting")]


def _unattributed(spool_dir: str) -> list[Finding]:
    """Heartbeats spooled while tasks.db was broken that no task covers yet: kept, and said,
    so repairing the database before registering its tasks again loses no time."""
    count = spool.unattributed_count(spool_dir)
    if not count:
        return []
    return [
        Finding(
            "ok",
            "spool",
            f"{count} heartbeat(s) spooled while tasks.db was broken wait for their task (no"
            f" task covers their directory yet; kept in {spool.unattributed_dir(spool_dir)})",
            "register the task again (create-task NAME --repo DIR, or recreate NAME) and they"
            " are counted at the next session start or doctor; delete that folder if they"
            " belong to no task",
        )
    ]


def _set_aside(path: str) -> Finding:
    """A quarantined spool entry in words: a file of unreadable lines, or a whole entry that
    was not a heartbeat file (a FIFO, a directory, a link)."""
    name, folder = os.path.basename(path), os.path.dirname(path)
    if name.endswith(spool.BAD_SUFFIX):
        what = f"{name} holds spool lines that could not be read (set aside in {folder})"
    else:
        what = f"{name} is not a heartbeat file (set aside in {folder})"
    return Finding("problem", "spool", what, "look at it, then delete it: it is never read again")


def folder_problem(task: Task, launcher: str) -> Finding | None:
    """A task whose folder or files are gone, with the ways out."""
    from missioncache_db.tasks import folder_gone, folder_ways_out

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
    return [Finding("ok", "task folder", f"all {len(open_tasks)} open task(s) have their files")]


def check_bindings(db: TaskDB | None) -> list[Finding]:
    """Bindings that name no task (deleted), a closed one, or cannot be read are removed:
    the resolver ignores them, but the hooks' shortcut (``missioncache_db.bound``) trusts a
    binding, so one that closing a task failed to remove must go here."""
    from missioncache_state.bindings import delete_session_binding, read_session_binding
    from missioncache_state.ids import session_id_or_none

    if db is None:
        return []
    folder = locations.projects_dir()
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError:
        return [Finding("ok", "bindings", "no session bindings")]
    removed = 0
    for name in names:
        sid = session_id_or_none(name[: -len(".json")])  # file boundary: a file's name
        if sid is None:
            continue  # not a name we write: not ours to remove
        binding = read_session_binding(sid)
        task_id = None if binding is None else binding.get("taskId")
        task = None if task_id is None else db.get_task(task_id)
        stale = binding is None or (task_id is not None and (task is None or not task.is_open))
        if stale and os.path.isfile(os.path.join(folder, name)) and delete_session_binding(sid):
            removed += 1
    if removed:
        return [
            Finding("fixed", "bindings", f"removed {removed} binding(s) to no task or a closed one")
        ]
    return [Finding("ok", "bindings", f"{len(names)} session binding(s), all point at tasks")]


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


def run(launcher: str, echo: Callable[[str], None] = print) -> int:
    """Run every check, print the report; 0 when nothing is left to fix, else 1."""
    db, findings = check_database(launcher)
    try:
        findings += check_spool(db)
        findings += check_task_folders(db, launcher)
        findings += check_bindings(db)
    finally:
        if db is not None:
            db.close()
    findings += check_settings(launcher)
    for finding in findings:
        echo(f"{finding.status:<8} {finding.area}: {finding.text}")
        if finding.fix:
            echo(f"{'':<8} fix: {finding.fix}")
    problems = sum(f.status == "problem" for f in findings)
    echo("no problems found" if not problems else f"{problems} problem(s) need your attention")
    return 1 if problems else 0
