"""task_tracker.py as a real process of the built plugin."""

from __future__ import annotations

import json

import pytest

from missioncache_harness.bad_input import BAD_STDIN, mistyped

SID = "sess-t"
BAD_INPUTS = BAD_STDIN
MISTYPED = mistyped({"prompt": 12}, {"agent_id": 9})
TASKS = (
    "# Demo Task - Tasks\n\n## Tasks\n- [ ] 1. one\n- [x] 2. two\n- [ ] 3. three\n"
    "  - [ ] 3.1. sub\n- [ ] 54a. lettered\n"
)
CONTEXT = "# Demo Task - Context\n\n**Last Updated:** 2026-01-01 10:00\n\n## Findings\n"


@pytest.fixture
def files(mc_task_dir):
    context, tasks = mc_task_dir / "demo-task-context.md", mc_task_dir / "demo-task-tasks.md"
    tasks.write_text(TASKS)

    def write(*headings, tasks_text=None):
        context.write_text(CONTEXT + "".join(f"\n{h}\nnotes\n" for h in headings))
        if tasks_text is not None:
            tasks.write_text(tasks_text)
        return tasks

    return write


@pytest.fixture
def prompt(mc_hook):
    def run(text="keep going with the work", sid=SID, **options):
        payload = {"session_id": sid, "hook_event_name": "UserPromptSubmit", "prompt": text}
        return mc_hook(payload, **options).stdout

    return run


def test_reminder_lists_divergent_tasks_with_a_pasteable_call(prompt, files):
    tasks = files("### Task 1: parser", "### task 54a", "### Task 2", "### Task 3.1")
    out = prompt()
    call = (
        "mcp__plugin_missioncache_pm__update_tasks_file("
        f'tasks_file="{tasks}", completed_tasks=["1", "3.1", "54a"])'
    )
    assert call in out.splitlines()
    assert f"Tasks file: {tasks}" in out
    assert ": 1, 3.1, 54a." in out
    assert out.rstrip().endswith("NOT the MissionCache tasks file.")
    assert "TaskCreate" in out


def test_fenced_headings_do_not_count(prompt, files):
    files("```\n### Task 1\n```", "~~~md\n### Task 3\n~~~")
    assert prompt() == ""


def test_fires_only_when_the_set_changes(prompt, files):
    files("### Task 1", "### Task 3")
    assert '["1", "3"]' in prompt()
    assert prompt() == ""  # same set: quiet
    assert prompt() == ""
    files("### Task 1", "### Task 3", "### Task 54a")
    assert '["1", "3", "54a"]' in prompt()  # grew
    files("### Task 1")
    assert 'completed_tasks=["1"]' in prompt()  # shrank but not empty: a change
    assert prompt() == ""


def test_empty_set_clears_so_a_reappearance_fires_again(prompt, files, mc_env):
    files("### Task 1")
    assert '["1"]' in prompt()
    state = mc_env.claude_dir / "hooks" / "state" / "divergence" / f"{SID}.json"
    assert json.loads(state.read_text())["numbers"] == ["1"]
    files()
    assert prompt() == ""
    assert not state.exists()
    files("### Task 1")
    assert '["1"]' in prompt()


def test_state_is_per_session(prompt, files):
    files("### Task 1")
    assert prompt(sid="one")
    assert prompt(sid="two")
    assert prompt(sid="one") == ""


@pytest.mark.parametrize("sid", ["../../x", "a/b", "s" * 300, None])
def test_without_a_valid_session_id_state_is_kept_by_task(prompt, files, mc_env, mc_task, sid):
    files("### Task 3")
    assert '["3"]' in prompt(sid=sid)
    assert prompt(sid=sid) == ""
    state = mc_env.claude_dir / "hooks" / "state" / "divergence"
    assert sorted(p.name for p in state.iterdir()) == [f"task-{mc_task.id}.json"]


@pytest.mark.parametrize("text", ["/help", "!ls", "yes", "   "])
def test_skipped_prompts_are_silent(prompt, files, text):
    files("### Task 1")
    assert prompt(text) == ""
    assert '["1"]' in prompt()  # the state was not touched by the skipped prompt


def test_subagent_prompts_are_silent(mc_hook, files):
    files("### Task 1")
    assert mc_hook({"session_id": SID, "prompt": "work", "agent_id": "a1"}).silent()


def test_list_form_prompt_is_counted(prompt, files):
    files("### Task 1")
    assert '["1"]' in prompt([{"type": "text", "text": "go on"}])


def test_no_divergence_no_output(prompt, files):
    files("### Task 2", "### Task 9")  # 2 is done, 9 does not exist
    assert prompt() == ""


def test_missing_or_undecodable_files_are_silent(prompt, files, mc_task_dir):
    files("### Task 1")
    (mc_task_dir / "demo-task-tasks.md").write_bytes(b"- [ ] 1. \xff\n")
    assert prompt() == ""
    (mc_task_dir / "demo-task-tasks.md").unlink()
    assert prompt() == ""
    files("### Task 1", tasks_text=TASKS)
    (mc_task_dir / "demo-task-context.md").unlink()
    assert prompt() == ""


