import sys

from missioncache_teamdb.main import main

sys.exit(main())
