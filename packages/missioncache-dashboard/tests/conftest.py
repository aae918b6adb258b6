"""Dashboard tests use the shared harness fixtures (``mc_plugin``, ``mc_env``, ``mc_task``)
and ``missioncache_harness.dashboard``, which starts the built plugin's dashboard."""

import pytest

from missioncache_harness import dashboard as dash


@pytest.fixture
def dashboard(mc_plugin, mc_env, mc_task):
    """The built plugin's ``missioncache dashboard --port P``, a task in its world."""
    with dash.serving(mc_plugin, mc_env) as running:
        yield running
