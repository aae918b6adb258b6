"""``python -m missioncache_cli <command>``: the same command line as ``missioncache``."""

from __future__ import annotations

from missioncache_cli.cli import main

raise SystemExit(main())
