"""post_compact.py as a real process of the built plugin."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from missioncache_harness.bad_input import BAD_STDIN, HOSTILE_SESSION_IDS, mistyped

SID = "sess-c"
RAW = "<analysis>private musing</analysis>\n<summary>Parser half done; next: tests.</summary>"
MISTYPED = mistyped({"trigger": ["auto"]}, {"compact_summary": {"a": 1}})


@pytest.fixture
def post(mc_hook):
    def run(summary=RAW, trigger="manual", sid=SID, **options):
        payload = {
            "session_id": sid,
            "hook_event_name": "PostCompact",
            "transcript_path": "/nonexistent/t.jsonl",
            "trigger": trigger,
            "compact_summary": summary,
        }
        return mc_hook(payload, **options)

    return run


def records(mc_task_dir):
    folder = mc_task_dir / ".compactions"
    if not folder.is_dir():
        return []
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"), reverse=True)]


def all_files(root):
    return sorted(str(p) for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("trigger", ["manual", "auto"])
def test_keeps_the_summary_part_with_the_task_and_prints_nothing(post, mc_task_dir, trigger):
    done = post(trigger=trigger)
    assert done.silent()  # any stdout would be shown to the human and sent to the model
    [record] = records(mc_task_dir)
    assert record["summary"] == "Parser half done; next: tests."
    assert "private musing" not in json.dumps(record)
    assert (record["trigger"], record["session_id"]) == (trigger, SID)


def test_every_compaction_is_a_record_newest_first(post, mc_task_dir):
    post(summary="<summary>first</summary>")
    post(summary="<summary>second</summary>", trigger="auto")
    assert [r["summary"] for r in records(mc_task_dir)] == ["second", "first"]


def test_a_50000_character_summary_is_kept_bounded(post, mc_task_dir):
    post(summary="<summary>" + "z" * 50_000 + "</summary>")
    [record] = records(mc_task_dir)
    assert 20_000 < len(record["summary"]) <= 24_000


def test_nothing_written_outside_the_task_folder(post, mc_env, mc_task_dir):
    before = set(all_files(mc_env.data_root))
    post()
    added = set(all_files(mc_env.data_root)) - before
    assert added and all(path.startswith(str(mc_task_dir / ".compactions")) for path in added)


def test_no_task_no_record(post, mc_env, tmp_path, mc_task):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert post(cwd=elsewhere).silent()
    assert not list(mc_env.data_root.rglob(".compactions"))


def test_not_set_up_creates_nothing(post, mc_env):
    assert post().silent()
    assert not (mc_env.data_root / "tasks.db").exists()


@pytest.mark.parametrize("raw", BAD_STDIN)
def test_bad_stdin_is_silent(mc_hook, raw, mc_task_dir):
    assert mc_hook(raw).silent()
    assert records(mc_task_dir) == []


@pytest.mark.parametrize("fields", MISTYPED)
def test_mistyped_fields_are_silent(post, mc_hook, fields, mc_task_dir):
    payload = {"hook_event_name": "PostCompact", "trigger": "manual", "compact_summary": RAW}
    assert mc_hook({**payload, **fields}).silent()
    assert records(mc_task_dir) == []


@pytest.mark.parametrize("sid", HOSTILE_SESSION_IDS)
def test_hostile_session_id_is_never_stored_or_used_as_a_name(post, mc_task_dir, sid):
    assert post(sid=sid).silent()
    [record] = records(mc_task_dir)
    assert record["session_id"] is None


LOST = "MissionCache could not keep the compaction summary of task demo-task"
TODO = "run /missioncache:save so the context file says where the work stands"


def test_a_summary_lost_on_manual_compact_is_one_line_the_human_sees(post, mc_task_dir):
    """It used to be a breadcrumb only, in a log nobody reads: the summary was gone from
    the task and nobody knew to save the context by hand."""
    (mc_task_dir / ".compactions").write_text("a file where the folder should be")
    done = post(trigger="manual")
    assert done.rc == 0
    [line] = done.stdout.splitlines()
    assert line.startswith(LOST + " (") and line.endswith(TODO + ".")
    assert done.stderr.startswith("missioncache: compaction summary of demo-task not saved")


def test_a_summary_lost_on_auto_compact_is_told_by_the_next_session_start(
    post, mc_hook, mc_task_dir, mc_repo
):
    """Auto compaction shows PostCompact's output to nobody, and SessionStart(compact)
    ran before it: the next SessionStart tells the human, once."""
    (mc_task_dir / ".compactions").write_text("a file where the folder should be")
    done = post(trigger="auto")
    assert done.stdout == ""
    assert done.stderr.startswith("missioncache: compaction summary of demo-task not saved")
    start = {"session_id": SID, "hook_event_name": "SessionStart", "source": "resume"}
    first = mc_hook(start, script="session_start.py").json["systemMessage"]
    assert LOST + " at " in first and first.endswith(TODO)
    again = mc_hook(start, script="session_start.py").json["systemMessage"]
    assert LOST not in again


def test_a_locked_database_only_delays(post, mc_task_dir, mc_env):
    conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"))
    try:
        conn.execute("BEGIN IMMEDIATE")  # a writer elsewhere: reads still go through (WAL)
        assert post().silent()
    finally:
        conn.rollback()
        conn.close()
    assert len(records(mc_task_dir)) == 1


def test_record_files_are_readable_by_others_not_executable(post, mc_task_dir):
    post()
    [path] = (mc_task_dir / ".compactions").glob("*.json")
    assert os.stat(path).st_mode & 0o777 == 0o644
