"""End-to-end scenarios: the BUILT plugin through the simulator (`Session`), as a user lives them.

Each test plays a short session against the plugin built by scripts/build_plugin.py, in an isolated
HOME with a real task tied to a project directory, and checks what reached Claude, what the human
saw, and what was written (heartbeats, the context file, processed time). Hooks run as processes,
exactly as Claude Code runs them; nothing of the product is imported.

The last tests check the harness's own commands (`demo`, `fire SessionStart`) on the same plugin.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from missioncache_harness.polling import poll_until
from missioncache_harness.session import Session
from missioncache_harness.tools import Text, Tool, Write
from missioncache_harness.workspace import McEnv, McTask

BANNER = "SessionStart hook additional context: ## MissionCache: Active Task Detected"
STOP_LINE = (
    "⎿  Stop says: MissionCache: Claude changed 1 file in this turn (greet.py) while working"
    " on demo-task. Run /missioncache:save to save context before you leave."
)
TRACKER = "UserPromptSubmit hook success: MissionCache task tracker (demo-task)"


# ------------------------------------------------------------------ helpers


def mc_task_dir(mc_env: McEnv) -> Path:
    return mc_env.data_root / "active" / "demo-task"


def context_file(mc_env: McEnv) -> Path:
    return mc_task_dir(mc_env) / "demo-task-context.md"


def tasks_file(mc_env: McEnv) -> Path:
    return mc_task_dir(mc_env) / "demo-task-tasks.md"


def rows(mc_env: McEnv, sql: str) -> list[tuple]:
    conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def wait_for_heartbeats(mc_env: McEnv, count: int) -> None:
    """The heartbeat is written by a detached child: poll (bounded) for it."""
    recorded = poll_until(lambda: rows(mc_env, "SELECT COUNT(*) FROM heartbeats")[0][0] >= count)
    assert recorded, f"fewer than {count} heartbeats recorded"


def bundled(mc_env: McEnv, plugin: Path, *args: str) -> str:
    """Run the plugin's bundled ``missioncache_cli`` command; its stdout."""
    done = mc_env.bundled(plugin, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def session(plugin: Path, mc_env: McEnv, repo: Path) -> Session:
    return Session(plugin, repo, env=mc_env.env)


def hook_texts(texts: list[str]) -> list[str]:
    return [t for t in texts if "MissionCache" in t]


# ------------------------------------------------------------------ first session


def test_first_session_in_a_tracked_repository(
    mc_plugin: Path, mc_env: McEnv, mc_task: McTask, mc_repo: Path
) -> None:
    s = session(mc_plugin, mc_env, mc_repo)
    start = s.start()
    assert [t.split("\n")[0] for t in start.routed.model_texts] == [BANNER]
    banner = start.routed.model_texts[0]
    assert f"**Task:** demo-task (id {mc_task.id})" in banner
    assert f"**Session:** {s.session_id} (startup)" in banner
    assert str(context_file(mc_env)) in banner and str(tasks_file(mc_env)) in banner
    assert "mcp__plugin_missioncache_pm__update_tasks_file" in banner
    assert start.routed.human_texts == [
        "⎿  SessionStart:startup says: MissionCache: tracking demo-task"
        " (0s invested: Claude 0s, you 0s)"
    ]
    turn = s.prompt("how is the parser structured?", reply=[Text("It has three stages.")])
    assert turn.model_texts[0] == banner  # the banner rides on the first request
    assert not any("MissionCache: tracking" in t for t in s.model_log)  # the human's line only
    assert not turn.blocked and turn.result == "It has three stages."
    wait_for_heartbeats(mc_env, 1)
    assert rows(mc_env, "SELECT session_id, task_id FROM heartbeats") == [
        (s.session_id, mc_task.id)
    ]
    binding_file = mc_env.claude_dir / "hooks" / "state" / "projects" / f"{s.session_id}.json"
    binding = json.loads(binding_file.read_text())
    assert (binding["taskId"], binding["projectName"]) == (mc_task.id, "demo-task")
    # The prompt's turn ended at its Stop (recorded in the spool, joined by prompt id): the
    # quick exchange is worth its own few seconds, all Claude's, not the 2-minute tail the
    # heartbeat alone would have been credited (docs/time.md).
    shown = bundled(mc_env, mc_plugin, "time", "demo-task")
    # ...and its tokens: one reply of 10 input and 5 output tokens (docs/cost.md).
    pattern = r"demo-task: (\d)s \(Claude (\d)s, you 0s\), <\$0\.01, 15 tokens, all time"
    seconds = re.fullmatch(pattern, shown)
    assert seconds and seconds[1] == seconds[2], shown
    assert rows(mc_env, "SELECT COUNT(*) FROM heartbeats WHERE processed = 0") == [(0,)]
    assert rows(mc_env, "SELECT prompt_id FROM turn_ends") == [(turn.prompt_id,)]
    later = session(mc_plugin, mc_env, mc_repo).start()
    assert f"({seconds[1]}s invested: Claude {seconds[1]}s, you 0s)" in later.routed.human_texts[0]


def test_no_task_means_no_output(mc_plugin: Path, mc_env: McEnv, tmp_path: Path) -> None:
    elsewhere = tmp_path / "untracked"
    elsewhere.mkdir()
    s = session(mc_plugin, mc_env, elsewhere)
    start = s.start()
    turn = s.prompt("hello", reply=[Write("a.txt", "x\n")])
    assert start.routed.model_texts == start.routed.human_texts == []
    assert turn.model_texts == turn.human_texts == []


# ------------------------------------------------------------------ divergence reminder


def test_divergence_reminder_reaches_the_model_once_per_set(
    mc_plugin: Path, mc_env: McEnv, mc_task: McTask, mc_repo: Path
) -> None:
    context, tasks = context_file(mc_env), tasks_file(mc_env)
    context.write_text(context.read_text() + "\n### Task 2\nFound the cause.\n")
    tasks.write_text(tasks.read_text() + "- [x] 1. Reproduce\n- [ ] 2. Fix\n- [ ] 3. Test\n")
    s = session(mc_plugin, mc_env, mc_repo)
    s.start()
    first = s.prompt("continue")
    (reminder,) = [t for t in first.model_texts if t.startswith(TRACKER)]
    assert "unchecked in the tasks file: 2." in reminder
    assert f"Tasks file: {tasks}" in reminder
    call = (
        "mcp__plugin_missioncache_pm__update_tasks_file("
        f'tasks_file="{tasks}", completed_tasks=["2"])'
    )
    assert call in reminder
    assert "TaskCreate" in reminder
    assert not any("task tracker" in t for t in first.human_texts)

    again = s.prompt("and now?")
    assert not any(t.startswith(TRACKER) for t in again.model_texts)

    context.write_text(context.read_text() + "\n### Task 3\nTests written.\n")
    changed = s.prompt("next")
    (reminder,) = [t for t in changed.model_texts if t.startswith(TRACKER)]
    assert 'completed_tasks=["2", "3"]' in reminder

    tasks.write_text(
        tasks.read_text().replace("- [ ] 2.", "- [x] 2.").replace("- [ ] 3.", "- [x] 3.")
    )
    assert not any(t.startswith(TRACKER) for t in s.prompt("done?").model_texts)
    tasks.write_text(tasks.read_text().replace("- [x] 3.", "- [ ] 3."))
    back = s.prompt("oops")
    assert [t for t in back.model_texts if t.startswith(TRACKER)], "a reappearing set fires again"


# ------------------------------------------------------------------ Stop reminder


def test_edit_then_stop_reminds_the_human_not_the_model(
    mc_plugin: Path, mc_env: McEnv, mc_task: McTask, mc_repo: Path
) -> None:
    s = session(mc_plugin, mc_env, mc_repo)
    s.start()
    edit = s.prompt("add greet.py", reply=[Text("Adding."), Write("greet.py", "print('hi')\n")])
    assert (mc_repo / "greet.py").read_text() == "print('hi')\n"
    assert edit.human_texts == [STOP_LINE]
    # The reminder's words never reach Claude (the SessionStart instructions Claude gets
    # for a session with a task do mention /missioncache:save, by design: issue 12 item 8).
    assert not any("to save context before you leave" in t for t in edit.model_texts)
    assert [e.event for e in edit.events] == ["UserPromptSubmit", "Stop"]
    stop = edit.events[-1]
    assert not edit.blocked and not stop.routed.blocked  # the reminder does not continue
    assert stop.routed.model_texts == []  # nothing of Stop's goes to the model

    read = s.prompt(
        "what does greet.py print?",
        reply=[
            Tool("Read", {"file_path": str(mc_repo / "greet.py")}, "print('hi')"),
            Text("It prints hi; I could Write or Edit it if you want."),
        ],
    )
    assert read.human_texts == []
    assert [e.event for e in read.events] == ["UserPromptSubmit", "Stop"] and not read.blocked


# ------------------------------------------------------------------ compaction


@pytest.mark.parametrize("trigger", ["manual", "auto"])
def test_compaction_saves_a_snapshot_and_the_digest_comes_back(
    mc_plugin: Path, mc_env: McEnv, mc_task: McTask, mc_repo: Path, trigger: str
) -> None:
    s = session(mc_plugin, mc_env, mc_repo)
    s.start()
    s.prompt("add a greeting module", reply=[Text("Adding."), Write("g.py", "x = 1\n")])
    s.prompt("now rename\nit to hello", reply=[Text("Renamed it.")])
    wait_for_heartbeats(mc_env, 2)
    before = context_file(mc_env).read_text()

    comp = s.compact(trigger)

    assert not comp.blocked
    after = context_file(mc_env).read_text()
    assert after != before and after.startswith("# ")
    assert after.count("**Last Updated:** ") == 1
    assert f", {trigger})\n" in after and "- Auto-saved before compaction (" in after
    assert "  - User: add a greeting module\n" in after
    assert "  - User: now rename it to hello\n" in after  # one line: no markdown structure
    assert "  - Claude: Renamed it.\n" in after
    assert rows(mc_env, "SELECT COUNT(*) FROM heartbeats WHERE processed = 0") == [(0,)]
    assert rows(mc_env, "SELECT SUM(heartbeat_count) FROM sessions") == [(2,)]
    expected = 'Keep the MissionCache task name "demo-task" and its Next Steps in the summary.'
    assert comp.instructions == expected
    command = '"${CLAUDE_PLUGIN_ROOT}/hooks/run" pre_compact'
    shown = [f"PreCompact [{command}] completed successfully: {expected}"]
    precompact = [t for t in comp.human_texts if t.startswith("PreCompact")]
    assert precompact == (shown if trigger == "manual" else [])

    nxt = s.prompt("where were we?")
    (digest,) = [t for t in nxt.model_texts if t.startswith("SessionStart hook additional")]
    assert f"**Session:** {s.session_id} (compact)" in digest
    assert "Where the work stands" in digest
    assert "- Auto-saved before compaction (" in digest and "User: add a greeting module" in digest
    compact_output = [t for t in nxt.model_texts if t.startswith("<local-command-stdout>")]
    assert len(compact_output) == (1 if trigger == "manual" else 0)


# ------------------------------------------------------------------ broken hooks

CRASH = "import sys\nprint('partial', file=sys.stderr)\nraise RuntimeError('boom')\n"
HANG = "import time\ntime.sleep(60)\n"
EXIT2 = "import sys\nprint('no!', file=sys.stderr)\nsys.exit(2)\n"
SCRIPTS = ["session_start", "activity_tracker", "task_tracker", "pre_compact", "stop"]


def broken_copy(plugin: Path, dest: Path, mode: str, scripts: list[str]) -> Path:
    """A copy of the built plugin whose ``scripts`` crash, hang (timeouts cut to 1 s), exit 2
    or are missing; everything else, hooks.json's ``|| true`` included, is the product's."""
    shutil.copytree(plugin, dest)
    for name in scripts:
        script = dest / "hooks" / f"{name}.py"
        if mode == "missing":
            script.unlink()
        else:
            script.write_text({"crash": CRASH, "hang": HANG, "exit2": EXIT2}[mode])
    if mode == "hang":
        config = dest / "hooks" / "hooks.json"
        data = json.loads(config.read_text())
        for groups in data["hooks"].values():
            for group in groups:
                for entry in group["hooks"]:
                    entry["timeout"] = 1
        config.write_text(json.dumps(data))
    return dest


@pytest.mark.parametrize("mode", ["crash", "hang", "exit2", "missing"])
def test_broken_hooks_never_harm_the_session(
    mc_plugin: Path,
    mc_env: McEnv,
    mc_task: McTask,
    mc_repo: Path,
    tmp_path: Path,
    mode: str,
) -> None:
    plugin = broken_copy(mc_plugin, tmp_path / "broken", mode, SCRIPTS)
    s = session(plugin, mc_env, mc_repo)
    start = s.start()
    assert not start.routed.blocked and start.routed.model_texts == []
    turn = s.prompt("add a file", reply=[Text("Adding."), Write("f.txt", "x\n"), Text("Added.")])
    assert not turn.blocked and turn.result == "Added."
    assert (mc_repo / "f.txt").exists()
    assert [e.event for e in turn.events].count("Stop") == 1  # no block, no continuation
    assert turn.model_texts == []
    for trigger in ("manual", "auto"):
        comp = s.compact(trigger)
        assert not comp.blocked and comp.instructions is None
    assert not s.prompt("still there?").blocked
    if mode == "hang":
        assert any(run.timed_out for event in s.events for run in event.hooks)


def test_one_crashing_hook_leaves_the_others_working(
    mc_plugin: Path, mc_env: McEnv, mc_task: McTask, mc_repo: Path, tmp_path: Path
) -> None:
    plugin = broken_copy(mc_plugin, tmp_path / "broken", "crash", ["task_tracker"])
    s = session(plugin, mc_env, mc_repo)
    assert s.start().routed.model_texts[0].startswith(BANNER)
    turn = s.prompt("edit", reply=[Write("greet.py", "x\n")])
    assert turn.human_texts == [STOP_LINE]
    wait_for_heartbeats(mc_env, 1)


# ------------------------------------------------------------------ the harness's commands


def test_demo_command_tells_the_story(mc_plugin: Path, tmp_path: Path) -> None:
    """Issue 26 item 6: in the order the real screen shows it, in a person's words, with
    the status line, the next session carrying the summary, and a report."""
    command = [
        sys.executable,
        "-m",
        "missioncache_harness.cli",
        "demo",
        "--plugin",
        str(mc_plugin),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    lines = out.splitlines()
    steps = [line for line in lines if line.startswith("== ")]
    assert steps == [
        "== Claude Code starts in the project",
        '== You: "Add a greeting module"',
        "== You read Claude's answer for 3 s",
        '== You: "Make it say hello world"',
        "== You type /compact",
        "== You quit",
        "== The next day: a new session in the same project",
        "== Time recorded",
    ]
    assert f"plugin:  {mc_plugin}" in out
    assert "Claude is told: ## MissionCache: Active Task Detected" in out
    assert "You see: SessionStart:startup says: MissionCache: tracking demo-task" in out

    def index(text: str, after: int = 0) -> int:
        return next(i for i, line in enumerate(lines) if i >= after and text in line)

    first = index('== You: "Add a greeting module"')
    noted, replied = index("notes the prompt", first), index("Claude replies:", first)
    stop = index("You see: Stop says: MissionCache: Claude changed 1 file in this turn", first)
    assert first < noted < replied < stop  # the prompt's hooks before Claude's reply
    assert "Status line: ◆ demo-task" in lines[stop + 1] and "1 edit" in lines[stop + 1]
    compact = index("== You type /compact")
    post, start = (
        index('You see: PostCompact ["${CLAUDE_PLUGIN_ROOT}/hooks/run" post_compact]', compact),
        index("SessionStart:compact", compact),
    )
    pre = index(
        'You see: PreCompact ["${CLAUDE_PLUGIN_ROOT}/hooks/run" pre_compact] completed'
        ' successfully: Keep the MissionCache task name "demo-task" and its Next Steps in the'
        " summary.",
        compact,
    )
    assert pre < post < start  # as on screen, the command as written
    assert "compacted since" in lines[index("Status line:", start)]
    nxt = index("== The next day")
    seen = index("You see:", nxt)
    assert "Claude was given the last compaction's summary." in "\n".join(lines[seen : seen + 3])
    assert "Claude also gets the summary: ### Last compaction summary" in out
    assert "/missioncache:report: MissionCache time report (week, the last 7 days: " in out
    assert re.search(r"missioncache time: demo-task: \S+ \(Claude \S+, you \S+\)", out), out
    for jargon in ("routing:", "hook_success", "hook(s)", "transcript:", "MISSIONCACHE_HOOK", "||"):
        assert jargon not in out, jargon
    assert "Traceback" not in out + done.stderr


def test_fire_session_start_prints_the_routed_result(
    mc_plugin: Path, mc_env: McEnv, mc_task: McTask, mc_repo: Path
) -> None:
    command = [sys.executable, "-m", "missioncache_harness.cli", "fire", "SessionStart"]
    args = ["--plugin", str(mc_plugin), "--cwd", str(mc_repo), "--home", str(mc_env.home)]
    done = subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=60, check=False, env=mc_env.env
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "SessionStart: 1 hook(s)"
    assert lines[1] == '[1] "${CLAUDE_PLUGIN_ROOT}/hooks/run" session_start'
    assert lines[2].strip().startswith("exit 0 in ")
    assert "  model sees: " + BANNER in lines
    assert (
        "  human sees: ⎿  SessionStart:startup says: MissionCache: tracking demo-task"
        " (0s invested: Claude 0s, you 0s)" in lines
    )
    assert lines[-1] == ("  transcript: hook_success, hook_system_message, hook_additional_context")


# ------------------------------------------------------------------ turns and time


def test_turn_endings_reach_the_time_model(
    mc_plugin: Path, mc_env: McEnv, mc_task: McTask, mc_repo: Path
) -> None:
    """Stop with a subagent running, its <task-notification> report, an API error
    (StopFailure) and an Esc (no hook): each turn is joined by its prompt id, the
    notification is recorded as a synthetic prompt, the interrupted turn has no end."""
    s = session(mc_plugin, mc_env, mc_repo)
    s.start()
    running = [{"id": "a1", "type": "subagent", "status": "running", "description": "d"}]
    first = s.prompt("research this in the background", background_tasks=running)
    report = s.prompt("<task-notification>\n<task-id>a1</task-id>\n</task-notification>")
    failed = s.prompt("and now this", ending="failure")
    interrupted = s.prompt("a long one", ending="interrupt")
    assert [e.event for e in failed.events][-1] == "StopFailure"
    assert "Stop" not in [e.event for e in interrupted.events]
    s.end()
    wait_for_heartbeats(mc_env, 4)
    shown = bundled(mc_env, mc_plugin, "time", "demo-task")  # ingests the spool
    assert shown.startswith("demo-task: ") and "(Claude " in shown
    ends = dict(rows(mc_env, "SELECT prompt_id, outcome || ':' || background FROM turn_ends"))
    assert ends == {
        first.prompt_id: "stop:1",
        report.prompt_id: "stop:0",
        failed.prompt_id: "failure:0",
    }
    kinds = dict(rows(mc_env, "SELECT prompt_id, kind FROM heartbeats"))
    assert kinds == {
        first.prompt_id: None,
        report.prompt_id: "synthetic",
        failed.prompt_id: None,
        interrupted.prompt_id: None,
    }
