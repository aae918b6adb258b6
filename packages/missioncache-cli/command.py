#!/usr/bin/env python3
"""``missioncache`` for slash commands (``/missioncache:report``,
``/missioncache:statusline``): the bundled command line, run as a file from the plugin.

Claude Code aborts a whole command, showing the user only a shell error, when a ``!``
line fails; so this ALWAYS exits 0 and prints problems on stdout, where Claude reads
them and can relay them.
"""

from __future__ import annotations

import os
import sys

_BUNDLED = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "lib")
if os.path.isdir(_BUNDLED) and _BUNDLED not in sys.path:
    sys.path.insert(0, _BUNDLED)


def slash_argv(argv: list) -> list:
    """``slash <command> "$ARGUMENTS"`` -> the command line's argv. Claude Code passes the
    slash command's arguments as one string (possibly empty); a bare period is enough
    for ``report`` (``/missioncache:report month``), and ``statusline`` defaults to install."""
    if len(argv) < 2 or argv[0] != "slash":
        return argv
    command, words = argv[1], " ".join(argv[2:]).split()
    if command == "report" and words and not words[0].startswith("-"):
        words = ["--period", *words]
    if command == "statusline" and not words:
        words = ["install"]
    return [command, *words]


if __name__ == "__main__":
    sys.stderr = sys.stdout  # errors are for Claude to read, in the command's output
    try:
        from missioncache_cli.cli import main

        code = main(slash_argv(sys.argv[1:]))
    except SystemExit as done:  # --help
        code = done.code
    except BaseException as error:
        print(f"MISSIONCACHE ERROR: {type(error).__name__}: {error}")
        code = 1
    if code:
        print("MISSIONCACHE ERROR: the command above failed")
    sys.stdout.flush()
    os._exit(0)
