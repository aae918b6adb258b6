"""Make MissionCache's own libraries importable when uvx runs this package.

uvx installs psycopg; ``missioncache_team`` and ``missioncache_db`` travel in the plugin's
``lib/`` as plain source. The launcher (``missioncache_team.launch``) passes that folder
as ``MISSIONCACHE_LIB`` (and the plugin root); in the workspace nothing changes.
"""

from __future__ import annotations

import importlib.util
import os
import sys


def ensure_libraries() -> None:
    if importlib.util.find_spec("missioncache_team") is not None:
        return
    candidates = [os.environ.get("MISSIONCACHE_LIB", "")]
    root = os.environ.get("MISSIONCACHE_PLUGIN_ROOT", "")
    if root:
        candidates.append(os.path.join(root, "lib"))
    for folder in candidates:
        if (
            folder
            and os.path.isabs(folder)
            and os.path.isdir(os.path.join(folder, "missioncache_team"))
        ):
            sys.path.insert(0, folder)
            importlib.invalidate_caches()
            return
