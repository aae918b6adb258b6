"""The spool's fixtures: ``db`` from ``missioncache_db.testing`` (the spool is read into
tasks.db); the shared ones (``mc_roots``, ``mc_bare``) come from the harness
(``missioncache_harness.fixtures``, docs/testing.md)."""

import pytest

from missioncache_db.testing import db  # noqa: F401 (a fixture)


@pytest.fixture
def mc_sources():
    """What ``mc_bare``'s bare interpreter finds: the spool and the layers that ingest it."""
    return ("missioncache-state", "missioncache-spool", "missioncache-db", "missioncache-cost",
            "missioncache-transcript", "missioncache-time")  # fmt: skip
