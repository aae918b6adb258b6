"""The real Claude Code CLI, offline against the fake model, with the BUILT plugin.

Claude Code starts the ``pm`` server itself, exactly as plugin.json declares it:
``uvx --from "${CLAUDE_PLUGIN_ROOT}/missioncache-pm" missioncache-pm``. uvx installs ``mcp``
from PyPI on first use; the runs share the developer's uv cache (UV_CACHE_DIR) so only the
first one downloads. Everything else (HOME, ~/.claude, ~/.missioncache) is private to the test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from missioncache_harness.claude_cli import (
    MCP_START_TIMEOUT,
    install_from_marketplace,
    mcp_server_env,
    requires_claude,
    run_turn,
    uv_cache_dir,
)
from missioncache_harness.fake_api import FakeAnthropicAPI, Text, ToolUse

pytestmark = [pytest.mark.conformance, requires_claude]

TOOL = "mcp__plugin_missioncache_pm__"
TOOLS = ("update_tasks_file", "update_context_file", "find_task_for_directory", "get_task")
UV_CACHE = uv_cache_dir()  # asked at import, before any test changes the environment


class Box:
    """A private HOME holding ~/.claude and ~/.missioncache, and a git repository."""

    def __init__(self, tmp: Path) -> None:
        self.home = tmp / "home"
        self.root = self.home / ".missioncache"
        self.repo = (tmp / "work" / "shop").resolve()
        (self.repo / "src").mkdir(parents=True)
        self.root.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(self.repo)], check=True, timeout=30)

    @property
    def env(self) -> dict[str, str]:
        return {"MISSIONCACHE_ROOT": str(self.root), **mcp_server_env(UV_CACHE)}

    def turn(self, prompt, api, plugin=None, extra_args=()):
        plugins = [plugin] if plugin else []
        return run_turn(
            prompt,
            home=self.home,
            cwd=self.repo,
            fake_api=api,
            plugin_dirs=plugins,
            env_extra=self.env,
            extra_args=list(extra_args),
            timeout=MCP_START_TIMEOUT + 120,
        ).check()


@pytest.fixture
def box(tmp_path, monkeypatch) -> Box:
    made = Box(tmp_path)
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(made.root))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(made.home / ".claude"))
    return made


def tool_results(api) -> list[dict]:
    """Each tool result once (every later request repeats the conversation so far)."""
    found: dict[str, dict] = {}
    for request in api.main_requests():
        for result in request.tool_results():
            found.setdefault(result.get("tool_use_id"), result)
    return list(found.values())


def result_text(result: dict) -> str:
    content = result.get("content")
    if isinstance(content, list):
        return "\n".join(block.get("text", "") for block in content if isinstance(block, dict))
    return str(content)


def test_claude_checks_an_item_off_through_the_uvx_launched_server(box, mc_plugin):
    from missioncache_db import TaskDB

    with TaskDB() as db:
        task = db.create_task("demo", repo=box.repo)
    task.tasks_file.write_text("# Demo - Tasks\n\n- [ ] 1. Parse\n- [ ] 2. Test\n")
    call = {"tasks_file": str(task.tasks_file), "completed_tasks": [2], "new_tasks": ["Ship"]}
    script = [[Text("Updating."), ToolUse(TOOL + "update_tasks_file", call)], "Done."]
    with FakeAnthropicAPI(script) as api:
        box.turn("mark 2 done", api, mc_plugin, ["--allowedTools", TOOL + "update_tasks_file"])
    [result] = tool_results(api)
    assert not result.get("is_error"), result
    assert "Marked done: 2. Test." in result_text(result)
    assert "Added: 3. Ship." in result_text(result)
    assert (
        task.tasks_file.read_text()
        == "# Demo - Tasks\n\n- [ ] 1. Parse\n- [x] 2. Test\n- [ ] 3. Ship\n"
    )
    announced = "\n".join(api.model_texts())
    for name in TOOLS:
        assert TOOL + name in announced  # listed to the model as available (deferred) tools
    assert "## plugin:missioncache:pm" in announced  # the server's instructions reach it


def test_without_permission_the_tool_is_refused_in_print_mode(box, mc_plugin):
    """What a -p run without --allowedTools (or a command's allowed-tools) gets."""
    from missioncache_db import TaskDB

    with TaskDB() as db:
        task = db.create_task("demo", repo=box.repo)
    before = task.tasks_file.read_text()
    call = {"tasks_file": str(task.tasks_file), "new_tasks": ["x"]}
    with FakeAnthropicAPI([[ToolUse(TOOL + "update_tasks_file", call)], "ok"]) as api:
        run = box.turn("add x", api, mc_plugin)
    [result] = tool_results(api)
    assert result.get("is_error") and "permission" in result_text(result)
    assert run.result["permission_denials"][0]["tool_name"] == TOOL + "update_tasks_file"
    assert task.tasks_file.read_text() == before


def test_the_server_starts_without_network_once_uv_has_its_packages(box, mc_plugin):
    """plugin.json tries ``uvx --offline`` first: a plain ``uvx --from <dir>`` re-resolves
    against PyPI on every start and fails without a network, even with a warm cache."""
    from missioncache_db import TaskDB

    server = json.loads((mc_plugin / ".claude-plugin" / "plugin.json").read_text())
    launch = server["mcpServers"]["pm"]
    warm_env = dict(os.environ, MISSIONCACHE_PLUGIN_ROOT=str(mc_plugin), **box.env)
    warm = subprocess.run(
        [launch["command"], *launch["args"]],
        env=warm_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=MCP_START_TIMEOUT,
        check=False,
    )
    assert warm.returncode == 0, warm.stderr  # installed (if needed), started, saw EOF
    with TaskDB() as db:
        task = db.create_task("demo", repo=box.repo)
    call = {"tasks_file": str(task.tasks_file), "new_tasks": ["Offline item"]}
    nowhere = "http://127.0.0.1:9"  # nothing listens: every connection to PyPI fails
    offline = {"HTTPS_PROXY": nowhere, "HTTP_PROXY": nowhere, "ALL_PROXY": nowhere}
    offline["NO_PROXY"] = "127.0.0.1,localhost"  # the fake model stays reachable
    with FakeAnthropicAPI([[ToolUse(TOOL + "update_tasks_file", call)], "ok"]) as api:
        run_turn(
            "add an item",
            home=box.home,
            cwd=box.repo,
            fake_api=api,
            plugin_dirs=[mc_plugin],
            env_extra={**box.env, **offline},
            extra_args=["--allowedTools", TOOL + "update_tasks_file"],
            timeout=MCP_START_TIMEOUT,
        ).check()
    [result] = tool_results(api)
    assert not result.get("is_error"), result
    assert "- [ ] 1. Offline item" in task.tasks_file.read_text()


def test_an_installed_plugin_gives_the_three_commands_and_the_tools(box, mc_plugin, tmp_path):
    """A new user's path: install from a marketplace, then /missioncache:new, :save, :load."""
    install_from_marketplace(mc_plugin, tmp_path / "market", box.home)
    task_dir = box.root / "active" / "checkout-flow"

    # /missioncache:new <name> [JIRA]: creates the task for this repository, binds the session.
    with FakeAnthropicAPI(["Created."]) as api:
        new = box.turn("/missioncache:new checkout-flow SHOP-9", api)
    [report] = api.find_texts("MISSIONCACHE: Created task checkout-flow.")
    assert f"**Repository:** {box.repo}" in report.text and "**JIRA:** SHOP-9" in report.text
    binding = json.loads(
        (box.home / ".claude/hooks/state/projects" / f"{new.session_id}.json").read_text()
    )
    assert binding["projectName"] == "checkout-flow"
    context, tasks = (
        task_dir / "checkout-flow-context.md",
        task_dir / "checkout-flow-tasks.md",
    )
    tasks.write_text(
        "# Checkout Flow - Tasks\n\n## Tasks\n\n- [ ] 1. Cart page\n- [ ] 2. Payment\n"
    )

    # /missioncache:save: Claude updates both files through the pm tools the command allows.
    script = [
        [
            Text("Saving."),
            ToolUse(
                TOOL + "update_context_file",
                {
                    "context_file": str(context),
                    "recent_change": ["Built the cart page"],
                    "next_steps": ["Payment form", "Receipts"],
                },
            ),
        ],
        [ToolUse(TOOL + "update_tasks_file", {"tasks_file": str(tasks), "completed_tasks": ["1"]})],
        "Saved.",
    ]
    with FakeAnthropicAPI(script) as api:
        box.turn("/missioncache:save cart done", api)
    assert api.find_texts("MISSIONCACHE: saving task checkout-flow.")
    assert api.find_texts("User's note for this save (may be empty): cart done")
    results = tool_results(api)
    assert [r.get("is_error") for r in results] == [None, None], results
    assert "- [x] 1. Cart page\n- [ ] 2. Payment\n" in tasks.read_text()
    saved = context.read_text()
    assert "## Next Steps\n\n- Payment form\n- Receipts\n" in saved
    assert re.search(r"### \d{4}-\d\d-\d\d \d\d:\d\d\n- Built the cart page\n", saved)

    # /missioncache:load <name> in a new session: bound, files shown to Claude in the prompt.
    with FakeAnthropicAPI(["Loaded."]) as api:
        load = box.turn("/missioncache:load checkout-flow", api)
    [loaded] = api.find_texts("MISSIONCACHE: loaded task checkout-flow.")
    assert f"This session ({load.session_id}) is now bound to checkout-flow." in loaded.text
    assert "- Built the cart page" in loaded.text and "- [x] 1. Cart page" in loaded.text


NO_UVX_PATH = "/usr/local/bin:/usr/bin:/bin"  # node and python3, no uv


@pytest.mark.skipif(
    any(os.path.exists(os.path.join(d, "uvx")) for d in NO_UVX_PATH.split(":")),
    reason="uvx is installed system-wide here: no PATH without it",
)
def test_without_uvx_save_works_through_the_commands_fallback(box, mc_plugin, tmp_path):
    """Issue 12 item 11: without uvx the pm server cannot start, and /missioncache:save
    could not save at all. Now the command says so once and Claude saves with the one Bash
    call the command's own allowed-tools rule permits."""
    install_from_marketplace(mc_plugin, tmp_path / "market", box.home)
    env = {**box.env, "PATH": NO_UVX_PATH}
    task_dir = box.root / "active" / "offline-flow"
    with FakeAnthropicAPI(["Created."]) as api:
        run_turn(
            "/missioncache:new offline-flow",
            home=box.home,
            cwd=box.repo,
            fake_api=api,
            env_extra=env,
            timeout=MCP_START_TIMEOUT,
        ).check()
    [created] = api.find_texts("MISSIONCACHE: Created task offline-flow.")
    assert "NOTE FOR THE USER: `uvx` (from uv" in created.text
    context, tasks = task_dir / "offline-flow-context.md", task_dir / "offline-flow-tasks.md"
    # The helper where Claude Code runs the plugin from: for a local-path marketplace that
    # is the marketplace's own folder (measured), not the copy under plugins/cache.
    found = re.search(r'FALLBACK: .*?run `sh "([^"]+)" "([^"]+)" apply`', created.text)
    launcher, script = found.group(1), found.group(2)
    assert Path(launcher).is_file() and Path(script).is_file()
    command = (
        f'sh "{launcher}" "{script}" apply --context-file "{context}"'
        ' --recent-change "Saved without the MCP server" --next-step "Install uv"'
        f' --tasks-file "{tasks}" --new-task "Try the tools"'
    )
    reply = [[Text("Saving."), ToolUse("Bash", {"command": command})], "Saved."]
    with FakeAnthropicAPI(reply) as api:
        run_turn(
            "/missioncache:save",
            home=box.home,
            cwd=box.repo,
            fake_api=api,
            env_extra=env,
            timeout=MCP_START_TIMEOUT,
        ).check()
    report = api.find_texts("MISSIONCACHE: saving task offline-flow.")[0]  # in every request
    assert "FALLBACK:" in report.text  # (-p starts a new session: the note may repeat)
    [result] = tool_results(api)
    assert not result.get("is_error"), result
    assert "MISSIONCACHE: saved." in result_text(result)
    assert "- Saved without the MCP server" in context.read_text()
    assert "- [ ] 1. Try the tools" in tasks.read_text()


def test_a_server_wide_rule_allows_every_pm_tool(box, mc_plugin):
    """The README's permission advice: ``mcp__plugin_missioncache_pm`` (no tool name)
    allows all of the server's tools."""
    from missioncache_db import TaskDB

    with TaskDB() as db:
        task = db.create_task("demo", repo=box.repo)
    call = {"tasks_file": str(task.tasks_file), "new_tasks": ["Allowed"]}
    with FakeAnthropicAPI([[ToolUse(TOOL + "update_tasks_file", call)], "ok"]) as api:
        box.turn("add it", api, mc_plugin, ["--allowedTools", "mcp__plugin_missioncache_pm"])
    [result] = tool_results(api)
    assert not result.get("is_error"), result
    assert "- [ ] 1. Allowed" in task.tasks_file.read_text()


def test_a_pm_server_that_cannot_start_is_told_and_save_still_saves(box, mc_plugin, tmp_path):
    """Issue 26 item 1: uvx is there but cannot start the server (its SDK could not be
    fetched), and the next session Claude Code does not even try (it caches the failure).
    The human is told once per session, by the prompt hook's systemMessage or the
    command's note, and Claude gets the fallback, through which the save lands."""
    install_from_marketplace(mc_plugin, tmp_path / "market", box.home)
    fake = tmp_path / "fake-bin" / "uvx"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'error: Failed to fetch: mcp' >&2\nexit 1\n")
    fake.chmod(0o755)
    env = {**box.env, "PATH": f"{fake.parent}:{NO_UVX_PATH}"}
    told = "its `pm` tool server failed to start"

    def turn(prompt, reply):
        with FakeAnthropicAPI(reply) as api:
            run = run_turn(
                prompt,
                home=box.home,
                cwd=box.repo,
                fake_api=api,
                env_extra=env,
                timeout=MCP_START_TIMEOUT,
            ).check()
        [transcript] = (box.home / ".claude" / "projects").glob(f"*/{run.session_id}.jsonl")
        return api, transcript.read_text()

    turn("/missioncache:new broken-pm", ["Created."])
    records = list((box.home / ".claude/hooks/state/pm-server").glob("*.json"))
    assert [json.loads(r.read_text())["state"] for r in records] == ["starting"]
    context = box.root / "active" / "broken-pm" / "broken-pm-context.md"

    probe, transcript = turn("/missioncache:save", ["Looking."])
    report = probe.find_texts("MISSIONCACHE: saving task broken-pm.")[0].text
    notes = report.count(told) + transcript.count(told)
    assert notes >= 1, "the human was not told"
    assert told not in report or '"systemMessage"' not in transcript  # once, not twice
    # The helper runs through the plugin's launcher (it finds a Python where python3 is not).
    found = re.search(r'FALLBACK: .*?run `sh "([^"]+)" "([^"]+)" apply`', report)
    assert found, report
    launcher, script = found.groups()
    command = (
        f'sh "{launcher}" "{script}" apply --context-file "{context}"'
        ' --recent-change "Saved while the pm server was down"'
    )
    api, _ = turn(
        "/missioncache:save", [[Text("Saving."), ToolUse("Bash", {"command": command})], "Saved."]
    )
    [result] = tool_results(api)
    assert not result.get("is_error"), result
    assert "MISSIONCACHE: saved." in result_text(result)
    assert "- Saved while the pm server was down" in context.read_text()
