"""How a message names the ``missioncache`` command so that the person can paste it.

The plugin's command is ``<plugin>/bin/missioncache``; nothing puts it on PATH until the
person runs ``missioncache install-command`` (``missioncache_cli.install_command``), which
writes a small launcher into a folder on PATH. So a message says ``missioncache`` only when
that launcher (or another ``missioncache``) is on PATH, and the full path otherwise.
Standard library only, ``os`` alone: the hooks print these messages too.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

COMMAND = "missioncache"


def on_path(name: str = COMMAND) -> str | None:
    """The first ``name`` on PATH that can be run, without importing ``shutil``."""
    suffixes = [""] + (
        os.environ.get("PATHEXT", ".EXE;.CMD;.BAT").lower().split(";") if os.name == "nt" else []
    )
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        for suffix in suffixes:
            path = os.path.join(folder, name + suffix)
            if folder and os.path.isfile(path) and os.access(path, os.X_OK):
                return path
    return None


def plugin_command() -> str | None:
    """``<plugin>/bin/missioncache`` of the plugin this library is bundled in, if any."""
    here = os.path.dirname(os.path.realpath(__file__))  # <plugin>/lib/missioncache_state
    path = os.path.join(os.path.dirname(os.path.dirname(here)), "bin", COMMAND)
    return path if os.path.isfile(path) else None


def missioncache_command() -> str:
    """What to write in a message for the person to run: ``missioncache`` when it is on
    PATH, else the plugin's command by its full path (quoted when it holds a blank; with
    ``py`` in front on Windows, which runs no file by its ``#!`` line)."""
    if on_path():
        return COMMAND
    path = plugin_command()
    if path is None:
        return COMMAND
    quoted = f'"{path}"' if " " in path else path
    return f"py {quoted}" if os.name == "nt" else quoted
