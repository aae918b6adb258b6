"""AUTO compaction of the built plugin under the REAL Claude Code CLI, offline.

WHY: users mostly meet compaction when Claude Code triggers it itself, and the contract says that
path differs from /compact (PreCompact gets trigger "auto"; nothing is recorded in the
transcript). This proves, on the real CLI, that MissionCache still saves its snapshot, steers the
summary and re-injects its digest when the CLI compacts on its own in a `-p` run.

How the CLI is made to auto-compact (measured on 2.1.328 with its `--debug-file` log): it
compares the `usage.input_tokens` the API reports with its auto-compact threshold (with
CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000 its log says effectiveWindow=80000, threshold 67000), and
when a reply reports more, it compacts before its next model call ("autocompact: routing through
reactive"). PreCompact(auto) runs, then one compaction request, then SessionStart(compact), then
the turn goes on. The session needs an earlier finished turn: with nothing before the current
prompt the CLI logs "Reactive compact: no assistant messages in summarize set, bailing" and sends
no compaction request. Without the variable, reporting 975,000 tokens against the default model's
980,000 window does the same; the variable keeps the test independent of the default model.

Two CLI processes: a plain first turn, then a resumed turn whose tool call reports a nearly full
context.
"""

from __future__ import annotations

import pytest

from missioncache_harness.claude_cli import requires_claude, run_turn
from missioncache_harness.fake_api import FakeAnthropicAPI, Reply, Text, ToolUse

pytestmark = [pytest.mark.conformance, requires_claude]

WINDOW_ENV = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"}
NEARLY_FULL = 95_000  # input tokens over the 67,000 threshold of that window
SUMMARY = "<analysis>\nscripted\n</analysis>\n<summary>\nAUTO-SUMMARY\n</summary>"


def test_auto_compaction_saves_steers_and_reinjects(mc_plugin, mc_env, mc_task, mc_repo):
    common = {
        "home": mc_env.home,
        "cwd": mc_repo,
        "plugin_dirs": [mc_plugin],
        "env_extra": {"MISSIONCACHE_ROOT": str(mc_env.data_root), **WINDOW_ENV},
    }
    context = mc_env.data_root / "active" / "demo-task" / "demo-task-context.md"
    with FakeAnthropicAPI(["Looked at the parser."], compact_summary=SUMMARY) as api:
        first = run_turn("please refactor the parser module", fake_api=api, **common).check()
        sid = first.session_id
        assert not api.compaction_requests()  # 100 reported tokens: no reason to compact

        write = ToolUse("Write", {"file_path": str(mc_repo / "lexer.py"), "content": "#\n"})
        api.enqueue(
            Reply((Text("Splitting."), write), input_tokens=NEARLY_FULL),
            Reply((Text("Split done."),)),
        )
        run = run_turn("now split out the lexer", fake_api=api, resume=sid, **common).check()

        compactions = api.compaction_requests()
        assert len(compactions) == 1, "the CLI did not auto-compact exactly once"
        compaction = compactions[0]
        instructions = compaction.last_user_text()
        assert (
            "Additional Instructions:\nKeep the MissionCache task name"
            ' "demo-task" and its Next Steps in the summary.' in instructions
        )
        after = [r for r in api.main_requests() if r.index > compaction.index]
        assert after, "the turn did not go on after the auto compaction"
        marker = "SessionStart hook additional context:"
        digests = [t.text.split(marker, 1)[1] for t in after[0].texts() if marker in t.text]
        assert len(digests) == 1, digests  # SessionStart(compact) re-injected it once
        (digest,) = digests
        assert f"- **Session:** {sid} (compact)" in digest
        assert "### Where the work stands" in digest
        assert "- Auto-saved before compaction (" in digest and ", auto)" in digest
        assert any("AUTO-SUMMARY" in t.text for t in after[0].texts())
        assert run.result_text == "Split done."

    text = context.read_text(encoding="utf-8")
    assert "- Auto-saved before compaction (" in text and ", auto)" in text
    assert ", manual)" not in text
    assert "  - User: please refactor the parser module" in text
    (boundary,) = run.records("system", "compact_boundary")
    assert boundary["compactMetadata"]["trigger"] == "auto"
    # Auto compaction records no PreCompact output in the transcript (manual /compact does).
    assert "Keep the MissionCache task name" not in run.transcript_path.read_text()
