"""A compaction's summary reaches the NEXT session: through the simulator and the real CLI.

The scenario a user lives: work in a session, /compact, come back tomorrow in a new session
(a new session id) in the same repository. SessionStart(startup) must hand Claude the
summary the model wrote at the compaction, and no hook's text may pass Claude Code's
10,000-character limit (past it the text is moved to a file the model may never read).
Played twice: through ``Session`` (the simulator) and through ``claude -p`` with the fake
model API; then once more with a 50,000-character summary.
"""

from __future__ import annotations

import pytest

from missioncache_harness.claude_cli import requires_claude, run_turn
from missioncache_harness.fake_api import FakeAnthropicAPI
from missioncache_harness.session import Session

MARK = "COMPACT-SUMMARY-MARK-7Q"
SUMMARY = f"<analysis>private musing</analysis>\n<summary>The parser is half done. {MARK}</summary>"
HUGE_BODY = "\n".join(f"{i}. a long line of summary text " + "w" * 80 for i in range(450))
HUGE = f"<analysis>a</analysis>\n<summary>{MARK}\n{HUGE_BODY}</summary>"
# 9,000 emoji: 9,000 code points but 18,000 UTF-16 units, the unit Claude Code counts in
# (harness/tests/test_hook_text_unit_conformance.py); the budget must hold in that unit.
ASTRAL_BODY = "\n".join("\U0001f600" * 90 for _ in range(100))
ASTRAL = f"<summary>{MARK}\n{ASTRAL_BODY}</summary>"
LIMIT = 10_000


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


CONTEXT_PREFIX = "SessionStart hook additional context: "


def simulate(mc_plugin, mc_env, mc_repo, raw_summary):
    first = Session(mc_plugin, mc_repo, env=mc_env.env)
    first.start()
    first.prompt("please refactor the parser module")
    first.compact("manual", summary=raw_summary)
    tomorrow = Session(mc_plugin, mc_repo, env=mc_env.env)
    assert tomorrow.session_id != first.session_id
    started = tomorrow.start("startup")
    return [first, tomorrow], started


@pytest.mark.parametrize("raw", [SUMMARY, HUGE], ids=["summary", "50k-summary"])
def test_simulator_next_session_gets_the_summary_within_the_limit(
    mc_plugin, mc_env, mc_task, mc_repo, raw
):
    sessions, started = simulate(mc_plugin, mc_env, mc_repo, raw)
    (context,) = [t for t in started.routed.model_texts if t.startswith(CONTEXT_PREFIX)]
    assert MARK in context and "Last compaction summary" in context
    assert "private musing" not in context
    assert "- **Compactions:** 1 (newest " in context
    for session in sessions:
        for event in session.events:
            assert not event.routed.persisted, f"{event.event} output was moved to a file"
            for run in event.hooks:
                assert len(run.stdout) < LIMIT or event.event == "SessionStart"
            for text in event.routed.model_texts:
                assert len(text) < LIMIT + len(CONTEXT_PREFIX), event.event
    post = [e for e in sessions[0].events if e.event == "PostCompact"]
    assert post and all(run.stdout == "" for run in post[0].hooks)


@pytest.mark.conformance
@requires_claude
@pytest.mark.parametrize(
    "raw", [SUMMARY, HUGE, ASTRAL], ids=["summary", "50k-summary", "astral-summary"]
)
def test_real_cli_next_session_gets_the_summary_within_the_limit(
    mc_plugin, mc_env, mc_task, mc_repo, raw
):
    common = {
        "home": mc_env.home,
        "cwd": mc_repo,
        "plugin_dirs": [mc_plugin],
        "env_extra": {"MISSIONCACHE_ROOT": str(mc_env.data_root)},
    }
    with FakeAnthropicAPI(["Looked at the parser."], compact_summary=raw) as api:
        first = run_turn("please refactor the parser module", fake_api=api, **common).check()
        run_turn("/compact", resume=first.session_id, fake_api=api, **common).check()
        assert len(api.compaction_requests()) == 1
        api.enqueue("Picking up the parser.")
        before = len(api.main_requests())
        tomorrow = run_turn("where were we?", fake_api=api, **common).check()
        assert tomorrow.session_id != first.session_id

        new_requests = api.main_requests()[before:]
        assert new_requests, "the new session sent nothing to the model"
        sent = "\n".join(t.text for t in new_requests[0].texts())
        assert CONTEXT_PREFIX + "## MissionCache: Active Task Detected" in sent
        assert MARK in sent and "Last compaction summary" in sent
        assert "private musing" not in sent
        everything = [t.text for r in api.requests for t in r.texts()]
        assert not [t for t in everything if "<persisted-output>" in t]
        # PostCompact printed nothing: no text of ours follows its line in /compact's output.
        assert not [t for t in everything if "PostCompact" in t and "successfully:" in t]
    # What Claude Code recorded as each hook's context: whole (not persisted) and in bounds.
    (ours,) = [
        text
        for a in tomorrow.attachments("hook_additional_context")
        for text in a.get("content") or []
        if "Active Task Detected" in text
    ]
    assert MARK in ours and utf16(ours) < LIMIT
    assert f"**Session:** {tomorrow.session_id} (startup)" in ours
    for run in (first, tomorrow):
        for attachment in run.attachments("hook_additional_context"):
            for text in attachment.get("content") or []:
                assert utf16(text) < LIMIT and "<persisted-output>" not in text
