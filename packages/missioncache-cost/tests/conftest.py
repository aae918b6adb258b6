"""``db`` comes from ``missioncache_db.testing``; the shared fixtures (``mc_roots``, ...)
from the harness (``missioncache_harness.fixtures``, docs/testing.md)."""

from missioncache_db.testing import db  # noqa: F401 (a fixture)
