"""The built plugin under the REAL Claude Code CLI, offline against the harness fake API.

One session: a startup turn (banner to the model, systemMessage to the human only, a
heartbeat from the detached child), then a manual /compact (PreCompact's line becomes the
compaction's instructions, the context file gets its entry) and one more turn, where the
digest of the context file (with that entry) reaches the model.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from missioncache_harness.claude_cli import requires_claude, run_turn
from missioncache_harness.fake_api import FakeAnthropicAPI
from missioncache_harness.polling import poll_until


def heartbeat_sessions(db_path):
    conn = sqlite3.connect(str(db_path))
    try:
        return [row[0] for row in conn.execute("SELECT session_id FROM heartbeats")]
    finally:
        conn.close()


@pytest.mark.conformance
@requires_claude
def test_banner_reaches_the_model_and_a_heartbeat_is_recorded(mc_plugin, mc_env, mc_task, mc_repo):
    common = {
        "home": mc_env.home,
        "cwd": mc_repo,
        "plugin_dirs": [mc_plugin],
        "env_extra": {"MISSIONCACHE_ROOT": str(mc_env.data_root)},
    }
    with FakeAnthropicAPI(["Working on it."]) as api:
        run = run_turn("please refactor the parser module", fake_api=api, **common).check()
        sid = run.session_id
        banners = api.find_texts("SessionStart hook additional context:")
        assert banners and "Active Task Detected" in banners[0].text
        assert "demo-task" in banners[0].text and sid in banners[0].text
        assert not api.find_texts("MissionCache: tracking")  # the human's line, never the model's
        shown = [a.get("content") for a in run.attachments("hook_system_message")]
        assert "MissionCache: tracking demo-task (0s invested: Claude 0s, you 0s)" in shown

        recorded = poll_until(lambda: sid in heartbeat_sessions(mc_env.data_root / "tasks.db"))
        assert recorded, "no heartbeat recorded"

        run_turn("/compact", resume=sid, fake_api=api, **common).check()
        (compaction,) = api.compaction_requests()
        # PreCompact's line reaches the summariser (JSON-escaped in the request's body)
        instruction = (
            'Keep the MissionCache task name "demo-task" and its Next Steps in the summary.'
        )
        assert json.dumps(instruction)[1:-1] in compaction.raw.decode()
        # SessionStart:compact (and :resume) output reaches the model on the next turn.
        api.enqueue("Continuing.")
        run_turn("continue with the parser", fake_api=api, resume=sid, **common).check()
        digests = [t.text for t in api.find_texts("Where the work stands", "main")]
        assert any("Auto-saved before compaction" in text for text in digests)
    context = (mc_env.data_root / "active" / "demo-task" / "demo-task-context.md").read_text()
    assert "- Auto-saved before compaction (" in context and ", manual)" in context
    assert "  - User: please refactor the parser module" in context
