"""The time model's fixtures: ``db`` from ``missioncache_db.testing``; the shared ones
(``mc_roots``, ``mc_workdir``, ``mc_bare``) come from the harness
(``missioncache_harness.fixtures``, docs/testing.md)."""

import functools

import pytest

from missioncache_db.testing import db  # noqa: F401 (a fixture)


@pytest.fixture
def mc_sources():
    """What ``mc_bare``'s bare interpreter finds: this library and the ones below it."""
    return ("missioncache-state", "missioncache-spool", "missioncache-db", "missioncache-cost",
            "missioncache-transcript", "missioncache-time")  # fmt: skip


@pytest.fixture
def cli(mc_bare):
    """Run ``python -S -m missioncache_time ...`` the way the UserPromptSubmit hook starts its
    heartbeat child (``heartbeat-auto`` is the one command the package runs)."""
    return functools.partial(mc_bare.module, "missioncache_time")
