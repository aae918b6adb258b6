"""Make the plugin's bundled libraries importable.

uvx installs this package with Starlette and uvicorn, but MissionCache's own libraries
(``missioncache_db`` and the packages it uses) travel inside the plugin as plain source in
``<plugin>/lib/``, exactly as the hooks use them. The plugin's command line passes the
plugin root; in the development workspace the libraries are installed and nothing changes.
(The same rule as the ``pm`` server's bootstrap; the two packages are installed apart, so
neither can import the other's.)
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping

ROOT_VARIABLES = ("MISSIONCACHE_PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT")


def ensure_libraries(env: Mapping[str, str] | None = None) -> str | None:
    """Put ``<plugin root>/lib`` on ``sys.path`` unless ``missioncache_db`` is importable;
    returns the directory added (None when nothing was added)."""
    if importlib.util.find_spec("missioncache_db") is not None:
        return None
    env = os.environ if env is None else env
    for name in ROOT_VARIABLES:
        root = env.get(name, "")
        candidate = os.path.join(root, "lib")
        if (
            root
            and os.path.isabs(root)
            and os.path.isdir(os.path.join(candidate, "missioncache_db"))
        ):
            if candidate not in sys.path:
                sys.path.insert(0, candidate)
                importlib.invalidate_caches()
            return candidate
    return None
