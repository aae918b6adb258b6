"""``missioncache sync``: commit, fetch, merge, push, import (docs/sync.md).

The data root is the git working tree. Its ``.gitignore`` lets through only what is the
same on every machine: the task folders (``active/``: context and tasks markdown,
compaction records) and the event logs (``events/<machine id>/``). tasks.db, the spool,
locks, the machine id and this package's own state (``sync/``) stay on the machine.

One sync, under a lock (one at a time per data root):

1. fold the spool into tasks.db and export this machine's new events to its log;
2. commit whatever changed;
3. fetch; merge the other machines' commits: event logs never conflict (each machine
   writes only its own files), markdown merges three-way, and a real conflict keeps both
   versions in the file between ``<<<<<<<`` / ``=======`` / ``>>>>>>>`` markers, labelled
   with the machines' names, committed like any other change (nothing is lost);
4. push (a push refused because another machine pushed meanwhile is merged and retried);
5. import the other machines' events into tasks.db.

Offline or refused, steps 3-4 fail: the commit waits locally and goes with the next sync;
the human is told once (``notice``). Imports never need the network.
"""

from __future__ import annotations

import os
import socket

from missioncache_state.atomic import read_json_object, write_json_atomic
from missioncache_state.locations import data_root
from missioncache_sync import paths
from missioncache_sync.git import GitError, git, text

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
        self.quiet = False  # only out of time at a session's start: not worth telling yet
        self.conflicts: list[str] = []  # files merged with both versions kept, this sync

    def lines(self) -> list[str]:
        said = [f"exported {self.exported} event(s), imported {self.imported}"]
        if self.offline:
            said.append(
                f"remote not reached ({self.offline}); this machine's events are kept here"
                " and go with the next sync"
            )
        elif self.pushed:
            said.append("pushed to the remote")
        for path in self.conflicts:
            said.append(
                f"conflict in {path}: both versions are kept in the file between <<<<<<< and"
                " >>>>>>> markers; edit it to keep what you want"
            )
        return said


def read_config() -> dict:
    config = read_json_object(paths.config_path())
    if not config or not isinstance(config.get("remote"), str):
        raise SyncError("sync is not set up here: run `missioncache sync setup GIT_URL`")
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
    _write_gitignore(root)
    if git("remote", "get-url", REMOTE, check=False).returncode == 0:
        git("remote", "set-url", REMOTE, url)
    else:
        git("remote", "add", REMOTE, url)
    write_json_atomic(paths.config_path(), {"remote": url, "name": label})
    return sync(NETWORK_TIMEOUT)


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
        outcome.exported = _export()
        _commit("events and task files")
        try:
            _exchange(outcome, network_timeout)
        except GitError as error:
            outcome.offline = str(error)
            outcome.quiet = quiet and error.timed_out
        outcome.imported = _import()
        from missioncache_sync.notice import record

        record(outcome)
        return outcome


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


def _import() -> int:
    from missioncache_db import TaskDB
    from missioncache_sync._event_merge import import_events
    from missioncache_time import process_pending

    with TaskDB(busy_timeout=10.0) as db:
        count = import_events(db.conn)
        try:
            process_pending(db)
        except Exception:
            pass
        return count


def _commit(what: str) -> bool:
    git("add", "-A")
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
            outcome.conflicts += _merge(ref)
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


def _merge(ref: str) -> list[str]:
    """Merge ``ref`` into this machine's branch; returns the files merged with markers."""
    if not _has_head():
        git("reset", "-q", "--hard", ref)  # a first sync with nothing local: take theirs
        return []
    result = git(
        "merge", "-q", "--no-edit", "--no-verify", "--allow-unrelated-histories",
        "-m", f"MissionCache sync on {machine_name()}: merge", ref, check=False,
    )  # fmt: skip
    if result.returncode == 0:
        return []
    conflicted = _unmerged()
    if not conflicted:
        git("merge", "--abort", check=False)
        raise GitError(_said(result) or "git merge failed")
    other = _author(ref)
    for path, stages in conflicted.items():
        _keep_both(path, stages, machine_name(), other)
    git("commit", "-q", "--no-verify", "--no-edit")
    return sorted(conflicted)


def _said(result: object) -> str:
    raw = getattr(result, "stderr", b"") or getattr(result, "stdout", b"") or b""
    return " ".join(raw.decode("utf-8", "replace").split())[:300]


def _author(ref: str) -> str:
    name = text("log", "-1", "--format=%an", ref)
    return (
        name[len("MissionCache on ") :]
        if name.startswith("MissionCache on ")
        else "the other machine"
    )


def _unmerged() -> dict[str, dict[int, str]]:
    """Conflicted paths and their index stages (1 base, 2 ours, 3 theirs) -> blob ids."""
    raw = git("ls-files", "-u", "-z").stdout.decode("utf-8", "surrogateescape")
    found: dict[str, dict[int, str]] = {}
    for entry in raw.split("\0"):
        if not entry:
            continue
        info, _, path = entry.partition("\t")
        parts = info.split()
        found.setdefault(path, {})[int(parts[2])] = parts[1]
    return found


def _blob(sha: str | None) -> bytes:
    return git("cat-file", "blob", sha).stdout if sha else b""


def _keep_both(path: str, stages: dict[int, str], mine: str, theirs: str) -> None:
    """Write ``path`` with both sides kept: git's three-way result with markers naming the
    machines, or the surviving side of a file one machine deleted and the other changed."""
    import tempfile

    full = os.path.join(data_root(), path)
    if 2 not in stages or 3 not in stages:
        data = _blob(stages.get(2) or stages.get(3))
    else:
        with tempfile.TemporaryDirectory() as scratch:
            files = []
            for stage in (2, 1, 3):
                name = os.path.join(scratch, str(stage))
                with open(name, "wb") as handle:
                    handle.write(_blob(stages.get(stage)))
                files.append(name)
            data = git(
                "merge-file", "-p", "-L", f"version from {mine}", "-L", "common ancestor",
                "-L", f"version from {theirs}", *files, check=False,
            ).stdout  # fmt: skip
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as handle:
        handle.write(data)
    git("add", "--", path)


def conflicted_files() -> list[str]:
    """Task markdown files (relative to the data root) that still hold sync's conflict
    markers: the doctor lists them until the person has chosen."""
    found = []
    root = data_root()
    for folder, dirs, files in os.walk(os.path.join(root, "active")):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(".md") and _has_markers(os.path.join(folder, name)):
                found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


def _has_markers(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(8 << 20).splitlines()
    except OSError:
        return False
    starts = [line for line in lines if line.startswith(MARK + "version from ")]
    return bool(starts) and any(line.startswith(">>>>>>> version from ") for line in lines)


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
