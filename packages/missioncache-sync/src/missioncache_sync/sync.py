"""``missioncache sync``: commit, fetch, merge, push, import (docs/sync.md).

The data root is the git working tree. Its ``.gitignore`` lets through only what is the
same on every machine: the task folders (``active/``: context and tasks markdown,
compaction records) and the event logs (``events/<machine id>/``). tasks.db, the spool,
locks, the machine id and this package's own state (``sync/``) stay on the machine.

One sync, under a lock (one at a time per data root):

0. clear a lock a killed git left, finish a merge a killed sync left, write our ignore
   rules, turn links that arrived earlier into plain files (``guard``, ``merge``);
1. fold the spool into tasks.db and export this machine's new events to its log;
2. restore task folders that vanished here without a task delete, then commit whatever
   changed (a link as the content it points to);
3. fetch; merge the other machines' commits: event logs never conflict (each machine
   writes only its own files), markdown merges three-way, and a real conflict keeps both
   versions in the file between ``<<<<<<<`` / ``=======`` / ``>>>>>>>`` markers, labelled
   with the machines' names, committed like any other change (nothing is lost);
4. push (a push refused because another machine pushed meanwhile is merged and retried);
5. import the other machines' events into tasks.db.

Offline or refused, steps 3-4 fail: the commit waits locally and goes with the next sync;
the human is told once (``notice``). A remote commit that touches anything but ``active/``
and ``events/``, or brings a link, is not merged (``guard.check_incoming``). A failure of a
local step is recorded and told the same way. Imports never need the network.
"""

from __future__ import annotations

import os
import socket

from missioncache_state.atomic import read_json_object, write_json_atomic
from missioncache_state.locations import data_root
from missioncache_state.words import plural
from missioncache_sync import guard, paths
from missioncache_sync.git import GitError, git, text
from missioncache_sync.merge import finish_merge, merge

BRANCH = "main"
REMOTE = "origin"
PUSH_ATTEMPTS = 3
NETWORK_TIMEOUT = 30.0
MARK = "<<<<<<< "

GITIGNORE = """\
# MissionCache sync (docs/sync.md): only the task folders and the event logs travel.
# tasks.db (a cache of the logs), the spool, locks, the machine id and sync's own state
# stay on this machine.
/*
!/.gitignore
!/active/
!/events/
*.lock
*.tmp
.*.tmp
*.claimed
"""


# What a file-sync engine (Syncthing, Dropbox, iCloud Drive) must leave out of the data
# root: machine-local files, each written by this machine alone or a cache of the logs.
# docs/sync.md gives it as each engine's ignore rule; the tests copy data roots by it.
FILE_SYNC_IGNORE = (
    "tasks.db",
    "tasks.db-wal",
    "tasks.db-shm",
    "tasks.db.*",
    "machine-id",
    "spool",
    "sync",
    ".git",
    "*.lock",
    "*.tmp",
)


class SyncError(Exception):
    """Sync cannot run here (not set up, a foreign git repository): the user must act."""


class Outcome:
    """What one sync did, in words for the person and for the hooks' notice."""

    def __init__(self) -> None:
        self.exported = 0
        self.imported = 0
        self.pushed = False
        self.offline: str | None = None  # why the remote could not be reached, or refused
        self.failed: str | None = None  # a step on this machine failed (git, the disk)
        self.refused: str | None = None  # the remote holds what this machine never merges
        self.quiet = False  # only out of time at a session's start: not worth telling yet
        self.conflicts: list[str] = []  # files merged with both versions kept, this sync
        self.told: list[str] = []  # "sync: ..." lines the person hears once

    def lines(self) -> list[str]:
        said = [f"exported {plural(self.exported, 'event')}, imported {self.imported}"]
        if self.failed:
            said.append(
                f"sync failed on this machine ({self.failed}); nothing is lost: the next"
                " sync tries again, and `missioncache doctor` shows what is wrong"
            )
        if self.refused:
            said.append(f"not merged: {self.refused}")
        elif self.offline:
            said.append(
                f"remote not reached ({self.offline}); this machine's events are kept here"
                " and go with the next sync"
            )
        elif self.pushed:
            said.append("pushed to the remote")
        said += self.told
        for path in self.conflicts:  # by its full path: the data root is not the person's
            said.append(
                f"conflict in {os.path.join(data_root(), path)}: both versions are kept in the"
                " file between <<<<<<< and >>>>>>> markers; edit it to keep what you want"
            )
        return said


def read_config() -> dict:
    config = read_json_object(paths.config_path())
    if not config or not isinstance(config.get("remote"), str):
        from missioncache_state.command import missioncache_command

        raise SyncError(
            f"sync is not set up here: run `{missioncache_command()} sync setup GIT_URL`"
        )
    return config


