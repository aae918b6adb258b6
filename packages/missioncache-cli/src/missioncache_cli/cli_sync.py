"""``missioncache sync``: the command-line front of ``missioncache_sync`` (docs/sync.md).

``sync setup GIT_URL [--name NAME]`` makes the data root sync through the person's own git
repository; ``sync`` syncs now; ``sync status`` says how things stand. Imported only when
one of them runs.
"""

from __future__ import annotations

import argparse
from typing import Callable

from missioncache_cli.cli_common import UserError


def cmd_sync(args: argparse.Namespace) -> int:
    from missioncache_state.lock import LockTimeout
    from missioncache_sync import paths, sync
    from missioncache_sync.git import GitError

    try:
        if args.action == "setup":
            if not args.url:
                raise UserError("usage: sync setup GIT_URL [--name NAME]")
            outcome = sync.setup(args.url, args.name)
            print(
                f"sync set up: {sync.read_config()['remote']} (this machine: {sync.machine_name()})"
            )
        elif args.action == "status":
            return _status()
        else:
            if args.url:
                raise UserError(f"unexpected argument {args.url!r}")
            if not paths.is_set_up():  # a file-sync engine carries the logs, or nothing
                outcome = sync.exchange_local()
                print("no git remote set up here (`sync setup GIT_URL`): logs exchanged locally")
            else:
                outcome = sync.sync()
    except (sync.SyncError, GitError) as error:
        raise UserError(str(error)) from None
    except LockTimeout:
        raise UserError("another sync is running; try again in a moment") from None
    for line in outcome.lines():
        print(line)
    return 0


def refresh() -> None:
    """The other machines' latest first (``time``), bounded inside ``missioncache_sync``."""
    from missioncache_sync.sync import refresh as pull

    pull()


def _status() -> int:
    from missioncache_state.atomic import read_json_object
    from missioncache_sync import paths, sync

    try:
        config = sync.read_config()
    except sync.SyncError as error:
        print(error)
        return 0
    print(f"remote: {config['remote']} (this machine: {sync.machine_name()})")
    status = read_json_object(paths.status_path()) or {}
    when = _when(status.get("at"))
    if status.get("failed"):
        print(f"last sync{when}: failed on this machine ({status['failed']})")
    elif status.get("refused"):
        print(f"last sync{when}: not merged ({status['refused']})")
    elif status.get("error"):
        print(f"last sync{when}: remote not reached ({status['error']})")
    elif status:
        print(f"last sync{when}: ok")
    else:
        print("last sync: none yet")
    print(f"commits waiting to be pushed: {sync.pending_commits()}")
    ahead = _clock_ahead()
    if ahead:
        from missioncache_sync import clock_words

        print(
            f"clock: time is recorded {clock_words(ahead)} ahead of this machine's clock; the"
            " clock of this machine or of one you sync with is off: turn on automatic time"
        )
    for path in sync.conflicted_files():
        print(f"conflict markers in {path}")
    return 0


def _clock_ahead() -> float:
    from missioncache_db import TaskDB
    from missioncache_sync import clock_ahead

    try:
        with TaskDB(busy_timeout=2.0) as db:
            return clock_ahead(db.conn)
    except Exception:  # a busy or damaged tasks.db: the doctor says more
        return 0.0


def _when(at: object) -> str:
    """`` (2026-12-04 20:59, 3 minutes ago)`` for a sync's epoch; "" when unknown."""
    import time

    if isinstance(at, bool) or not isinstance(at, (int, float)):
        return ""
    from missioncache_time import format_duration

    ago = max(0.0, time.time() - at)
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(at))
    return f" {stamp} ({format_duration(ago)} ago)" if ago >= 60 else f" {stamp} (just now)"


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    command = add("sync", cmd_sync, "sync time and notes with your other machines (git)")
    command.add_argument("action", nargs="?", choices=("now", "setup", "status"), default="now")
    command.add_argument("url", nargs="?", help="for setup: your own private git repository")
    command.add_argument("--name", help="for setup: this machine's name (default: host name)")
