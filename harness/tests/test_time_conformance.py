"""Honest time through the real CLI and through the simulator (issue 11's judged scenario).

Idle timeout 5 s. One prompt starts a turn in which Claude runs a 12-second Bash command,
then answers; 15 s of idle; then a quick prompt. Claude's 12-second turn is time invested
(it used to be credited 0 s, or the 2-minute assumed-work tail once the session went idle);
the 15 s gap is longer than the idle timeout, so nobody's. Expected: 12 s to 22 s.

The real CLI runs each prompt as one ``claude -p`` process against the fake API (offline), with
the BUILT plugin; the simulator plays the same session. Both read the result the way a user
does, with ``missioncache time``.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import uuid
from pathlib import Path

import pytest

from missioncache_harness.claude_cli import requires_claude, run_turn
from missioncache_harness.fake_api import FakeAnthropicAPI, Reply, ToolUse
from missioncache_harness.fake_api import Text as ApiText
from missioncache_harness.polling import poll_until
from missioncache_harness.session import Session
from missioncache_harness.tools import Text, Tool
from missioncache_harness.workspace import McEnv, create_task, make_env

TASK = "timed-task"
IDLE_TIMEOUT = 5
COMMAND_SECONDS = 12
IDLE_GAP = 15
LOW, HIGH = 12, 22
_SHOWN = re.compile(
    rf"{TASK}: (?P<total>.+) \(Claude (?P<claude>.+), you (?P<you>.+)\)"
    r"(?:, (?P<cost>[^,]+), (?P<tokens>[\d.]+[kM]? tokens))?, all time"
)


def seconds(text: str) -> int:
    """``1m 5s``-style durations back to seconds (only what format_duration prints)."""
    total = 0
    for number, unit in re.findall(r"(\d+)([hms])", text):
        total += int(number) * {"h": 3600, "m": 60, "s": 1}[unit]
    return total


def tracked(base: Path, plugin: Path) -> tuple[McEnv, Path]:
    """A HOME with a task on a project, its idle timeout set to 5 s."""
    env = make_env(base)
    cwd = (base / "work" / "project").resolve()
    cwd.mkdir(parents=True)
    create_task(plugin, env, TASK, cwd)
    conn = sqlite3.connect(str(env.data_root / "tasks.db"))
    with conn:
        conn.execute(
            "UPDATE config SET value = ? WHERE key = 'idle_timeout_seconds'", (str(IDLE_TIMEOUT),)
        )
    conn.close()
    return env, cwd


def time_invested(env: McEnv, plugin: Path) -> tuple[int, int, int]:
    """(total, Claude, you) in seconds, as ``missioncache time`` shows them, once both
    heartbeats (written by detached children) have landed."""

    def count() -> int:
        conn = sqlite3.connect(str(env.data_root / "tasks.db"))
        try:
            return conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0]
        finally:
            conn.close()

    assert poll_until(lambda: count() >= 2), "the two heartbeats never landed"
    done = env.bundled(plugin, "time", TASK)
    assert done.returncode == 0, done.stderr
    shown = _SHOWN.fullmatch(done.stdout.strip())
    assert shown, done.stdout
    return seconds(shown["total"]), seconds(shown["claude"]), seconds(shown["you"])


def assert_honest(total: int, claude: int, you: int) -> None:
    assert LOW <= total <= HIGH, (total, claude, you)
    assert claude >= COMMAND_SECONDS and you == 0 and total == claude + you


@pytest.mark.conformance
@requires_claude
def test_a_12_second_turn_counts_through_the_real_cli(mc_plugin: Path, tmp_path: Path) -> None:
    env, cwd = tracked(tmp_path, mc_plugin)
    sid = str(uuid.uuid4())
    bash = ToolUse("Bash", {"command": f"sleep {COMMAND_SECONDS}", "description": "Wait"})
    common = dict(
        home=env.home,
        cwd=cwd,
        plugin_dirs=[mc_plugin],
        env_extra={"MISSIONCACHE_ROOT": str(env.data_root)},
        extra_args=["--allowedTools", "Bash"],
    )
    with FakeAnthropicAPI([[ApiText("Running it."), bash], "It finished."]) as api:
        started = time.monotonic()
        first = run_turn("run the slow command", fake_api=api, session_id=sid, **common).check()
        assert time.monotonic() - started >= COMMAND_SECONDS  # the command really ran
        assert first.result_text == "It finished."
        time.sleep(IDLE_GAP)
        api.enqueue("Quick answer.")
        second = run_turn("quick question", fake_api=api, resume=sid, **common).check()
        assert second.result_text == "Quick answer."
    assert_honest(*time_invested(env, mc_plugin))
    # The fact the model rests on, pinned on 2.1.328: each Stop carries the prompt_id of the
    # UserPromptSubmit that started its turn, so every turn end joins its heartbeat.
    conn = sqlite3.connect(str(env.data_root / "tasks.db"))
    try:
        starts = {r[0] for r in conn.execute("SELECT prompt_id FROM heartbeats")}
        ends = {r[0] for r in conn.execute("SELECT prompt_id FROM turn_ends")}
    finally:
        conn.close()
    assert len(starts) == 2 and ends == starts


@pytest.mark.conformance
def test_a_12_second_turn_counts_through_the_simulator(mc_plugin: Path, tmp_path: Path) -> None:
    env, cwd = tracked(tmp_path, mc_plugin)
    session = Session(mc_plugin, cwd, env=env.env)
    session.start()
    bash = Tool("Bash", {"command": f"sleep {COMMAND_SECONDS}"}, seconds=COMMAND_SECONDS)
    session.prompt("run the slow command", reply=[Text("Running it."), bash, Text("Done.")])
    time.sleep(IDLE_GAP)
    session.prompt("quick question", reply=[Text("Quick answer.")])
    session.end()
    assert_honest(*time_invested(env, mc_plugin))


CAPTURE_HOOKS = {
    event: [{"hooks": [{"type": "command", "timeout": 5,
                        "command": f'cat > "$MC_CAPTURE/{event}-$$.json"'}]}]
    for event in ("UserPromptSubmit", "Stop", "StopFailure")
}  # fmt: skip


@pytest.mark.conformance
@requires_claude
def test_an_api_error_fires_stop_failure_with_the_turns_prompt_id(tmp_path: Path) -> None:
    """The fact stop_failure.py rests on, on 2.1.328 in ``-p`` mode: a turn that ends on an
    API error fires no Stop; StopFailure starts (and is cut off about 20 ms later, so only
    a shell ``cat`` reliably gets its stdin down) with the prompt_id of the turn's prompt."""
    plugin, capture, work = tmp_path / "plug", tmp_path / "capture", tmp_path / "work"
    (plugin / "hooks").mkdir(parents=True)
    capture.mkdir()
    work.mkdir()
    (plugin / "hooks" / "hooks.json").write_text(json.dumps({"hooks": CAPTURE_HOOKS}))
    errors = [Reply((), error_status=500)] * 3
    with FakeAnthropicAPI(errors) as api:
        run = run_turn(
            "this will fail",
            home=tmp_path / "home",
            cwd=work,
            fake_api=api,
            plugin_dirs=[plugin],
            env_extra={"MC_CAPTURE": str(capture), "CLAUDE_CODE_MAX_RETRIES": "2"},
        )
    assert run.result and run.result.get("is_error"), run.stdout
    captured = {p.name.split("-")[0]: _json_or_empty(p) for p in capture.iterdir()}
    assert "Stop" not in captured
    prompt_id = captured["UserPromptSubmit"]["prompt_id"]
    failure = captured.get("StopFailure")
    if failure:  # best effort in -p mode: SIGTERM may beat even cat
        assert failure["prompt_id"] == prompt_id and failure["error"] == "server_error"


def _json_or_empty(path: Path) -> dict:
    """A captured stdin; {} when SIGTERM cut the copy short."""
    try:
        return json.loads(path.read_text())
    except ValueError:
        return {}
