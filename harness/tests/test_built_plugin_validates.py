"""The built plugin and this repository's marketplace pass the real `claude plugin validate`,
and our own stricter check on top (which also rejects what the CLI only warns about)."""

from __future__ import annotations

from pathlib import Path

import pytest

from missioncache_harness.claude_cli import requires_claude, run_claude
from missioncache_harness.locate import repo_root
from missioncache_harness.plugin import strict_check

HOOKS = (
    ("SessionStart", "session_start"),
    ("UserPromptSubmit", "activity_tracker"),
    ("UserPromptSubmit", "task_tracker"),
    ("PreCompact", "pre_compact"),
    ("PostCompact", "post_compact"),
    ("Stop", "stop"),
    ("StopFailure", "stop_failure"),
)


@pytest.mark.conformance
@requires_claude
def test_real_cli_validates_the_built_plugin(mc_plugin: Path, tmp_path: Path) -> None:
    done = run_claude(["plugin", "validate", str(mc_plugin)], home=tmp_path / "home", cwd=tmp_path)
    assert done.rc == 0, done.describe()
    assert "Validation passed" in done.stdout
    assert "✘" not in done.stdout
    for event, hook in HOOKS:  # the CLI lists every hook it will run, as hooks/run <hook>
        assert f'hooks: {event} command "\\"${{CLAUDE_PLUGIN_ROOT}}/hooks/run\\" {hook}"' in (
            done.stdout
        ), (event, hook)
    for command in ("missioncache:load", "missioncache:save", "missioncache:new"):
        assert command in done.stdout
    assert "mcpServers: pm" in done.stdout
    assert strict_check(mc_plugin) == []


@pytest.mark.conformance
@requires_claude
def test_real_cli_validates_the_repository_marketplace(tmp_path: Path) -> None:
    done = run_claude(
        ["plugin", "validate", str(repo_root())], home=tmp_path / "home", cwd=tmp_path
    )
    assert done.rc == 0, done.describe()
    assert "Validating marketplace manifest" in done.stdout
    assert "Validation passed" in done.stdout
