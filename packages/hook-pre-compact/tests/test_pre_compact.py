"""pre_compact.py as a real process of the built plugin."""

from __future__ import annotations

import json
import os
import re
import sqlite3

import pytest

from missioncache_harness.bad_input import BAD_STDIN, mistyped

SID = "sess-p"
BAD_INPUTS = BAD_STDIN
MISTYPED = mistyped({"trigger": ["auto"]}, {"custom_instructions": 4})
HOSTILE_TURNS = [
    ("user", "first prompt"),
    ("assistant", "first reply"),
    ("user", "# Heading attempt\n**Last Updated:** 1999-01-01 00:00\n```\n### 2000-01-01 00:00"),
    ("assistant", "```python\nprint('x')\n```\n## Next Steps\n- fake"),
    ("user", "long " * 200),
    ("assistant", "last reply\n\nwith paragraphs"),
]
STAMP = re.compile(r"^\*\*Last Updated:\*\* (\d{4}-\d{2}-\d{2} \d{2}:\d{2})$", re.MULTILINE)


def write_transcript(path, turns):
    lines = []
    for i, (role, text) in enumerate(turns):
        if role == "user":
            message = {"role": "user", "content": text}
        else:
            message = {
                "id": f"msg_{i}",
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
            }
        lines.append(json.dumps({"type": role, "message": message, "uuid": f"u{i}"}))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def transcript(tmp_path):
    return write_transcript(tmp_path / "t.jsonl", HOSTILE_TURNS)


@pytest.fixture
def compact(mc_hook, transcript):
    def run(trigger="auto", sid=SID, transcript_path=None, **options):
        payload = {
            "session_id": sid,
            "hook_event_name": "PreCompact",
            "trigger": trigger,
            "custom_instructions": None,
            "transcript_path": str(transcript_path or transcript),
        }
        return mc_hook(payload, **options)

    return run


INSTRUCTION = 'Keep the MissionCache task name "demo-task" and its Next Steps in the summary.'


@pytest.fixture
def context_file(mc_task_dir):
    return mc_task_dir / "demo-task-context.md"


def error_record(mc_env):
    path = mc_env.claude_dir / "hooks" / "state" / "precompact-error.json"
    return json.loads(path.read_text()) if path.exists() else None


@pytest.mark.parametrize("trigger", ["manual", "auto"])
def test_snapshot_entry_and_stamp(compact, context_file, mc_env, trigger):
    done = compact(trigger)
    # only the summariser's instruction: the person sees this line under /compact as is
    assert done.stdout == INSTRUCTION
    text = context_file.read_text()
    (stamp,) = STAMP.findall(text)
    section = text.split("## Recent Changes\n", 1)[1]
    entry = section.strip().split("\n\n")[0].splitlines()
    assert entry[0] == f"### {stamp}"
    assert entry[1] == f"- Auto-saved before compaction ({stamp}, {trigger})"
    snapshot = entry[2:]
    assert [line.split(":", 1)[0] for line in snapshot] == ["  - User", "  - Claude"] * 3
    assert snapshot[0] == "  - User: first prompt"
    assert snapshot[-1] == "  - Claude: last reply with paragraphs"
    assert all(len(line) <= 320 for line in snapshot)
    assert snapshot[4].endswith("…")
    assert error_record(mc_env) is None


def test_snapshot_saved_under_pythonsafepath(compact, context_file):
    """The hook's body is a module beside the script (the script is a shim); a user's
    PYTHONSAFEPATH keeps that folder off sys.path, yet it is found and the entry written."""
    done = compact(env={"PYTHONSAFEPATH": "1"})
    assert done.stdout == INSTRUCTION
    assert "Auto-saved before compaction" in context_file.read_text()


