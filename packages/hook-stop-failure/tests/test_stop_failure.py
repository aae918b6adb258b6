"""stop_failure.py as a real process of the built plugin: a failed turn's end is recorded."""

from __future__ import annotations

import re
import time

import pytest

from missioncache_harness.bad_input import BAD_STDIN
from missioncache_harness.fixtures import spooled

SID = "sess-f"


def failure(prompt_id="p-9", **extra):
    """The stdin measured on 2.1.328 (contract 11.3): no permission_mode, an ``error``."""
    return {
        "session_id": SID,
        "transcript_path": "/nonexistent/t.jsonl",
        "cwd": "/tmp",
        "prompt_id": prompt_id,
        "effort": {"level": "medium"},
        "hook_event_name": "StopFailure",
        "error": "server_error",
        "last_assistant_message": "API Error: 500 fake api_error 500.",
        **extra,
    }


def test_a_failed_turn_spools_its_end(mc_hook, mc_env, mc_task):
    done = mc_hook(failure())
    assert done.silent() and done.stderr == ""
    (record,) = spooled(mc_env)
    assert (record["type"], record["session_id"], record["prompt_id"]) == ("turn_end", SID, "p-9")
    assert record["outcome"] == "failure"


def test_the_failed_turn_counts_as_claude_time(
    mc_hook, mc_env, mc_task, mc_query, mc_execute, mc_cli
):
    """Joined to its prompt's heartbeat: the turn runs from the prompt to the failure."""
    epoch = time.time() - 30
    mc_execute(
        "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, prompt_id, processed)"
        " VALUES ('ab12', ?, '2020-01-01 00:00:00', ?, ?, 'p-9', 0)",
        (mc_task.id, epoch, SID),
    )
    mc_hook(failure())
    shown = mc_cli("time", "demo-task").strip()
    found = re.fullmatch(r"demo-task: (\d+)s \(Claude (\d+)s, you 0s\), all time", shown)
    assert found and found[1] == found[2] and 30 <= int(found[1]) <= 40, shown
    assert mc_query("SELECT outcome FROM turn_ends") == [("failure",)]


@pytest.mark.parametrize("stdin", BAD_STDIN)
def test_bad_input_is_silent_and_writes_nothing(mc_hook, mc_env, mc_task, stdin):
    done = mc_hook(stdin)
    assert done.silent() and done.rc == 0
    assert spooled(mc_env) == []


@pytest.mark.parametrize("prompt_id", [None, "../x", "p" * 300, ["p"]])
def test_no_valid_prompt_id_writes_nothing(mc_hook, mc_env, mc_task, prompt_id):
    assert mc_hook(failure(prompt_id)).silent()
    assert spooled(mc_env) == []


def test_not_set_up_writes_nothing(mc_hook, mc_env):
    assert mc_hook(failure()).silent()
    assert not (mc_env.data_root / "tasks.db").exists()
    assert not (mc_env.data_root / "spool").exists()
