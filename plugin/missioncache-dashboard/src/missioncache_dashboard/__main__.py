"""``python -m missioncache_dashboard``: the same as the ``missioncache-dashboard`` script."""

import sys

from missioncache_dashboard.server import main

sys.exit(main())
