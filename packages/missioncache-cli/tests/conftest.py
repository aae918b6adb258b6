"""The command line's own fixtures; the shared ones (``mc_roots``, ``mc_workdir``,
``mc_bare``) come from the harness (``missioncache_harness.fixtures``, docs/testing.md)."""

import functools

import pytest

from missioncache_db.testing import db  # noqa: F401 (a fixture)


@pytest.fixture
def mc_sources():
    """The command line and every library it may load (its report, statusline, sync and
    billing fronts too): what ``mc_bare``'s bare interpreter finds."""
    return (
        "missioncache-cli", "missioncache-state", "missioncache-spool", "missioncache-db",
        "missioncache-cost", "missioncache-time", "missioncache-context",
        "missioncache-transcript", "missioncache-statusline", "missioncache-report",
        "missioncache-sync", "missioncache-billing",
    )  # fmt: skip


@pytest.fixture
def cli(mc_bare):
    """Run ``python -S -m missioncache_cli ...`` as a user would."""
    return functools.partial(mc_bare.module, "missioncache_cli")
