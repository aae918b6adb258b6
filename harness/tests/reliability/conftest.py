"""Fixtures of the reliability suite; the helpers live in ``reliability_kit`` (importable
because this directory is put on ``sys.path``: the workspace runs pytest with
``--import-mode=importlib``, under which a conftest cannot be imported by tests)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from reliability_kit import Scene, make_scene, strict

from missioncache_harness.plugin import Plugin, load_plugin


@pytest.fixture(scope="session")
def real_plugin(mc_plugin: Path) -> Plugin:
    return load_plugin(mc_plugin)


@pytest.fixture(scope="session")
def strict_plugin(real_plugin: Plugin) -> Plugin:
    return strict(real_plugin)


@pytest.fixture
def scene(tmp_path: Path, strict_plugin: Plugin, mc_plugin: Path) -> Scene:
    return make_scene(tmp_path, strict_plugin, mc_plugin)
