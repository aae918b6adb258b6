"""Dashboard tests use the shared harness fixtures (``mc_plugin``, ``mc_env``, ``mc_task``)
and ``dash_kit`` (importable because this directory is put on ``sys.path``)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import dash_kit


@pytest.fixture
def dashboard(mc_plugin, mc_env, mc_task):
    """The built plugin's ``missioncache dashboard --port P``, a task in its world."""
    with dash_kit.serving(mc_plugin, mc_env) as running:
        yield running
