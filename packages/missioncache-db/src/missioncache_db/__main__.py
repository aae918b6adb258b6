"""``python -m missioncache_db <command>``."""

from __future__ import annotations

from missioncache_db.cli import main

raise SystemExit(main())
