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

_HERE = __file__.rpartition("/")[0]
if sys.platform == "win32" or sys.path[:1] != [_HERE]:  # not the folder Python put first
    import os

    _HERE = os.path.dirname(os.path.realpath(__file__))
_LIB = _HERE[: max(_HERE.rfind("/"), _HERE.rfind("\\"))] + "/lib"
if _LIB not in sys.path:
    sys.path.insert(0, _LIB)
# The pm server's standard-library modules, right after ``lib``.
_PM = os.path.join(os.path.dirname(_LIB), "missioncache-pm", "src")
if os.path.isdir(_PM) and _PM not in sys.path:
    sys.path.insert(sys.path.index(_LIB) + 1 if _LIB in sys.path else 0, _PM)

if __name__ == "__main__":
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
