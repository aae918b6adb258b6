"""Fixtures of the reliability suite; its helpers are ``missioncache_harness.reliability``."""

from __future__ import annotations

from pathlib import Path

import pytest

from missioncache_harness.plugin import Plugin, load_plugin
from missioncache_harness.reliability import Scene, make_scene, strict


@pytest.fixture(scope="session")
def real_plugin(mc_plugin: Path) -> Plugin:
    return load_plugin(mc_plugin)


@pytest.fixture(scope="session")
def strict_plugin(real_plugin: Plugin) -> Plugin:
    return strict(real_plugin)


@pytest.fixture
def scene(tmp_path: Path, strict_plugin: Plugin, mc_plugin: Path) -> Scene:
    return make_scene(tmp_path, strict_plugin, mc_plugin)
