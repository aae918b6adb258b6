"""The team tests' world: a real PostgreSQL (``mc_postgres``) and a team on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from missioncache_harness.team import Team, make_team


@pytest.fixture
def team(mc_postgres: object, tmp_path: Path) -> Team:
    return make_team(mc_postgres, tmp_path)
