"""SessionStart hands a new session the task's last compaction summary, within one budget.

The summaries are stored by the BUILT post_compact.py, as Claude Code would run it.
"""

from __future__ import annotations

import json

import pytest

SID = "sess-new"
LIMIT = 10_000  # Claude Code moves a hook's text past this to a file (contract 11.5)


def start(mc_hook, source="startup", sid=SID):
    payload = {"session_id": sid, "hook_event_name": "SessionStart", "source": source}
    return mc_hook(payload, script="session_start.py")


def compact(mc_hook, summary, trigger="manual", sid="sess-old"):
    payload = {
        "session_id": sid,
        "hook_event_name": "PostCompact",
        "trigger": trigger,
        "compact_summary": f"<analysis>musing</analysis>\n<summary>{summary}</summary>",
    }
    assert mc_hook(payload, script="post_compact.py").silent()


def context_of(done) -> str:
    return done.json["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("source", ["startup", "resume", "clear"])
def test_new_session_gets_the_newest_summary_labelled(mc_hook, mc_task, source):
    compact(mc_hook, "OLD-SUMMARY parser started")
    compact(mc_hook, "NEW-SUMMARY parser done, tests next", trigger="auto")
    done = start(mc_hook, source)
    context = context_of(done)
    assert done.json["systemMessage"].endswith("· last compaction's summary included")
    assert "### Last compaction summary (" in context
    assert "auto compaction)" in context
    assert "NEW-SUMMARY parser done, tests next" in context
    assert "OLD-SUMMARY" not in context
    assert "musing" not in context
    assert "- **Compactions:** 2 (newest " in context


def test_not_repeated_right_after_a_compaction(mc_hook, mc_task):
    """After compaction the summary is already the conversation's first message."""
    compact(mc_hook, "SUMMARY-MARK")
    done = start(mc_hook, "compact")
    context = context_of(done)
    assert "summary included" not in done.json["systemMessage"]
    assert "SUMMARY-MARK" not in context
    assert "- **Compactions:** 1 (newest " in context


def test_no_compactions_no_line_no_summary(mc_hook, mc_task):
    done = start(mc_hook)
    context = context_of(done)
    assert "summary included" not in done.json["systemMessage"]
    assert "Compactions" not in context
    assert "Last compaction summary" not in context


def test_a_50000_character_summary_fits_with_everything_else(mc_hook, mc_env, mc_task, mc_task_dir):
    """Banner, digest, summary and a pending note together stay under Claude Code's limit;
    the banner and the note survive whole, the summary gives way with a visible mark."""
    compact(mc_hook, "HEAD-OF-SUMMARY\n" + "\n".join(f"line {i} " + "s" * 90 for i in range(500)))
    context_file = mc_task_dir / "demo-task-context.md"
    huge = "\n".join(f"- step {i} " + "x" * 80 for i in range(2000))
    context_file.write_text(
        context_file.read_text().replace("## Next Steps\n", f"## Next Steps\n{huge}\n")
    )
    state = mc_env.claude_dir / "hooks" / "state"
    state.mkdir(parents=True)
    record = {"task": "demo-task", "error": "LockTimeout: busy", "time": "2026-01-02 03:04"}
    (state / "precompact-error.json").write_text(json.dumps(record))

    done = start(mc_hook, "resume")
    context = context_of(done)
    assert len(context) < LIMIT
    assert "Active Task Detected" in context
    assert "Where the work stands" in context
    assert "HEAD-OF-SUMMARY" in context
    assert context.count("s" * 90) > 20  # a real share of the summary, not a stub
    assert "compaction summary cut to fit" in context
    assert "LockTimeout: busy" in context  # the note comes after the summary, and survives


def test_summary_with_non_ascii_is_counted_in_characters(mc_hook, mc_task):
    compact(mc_hook, "é" * 50_000)
    context = context_of(start(mc_hook))
    assert len(context) < LIMIT
    assert context.count("é") > 4000


def test_an_empty_newest_summary_gives_way_to_the_one_before_it(mc_hook, mc_task):
    """A compaction whose summary came empty still counts, and the newest summary with
    text (among the newest three records) is handed over instead; older is not looked for."""
    compact(mc_hook, "EARLIER-SUMMARY with text")
    compact(mc_hook, "", trigger="auto")
    context = context_of(start(mc_hook))
    assert "EARLIER-SUMMARY with text" in context and "manual compaction)" in context
    assert "- **Compactions:** 2 (newest " in context and ", auto)" in context
    compact(mc_hook, "")
    compact(mc_hook, "")
    context = context_of(start(mc_hook))
    assert "- **Compactions:** 4 (newest " in context
    assert "Last compaction summary" not in context and "EARLIER-SUMMARY" not in context
