"""MissionCache time reports (``missioncache report``): never on a hook's path.

``collect`` reads tasks.db into a plain ``Report``; ``render`` turns it into text, CSV,
JSON or one self-contained HTML page (inline CSS and SVG, nothing fetched).
"""

from __future__ import annotations

from missioncache_report.data import PERIODS, Report, collect
from missioncache_report.formats import FORMATS, render

__all__ = ["FORMATS", "PERIODS", "Report", "collect", "render"]
