"""``python -m missioncache_pm``: run the ``pm`` MCP server on stdio."""

from __future__ import annotations

from missioncache_pm.server import main

main()
