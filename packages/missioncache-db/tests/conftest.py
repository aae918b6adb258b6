"""The library's own fixtures; the shared ones (``mc_roots``, ``mc_workdir``, ``mc_bare``)
come from the harness (``missioncache_harness.fixtures``, docs/testing.md)."""

import functools

import pytest


@pytest.fixture
def mc_sources():
    """What ``mc_bare``'s bare interpreter finds: this library and the one below it."""
    return ("missioncache-state", "missioncache-db")


@pytest.fixture
def db(mc_roots):
    """This library's TaskDB in ``mc_roots`` (the harness imports none of the product)."""
    from missioncache_db import TaskDB

    database = TaskDB(busy_timeout=5.0)
    yield database
    database.close()


@pytest.fixture
def cli(mc_bare):
    """Run ``python -S -m missioncache_db ...`` the way the UserPromptSubmit hook starts its
    heartbeat child (``heartbeat-auto`` is the one command the package runs)."""
    return functools.partial(mc_bare.module, "missioncache_db")
