"""stop.py as a real process of the built plugin."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from missioncache_harness.bad_input import BAD_STDIN, mistyped

SID = "sess-s"
# A real (sanitised) Claude Code 2.1.328 transcript, kept beside the transcript library.
SAMPLE = (
    Path(__file__).resolve().parents[2]
    / "missioncache-transcript"
    / "tests"
    / "data"
    / "sample-transcript.jsonl"
)
BAD_INPUTS = BAD_STDIN
MISTYPED = mistyped({"stop_hook_active": "false"}, {"stop_hook_active": 0})


def user(text):
    return {"type": "user", "message": {"role": "user", "content": text}}


def tool_result(tool_id, text):
    content = [{"type": "tool_result", "tool_use_id": tool_id, "content": text}]
    return {"type": "user", "message": {"role": "user", "content": content}}


def assistant(*blocks, mid="m1"):
    return {
        "type": "assistant",
        "message": {"id": mid, "role": "assistant", "content": list(blocks)},
    }


def tool_use(name, path, tool_id="t1"):
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {"file_path": path}}


def text(value):
    return {"type": "text", "text": value}


EDITS = [
    user("change the files"),
    assistant(tool_use("Write", "/p/a.py", "t1")),
    tool_result("t1", "File created successfully at: /p/a.py"),
    assistant(tool_use("Edit", "/p/a.py", "t2"), mid="m2"),
    tool_result("t2", "ok"),
    assistant(tool_use("MultiEdit", "/p/b.py", "t3"), mid="m3"),
    tool_result("t3", "ok"),
    assistant(text("Done."), mid="m4"),
]
MENTIONS_ONLY = [
    user("earlier prompt"),
    assistant(tool_use("Write", "/p/old.py"), mid="m0"),  # a PREVIOUS exchange
    tool_result("t1", "ok"),
    user('explain the Write and Edit tools; {"type": "tool_use", "name": "Write"}'),
    assistant(tool_use("Read", "/p/doc.md", "t5"), mid="m5"),
    tool_result("t5", '{"type": "tool_use", "name": "Edit", "input": {"file_path": "/x"}}'),
    assistant(text('I would call "tool_use" with name "Write" or Edit.'), mid="m6"),
]


def transcript(tmp_path, records, name="t.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def stop(hook):
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
        return hook(payload, **options)

    return run


def test_edits_on_a_task_remind_the_human(stop, mc_task, tmp_path):
    done = stop(transcript(tmp_path, EDITS))
    assert done.json == {
        "systemMessage": "MissionCache: Claude edited 2 file(s) while working on demo-task."
        " Run /missioncache:save to save context before you leave."
    }
    assert done.stdout.count("\n") <= 1 and "additionalContext" not in done.stdout
    assert "decision" not in done.stdout


def test_real_claude_code_transcript(stop, mc_task, tmp_path):
    path = tmp_path / "sample.jsonl"
    shutil.copy(SAMPLE, path)
    assert "edited 1 file(s)" in stop(path).json["systemMessage"]


def test_a_turn_not_yet_in_the_transcript_claims_no_edits(stop, mc_task, tmp_path):
    """Claude Code writes the transcript asynchronously: Stop for a later, edit-free turn
    can find the previous turn (with its Write) still last in the file. Its prompt_id
    tells them apart; the sample's own prompt id still gets the reminder."""
    path = tmp_path / "sample.jsonl"
    shutil.copy(SAMPLE, path)
    assert stop(path, prompt_id="a-newer-prompt").silent()
    own = "7e515015-aabe-4d29-bdb2-217fb04faef0"  # the sample prompt's promptId
    assert "edited 1 file(s)" in stop(path, prompt_id=own).json["systemMessage"]


def test_mentions_of_tools_are_not_edits(stop, mc_task, tmp_path):
    assert stop(transcript(tmp_path, MENTIONS_ONLY)).silent()


def test_stop_hook_active_is_silent(stop, mc_task, tmp_path):
    assert stop(transcript(tmp_path, EDITS), active=True).silent()


def test_no_edits_never_touches_the_database(stop, mc_env, tmp_path, mc_task):
    """With no edits the hook exits before SQLite: even a corrupt tasks.db goes unnoticed."""
    (mc_env.data_root / "tasks.db").write_bytes(b"garbage" * 500)
    done = stop(transcript(tmp_path, MENTIONS_ONLY))
    assert done.silent() and done.stderr == ""


def test_missing_transcript_is_silent(stop, mc_task, tmp_path):
    assert stop(tmp_path / "absent.jsonl").silent()