def machine_name() -> str:
    config = read_json_object(paths.config_path()) or {}
    name = config.get("name")
    return name if isinstance(name, str) and name else socket.gethostname() or "this machine"


# -- setup -------------------------------------------------------------------------------
def setup(url: str, name: str | None = None) -> Outcome:
    """Make the data root a git working tree whose ``origin`` is ``url``, then sync."""
    from missioncache_sync._event_log import machine_id

    url = url.strip()
    if not url or url.startswith("-") or "\n" in url:
        raise SyncError(f"not a git URL: {url!r}")
    if "://" not in url and os.path.exists(url):
        url = os.path.abspath(url)  # git runs in the data root: a relative path would move
    root = data_root()
    os.makedirs(root, exist_ok=True)
    mid = machine_id()
    if os.path.exists(os.path.join(root, ".git")):
        owner = git("config", "--get", "missioncache.machine", check=False).stdout.strip()
        if owner.decode() != mid:
            raise SyncError(f"{root} is already a git repository that MissionCache did not make")
    else:
        git("init", "-q")
        git("symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")
    label = name or socket.gethostname() or mid
    for key, value in (
        ("missioncache.machine", mid),
        ("user.name", f"MissionCache on {label}"),
        ("user.email", f"missioncache-{mid}@localhost"),
        ("core.autocrlf", "false"),
        ("merge.renames", "false"),
    ):
        git("config", key, value)
    _configure(root)
    if git("remote", "get-url", REMOTE, check=False).returncode == 0:
        git("remote", "set-url", REMOTE, url)
    else:
        git("remote", "add", REMOTE, url)
    write_json_atomic(paths.config_path(), {"remote": url, "name": label})
    return sync(NETWORK_TIMEOUT)


def _configure(root: str) -> None:
    """What every sync makes true again: links are never checked out as links, and the
    ignore rules are ours (``.git/info/exclude``), whatever a remote commit says."""
    git("config", "core.symlinks", "false")
    guard.write_exclude(GITIGNORE)
    _write_gitignore(root)


def _write_gitignore(root: str) -> None:
    path = os.path.join(root, ".gitignore")
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read() == GITIGNORE:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(GITIGNORE)


# -- one sync ----------------------------------------------------------------------------
def sync(
    network_timeout: float = NETWORK_TIMEOUT, lock_timeout: float = 30.0, quiet: bool = False
) -> Outcome:
    """One full sync (module docstring). Raises SyncError when not set up, LockTimeout
    when another sync holds the lock past ``lock_timeout``. ``quiet``: a remote that only
    ran out of the (short) time is not told to the human; a slow link is no outage."""
    from missioncache_state.lock import FileLock

    read_config()
    with FileLock(paths.lock_target(), timeout=lock_timeout):
        outcome = Outcome()
        try:
            _local_steps(outcome)
        except Exception as error:  # git, the disk, tasks.db: recorded and told, never raised
            outcome.failed = str(error) or type(error).__name__
        else:
            try:
                _exchange(outcome, network_timeout)
            except guard.Refused as error:
                outcome.refused = str(error)
            except GitError as error:
                outcome.offline = str(error)
                outcome.quiet = quiet and error.timed_out
        try:
            outcome.imported = _import(outcome.told)
        except Exception as error:  # a busy or damaged tasks.db: said, never a traceback
            outcome.failed = outcome.failed or f"the import into tasks.db failed: {error}"
        from missioncache_sync.notice import record

        record(outcome)
        return outcome


def _local_steps(outcome: Outcome) -> None:
    """Everything before the network: a stale lock, an unfinished merge, our rules, the
    export, the folders that vanished, the commit."""
    if guard.clear_stale_lock():
        outcome.told.append("sync: a git killed mid-sync had left a lock behind; it was cleared")
    _configure(data_root())
    for path in guard.unlink_arrived_links():
        outcome.told.append(
            f"sync: {path} had arrived from the remote as a link; it is a plain file now and"
            " is never followed"
        )
    if os.path.exists(os.path.join(data_root(), ".git", "MERGE_HEAD")):
        outcome.conflicts += finish_merge("MERGE_HEAD", outcome.told, machine_name())
    outcome.exported = _export()
    if _has_head():
        for folder in guard.restore_vanished(_deleted_task_folders):
            outcome.told.append(
                f"sync: {folder} was removed on this machine without a task delete; it is"
                " restored from the last sync and was not removed on your other machines"
            )
    _commit("events and task files", outcome)


def refresh(network_timeout: float = 1.5) -> None:
    """Bring the other machines' latest before figures are shown (``missioncache time``):
    a quick sync when sync is set up, else the logs a file-sync engine brought. Never
    raises; offline, the figures are what is here."""
    try:
        if paths.is_set_up():
            sync(network_timeout, lock_timeout=2.0, quiet=True)
        elif os.path.isdir(os.path.join(data_root(), "events")):
            exchange_local()
    except Exception:
        pass


