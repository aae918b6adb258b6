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
from typing import Callable

import missioncache_spool as spool
from missioncache_db import TaskDB
from missioncache_db.checks import (
    DOCTOR_BUSY_TIMEOUT,
    Finding,
    check_database,
    check_settings,
    check_task_folders,
)
from missioncache_state import locations
from missioncache_state.command import missioncache_command
from missioncache_state.words import plural, verb
from missioncache_time import process_pending

SPOOL_SUFFIXES = (spool.SPOOL_SUFFIX, spool.CLAIMED_SUFFIX)


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
                Finding(
                    "ok",
                    "spool",
                    f"{plural(waiting, 'file')} of heartbeats"
                    f" {verb(waiting, 'waits', 'wait')} to be folded in",
                )
            )
        findings += _unattributed(spool_dir)
    elif waiting or spool.unattributed_count(spool_dir):
        try:
            processed = process_pending(db)
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
            f"{plural(count, 'heartbeat')} spooled while tasks.db was broken"
            f" {verb(count, 'waits', 'wait')} for a task (no"
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


def check_clock(db: TaskDB | None) -> list[Finding]:
    """A prompt or turn end recorded ahead of this machine's clock: one machine's clock
    is off (docs/sync.md, "Faults"); what it recorded counts once that time comes."""
    from missioncache_sync import clock_ahead, clock_words

    try:
        ahead = clock_ahead(db.conn) if db is not None else 0.0
    except sqlite3.Error:
        return []
    if not ahead:
        return []
    return [
        Finding(
            "problem",
            "clock",
            f"time is recorded {clock_words(ahead)} ahead of this machine's clock: the clock"
            " of this machine or of one you sync with is off",
            "turn on automatic date and time on every machine",
        )
    ]


def check_bindings(db: TaskDB | None) -> list[Finding]:
    """Bindings that name no task (deleted), a closed one, or cannot be read are removed:
    the resolver ignores them, but the hooks' shortcut (``missioncache_db._bound``) trusts a
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
            Finding(
                "fixed",
                "bindings",
                f"removed {plural(removed, 'binding')} to no task or a closed one",
            )
        ]
    return [
        Finding("ok", "bindings", f"{plural(len(names), 'session binding')}, all point at tasks")
    ]


def rebuild_database(echo: Callable[[str], None] = print) -> None:
    """``doctor --rebuild``: tasks.db rebuilt from every machine's event log."""
    from missioncache_sync import RebuildError, rebuild

    try:
        done = rebuild(DOCTOR_BUSY_TIMEOUT)
    except RebuildError as error:
        echo(f"{'problem':<8} database: not rebuilt: {error}")
        return
    except (sqlite3.Error, OSError) as error:
        echo(f"{'problem':<8} database: not rebuilt ({error}); tasks.db is as it was")
        return
    kept = f"; the old one is kept as {done.backup}" if done.backup else ""
    echo(
        f"{'fixed':<8} database: rebuilt from the event logs ({plural(done.tasks, 'task')},"
        f" {plural(done.imported, 'event')}; {done.exported} exported from the old database"
        f" first){kept}"
    )
    for line in done.report:
        echo(f"{'':<8} {line}")


def check_sync() -> list[Finding]:
    """Sync (docs/sync.md): the last outcome, commits waiting, files with conflict markers."""
    from missioncache_sync import paths

    if not paths.is_set_up():
        return []
    from missioncache_state.atomic import read_json_object
    from missioncache_sync import sync

    findings = [
        Finding(
            "problem",
            "sync",
            f"{path} holds both versions of a conflicting edit (between <<<<<<< and >>>>>>>)",
            "edit the file: keep what you want, delete the markers and the rest",
        )
        for path in sync.conflicted_files()
    ]
    status = read_json_object(paths.status_path()) or {}
    try:
        waiting = sync.pending_commits()
    except Exception:  # git missing or the repository damaged: say so, never crash
        waiting = 0
    for key, what in (("failed", "failed on this machine"), ("refused", "merged nothing")):
        if isinstance(status.get(key), str):
            findings.append(
                Finding(
                    "problem",
                    "sync",
                    f"the last sync {what} ({status[key]}); commits of this machine waiting"
                    f" to be pushed: {waiting}",
                    "do what it says, then run `missioncache sync`",
                )
            )
    if status.get("error"):
        findings.append(
            Finding(
                "problem",
                "sync",
                f"the last sync did not reach the remote ({status['error']});"
                f" {plural(waiting, 'commit')} of this machine"
                f" {verb(waiting, 'waits', 'wait')} to be pushed",
                f"check the network or the remote, then run `{missioncache_command()} sync`",
            )
        )
    if not status:
        return findings or [Finding("ok", "sync", "set up; no sync has run yet")]
    return findings or [Finding("ok", "sync", "the last sync reached the remote; no conflicts")]


def run(launcher: str, echo: Callable[[str], None] = print) -> int:
    """Run every check, print the report; 0 when nothing is left to fix, else 1."""
    db, findings = check_database(launcher)
    try:
        findings += check_spool(db)
        findings += check_task_folders(db, launcher)
        findings += check_bindings(db)
        findings += check_clock(db)
    finally:
        if db is not None:
            db.close()
    findings += check_settings(launcher)
    findings += check_sync()
    for finding in findings:
        echo(f"{finding.status:<8} {finding.area}: {finding.text}")
        if finding.fix:
            echo(f"{'':<8} fix: {finding.fix}")
    problems = sum(f.status == "problem" for f in findings)
    echo(
        "no problems found"
        if not problems
        else f"{plural(problems, 'problem')} {verb(problems, 'needs', 'need')} your attention"
    )
    return 1 if problems else 0
