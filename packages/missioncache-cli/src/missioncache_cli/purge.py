"""What ``missioncache uninstall`` removes, and with ``--purge`` the person's data too.

``claude plugin uninstall`` removes the plugin's own folder and nothing else. Left behind
were MissionCache's machine state (session bindings, reminder and health records under
``<claude>/hooks/state/``, the terminal map ``<claude>/hooks-state.db``, the status line
in settings.json, the ``missioncache_pm`` builds in uv's cache) and the person's data
under the data root. By default ``uninstall`` removes the machine state and keeps the
data (tasks.db, the task folders with their history and compaction summaries; the spool
is folded into tasks.db first); ``--purge`` removes the data as well. ``plan()`` lists
every path either way, which is what ``--dry-run`` prints.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from dataclasses import dataclass

# Everything MissionCache keeps under <claude>/hooks/state/ (docs/hooks.md, State files).
STATE_DIRS = (
    "projects",
    "term-sessions",
    "divergence",
    "broken-db-warned",
    "mcp-missing-told",
    "pm-server",
    "pm-down-told",
    "statusline",
    "dashboard",
    "shared-seen",
    "usage",
)
STATE_FILES = ("precompact-error.json", "postcompact-error.json", "usage.json")
# Copies of settings.json an installer kept, named by settings.json's path plus these.
SETTINGS_BACKUPS = (".missioncache-backup", ".missioncache-dashboard")
# uv's unpacked builds of the packages it runs for us.
UV_BUILDS = ("missioncache_pm", "missioncache_dashboard")


@dataclass(frozen=True)
class Item:
    """One path and what it is; ``data`` items are the person's, kept without --purge."""

    path: str
    what: str
    data: bool = False


def _exists(path: str) -> bool:
    return os.path.lexists(path)


def state_items() -> list[Item]:
    from missioncache_state.locations import hooks_state_db_path, state_dir

    found = [
        Item(os.path.join(state_dir(), name), "MissionCache's per-session state")
        for name in STATE_DIRS
    ]
    found += [
        Item(os.path.join(state_dir(), name), "a failure waiting to be told")
        for name in STATE_FILES
    ]
    database = hooks_state_db_path()
    found += [Item(database + tail, "the terminal map") for tail in ("", "-wal", "-shm")]
    from missioncache_statusline.install import settings_path

    found += [
        Item(settings_path() + tail, "a copy of settings.json an installer kept")
        for tail in SETTINGS_BACKUPS
    ]
    return [item for item in found if _exists(item.path)]


def uv_cache_items() -> list[Item]:
    """uv's unpacked builds of the pm server and the dashboard (one per plugin version or
    edit)."""
    cache = uv_cache_dir()
    if cache is None:
        return []
    found: list[Item] = []
    for package in UV_BUILDS:
        pattern = os.path.join(
            cache, "archive-v*", "*", "lib", "python*", "site-packages", f"{package}-*.dist-info"
        )
        folders = sorted(
            {
                os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(p))))
                for p in glob.glob(pattern)
            }
        )
        what = f"uv's build of {package.replace('_', '-')}"
        taken = {item.path for item in found}
        found += [Item(folder, what) for folder in folders if folder not in taken]
    return found


