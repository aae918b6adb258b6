#!/usr/bin/env python3
"""MissionCache status line for Claude Code (``settings.json`` ``statusLine``).

Claude Code runs it with its status-line JSON on stdin and shows what it prints, e.g.
``◆ demo-task [3/7] · today 1h 12m · 4 edits · saved 13:05``. A session without a
MissionCache task prints nothing; any failure prints nothing (or the last good line) and
exits 0, so the user's screen never breaks. Installed by ``missioncache statusline
install`` (or ``/missioncache:statusline``), which points settings.json at a small
launcher that finds the newest installed copy of this file. See docs/statusline.md.
"""

import sys

_HERE = __file__.rpartition("/")[0]
if sys.platform == "win32" or sys.path[:1] != [_HERE]:  # not the folder Python put first
    import os

    _HERE = os.path.dirname(os.path.realpath(__file__))
_LIB = _HERE[: max(_HERE.rfind("/"), _HERE.rfind("\\"))] + "/lib"
if _LIB not in sys.path:
    sys.path.insert(0, _LIB)


def _run() -> "int":
    try:
        from missioncache_statusline.line import main
    except Exception:
        return 0
    return main()


if __name__ == "__main__":
    try:
        code = _run()
    except BaseException:  # never a traceback on the user's screen, never exit != 0
        code = 0
    try:
        sys.stdout.flush()
    except Exception:
        pass
    try:
        from missioncache_state import lean_os as os
    except Exception:  # no library: the interpreter's own exit
        sys.exit(code)
    os._exit(code)