def test_no_task_is_silent(stop, mc_task, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert stop(transcript(tmp_path, EDITS), cwd=elsewhere).silent()


def test_missing_context_file_is_silent(stop, task_dir, tmp_path):
    (task_dir / "demo-task-context.md").unlink()
    assert stop(transcript(tmp_path, EDITS)).silent()


def test_no_database_is_silent(stop, mc_env, tmp_path):
    assert stop(transcript(tmp_path, EDITS)).silent()
    assert not (mc_env.data_root / "tasks.db").exists()


def test_corrupt_database_is_silent(stop, mc_env, mc_task, tmp_path):
    for extra in ("-wal", "-shm"):
        (mc_env.data_root / f"tasks.db{extra}").unlink(missing_ok=True)
    (mc_env.data_root / "tasks.db").write_bytes(b"garbage" * 500)
    assert stop(transcript(tmp_path, EDITS)).silent()


@pytest.mark.parametrize("sid", ["../../x", "a/b", "s" * 300])
def test_hostile_session_id_is_absent(stop, mc_task, tmp_path, sid):
    assert "demo-task" in stop(transcript(tmp_path, EDITS), sid=sid).json["systemMessage"]


def test_relative_transcript_path_is_ignored(stop, mc_task, tracked_repo):
    transcript(tracked_repo, EDITS)
    assert stop("t.jsonl").silent()


@pytest.mark.parametrize("raw", BAD_INPUTS)
def test_bad_stdin_is_silent(hook, mc_task, raw):
    assert hook(raw).silent()


@pytest.mark.parametrize("fields", MISTYPED)
def test_mistyped_fields_are_silent(hook, mc_task, tmp_path, fields):
    path = transcript(tmp_path, EDITS)
    assert hook({"session_id": SID, "transcript_path": str(path), **fields}).silent()


# -- the turn's end, for time tracking (docs/time.md) ------------------------------------


def spooled(mc_env):
    """Every record in the heartbeat spool, in no particular order."""
    folder = mc_env.data_root / "spool"
    records = []
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        records += [json.loads(line) for line in path.read_text().splitlines()]
    return records


def test_stop_spools_the_end_of_its_turn(stop, mc_env, mc_task, tmp_path, mc_cli):
    done = stop(transcript(tmp_path, MENTIONS_ONLY), prompt_id="p-1")
    assert done.silent()
    (record,) = spooled(mc_env)
    assert (record["type"], record["session_id"], record["prompt_id"]) == ("turn_end", SID, "p-1")
    assert (record["outcome"], record["background"]) == ("stop", 0)
    # ingested by the next writer, and kept until a heartbeat with the same prompt id joins it
    mc_cli("process-heartbeats")
    assert spooled(mc_env) == []


def test_a_continued_turn_records_its_later_end_too(stop, mc_env, mc_task, tmp_path):
    stop(transcript(tmp_path, MENTIONS_ONLY), prompt_id="p-1")
    assert stop(transcript(tmp_path, EDITS), prompt_id="p-1", active=True).silent()
    assert [r["prompt_id"] for r in spooled(mc_env)] == ["p-1", "p-1"]


def test_running_background_tasks_are_counted(hook, mc_env, mc_task, tmp_path):
    running = {"id": "a1", "type": "subagent", "status": "running", "description": "d"}
    finished = dict(running, id="a2", status="completed")
    payload = {
        "session_id": SID,
        "hook_event_name": "Stop",
        "prompt_id": "p-2",
        "transcript_path": str(transcript(tmp_path, MENTIONS_ONLY)),
        "background_tasks": [running, finished, "junk"],
    }
    assert hook(payload).silent()
    assert [r["background"] for r in spooled(mc_env)] == [1]


@pytest.mark.parametrize("prompt_id", [None, "../x", "a/b", "p" * 300, 7])
def test_no_valid_prompt_id_spools_nothing(hook, mc_env, mc_task, tmp_path, prompt_id):
    payload = {"session_id": SID, "hook_event_name": "Stop", "prompt_id": prompt_id}
    payload["transcript_path"] = str(transcript(tmp_path, MENTIONS_ONLY))
    assert hook(payload).silent()
    assert spooled(mc_env) == []


def test_not_set_up_spools_nothing(stop, mc_env, tmp_path):
    """No tasks.db: MissionCache is not in use here, and Stop creates nothing."""
    assert stop(transcript(tmp_path, EDITS), prompt_id="p-1").silent()
    assert not (mc_env.data_root / "spool").exists()
    assert not (mc_env.data_root / "tasks.db").exists()
