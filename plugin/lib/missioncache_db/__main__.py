"""``python -m missioncache_db <command>``.

``heartbeat-auto`` (started by the UserPromptSubmit hook on every prompt) goes straight to
its own small module, without the argparse command line.
"""

from __future__ import annotations

import sys

if sys.argv[1:] == ["heartbeat-auto"]:
    from missioncache_db.heartbeat_auto import main
else:
    from missioncache_db.cli import main

raise SystemExit(main())
