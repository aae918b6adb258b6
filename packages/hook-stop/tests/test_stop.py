"""stop.py as a real process of the built plugin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

import pytest

from missioncache_harness.bad_input import BAD_STDIN, mistyped
from missioncache_harness.fixtures import spooled
from missioncache_harness.transcript import SAMPLE_TRANSCRIPT, TranscriptBuilder

SID = "sess-s"
BAD_INPUTS = BAD_STDIN
MISTYPED = mistyped({"stop_hook_active": "false"}, {"stop_hook_active": 0})


def edits() -> TranscriptBuilder:
    """This exchange writes /p/a.py, edits it, then MultiEdits /p/b.py: two files."""
    tx = TranscriptBuilder().prompt("change the files")
    tx.tool("Write", {"file_path": "/p/a.py", "content": "x"}, result="File created")
    return tx.edit("/p/a.py").edit("/p/b.py", tool="MultiEdit").text("Done.")


def mentions_only() -> TranscriptBuilder:
    """A Write in a PREVIOUS exchange; this one only talks about tools and Reads a file."""
    tx = TranscriptBuilder().prompt("earlier prompt").tool("Write", {"file_path": "/p/old.py"})
    tx.prompt('explain the Write and Edit tools; {"type": "tool_use", "name": "Write"}')
    mention = '{"type": "tool_use", "name": "Edit", "input": {"file_path": "/x"}}'
    tx.tool("Read", {"file_path": "/p/doc.md"}, result=mention)
    return tx.text('I would call "tool_use" with name "Write" or Edit.')


def ends(mc_env) -> list:
    """The turn ends waiting in the spool (Stop spools the turn's tokens beside them)."""
    return [r for r in spooled(mc_env) if r.get("type") == "turn_end"]


def transcript(tmp_path, build, name="t.jsonl"):
    return build().write(tmp_path / name)


@pytest.fixture
def stop(mc_hook):
    def run(path, sid=SID, active=False, prompt_id=None, **options):
        payload = {
            "session_id": sid,
            "hook_event_name": "Stop",
            "stop_hook_active": active,
            "transcript_path": str(path),
            "last_assistant_message": "Done.",
        }
        if prompt_id is not None:
            payload["prompt_id"] = prompt_id
        return mc_hook(payload, **options)

    return run


def test_edits_on_a_task_remind_the_human(stop, mc_task, tmp_path):
    done = stop(transcript(tmp_path, edits))
    assert done.json == {
        "systemMessage": "MissionCache: Claude changed 2 files in this turn (/p/a.py, /p/b.py)"
        " while working on demo-task. Run /missioncache:save to save context before you leave."
    }
    assert done.stdout.count("\n") <= 1 and "additionalContext" not in done.stdout
    assert "decision" not in done.stdout


def test_real_claude_code_transcript(stop, mc_task, tmp_path):
    path = tmp_path / "sample.jsonl"
    shutil.copy(SAMPLE_TRANSCRIPT, path)
    assert "changed 1 file in this turn (" in stop(path).json["systemMessage"]


def test_a_turn_not_yet_in_the_transcript_claims_no_edits(stop, mc_task, tmp_path):
    """Claude Code writes the transcript asynchronously: Stop for a later, edit-free turn
    can find the previous turn (with its Write) still last in the file. Its prompt_id
    tells them apart; the sample's own prompt id still gets the reminder."""
    path = tmp_path / "sample.jsonl"
    shutil.copy(SAMPLE_TRANSCRIPT, path)
    assert stop(path, prompt_id="a-newer-prompt").silent()
    own = "7e515015-aabe-4d29-bdb2-217fb04faef0"  # the sample prompt's promptId
    assert "changed 1 file in this turn (" in stop(path, prompt_id=own).json["systemMessage"]


def test_mentions_of_tools_are_not_edits(stop, mc_task, tmp_path):
    assert stop(transcript(tmp_path, mentions_only)).silent()


def test_stop_hook_active_is_silent(stop, mc_task, tmp_path):
    assert stop(transcript(tmp_path, edits), active=True).silent()


def test_no_edits_never_touches_the_database(stop, mc_env, tmp_path, mc_task):
    """With no edits the hook exits before SQLite: even a corrupt tasks.db goes unnoticed."""
    (mc_env.data_root / "tasks.db").write_bytes(b"garbage" * 500)
    done = stop(transcript(tmp_path, mentions_only))
    assert done.silent() and done.stderr == ""


def test_missing_transcript_is_silent(stop, mc_task, tmp_path):
    assert stop(tmp_path / "absent.jsonl").silent()


def test_no_task_is_silent(stop, mc_task, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert stop(transcript(tmp_path, edits), cwd=elsewhere).silent()


def test_missing_context_file_is_silent(stop, mc_task_dir, tmp_path):
    (mc_task_dir / "demo-task-context.md").unlink()
    assert stop(transcript(tmp_path, edits)).silent()


def test_no_database_is_silent(stop, mc_env, tmp_path):
    assert stop(transcript(tmp_path, edits)).silent()
    assert not (mc_env.data_root / "tasks.db").exists()


def test_corrupt_database_is_silent(stop, mc_env, mc_task, tmp_path):
    for extra in ("-wal", "-shm"):
        (mc_env.data_root / f"tasks.db{extra}").unlink(missing_ok=True)
    (mc_env.data_root / "tasks.db").write_bytes(b"garbage" * 500)
    assert stop(transcript(tmp_path, edits)).silent()


@pytest.mark.parametrize("sid", ["../../x", "a/b", "s" * 300])
def test_hostile_session_id_is_absent(stop, mc_task, tmp_path, sid):
    assert "demo-task" in stop(transcript(tmp_path, edits), sid=sid).json["systemMessage"]


def test_relative_transcript_path_is_ignored(stop, mc_task, mc_repo):
    transcript(mc_repo, edits)
    assert stop("t.jsonl").silent()


@pytest.mark.parametrize("raw", BAD_INPUTS)
def test_bad_stdin_is_silent(mc_hook, mc_task, raw):
    assert mc_hook(raw).silent()


@pytest.mark.parametrize("fields", MISTYPED)
def test_mistyped_fields_are_silent(mc_hook, mc_task, tmp_path, fields):
    path = transcript(tmp_path, edits)
    assert mc_hook({"session_id": SID, "transcript_path": str(path), **fields}).silent()


# -- the turn's end, for time tracking (docs/time.md) ------------------------------------


def test_stop_spools_the_end_of_its_turn(stop, mc_env, mc_task, tmp_path, mc_cli):
    done = stop(transcript(tmp_path, mentions_only), prompt_id="p-1")
    assert done.silent()
    (record,) = ends(mc_env)
    assert (record["type"], record["session_id"], record["prompt_id"]) == ("turn_end", SID, "p-1")
    assert (record["outcome"], record["background"]) == ("stop", 0)
    # ingested by the next writer, and kept until a heartbeat with the same prompt id joins it
    mc_cli("process-heartbeats")
    assert spooled(mc_env) == []


def test_a_continued_turn_records_its_later_end_too(stop, mc_env, mc_task, tmp_path):
    stop(transcript(tmp_path, mentions_only), prompt_id="p-1")
    assert stop(transcript(tmp_path, edits), prompt_id="p-1", active=True).silent()
    assert [r["prompt_id"] for r in ends(mc_env)] == ["p-1", "p-1"]


def test_running_background_tasks_are_counted(mc_hook, mc_env, mc_task, tmp_path):
    running = {"id": "a1", "type": "subagent", "status": "running", "description": "d"}
    finished = dict(running, id="a2", status="completed")
    payload = {
        "session_id": SID,
        "hook_event_name": "Stop",
        "prompt_id": "p-2",
        "transcript_path": str(transcript(tmp_path, mentions_only)),
        "background_tasks": [running, finished, "junk"],
    }
    assert mc_hook(payload).silent()
    assert [r["background"] for r in ends(mc_env)] == [1]


@pytest.mark.parametrize("prompt_id", [None, "../x", "a/b", "p" * 300, 7])
def test_no_valid_prompt_id_spools_nothing(mc_hook, mc_env, mc_task, tmp_path, prompt_id):
    payload = {"session_id": SID, "hook_event_name": "Stop", "prompt_id": prompt_id}
    payload["transcript_path"] = str(transcript(tmp_path, mentions_only))
    assert mc_hook(payload).silent()
    assert ends(mc_env) == []


def test_not_set_up_spools_nothing(stop, mc_env, tmp_path):
    """No tasks.db: MissionCache is not in use here, and Stop creates nothing."""
    assert stop(transcript(tmp_path, edits), prompt_id="p-1").silent()
    assert not (mc_env.data_root / "spool").exists()
    assert not (mc_env.data_root / "tasks.db").exists()


def test_a_broken_database_still_spools_the_turn_end(stop, mc_env, mc_task, tmp_path):
    """The prompt's heartbeat waits in the spool while tasks.db is broken; so must the end
    of its turn, or the repaired history would show every such turn as interrupted."""
    db = mc_env.data_root / "tasks.db"
    for extra in ("", "-wal", "-shm"):
        (mc_env.data_root / f"tasks.db{extra}").unlink(missing_ok=True)
    db.mkdir()
    assert stop(transcript(tmp_path, mentions_only), prompt_id="p-1").silent()
    assert [(r["type"], r["prompt_id"]) for r in ends(mc_env)] == [("turn_end", "p-1")]


def usage_lines(mc_env) -> list:
    """The messages Stop spooled as tokens, ``[key, model, speed, agent, prompt, epoch,
    input, output, cache 5m, cache 1h, cache read]`` each."""
    return [m for r in spooled(mc_env) if r.get("type") == "usage" for m in r["m"]]


def test_stop_spools_each_message_once_and_reads_on_from_where_it_stopped(
    stop, mc_env, mc_task, tmp_path
):
    tx = TranscriptBuilder().prompt("first")
    tx.text("Thinking aloud.", msg_id="msg_a").text("Still msg_a.", msg_id="msg_a")
    path = tx.write(tmp_path / "t.jsonl")
    assert stop(path, prompt_id="p-1").silent()
    first = usage_lines(mc_env)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    turn = next(r["promptId"] for r in records if r.get("type") == "user")
    assert [(m[0], m[4], m[6:]) for m in first] == [("msg_a:", turn, [10, 5, 0, 0, 0])]
    assert stop(path, prompt_id="p-1").silent()  # nothing new: nothing spooled again
    assert usage_lines(mc_env) == first
    tx.prompt("second").text("Answer.", msg_id="msg_b")
    tx.write(path)
    assert stop(path, prompt_id="p-2").silent()
    assert [m[0] for m in usage_lines(mc_env)] == ["msg_a:", "msg_b:"]


def test_subagent_transcripts_are_read_too(stop, mc_env, mc_task, tmp_path):
    path = TranscriptBuilder().prompt("delegate").text("On it.").write(tmp_path / "s.jsonl")
    agents = tmp_path / "s" / "subagents"
    agents.mkdir(parents=True)
    TranscriptBuilder().text("Agent work.", msg_id="msg_sub").write(agents / "agent-a1.jsonl")
    assert stop(path, prompt_id="p-1").silent()
    found = {m[0]: m[3] for m in usage_lines(mc_env)}
    assert found["msg_sub:"] == "a1" and len(found) == 2


def test_tokens_reach_the_task_of_the_session(stop, mc_env, mc_task, mc_cli, mc_execute, tmp_path):
    mc_execute(
        "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, prompt_id, processed)"
        " VALUES ('ab12', ?, '2020-01-01 00:00:00', 1, ?, 'p-9', 0)",
        (mc_task.id, SID),
    )
    path = TranscriptBuilder().prompt("go").text("Done.").write(tmp_path / "t.jsonl")
    assert stop(path, prompt_id="p-9").silent()
    shown = mc_cli("time", "demo-task")
    # one message of 10 input and 5 output tokens of claude-opus-5-5 ($4 and $20 per MTok)
    assert shown.strip().endswith("), <$0.01, 15 tokens, all time"), shown


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_fifo_at_the_transcript_path_never_blocks_stop(stop, mc_task, tmp_path):
    """Regression: the token reader opened the transcript with a plain ``open``, which
    waits for a writer: Stop hung until Claude Code killed it at 10 s."""
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    started = time.monotonic()
    try:
        done = stop(fifo, prompt_id="2c1b0a9f-8e7d-4c6b-9a5f-4e3d2c1b0a9f", timeout=8)
    except subprocess.TimeoutExpired:
        pytest.fail("Stop blocked on a FIFO at the transcript path")
    assert time.monotonic() - started < 5
    assert done.silent() and done.stderr == ""


def test_an_implausible_token_count_is_left_out_with_a_breadcrumb(stop, mc_env, mc_task, tmp_path):
    """Regression: a record claiming 10^30 tokens was clamped to 2^40 ($6.6 million)."""
    tx = TranscriptBuilder().prompt("first").text("Fine.", msg_id="msg_ok")
    path = tx.write(tmp_path / "t.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    forged = json.loads(json.dumps(records[-1]))
    forged["message"]["id"] = "msg_forged"
    forged["message"]["usage"]["input_tokens"] = 10**30
    path.write_text(path.read_text() + json.dumps(forged) + "\n")
    done = stop(path, prompt_id="p-1")
    assert [m[0] for m in usage_lines(mc_env)] == ["msg_ok:"]
    assert "left out the tokens of one message" in done.stderr and "msg_forged" in done.stderr
