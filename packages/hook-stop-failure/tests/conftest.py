"""Hook tests use the shared fixtures in missioncache_harness.fixtures (``mc_hook``, ...)."""

import pytest


@pytest.fixture
def mc_hook_script() -> str:
    return "stop_failure.py"
