"""activity_tracker.py as a real process of the built plugin.

The heartbeat is written by a detached child the hook does not wait for, so tests poll
(bounded) for its row. Absence is shown by firing a counted prompt AFTER the skipped one
and waiting for that row: by then a wrongly started child would long have written too.
"""

from __future__ import annotations

import sqlite3
import time

import pytest

from missioncache_harness.bad_input import BAD_STDIN, HOSTILE_SESSION_IDS, mistyped
from missioncache_harness.children import wait_heartbeat_children
from missioncache_harness.polling import poll_until

SID = "sess-a"
BAD_INPUTS = BAD_STDIN
MISTYPED = mistyped({"prompt": 12}, {"agent_id": 9})
HOSTILE_IDS = HOSTILE_SESSION_IDS


def wait_for(check, timeout=20.0):
    value = poll_until(check, timeout)
    assert value, "timed out waiting for the heartbeat child"
    return value


@pytest.fixture
def heartbeats(mc_query):
    return lambda: mc_query("SELECT session_id, context FROM heartbeats ORDER BY id")


@pytest.fixture
def prompt(mc_hook):
    def run(text, sid=SID, **options):
        done = mc_hook({"session_id": sid, "hook_event_name": "UserPromptSubmit", "prompt": text},
                    **options)  # fmt: skip
        assert done.stdout == ""  # nothing ever for Claude
        return done

    return run


def marker(prompt, heartbeats, count):
    """Fire a counted prompt under a marker session and wait until ``count`` rows exist."""
    prompt("marker prompt", sid="marker")
    return wait_for(lambda: len(heartbeats()) >= count and heartbeats())


def test_counted_prompt_records_one_heartbeat(prompt, heartbeats, mc_task, mc_repo):
    done = prompt("please refactor the parser")
    assert done.silent()
    rows = wait_for(heartbeats)
    assert rows == [(SID, f'{{"cwd": "{mc_repo}"}}')]


@pytest.mark.parametrize(
    "text", ["/help", "/missioncache:save", "!ls", "yes", "N", "exit", "  ", ""]
)
def test_skipped_prompts_record_nothing(prompt, heartbeats, mc_task, text):
    prompt(text)
    rows = marker(prompt, heartbeats, 1)
    assert rows == [("marker", rows[0][1])]


def test_subagent_prompt_records_nothing(mc_hook, prompt, heartbeats, mc_task):
    mc_hook({"session_id": SID, "prompt": "work inside an agent", "agent_id": "a123"})
    assert [sid for sid, _ in marker(prompt, heartbeats, 1)] == ["marker"]


def test_list_form_prompt_is_flattened(prompt, heartbeats, mc_task):
    prompt([{"type": "image", "source": {}}, {"type": "text", "text": "describe this"}])
    prompt([{"type": "image", "source": {}}], sid="image-only")  # no text: skipped
    rows = marker(prompt, heartbeats, 2)
    assert sorted(sid for sid, _ in rows) == ["marker", SID]


def test_hostile_or_inherited_session_ids_are_not_used(prompt, heartbeats, mc_task):
    for sid in HOSTILE_IDS:
        prompt("real work here", sid=sid, env={"CLAUDE_SESSION_ID": "inherited-1"})
    rows = wait_for(lambda: len(heartbeats()) >= len(HOSTILE_IDS) and heartbeats())
    assert {sid for sid, _ in rows} == {None}


def test_existing_pythonpath_is_kept_behind_the_bundle(prompt, heartbeats, mc_task, tmp_path):
    shadow = tmp_path / "shadow" / "missioncache_db"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise SystemExit('shadowed')\n")
    prompt("work with a PYTHONPATH set", env={"PYTHONPATH": str(shadow.parent)})
    assert [sid for sid, _ in wait_for(heartbeats)] == [SID]


