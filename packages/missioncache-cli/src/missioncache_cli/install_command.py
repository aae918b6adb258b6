"""``missioncache install-command``: put ``missioncache`` on PATH.

The plugin's command is ``<plugin>/bin/missioncache``, under a versioned folder of Claude
Code's plugin cache that nothing puts on PATH, while the messages and docs say
``missioncache ...``. This writes a small launcher, ``~/.local/bin/missioncache`` by default
(``--dir`` for another folder), that runs the newest installed copy of the plugin: a plugin
update moves the plugin to a new folder, and the launcher follows without a reinstall. It
refuses to replace a file it did not write. ``--print`` only prints the full command.
"""

from __future__ import annotations

import argparse
import os
from typing import Callable

MARK = "# MissionCache command launcher"

LAUNCHER = '''#!/usr/bin/env python3
{mark}: written by `missioncache install-command`; delete it to undo.
import os
import runpy
import sys

PLUGIN_ROOT = {root!r}


def newest_root():
    """The newest version beside PLUGIN_ROOT in Claude Code's plugin cache, else itself."""
    roots = [PLUGIN_ROOT]
    parts = PLUGIN_ROOT.replace("\\\\", "/").split("/")
    if len(parts) > 4 and parts[-5:-3] == ["plugins", "cache"]:
        parent = os.path.dirname(PLUGIN_ROOT)
        try:
            roots += [os.path.join(parent, name) for name in os.listdir(parent)]
        except OSError:
            pass
    found = []
    for root in roots:
        try:
            found.append((os.stat(os.path.join(root, "bin", "missioncache")).st_mtime, root))
        except OSError:
            pass
    return max(found)[1] if found else None


root = newest_root()
if root is None:
    sys.exit("missioncache: the MissionCache plugin is no longer installed (" + PLUGIN_ROOT + ")")
sys.argv[0] = "missioncache"
runpy.run_path(os.path.join(root, "bin", "missioncache"), run_name="__main__")
'''


def plugin_root() -> str:
    """The installed plugin this command runs from (``<plugin>/lib/missioncache_cli``)."""
    here = os.path.dirname(os.path.realpath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    if not os.path.isfile(os.path.join(root, "bin", "missioncache")):
        raise ValueError(
            "install-command works from the installed plugin: run it as"
            " <plugin>/bin/missioncache install-command"
        )
    return root


def full_command(root: str) -> str:
    path = os.path.join(root, "bin", "missioncache")
    quoted = f'"{path}"' if " " in path else path
    return f"py {quoted}" if os.name == "nt" else quoted


def install(folder: str) -> list[str]:
    """Write the launcher into ``folder``; the lines to print."""
    root = plugin_root()
    target = os.path.join(folder, "missioncache")
    if os.path.lexists(target):
        with open(target, encoding="utf-8", errors="replace") as existing:
            if MARK not in existing.read(4096):
                raise ValueError(
                    f"{target} exists and is not MissionCache's launcher; leaving it alone"
                    f" (run {full_command(root)} directly, or pass --dir)"
                )
    from missioncache_state.atomic import atomic_write_bytes

    os.makedirs(folder, exist_ok=True)
    atomic_write_bytes(target, LAUNCHER.format(mark=MARK, root=root).encode("utf-8"))
    os.chmod(target, 0o755)
    said = [f"installed {target}: `missioncache` now runs the newest installed MissionCache"]
    folders = [os.path.realpath(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    if os.path.realpath(folder) not in folders:
        said.append(
            f"{folder} is not on your PATH: add it to your shell's profile"
            f' (export PATH="{folder}:$PATH"), or run {target} by its full path'
        )
    return said


def cmd_install_command(args: argparse.Namespace) -> int:
    if args.print or os.name == "nt":
        print(full_command(plugin_root()))
        return 0
    folder = os.path.abspath(os.path.expanduser(args.dir))
    for line in install(folder):
        print(line)
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    command = add(
        "install-command",
        cmd_install_command,
        "put `missioncache` on your PATH (a launcher in ~/.local/bin)",
    )
    command.add_argument("--dir", default="~/.local/bin", help="the folder on PATH to use")
    command.add_argument("--print", action="store_true", help="only print the command's full path")
