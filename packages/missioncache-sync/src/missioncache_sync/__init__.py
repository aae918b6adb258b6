"""MissionCache sync: the data root's event logs and task folders carried between a
person's machines through their own git repository (docs/sync.md).

Never on a hook's hot path: the hooks only check that sync is set up and start
``python -m missioncache_sync auto`` detached (``missioncache_sync.hooks``).
"""
