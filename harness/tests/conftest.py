"""Fixtures for the simulator's own tests: an isolated environment and a probe-plugin factory."""

from __future__ import annotations

from pathlib import Path

import pytest

from missioncache_harness.probes import cli_probe_plugin, probe_plugin
from missioncache_harness.workspace import make_env


@pytest.fixture(scope="session")
def cli_probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real-CLI tests' probe plugin (``mc-probe``), one per test session."""
    return cli_probe_plugin(tmp_path_factory.mktemp("cli-probe") / "mc-probe")


@pytest.fixture
def sim(tmp_path: Path):
    """An isolated home plus a project dir; ``sim.plugin(events, behaviours)`` makes a probe."""

    class Sim:
        env = make_env(tmp_path / "iso")
        project = (tmp_path / "project").resolve()
        root = tmp_path

        def plugin(self, events, behaviours=None, *, name="probe-plugin", where="plug"):
            return probe_plugin(tmp_path / where, events, behaviours, name=name)

    Sim.project.mkdir()
    return Sim()
