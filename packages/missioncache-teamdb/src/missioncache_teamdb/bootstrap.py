"""Make the plugin's bundled libraries importable in a server that uvx installed.

uvx installs the ``pm``, ``dashboard`` and ``teamdb`` servers apart, each with its own
third-party dependencies, but MissionCache's own libraries (``missioncache_db`` and the
packages it uses) travel inside the plugin as plain source in ``<plugin>/lib/``, exactly
as the hooks use them. The launcher passes where that is; in the development workspace
the libraries are installed already and nothing changes.

This file is the same, byte for byte, in each of the three server packages (they cannot
import one another): harness/tests/test_one_bootstrap.py enforces it, and docs/layout.md
("One bootstrap") says why.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping

# Where the launchers say the libraries are, first match wins: the folder itself, then
# ``lib`` under the plugin root (ours, or the one Claude Code sets for the plugin).
LIB_VARIABLE = "MISSIONCACHE_LIB"
ROOT_VARIABLES = ("MISSIONCACHE_PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT")
PROBE_PACKAGE = "missioncache_db"


def candidates(env: Mapping[str, str]) -> list[str]:
    """The library folders the environment names, in the order they are tried."""
    found = [env.get(LIB_VARIABLE, "")]
    for name in ROOT_VARIABLES:
        root = env.get(name, "")
        if root:
            found.append(os.path.join(root, "lib"))
    return [folder for folder in found if folder and os.path.isabs(folder)]


def ensure_libraries(env: Mapping[str, str] | None = None) -> str | None:
    """Put the bundled library folder on ``sys.path`` unless ``missioncache_db`` is
    importable already; returns the folder added (None when nothing was added)."""
    if importlib.util.find_spec(PROBE_PACKAGE) is not None:
        return None
    for folder in candidates(os.environ if env is None else env):
        if os.path.isdir(os.path.join(folder, PROBE_PACKAGE)):
            if folder not in sys.path:
                sys.path.insert(0, folder)
                importlib.invalidate_caches()
            return folder
    return None
