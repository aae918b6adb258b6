"""What a session is told when it starts, assembled from its pieces: the hook's own tests
(packages/hook-session-start/tests) play whole sessions; these pin the text rules."""

from __future__ import annotations

from types import SimpleNamespace

from missioncache_briefing import (
    CONTEXT_BUDGET,
    PRIORITY_BANNER,
    PRIORITY_SUMMARY,
    SUMMARY_HEADING,
    banner,
    candidates_hint,
    fitted,
)
from missioncache_hookio.budget import Part


def _task(name: str = "demo") -> SimpleNamespace:
    return SimpleNamespace(
        name=name,
        id=7,
        status="active",
        jira_key=None,
        key=name,
        directory_path=f"/data/{name}",
        context_path=f"/data/{name}/{name}-context.md",
        tasks_path=f"/data/{name}/{name}-tasks.md",
    )


def test_the_banner_names_the_task_its_files_and_an_unknown_session():
    text = banner(_task(), "1h 5m", None, None)  # type: ignore[arg-type]
    assert "- **Task:** demo (id 7)" in text
    assert "- **Time invested:** 1h 5m" in text
    assert "- **Session:** unknown (startup)" in text
    assert "  - context: /data/demo/demo-context.md" in text


def test_an_unbound_session_is_asked_to_choose_among_at_most_five_names():
    hint = candidates_hint([_task(f"t{i}") for i in range(7)])  # type: ignore[misc]
    assert "has 7 active tasks (t0, t1, t2, t3, t4, +2 more)" in hint
    assert "`/missioncache:load <name>`" in hint


def test_an_oversized_summary_is_cut_before_the_banner_and_the_human_is_told_only_if_it_stays():
    summary = Part("compaction summary", f"{SUMMARY_HEADING}\n\n" + "x" * 20_000, PRIORITY_SUMMARY)
    parts = [Part("banner", "## banner", PRIORITY_BANNER), summary]
    message, context = fitted("MissionCache: tracking demo", parts)
    assert context.startswith("## banner")
    assert len(context) <= CONTEXT_BUDGET
    assert message.splitlines() == [  # one note a line, after the status
        "MissionCache: tracking demo",
        "Claude was given the last compaction's summary.",
    ]
    message, context = fitted("MissionCache: tracking demo", parts[:1])
    assert message == "MissionCache: tracking demo"
