"""``missioncache uninstall [--purge] [--dry-run]``: a thin front for
``missioncache_cli.purge`` (docs/recovery.md, "Uninstalling cleanly")."""

from __future__ import annotations

import argparse
from typing import Callable


def cmd_uninstall(args: argparse.Namespace) -> int:
    from missioncache_cli.purge import run

    print("\n".join(run(purge=args.purge, dry_run=args.dry_run)))
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    command = add(
        "uninstall",
        cmd_uninstall,
        "remove what MissionCache keeps outside the plugin (your data stays unless --purge)",
    )
    command.add_argument(
        "--purge", action="store_true", help="also remove tasks.db, the spool and the task folders"
    )
    command.add_argument(
        "--dry-run", action="store_true", help="list every path it would remove; change nothing"
    )