def test_snapshot_text_never_becomes_structure(compact, context_file):
    """Headings, fences and stamps in prompts and replies stay inside one-line bullets:
    the only new heading is the entry's own, and there is still exactly one stamp."""
    before = context_file.read_text()
    compact()
    text = context_file.read_text()
    (stamp,) = STAMP.findall(text)

    def headings(t):
        return [line for line in t.splitlines() if line.startswith("#")]

    assert sorted(headings(text)) == sorted([*headings(before), f"### {stamp}"])
    assert not any(line.lstrip().startswith(("```", "~~~")) for line in text.splitlines())
    assert [line for line in text.splitlines() if "Next Steps" in line.split(":")[0]] == [
        "## Next Steps"
    ]


def test_second_compaction_adds_a_newer_entry_on_top(compact, context_file):
    compact("manual")
    compact("auto")
    text = context_file.read_text()
    assert text.count("- Auto-saved before compaction") == 2
    section = text.split("## Recent Changes\n", 1)[1]
    assert section.index(", auto)") < section.index(", manual)")


def test_missing_recent_changes_section_is_created_at_the_end(compact, context_file):
    context_file.write_text(
        "# Demo Task - Context\n\n**Last Updated:** 2020-01-01 00:00\n\n## Notes\nx\n"
    )
    compact()
    text = context_file.read_text()
    assert text.index("## Notes") < text.index("## Recent Changes")
    assert "2020-01-01" not in text


def test_missing_transcript_still_saves_the_bullet(compact, context_file, tmp_path):
    compact(transcript_path=tmp_path / "nope.jsonl")
    text = context_file.read_text()
    line = next(x for x in text.splitlines() if "Auto-saved" in x)
    following = text.split(line, 1)[1].lstrip("\n").splitlines()[0]
    assert not following.startswith("  - ")


def test_heartbeats_are_processed(compact, mc_task, mc_execute, mc_query):
    for minute in (0, 3):
        mc_execute(
            "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, processed)"
            " VALUES (?, ?, ?, ?, 's0', 0)",
            (
                os.urandom(8).hex(),
                mc_task.id,
                f"2020-01-01 10:0{minute}:00",
                1577872800.0 + 60 * minute,
            ),
        )
    compact()
    assert mc_query("SELECT COUNT(*) FROM heartbeats WHERE processed = 0") == [(0,)]
    assert mc_query("SELECT heartbeat_count FROM sessions") == [(2,)]


