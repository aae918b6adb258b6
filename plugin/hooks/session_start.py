#!/usr/bin/env python3
"""SessionStart hook: runs ``main`` of ``_session_start.py`` beside it, which is the hook itself.

WHY a shim: Python compiles the script it is started with from source on every run, but
reads an imported module's byte code from ``__pycache__``. Compiling the hook's 300
lines cost about 1.5 ms at every session start. What the hook does: ``_session_start.py`` and
docs/hooks.md.
"""

from __future__ import annotations

import gc
import os
import sys

# A hook lives for tens of milliseconds and leaves no cyclic garbage worth collecting, but
# the collector's passes over everything it imports cost about 1 ms: off in this process.
gc.disable()

# Bundled libraries for marketplace installs (no pip install step).
_BUNDLED_LIBRARIES = os.path.join(
    os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "lib"
)
if os.path.isdir(_BUNDLED_LIBRARIES) and _BUNDLED_LIBRARIES not in sys.path:
    sys.path.insert(0, _BUNDLED_LIBRARIES)
# The body beside this file. Python puts this folder first on sys.path already, except
# under -P or PYTHONSAFEPATH, which a user may set: then it is found here, last.
_HOOKS = os.path.dirname(os.path.realpath(__file__))
if _HOOKS not in sys.path:
    sys.path.append(_HOOKS)

if __name__ == "__main__":
    try:
        from _session_start import main

        from missioncache_hookio.output import run_hook
    except ImportError:
        sys.exit(0)
    run_hook(main)
