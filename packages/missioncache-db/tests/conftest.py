"""The store's fixtures: ``db`` from ``missioncache_db.testing``; the shared ones
(``mc_roots``, ``mc_workdir``, ``mc_bare``) come from the harness
(``missioncache_harness.fixtures``, docs/testing.md)."""

import pytest

from missioncache_db.testing import db  # noqa: F401 (a fixture)


@pytest.fixture
def mc_sources():
    """What ``mc_bare``'s bare interpreter finds: this library and the ones below it."""
    return ("missioncache-state", "missioncache-spool", "missioncache-db")
