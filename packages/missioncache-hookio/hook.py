#!/usr/bin/env python3
"""Every MissionCache hook script: ``scripts/build_plugin.py`` writes this file as each
``hooks/<script>.py`` of the plugin, and it runs ``main`` of ``_<script>.py`` beside it,
the hook itself (``packages/hook-*/_<script>.py``). Why the two files:
``missioncache_hookio.output.run_body``.
"""

from __future__ import annotations

import os
import sys

_SCRIPT = os.path.realpath(__file__)
_LIB = os.path.join(os.path.dirname(os.path.dirname(_SCRIPT)), "lib")
if os.path.isdir(_LIB) and _LIB not in sys.path:
    sys.path.insert(0, _LIB)

if __name__ == "__main__":
    try:
        from missioncache_hookio.output import run_body
    except ImportError:
        sys.exit(0)
    run_body(_SCRIPT)
