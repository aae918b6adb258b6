"""pytest fixtures for the packages built on the store (as ``structlog.testing``).

Import the fixture into a package's ``conftest.py``::

    from missioncache_db.testing import db  # noqa: F401 (a fixture)

``db`` is a ``TaskDB`` opened in-process in the harness's isolated data root
(``mc_roots``). The harness cannot offer it: it imports none of the product. Never
imported by the product itself (pytest is a development dependency only).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from missioncache_db._db import TaskDB

TEST_BUSY_TIMEOUT = 5.0  # a loaded CI machine may hold the lock for a while


@pytest.fixture
def db(mc_roots: object) -> Iterator[TaskDB]:
    """A TaskDB at ``<mc_roots' data root>/tasks.db``, closed after the test."""
    database = TaskDB(busy_timeout=TEST_BUSY_TIMEOUT)
    yield database
    database.close()
