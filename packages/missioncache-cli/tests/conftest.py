"""The command line's own fixtures; the shared ones (``mc_roots``, ``mc_workdir``,
``mc_bare``) come from the harness (``missioncache_harness.fixtures``, docs/testing.md)."""

import functools

import pytest


@pytest.fixture
def mc_sources():
    """The command line and every library it may load (its report, statusline, sync and
    billing fronts too): what ``mc_bare``'s bare interpreter finds."""
    return (
        "missioncache-cli", "missioncache-state", "missioncache-db", "missioncache-context",
        "missioncache-transcript", "missioncache-statusline", "missioncache-report",
        "missioncache-sync", "missioncache-billing",
    )  # fmt: skip


@pytest.fixture
def db(mc_roots):
    """The TaskDB in ``mc_roots`` (the harness imports none of the product)."""
    from missioncache_db import TaskDB

    database = TaskDB(busy_timeout=5.0)
    yield database
    database.close()


@pytest.fixture
def cli(mc_bare):
    """Run ``python -S -m missioncache_cli ...`` as a user would."""
    return functools.partial(mc_bare.module, "missioncache_cli")
