#!/usr/bin/env python3
"""Every MissionCache hook script: ``scripts/build_plugin.py`` writes this file as each
``hooks/<script>.py`` of the plugin, and it runs ``main`` of ``_<script>.py`` beside it,
the hook itself (``packages/hook-*/_<script>.py``). Why the two files:
``missioncache_hookio.output.run_body``.

It imports neither ``os`` nor ``__future__`` where Python has already put its folder on
``sys.path`` (``missioncache_state.lean_os`` says why).
"""

import sys

_HERE = __file__.rpartition("/")[0]
if sys.platform == "win32" or sys.path[:1] != [_HERE]:  # not the folder Python put first
    import os

    _HERE = os.path.dirname(os.path.realpath(__file__))
_LIB = _HERE[: max(_HERE.rfind("/"), _HERE.rfind("\\"))] + "/lib"
if _LIB not in sys.path:
    sys.path.insert(0, _LIB)

if __name__ == "__main__":
    try:
        from missioncache_state.bytecode import install

        install(_LIB[:-4])  # the plugin: what follows comes from its bundle, when it has one
        from missioncache_hookio.output import run_body
    except ImportError:
        sys.exit(0)
    run_body(_HERE + "/" + __file__.replace("\\", "/").rpartition("/")[2])
