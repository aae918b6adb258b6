"""MissionCache state store: where state lives and how it is written.

Submodules are imported on demand (``from missioncache_state.locations import data_root``) so
that a hook pays only for what it uses; this file deliberately imports nothing.
"""
