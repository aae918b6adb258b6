"""Make the plugin's bundled libraries importable.

The plugin launches the server with ``uvx --from <plugin>/missioncache-pm``: uvx installs
this package and ``mcp``, but MissionCache's own libraries (``missioncache_db`` and the
packages it uses) travel inside the plugin as plain source under
``<plugin>/lib/``, exactly as the hooks use them. In the development workspace
they are installed and importable already, and then nothing is changed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

# Set by the plugin's mcpServers entry; Claude Code also sets CLAUDE_PLUGIN_ROOT.
ROOT_VARIABLES = ("MISSIONCACHE_PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT")
BUNDLE_DIR = "lib"


def bundled_library_dir(env: Mapping[str, str]) -> str | None:
    """``<plugin root>/lib`` from the first root variable naming a directory
    that holds it, else None."""
    for name in ROOT_VARIABLES:
        root = env.get(name, "")
        if root and os.path.isabs(root):
            candidate = os.path.join(root, BUNDLE_DIR)
            if os.path.isdir(os.path.join(candidate, "missioncache_db")):
                return candidate
    return None


def ensure_libraries(env: Mapping[str, str] | None = None) -> str | None:
    """Put the bundled library dir on ``sys.path`` unless ``missioncache_db`` is already
    importable; returns the directory added (None when nothing was added)."""
    import importlib.util

    if importlib.util.find_spec("missioncache_db") is not None:
        return None
    found = bundled_library_dir(os.environ if env is None else env)
    if found is not None and found not in sys.path:
        sys.path.insert(0, found)
        importlib.invalidate_caches()
        return found
    return None