def test_no_task_no_output(prompt, files, tmp_path):
    files("### Task 1")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert prompt(cwd=elsewhere) == ""


def test_no_database_is_silent_and_creates_none(mc_hook, mc_env):
    assert mc_hook({"session_id": SID, "prompt": "work"}).silent()
    assert not (mc_env.data_root / "tasks.db").exists()


def test_corrupt_database_is_silent(mc_hook, files, mc_env):
    files("### Task 1")
    for extra in ("-wal", "-shm"):
        (mc_env.data_root / f"tasks.db{extra}").unlink(missing_ok=True)
    (mc_env.data_root / "tasks.db").write_bytes(b"garbage" * 500)
    assert mc_hook({"session_id": SID, "prompt": "work"}).silent()


@pytest.mark.parametrize("raw", BAD_INPUTS)
def test_bad_stdin_is_silent(mc_hook, files, raw):
    files("### Task 1")
    assert mc_hook(raw).silent()


@pytest.mark.parametrize("fields", MISTYPED)
def test_mistyped_fields_are_silent(mc_hook, files, fields):
    files("### Task 1")
    assert mc_hook({"session_id": SID, "prompt": "work", **fields}).silent()


def test_new_items_at_the_bottom_of_a_tasks_file_over_1_mib_are_seen(prompt, files):
    """Items are appended at the bottom; only the first 1 MiB used to be read, so on a
    large file a new item with findings never got its reminder."""
    done = "".join(
        f"- [x] {n}. finished long ago, with a long description\n" for n in range(5, 40_000)
    )
    big = TASKS + done + "```\n- [ ] 90001. a fenced example, not an item\n" + "x\n" * 10
    big += "```\n- [ ] 90002. new at the bottom\n"
    assert len(big.encode()) > 2 * (1 << 20)
    files("### Task 1", "### Task 90001", "### Task 90002", tasks_text=big)
    assert ": 1, 90002." in prompt()


def test_a_fence_open_at_the_head_cut_does_not_hide_the_tail(prompt, files):
    """The fence open where the head is cut closes in the unread middle: the tail is
    parsed on its own, so it is not taken for fenced text."""
    fenced = "```\n" + "example line inside a fence\n" * 50_000 + "```\n"  # past 1 MiB
    tail = "filler\n" * 200_000 + "- [ ] 777. appended later\n"
    files("### Task 777", tasks_text=TASKS + fenced + tail)
    assert ": 777." in prompt()


def test_a_flood_of_divergent_tasks_names_the_first_50_and_counts_the_rest(prompt, files):
    """Thousands of unchecked items with findings must not flood Claude's context (or pass
    Claude Code's 10,000-character hook-output limit): 50 named, the rest counted."""
    numbers = [str(n) for n in range(100, 1100)]
    items = "".join(f"- [ ] {n}. item\n" for n in numbers)
    files(*(f"### Task {n}" for n in numbers), tasks_text="# Tasks\n\n" + items)
    out = prompt()
    assert f": {', '.join(numbers[:50])} and 950 more." in out
    assert f"completed_tasks={json.dumps(numbers[:50])})" in out
    assert len(out) < 10_000


def test_a_stopped_pm_server_is_told_once_to_the_human_with_the_fallback_for_claude(
    prompt, files, mc_env
):
    """Issue 26 item 1: the server's record (missioncache_state.pm_health) says it was
    killed; the next prompt tells the human what to do, and Claude how to save."""
    import os
    import subprocess
    import sys
    import time

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    claude = os.getpid()  # plays the Claude Code process the hook belongs to
    record = mc_env.claude_dir / "hooks" / "state" / "pm-server" / f"{claude}.json"
    record.parent.mkdir(parents=True)
    now = time.time()
    record.write_text(
        json.dumps(
            {
                "state": "ready",
                "launcher_pid": gone.pid,
                "server_pid": gone.pid,
                "started": now - 60,
                "beat": now,
            }
        )
    )
    env = {"MISSIONCACHE_PM_CLAUDE_PID": str(claude)}
    files()
    told = json.loads(prompt(env=env))
    assert told["systemMessage"].startswith("MissionCache: its `pm` tool server stopped")
    assert "/mcp, pick plugin:missioncache:pm, choose Reconnect" in told["systemMessage"]
    # why (only in Claude Code's MCP log otherwise), and what works with no network
    assert "`Failed to fetch ... /simple/mcp/`" in told["systemMessage"]
    assert "Offline, /missioncache:save still saves" in told["systemMessage"]
    assert 'missioncache-pm" missioncache-pm --check`' in told["systemMessage"]
    context = told["hookSpecificOutput"]["additionalContext"]
    assert "FALLBACK:" in context and 'slash.py" apply`' in context
    assert prompt(env=env) == ""  # once per session and outage
    assert "systemMessage" in prompt(env=env, sid="sess-other")
