"""Forks through the real Claude Code CLI (offline, the fake model, the BUILT plugin
installed as a user installs it): two sessions in two git worktrees of one repository,
each on its fork; one saves a decision to the shared layer, the other's
``/missioncache:load`` reports it (docs/forks.md)."""

from __future__ import annotations

import pytest

from missioncache_harness import claude_cli
from missioncache_harness.fake_api import FakeAnthropicAPI, Text, ToolUse
from missioncache_harness.forks import repo_with_worktrees

pytestmark = [pytest.mark.conformance, claude_cli.requires_claude]

TOOL = "mcp__plugin_missioncache_pm__"
UV_CACHE = claude_cli.uv_cache_dir()  # asked at import, before any test changes the environment


def test_a_shared_save_in_one_worktree_is_reported_by_the_other_sessions_load(
    tmp_path, monkeypatch, mc_plugin
):
    home = tmp_path / "home"
    root = home / ".missioncache"
    root.mkdir(parents=True)
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(root))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    work = (tmp_path / "work").resolve()
    main, wa, wb = work / "shop", work / "shop-api", work / "shop-ui"
    repo_with_worktrees(main, wa, wb)
    from missioncache_db import TaskDB

    with TaskDB() as db:
        db.create_task("shop", repo=main)
        db.create_fork("shop", "fa", wa)
        fb = db.create_fork("shop", "fb", wb)
    claude_cli.install_from_marketplace(mc_plugin, tmp_path / "market", home)
    env = {"MISSIONCACHE_ROOT": str(root), **claude_cli.mcp_server_env(UV_CACHE)}

    def turn(prompt, api, cwd, **options):
        return claude_cli.run_turn(
            prompt,
            home=home,
            cwd=cwd,
            fake_api=api,
            env_extra=env,
            timeout=claude_cli.MCP_START_TIMEOUT + 120,
            **options,
        ).check()

    # Session A starts in fa's worktree: SessionStart names the fork and its parent.
    with FakeAnthropicAPI(["Hello."]) as api:
        first = turn("hello", api, wa)
    [start] = api.find_texts("Shared layer: parent task shop (quoted from shop-context.md)")
    assert "**Task:** fa" in start.text and "**Fork of:** shop" in start.text

    # Session B, in fb's worktree, saves a decision to the shared layer.
    decision = "Orders carry an ISO 4217 currency code"
    call = {
        "context_file": str(fb.context_file),
        "recent_change": ["Built the cart page"],
        "shared_decision": [decision],
    }
    script = [[Text("Saving."), ToolUse(TOOL + "update_context_file", call)], "Saved."]
    with FakeAnthropicAPI(script) as api:
        turn("/missioncache:save", api, wb)
    assert api.find_texts("THIS TASK IS A FORK of shop")
    results = [result for request in api.main_requests() for result in request.tool_results()]
    assert results and not any(r.get("is_error") for r in results), results
    assert decision in (root / "active" / "shop" / "shop-context.md").read_text()

    # Session A (resumed: the same session) runs /missioncache:load and is told.
    with FakeAnthropicAPI(["Loaded."]) as api:
        turn("/missioncache:load", api, wa, resume=first.session_id)
    [loaded] = api.find_texts("MISSIONCACHE: loaded task fa.")
    assert "PARENT UPDATED: the shared layer (the context of the parent task shop)" in loaded.text
    assert f"+  - {decision}" in loaded.text
