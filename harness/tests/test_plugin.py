"""Plugin loading keeps what Claude Code keeps and reports what it rejects or ignores."""

from __future__ import annotations

import json

import pytest

from missioncache_harness.plugin import ERROR, WARNING, load_plugin, strict_check
from missioncache_harness.probes import write_plugin

GOOD = {"Stop": [{"hooks": [{"type": "command", "command": "echo hi", "timeout": 5}]}]}


def test_valid_plugin_loads_cleanly(tmp_path):
    root = write_plugin(tmp_path / "p", GOOD, name="good-one")
    plugin = load_plugin(root)
    assert plugin.name == "good-one"
    assert plugin.problems == [] and not plugin.load_failed
    (spec,) = plugin.hooks
    assert (spec.event, spec.command, spec.timeout) == ("Stop", "echo hi", 5.0)
    assert strict_check(root) == []


def test_bad_json_fails_the_whole_hooks_load(tmp_path):
    root = write_plugin(tmp_path / "p", '{"hooks": {"Stop": [')
    plugin = load_plugin(root)
    assert plugin.load_failed and plugin.hooks == []
    assert [p.severity for p in plugin.problems] == [ERROR]
    assert "Invalid JSON syntax" in plugin.problems[0].message


def test_missing_top_level_hooks_key_is_an_error(tmp_path):
    root = write_plugin(tmp_path / "p", json.dumps({"Stop": GOOD["Stop"]}))
    plugin = load_plugin(root)
    assert plugin.load_failed
    assert plugin.errors[0].message == "hooks.json must have `hooks`"


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        (
            {"OnStop": GOOD["Stop"]},
            "event not simulated by the harness; entry ignored",
        ),
        (
            {"Stop": [{"type": "command", "command": "echo hi"}]},
            'Hook matcher "hooks" must be an array of hook entries; received undefined; '
            "entry ignored at runtime",
        ),
        (
            {"Stop": [{"hooks": [{"type": "command"}]}]},
            "Invalid command hook (command: expected string, received undefined); "
            "entry ignored at runtime",
        ),
        (
            {"Stop": [{"hooks": [{"type": "shell", "command": "echo hi"}]}]},
            'Unknown hook type "shell"; entry ignored at runtime',
        ),
        (
            {"Stop": [{"hooks": [{"type": "command", "command": "echo hi", "timeout": "5"}]}]},
            "Invalid command hook (timeout: expected number, received string); "
            "entry ignored at runtime",
        ),
    ],
)
def test_mistakes_claude_code_ignores_are_warnings_and_the_entry_is_dropped(
    tmp_path, hooks, message
):
    root = write_plugin(tmp_path / "p", {**hooks, "SessionStart": GOOD["Stop"]})
    plugin = load_plugin(root)
    assert not plugin.load_failed
    assert [(p.severity, p.message) for p in plugin.problems] == [(WARNING, message)]
    assert [h.event for h in plugin.hooks] == ["SessionStart"]
    assert strict_check(root) == plugin.problems


def test_a_manifest_name_with_spaces_is_an_error(tmp_path):
    root = write_plugin(tmp_path / "p", GOOD, manifest={"name": "Bad Name!"})
    plugin = load_plugin(root)
    assert [(p.severity, p.where) for p in plugin.problems] == [(ERROR, "name")]
    assert plugin.name == "p"


def test_missing_manifest_is_an_error_and_the_dir_names_the_plugin(tmp_path):
    root = write_plugin(tmp_path / "dir-name", GOOD)
    (root / ".claude-plugin" / "plugin.json").unlink()
    plugin = load_plugin(root)
    assert plugin.name == "dir-name"
    assert plugin.errors[0].where == "directory"


def test_a_plugin_without_hooks_fails_the_strict_check(tmp_path):
    root = write_plugin(tmp_path / "p", {})
    assert [p.message for p in strict_check(root)] == ["the plugin registers no command hooks"]


def test_hooks_for_runs_an_identical_command_once(tmp_path):
    entry = {"type": "command", "command": "echo x"}
    other = {"type": "command", "command": "echo y"}
    root = write_plugin(
        tmp_path / "p", {"SessionStart": [{"hooks": [entry, entry]}, {"hooks": [entry, other]}]}
    )
    assert [h.command for h in load_plugin(root).hooks_for("SessionStart")] == ["echo x", "echo y"]


def test_matcher_groups_are_not_simulated(tmp_path):
    """MissionCache registers no matchers; a group with one is dropped and reported."""
    group = {"matcher": "startup", "hooks": [{"type": "command", "command": "echo x"}]}
    plugin = load_plugin(write_plugin(tmp_path / "p", {"SessionStart": [group]}))
    assert plugin.hooks == []
    assert [p.message for p in plugin.problems] == [
        "matchers are not simulated by the harness; group ignored"
    ]