def test_missing_context_file_records_an_error(compact, context_file, mc_env, mc_task):
    context_file.unlink()
    done = compact(trigger="manual")
    assert done.stdout == INSTRUCTION  # the summariser still keeps the task
    record = error_record(mc_env)
    assert record["task"] == "demo-task" and record["task_id"] == mc_task.id
    assert record["session_id"] == SID
    assert "context file" in record["error"] and "FileNotFoundError" in record["error"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", record["time"])
    assert not context_file.exists()  # never created


def test_a_failure_with_nowhere_to_record_it_is_said_now(compact, context_file, mc_env):
    """No context file, and its record cannot be written (a folder where the record goes
    stands for a read-only ~/.claude, which root would still write): the next SessionStart
    could not tell the person, so PreCompact's own line does, and the summariser still
    keeps the task."""
    context_file.unlink()
    (mc_env.claude_dir / "hooks" / "state" / "precompact-error.json").mkdir(parents=True)
    done = compact(trigger="manual")
    assert done.stdout.startswith("MissionCache could not save a pre-compaction snapshot of")
    assert "/missioncache:save" in done.stdout and done.stdout.endswith(INSTRUCTION)


def test_non_utf8_context_file_is_left_untouched(compact, context_file, mc_env):
    original = b"# Ctx\n**Last Updated:** 2020-01-01 00:00\n\xff\xfe broken\n"
    context_file.write_bytes(original)
    compact()
    assert context_file.read_bytes() == original
    assert "NotUtf8Error" in error_record(mc_env)["error"]


def test_held_file_lock_times_out_and_is_recorded(compact, context_file, mc_env, mc_python):
    """Another writer holds the context file's lock longer than our bounded wait."""
    holder = mc_python(
        "import sys, time\n"
        "from missioncache_state.lock import FileLock\n"
        "with FileLock(sys.argv[1], timeout=5):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(30)\n",
        str(context_file),
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        before = context_file.read_bytes()
        done = compact(timeout=25)
    finally:
        holder.kill()
        holder.wait()
    assert done.stdout == INSTRUCTION
    assert context_file.read_bytes() == before
    assert "LockTimeout" in error_record(mc_env)["error"]


def test_locked_database_past_the_busy_timeout_is_no_failure(compact, context_file, mc_env):
    """The snapshot is saved, the heartbeat folding fails after its bounded wait: the
    heartbeats wait for the next writer, nothing is lost, so nobody is told the snapshot
    "was not saved" (which is what a record here made SessionStart say)."""
    conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"), isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        done = compact(timeout=29)
    finally:
        conn.execute("ROLLBACK")
        conn.close()
    assert done.stdout == INSTRUCTION
    assert "Auto-saved before compaction" in context_file.read_text()
    assert error_record(mc_env) is None


DIVERTING_WRAPPER = """
import os, runpy, sys
hooks = os.path.join(os.environ["MC_TEST_PLUGIN"], "hooks")
sys.path[:0] = [os.path.join(os.environ["MC_TEST_PLUGIN"], "lib"), hooks]
import missioncache_context
from missioncache_context.update import SaveDivertedError, update_file

def diverted(path, edit, **options):  # ours lands, an editor's save of the moment does not
    result = update_file(path, edit, **options)
    raise SaveDivertedError(result.file, "/kept/editor-save.md")

missioncache_context.update_file = diverted
runpy.run_path(os.path.join(hooks, "pre_compact.py"), run_name="__main__")
"""


def test_a_diverted_editor_save_is_told_as_saved_with_the_copy(
    compact, context_file, mc_env, mc_plugin, tmp_path
):
    """Our snapshot landed but an editor's save of the same moment went to a kept copy:
    the user is told the snapshot WAS saved and where the editor's save is, never that the
    snapshot was lost."""
    wrapper = tmp_path / "diverting_pre_compact.py"
    wrapper.write_text(DIVERTING_WRAPPER)
    done = compact(script=str(wrapper), env={"MC_TEST_PLUGIN": str(mc_plugin)})
    assert done.stdout == INSTRUCTION  # the person hears of the copy from SessionStart
    assert "Auto-saved before compaction" in context_file.read_text()
    record = error_record(mc_env)
    assert record["saved"] is True and "/kept/editor-save.md" in record["error"]


def test_no_task_no_output_no_write(compact, context_file, tmp_path, mc_env):
    before = context_file.read_bytes()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert compact(cwd=elsewhere).silent()
    assert context_file.read_bytes() == before
    assert error_record(mc_env) is None


def test_no_database_is_silent(mc_hook, mc_env):
    assert mc_hook({"session_id": SID, "trigger": "auto"}).silent()
    assert not (mc_env.data_root / "tasks.db").exists()


def test_unknown_trigger_is_labelled_not_copied(compact, context_file):
    compact(trigger="## injected")
    assert "(" in context_file.read_text() and "## injected" not in context_file.read_text()
    assert ", unknown)" in context_file.read_text()


@pytest.mark.parametrize("sid", ["../../x", "a/b", "s" * 300])
def test_hostile_session_id_is_absent(compact, context_file, sid):
    assert compact(sid=sid).stdout == INSTRUCTION
    assert "Auto-saved before compaction" in context_file.read_text()


def test_corrupt_database_is_silent(compact, mc_env, context_file):
    before = context_file.read_bytes()
    for extra in ("-wal", "-shm"):
        (mc_env.data_root / f"tasks.db{extra}").unlink(missing_ok=True)
    (mc_env.data_root / "tasks.db").write_bytes(b"garbage" * 500)
    assert compact().silent()
    assert context_file.read_bytes() == before


@pytest.mark.parametrize("raw", BAD_INPUTS)
def test_bad_stdin_is_silent(mc_hook, context_file, raw):
    before = context_file.read_bytes()
    assert mc_hook(raw).silent()
    assert context_file.read_bytes() == before


@pytest.mark.parametrize("fields", MISTYPED)
def test_mistyped_fields_are_silent(mc_hook, context_file, fields):
    before = context_file.read_bytes()
    assert mc_hook({"session_id": SID, "trigger": "auto", **fields}).silent()
    assert context_file.read_bytes() == before


def test_snapshot_user_lines_are_only_what_the_human_typed(compact, context_file, tmp_path):
    """Found by a new user: a snapshot listed ``User: /exit``."""
    turns = [
        ("user", "fix the parser please"),
        ("assistant", "Fixed the parser."),
        ("user", "<task-notification>\n<task-id>t1</task-id><result>done</result>"),
        ("assistant", "The agent finished."),
        ("user", "<command-message>exit</command-message>\n<command-name>/exit</command-name>"),
        ("user", "<local-command-stdout>Goodbye!</local-command-stdout>"),
        ("user", "/compact"),
    ]
    compact("manual", transcript_path=write_transcript(tmp_path / "cmd.jsonl", turns))
    entry = context_file.read_text().split("Auto-saved before compaction", 1)[1]
    user_lines = [line for line in entry.splitlines() if line.startswith("  - User:")]
    assert user_lines == ["  - User: fix the parser please"]
    assert "  - Claude: The agent finished." in entry
    assert "/exit" not in entry and "task-notification" not in entry


def _record(kind, content, stamp, i):
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = f"msg_{i}"
    return json.dumps({"type": kind, "message": message, "uuid": f"u{i}", "timestamp": stamp})


def test_snapshot_is_each_exchange_since_the_last_save_once_with_the_files_changed(
    compact, context_file, mc_task_dir, mc_repo, tmp_path
):
    """Issue 26 item 4: the trial's snapshot was ``User: WRITEFILE again please / User:
    READONLY show hello / Claude: Done. / User: hello / Claude: Done. / Claude: Done.``:
    earlier prompts missing, replies repeated, no files. Now: the exchanges after the last
    real save, each prompt once with Claude's last reply, then the files changed."""
    from missioncache_state.saves import record_save

    def text(t):
        return [{"type": "text", "text": t}]

    def write(path):
        return [{"type": "tool_use", "id": "t", "name": "Write", "input": {"file_path": path}}]

    rows = [
        ("user", "before the save", "2026-12-01T20:00:00.000Z"),
        ("assistant", text("Old reply."), "2026-12-01T20:00:05.000Z"),
        ("user", "hello", "2026-12-01T21:00:00.000Z"),
        ("assistant", text("Done."), "2026-12-01T21:00:05.000Z"),
        ("user", "READONLY show hello", "2026-12-01T21:01:00.000Z"),
        ("assistant", text("Here it is."), "2026-12-01T21:01:05.000Z"),
        ("user", "WRITEFILE again please", "2026-12-01T21:02:00.000Z"),
        ("assistant", text("Writing it."), "2026-12-01T21:02:01.000Z"),
        ("assistant", write(str(mc_repo / "src" / "hello.py")), "2026-12-01T21:02:02.000Z"),
        ("assistant", text("Done, hello.py is written."), "2026-12-01T21:02:05.000Z"),
        ("user", "/compact", "2026-12-01T21:03:00.000Z"),
    ]
    path = tmp_path / "trial.jsonl"
    path.write_text("\n".join(_record(k, c, s, i) for i, (k, c, s) in enumerate(rows)) + "\n")
    record_save(mc_task_dir, 1_796_158_000.0)  # 2026-12-01T20:46:40Z: after "before the save"
    compact("manual", transcript_path=path)
    entry = context_file.read_text().split("Auto-saved before compaction", 1)[1]
    lines = entry.split("\n\n")[0].splitlines()[1:]
    assert lines == [
        "  - User: hello",
        "  - Claude: Done.",
        "  - User: READONLY show hello",
        "  - Claude: Here it is.",
        "  - User: WRITEFILE again please",
        "  - Claude: Done, hello.py is written.",
        "  - Files changed: src/hello.py",
    ]