def uv_cache_dir() -> str | None:
    if os.environ.get("UV_CACHE_DIR"):
        return os.environ["UV_CACHE_DIR"]
    uv = shutil.which("uv")
    if uv is None:
        return None
    try:
        done = subprocess.run(
            [uv, "cache", "dir"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def data_items() -> list[Item]:
    from missioncache_state.locations import data_root, heartbeat_spool_dir, tasks_db_path

    root = data_root()
    found = [
        Item(tasks_db_path() + tail, "your tasks and recorded time", True)
        for tail in ("", "-wal", "-shm")
    ]
    found.append(
        Item(heartbeat_spool_dir(), "heartbeats and turn ends not yet folded into tasks.db", True)
    )
    for name in ("active", "archive"):
        found.append(
            Item(
                os.path.join(root, name),
                "your task folders: context and tasks files, their history, compaction summaries",
                True,
            )
        )
    found += [
        Item(os.path.join(root, name), what, True)
        for name, what in (
            ("events", "the event logs tasks.db is rebuilt from"),
            (".git", "the sync repository (a copy of the task folders and the event logs)"),
            (".gitignore", "sync's ignore rules"),
            ("sync", "sync's settings and state"),
            ("machine-id", "this machine's id in the event logs"),
        )
    ]
    found += [
        Item(f"{tasks_db_path()}.before-rebuild{tail}", "a tasks.db kept by doctor --rebuild", True)
        for tail in ("", "-wal", "-shm")
    ]
    return [item for item in found if _exists(item.path)]


def synced_remote() -> str | None:
    """The git remote this data root syncs with, if any (docs/sync.md)."""
    from missioncache_state.atomic import read_json_object
    from missioncache_state.locations import sync_dir

    config = read_json_object(os.path.join(sync_dir(), "config.json")) or {}
    remote = config.get("remote")
    return remote if isinstance(remote, str) and remote else None


def plan() -> list[Item]:
    return [*state_items(), *uv_cache_items(), *data_items()]


def fold_spool() -> str | None:
    """Fold waiting heartbeats and turn ends into tasks.db, so no time stays in the spool;
    a sentence when that was not possible."""
    from missioncache_state.locations import tasks_db_path

    if not os.path.isfile(tasks_db_path()):
        return None
    try:
        from missioncache_db import TaskDB
        from missioncache_time import process_pending

        with TaskDB(busy_timeout=5.0) as db:
            process_pending(db)
    except Exception as error:
        return f"could not fold the spool into tasks.db ({error}); it is kept"
    return None


def remove(item: Item) -> None:
    if os.path.isdir(item.path) and not os.path.islink(item.path):
        shutil.rmtree(item.path)
    else:
        os.unlink(item.path)


def status_line_installed() -> bool:
    from missioncache_state.atomic import read_json_object
    from missioncache_statusline.install import is_ours, record_path, settings_path

    if os.path.exists(record_path()):
        return True
    settings = read_json_object(settings_path()) or {}
    return is_ours(settings.get("statusLine"))


def _dashboard_hooks(dry_run: bool) -> list[str]:
    """The dashboard's http hooks out of settings.json first (their backup goes next)."""
    from missioncache_cli.cli_dashboard import _importable

    try:
        _importable()
        from missioncache_dashboard.install import (
            is_installed,
            read_settings,
            uninstall,
            wired_port,
        )
    except (ValueError, ImportError):
        return []
    if is_installed() is None and wired_port(read_settings()) is None:
        return []
    if dry_run:
        return ["would remove: the dashboard's http hooks in settings.json"]
    try:
        return [f"removed: {uninstall()}"]
    except Exception as error:
        return [f"could not take the dashboard's hooks out of settings.json: {error}"]


def run(purge: bool, dry_run: bool) -> list[str]:
    """Do it (or say what would be done); the lines to print."""
    from missioncache_state.locations import data_root
    from missioncache_statusline.install import settings_path

    verb = "would remove" if dry_run else "removed"
    out: list[str] = []
    if status_line_installed():
        if dry_run:
            out.append(
                f"{verb}: the MissionCache status line in {settings_path()}"
                " (what it replaced is put back)"
            )
        else:
            from missioncache_statusline.install import uninstall

            out.append(f"{verb}: {uninstall()}")
    out += _dashboard_hooks(dry_run)
    remote = synced_remote() if purge else None
    if not dry_run:
        problem = fold_spool()
        if problem:
            out.append(problem)
    items = plan()
    kept = []
    for item in items:
        if item.data and not purge:
            kept.append(item)
            continue
        if not dry_run:
            try:
                remove(item)
            except OSError as error:
                out.append(f"could not remove {item.path}: {error.strerror or error}")
                continue
        out.append(f"{verb}: {item.path} ({item.what})")
    if purge and not dry_run:
        try:
            os.rmdir(data_root())  # only when nothing of anyone else's is left in it
        except OSError:
            pass
    for item in kept:
        out.append(f"kept: {item.path} ({item.what}; --purge removes it)")
    if remote:
        out.append(
            f"{'would stay' if dry_run else 'still there'}: your task folders and event logs"
            f" stay on the sync remote {remote}, and your other machines keep syncing with"
            " it; to remove them there too, delete that repository once no machine syncs"
            " with it any more"
        )
    if not out:
        out.append("nothing of MissionCache's is left here")
    out.append("To remove the plugin itself: claude plugin uninstall missioncache@missioncache")
    return out