def exchange_local() -> Outcome:
    """Without a git remote: export this machine's events and import the logs another
    engine (Syncthing, Dropbox, iCloud Drive) brought into the data root (docs/sync.md)."""
    outcome = Outcome()
    outcome.exported = _export()
    outcome.imported = _import()
    return outcome


def _export() -> int:
    from missioncache_db import TaskDB
    from missioncache_sync._event_log import export_events
    from missioncache_time import process_pending

    with TaskDB(busy_timeout=10.0) as db:
        try:
            process_pending(db)
        except Exception:  # a busy database: what is in it is exported, the rest next time
            pass
        return export_events(db.conn)


def _deleted_task_folders() -> set[str]:
    """The folders of tasks deleted here or on another machine (a tombstone) that no
    task has now: removing one of those is a deletion the other machines may receive."""
    from missioncache_db import TaskDB
    from missioncache_sync._event_log import iter_events

    with TaskDB(busy_timeout=10.0) as db:
        stones = {row[0] for row in db.conn.execute("SELECT uid FROM task_tombstones")}
        live = {row[0] for row in db.conn.execute("SELECT full_path FROM tasks")}
    if not stones:
        return set()
    return {
        event["path"]
        for event in iter_events()
        if event.get("type") == "task"
        and event.get("task") in stones
        and isinstance(event.get("path"), str)
        and event["path"] not in live
    }


def _import(told: list[str] | None = None) -> int:
    from missioncache_db import TaskDB
    from missioncache_sync._event_merge import import_events
    from missioncache_time import process_pending

    with TaskDB(busy_timeout=10.0) as db:
        count = import_events(db.conn, report=told)
        try:
            process_pending(db)
        except Exception:
            pass
        return count


def _commit(what: str, outcome: Outcome | None = None) -> bool:
    git("add", "-A")
    for path in guard.stage_links_as_files():
        if outcome is not None:
            outcome.told.append(
                f"sync: {path} is a link; the content of the file it points to is sent,"
                " never the link"
            )
    if git("diff", "--cached", "--quiet", check=False).returncode == 0:
        return False
    git("commit", "-q", "--no-verify", "-m", f"MissionCache sync from {machine_name()}: {what}")
    return True


def _has_head() -> bool:
    return git("rev-parse", "--verify", "-q", "HEAD", check=False).returncode == 0


def _remote_ref() -> str | None:
    ref = f"refs/remotes/{REMOTE}/{BRANCH}"
    found = git("rev-parse", "--verify", "-q", ref, check=False).returncode == 0
    return ref if found else None


def _exchange(outcome: Outcome, timeout: float) -> None:
    """Fetch, merge and push, retrying when another machine pushed in between."""
    for _attempt in range(PUSH_ATTEMPTS):
        git("fetch", "-q", REMOTE, timeout=timeout)
        ref = _remote_ref()
        if ref is not None:
            outcome.conflicts += merge(ref, outcome.told, machine_name(), GITIGNORE)
        if not _has_head():
            return  # nothing here and nothing there
        if ref is not None and text("rev-parse", "HEAD") == text("rev-parse", ref):
            return  # up to date both ways
        result = git(
            "push", "-q", REMOTE, f"HEAD:refs/heads/{BRANCH}", timeout=timeout, check=False
        )
        if result.returncode == 0:
            outcome.pushed = True
            return
        said = (result.stderr or b"").decode("utf-8", "replace")
        if "fetch first" not in said and "non-fast-forward" not in said and "rejected" not in said:
            raise GitError(f"the remote refused the push: {' '.join(said.split())[:300]}")
    raise GitError("the remote kept changing while pushing; the next sync tries again")


def conflicted_files() -> list[str]:
    """Task markdown files (full paths) that still hold sync's conflict markers: the
    doctor lists them until the person has chosen."""
    found = []
    root = data_root()
    for folder, dirs, files in os.walk(os.path.join(root, "active")):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(".md") and _has_markers(os.path.join(folder, name)):
                found.append(os.path.join(folder, name))
    return sorted(found)


def _has_markers(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(8 << 20).splitlines()
    except OSError:
        return False
    starts = any(line.startswith(MARK) for line in lines)  # ours, or git's raw ones
    middle = any(line.rstrip() == "=======" for line in lines)
    return starts and middle and any(line.startswith(">>>>>>> ") for line in lines)


def pending_commits() -> int:
    """Commits made here that the remote has not received yet."""
    ref = _remote_ref()
    if not _has_head():
        return 0
    spec = f"{ref}..HEAD" if ref else "HEAD"
    try:
        return int(text("rev-list", "--count", spec))
    except (GitError, ValueError):
        return 0
