"""The one way MissionCache's code finds the libraries the plugin bundles in ``lib/``.

Two texts, each written once and checked by harness/tests/test_one_bootstrap.py (see
docs/layout.md, "One bootstrap"):

- ``ENTRY_PROLOGUE``: the lines every script the plugin starts by path (``ENTRY_SCRIPTS``)
  carries, right after its imports. A script cannot import a helper before ``lib`` is on
  ``sys.path``, and under ``python3 -I -S`` its own folder is not on it either, so the
  lines are repeated, word for word, instead of shared. They add no import and no file
  read to a hook's start.
- ``SERVER_BOOTSTRAPS``: the ``bootstrap.py`` of each server uvx installs apart (they
  cannot import one another), byte-identical copies of one file.
"""

from __future__ import annotations

# The plugin root is the parent of the script's folder, symlinks resolved (a link to
# ``bin/missioncache`` from a folder on PATH works); its ``lib`` goes first, once. Python
# puts the script's folder, resolved, first on ``sys.path`` (not under ``-I`` or ``-P``):
# when that entry is the folder as written, the script need not import ``os`` to find it,
# which would cost a hook 0.9 ms (``missioncache_state.lean_os``).
ENTRY_PROLOGUE = r"""
_HERE = __file__.rpartition("/")[0]
if sys.platform == "win32" or sys.path[:1] != [_HERE]:  # not the folder Python put first
    import os

    _HERE = os.path.dirname(os.path.realpath(__file__))
_LIB = _HERE[: max(_HERE.rfind("/"), _HERE.rfind("\\"))] + "/lib"
if _LIB not in sys.path:
    sys.path.insert(0, _LIB)
"""[1:]

# Source paths, relative to the repository root.
ENTRY_SCRIPTS = (
    "packages/missioncache-hookio/hook.py",
    "packages/missioncache-statusline/statusline.py",
    "packages/missioncache-slash/slash.py",
    "plugin-src/bin/missioncache",
)

SERVER_BOOTSTRAPS = (
    "packages/missioncache-pm/src/missioncache_pm/bootstrap.py",
    "packages/missioncache-dashboard/src/missioncache_dashboard/bootstrap.py",
    "packages/missioncache-teamdb/src/missioncache_teamdb/bootstrap.py",
)