def test_no_task_records_nothing(prompt, heartbeats, mc_task, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    prompt("work outside any task", cwd=elsewhere)
    assert [sid for sid, _ in marker(prompt, heartbeats, 1)] == ["marker"]


def test_locked_database_spools_the_heartbeat_instead_of_dropping_it(
    prompt, heartbeats, mc_env, mc_task, mc_cli
):
    conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"), isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        prompt("work while another writer holds the lock")
        spooled = wait_for(lambda: list((mc_env.data_root / "spool").glob("*.jsonl")))
        assert SID in spooled[0].read_text()
    finally:
        conn.execute("ROLLBACK")
        conn.close()
    assert "processed 1 heartbeats" in mc_cli("process-heartbeats")
    assert [sid for sid, _ in heartbeats()] == [SID]


@pytest.mark.parametrize("raw", BAD_INPUTS)
def test_bad_stdin_is_silent(mc_hook, prompt, heartbeats, mc_task, raw):
    assert mc_hook(raw).silent()
    assert [sid for sid, _ in marker(prompt, heartbeats, 1)] == ["marker"]


@pytest.mark.parametrize("fields", MISTYPED)
def test_mistyped_fields_are_silent(mc_hook, prompt, heartbeats, mc_task, fields):
    assert mc_hook({"session_id": SID, "prompt": "real work", **fields}).silent()
    assert [sid for sid, _ in marker(prompt, heartbeats, 1)] == ["marker"]


def test_corrupt_database_is_silent(mc_hook, mc_env, mc_task):
    for extra in ("-wal", "-shm"):
        (mc_env.data_root / f"tasks.db{extra}").unlink(missing_ok=True)
    (mc_env.data_root / "tasks.db").write_bytes(b"garbage" * 500)
    assert mc_hook({"session_id": SID, "prompt": "real work"}).silent()


def test_nothing_is_created_before_the_user_has_a_task(prompt, mc_env, mc_repo):
    """Installed but never set up: prompts leave no data root and no database behind
    (checked once the detached heartbeat child has exited)."""
    done = prompt("first prompt on a fresh install", cwd=mc_repo)
    assert done.silent()
    assert wait_heartbeat_children(mc_env.data_root)
    assert list(mc_env.data_root.iterdir()) == []


# -- the turn a prompt starts (docs/time.md) ---------------------------------------------


def test_heartbeat_carries_the_prompt_id_and_the_prompt_time(mc_hook, mc_query, mc_task):
    before = time.time()
    mc_hook({"session_id": SID, "hook_event_name": "UserPromptSubmit", "prompt": "fix the bug",
          "prompt_id": "p-42"})  # fmt: skip
    rows = wait_for(lambda: mc_query("SELECT prompt_id, kind, epoch FROM heartbeats"))
    ((prompt_id, kind, epoch),) = rows
    assert (prompt_id, kind) == ("p-42", None)  # NULL kind: a human prompt
    assert before <= epoch <= time.time()


def test_task_notification_is_a_synthetic_prompt(mc_hook, mc_query, mc_task):
    """An agent's report fires UserPromptSubmit in the main session (contract 1): it is
    recorded as Claude's turn, not as the human coming back."""
    text = "<task-notification>\n<task-id>a1</task-id>\n<result>ok</result>\n</task-notification>"
    mc_hook({"session_id": SID, "hook_event_name": "UserPromptSubmit", "prompt": text,
          "prompt_id": "p-43"})  # fmt: skip
    rows = wait_for(lambda: mc_query("SELECT prompt_id, kind FROM heartbeats"))
    assert rows == [("p-43", "synthetic")]


@pytest.mark.parametrize("text", ["y", "YES", "/review the diff"])
def test_a_control_prompt_with_a_turn_is_recorded_as_control(mc_hook, mc_query, mc_task, text):
    """A `y` approving a plan or a slash command that runs a prompt starts a turn: its
    heartbeat (kind control) lets that turn count as Claude's when its Stop arrives,
    without counting the answer itself as a human prompt (docs/time.md)."""
    mc_hook({"session_id": SID, "hook_event_name": "UserPromptSubmit", "prompt": text,
          "prompt_id": "p-44"})  # fmt: skip
    rows = wait_for(lambda: mc_query("SELECT prompt_id, kind FROM heartbeats"))
    assert rows == [("p-44", "control")]


@pytest.mark.parametrize("prompt_id", ["../x", "p" * 300, 12])
def test_hostile_prompt_ids_are_not_used(mc_hook, mc_query, mc_task, prompt_id):
    mc_hook({"session_id": SID, "hook_event_name": "UserPromptSubmit", "prompt": "real work",
          "prompt_id": prompt_id}, env={"MISSIONCACHE_PROMPT_ID": "inherited"})  # fmt: skip
    rows = wait_for(lambda: mc_query("SELECT prompt_id FROM heartbeats"))
    assert rows == [(None,)]
