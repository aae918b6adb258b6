"""``missioncache statusline install|uninstall``: a thin front for
``missioncache_statusline.install`` (imported only when this command runs, so the rest of
the command line, and every hook, never loads it)."""

from __future__ import annotations

import argparse
from typing import Callable


def cmd_statusline(args: argparse.Namespace) -> int:
    from missioncache_statusline.install import InstallError, install, uninstall

    try:
        if args.action == "install":
            print(install(chain=args.chain, plugin_root=args.plugin_root))
        else:
            print(uninstall())
    except InstallError as error:
        raise ValueError(str(error)) from error
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    command = add(
        "statusline",
        cmd_statusline,
        "install or remove the MissionCache status line in settings.json",
    )
    command.add_argument("action", choices=("install", "uninstall"))
    command.add_argument(
        "--chain", action="store_true", help="keep your own status line and show ours below it"
    )
    command.add_argument("--plugin-root", help="the plugin tree to run (default: this one)")
