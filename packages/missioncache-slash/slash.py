#!/usr/bin/env python3
"""The slash commands' script, ``<plugin>/slash/slash.py <command> "$ARGUMENTS"``: the
commands themselves are ``missioncache_slash`` (bundled in ``<plugin>/lib``), which uses
the ``pm`` server's standard-library modules (``<plugin>/missioncache-pm/src``).

It ALWAYS exits 0, printing any problem as one line for Claude: Claude Code aborts the
whole command, showing the user only a shell error, when a ``!`` line fails.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    _PLUGIN = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    for _path in (os.path.join(_PLUGIN, "missioncache-pm", "src"), os.path.join(_PLUGIN, "lib")):
        if os.path.isdir(_path) and _path not in sys.path:
            sys.path.insert(0, _path)
    try:
        from missioncache_slash import main
    except ImportError as error:
        print(
            "MISSIONCACHE ERROR: MissionCache's bundled libraries could not be loaded"
            f" ({error}); reinstall the plugin."
        )
    else:
        main()
    sys.stdout.flush()
    os._exit(0)
