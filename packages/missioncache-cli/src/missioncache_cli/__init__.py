"""MissionCache's command line for people (``missioncache``, in the
workspace too, or ``python -m missioncache_cli``): the top of the package layers, so it may use
every library and none of them imports it. Hooks never load it: the heartbeat child runs
``python -m missioncache_time heartbeat-auto``, which stays in the database package."""
