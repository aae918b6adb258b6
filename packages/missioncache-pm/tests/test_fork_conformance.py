"""Forks through the real Claude Code CLI (offline, the fake model, the BUILT plugin
installed as a user installs it): two sessions in two git worktrees of one repository,
each on its fork; one saves a decision to the shared layer, the other's
``/missioncache:load`` reports it (docs/forks.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from missioncache_harness.claude_cli import requires_claude, run_claude, run_turn
from missioncache_harness.fake_api import FakeAnthropicAPI, Text, ToolUse

pytestmark = [pytest.mark.conformance, requires_claude]

TOOL = "mcp__plugin_missioncache_pm__"
MCP_START_TIMEOUT = 300.0  # a cold uv cache downloads mcp and its dependencies


def _uv_cache() -> str | None:
    if os.environ.get("UV_CACHE_DIR"):
        return os.environ["UV_CACHE_DIR"]
    uv = shutil.which("uv")
    if uv is None:
        return None
    done = subprocess.run([uv, "cache", "dir"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or None


UV_CACHE = _uv_cache()


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=30)


def _install(tmp_path: Path, plugin: Path, home: Path) -> None:
    """Install ``plugin`` from a local marketplace at user scope (as test_conformance)."""
    market = tmp_path / "market"
    shutil.copytree(plugin, market / "missioncache")
    catalog = {
        "name": "mc-local",
        "owner": {"name": "MissionCache tests"},
        "metadata": {"description": "MissionCache, built from this checkout"},
        "plugins": [{"name": "missioncache", "source": "./missioncache", "description": "MC"}],
    }
    (market / ".claude-plugin").mkdir()
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps(catalog))
    run_claude(["plugin", "marketplace", "add", str(market)], home=home).check()
    run_claude(["plugin", "install", "missioncache@mc-local", "--scope", "user"], home=home).check()


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
    main.mkdir(parents=True)
    git("init", "-q", cwd=main)
    git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "i",
        cwd=main,
    )
    git("worktree", "add", "-q", str(wa), cwd=main)
    git("worktree", "add", "-q", str(wb), cwd=main)
    from missioncache_db import TaskDB

    with TaskDB() as db:
        db.create_task("shop", repo=main)
        db.create_fork("shop", "fa", wa)
        fb = db.create_fork("shop", "fb", wb)
    _install(tmp_path, mc_plugin, home)
    env = {"MISSIONCACHE_ROOT": str(root), "MCP_TIMEOUT": str(int(MCP_START_TIMEOUT * 1000))}
    if UV_CACHE:
        env["UV_CACHE_DIR"] = UV_CACHE

    def turn(prompt, api, cwd, **options):
        return run_turn(
            prompt,
            home=home,
            cwd=cwd,
            fake_api=api,
            env_extra=env,
            timeout=MCP_START_TIMEOUT + 120,
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
