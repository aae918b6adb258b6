"""The status line as Claude Code runs it: the BUILT plugin's script, a real process,
the status-line JSON on stdin, ``COLUMNS`` in the environment."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from missioncache_harness import payloads
from missioncache_harness.worklog import record_work
from missioncache_harness.workspace import python3

SID = "4f1c2b7e-0000-4000-8000-00000000abcd"
ESC = "\x1b["


def _run(mc_plugin, mc_env, repo, payload, columns=200, env=None, raw=None, with_stderr=False):
    data = raw if raw is not None else json.dumps(payload).encode()
    done = subprocess.run(
        [python3(), "-S", str(mc_plugin / "statusline" / "statusline.py")],
        input=data,
        cwd=str(repo),
        env={**mc_env.env, "COLUMNS": str(columns), "LINES": "50", **(env or {})},
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    if with_stderr:
        return done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    return done.stdout.decode("utf-8")


@pytest.fixture
def transcript(mc_env, mc_repo) -> Path:
    path = Path(payloads.transcript_path(mc_env.claude_dir, mc_repo, SID))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    return path


@pytest.fixture
def line(mc_plugin, mc_env, mc_repo, transcript):
    def run(columns=200, env=None, sid=SID, raw=None, cwd=None, with_stderr=False):
        payload = payloads.statusline(
            session_id=sid, transcript_path=str(transcript), cwd=cwd or mc_repo
        )
        return _run(mc_plugin, mc_env, mc_repo, payload, columns, env, raw, with_stderr)

    return run


def _plain(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text.startswith(ESC, i):
            i = text.index("m", i) + 1
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _age_cache(mc_env, seconds: float = 120) -> None:
    """Let time pass for the cache: as if its facts were computed ``seconds`` ago."""
    path = mc_env.claude_dir / "hooks" / "state" / "statusline" / f"{SID}.json"
    cache = json.loads(path.read_text())
    cache["computed"] -= seconds
    path.write_text(json.dumps(cache))


def _edit_record(tool="Edit", path="/x/a.py") -> str:
    return json.dumps(
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": uuid.uuid4().hex,
                        "name": tool,
                        "input": {"file_path": path},
                    }
                ],
            },
        }
    )


def _write_files(mc_task_dir: Path, name: str, tasks: str, context: str) -> None:
    """The files as a save left them: a real save (the tools, /missioncache:save) also
    records its time beside them, which is what "saved HH:MM" shows."""
    (mc_task_dir / f"{name}-tasks.md").write_text(tasks)
    (mc_task_dir / f"{name}-context.md").write_text(context)
    _saved_at_stamp(mc_task_dir, context)


def _saved_at_stamp(mc_task_dir: Path, context: str) -> None:
    import re

    from missioncache_state.saves import record_save

    found = re.search(r"\*\*Last Updated:\*\* (\d{4}-\d\d-\d\d \d\d:\d\d)", context)
    if found:
        record_save(mc_task_dir, time.mktime(time.strptime(found.group(1), "%Y-%m-%d %H:%M")))


TASKS = "# Tasks\n\n- [x] 1. Reproduce\n- [x] 2. Find the cause\n- [ ] 3. Fix\n- [ ] 4. Test\n"
CONTEXT = "# Demo Task - Context\n\n**Last Updated:** {stamp}\n\n## Description\nx\n"


def test_task_session_shows_name_progress_time_edits_and_save(
    line, mc_env, mc_task, mc_task_dir, transcript, mc_execute
):
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() - 120))
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp=stamp))
    transcript.write_text(_edit_record() + "\n" + _edit_record("Write") + "\n")
    # 12 minutes of work today: Claude's 9 in two turns, yours 3 between them.
    record_work(
        mc_env.data_root / "tasks.db", mc_task.id, time.time() - 800, [(270, 180), (270, 0)]
    )
    shown = line(env={"NO_COLOR": "1"})
    expected = f"◆ demo-task [2/4] · today 12m (Claude 9m, you 3m) · 2 edits · saved {stamp[11:]}\n"
    assert shown == expected


def test_colours_by_default_and_plain_text_is_the_same_line(line, mc_task):
    coloured = line()
    assert ESC in coloured
    assert _plain(coloured) == line(env={"NO_COLOR": "1"})
    assert ESC not in line(env={"TERM": "dumb"})


def test_findings_for_unchecked_items_are_marked(line, mc_task, mc_task_dir):
    context = (
        CONTEXT.format(stamp="2026-11-29 13:47") + "\n### Task 3\nFixed it.\n### Task 4\nTested.\n"
    )
    _write_files(mc_task_dir, mc_task.name, TASKS, context)
    assert "[2/4] ✎2" in line(env={"NO_COLOR": "1"})


def test_session_without_a_task_prints_nothing(line, mc_env, tmp_path, mc_task):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert line(cwd=elsewhere, sid="other-session") == ""
    assert line(cwd=elsewhere, sid="other-session") == ""  # also from the cache


def test_not_set_up_prints_nothing_and_creates_nothing(line, mc_env):
    assert line() == ""
    assert not (mc_env.data_root / "tasks.db").exists()


@pytest.mark.parametrize(
    "raw",
    [b"", b"not json", b"[1,2]", b'{"session_id": "../../etc"}', b'{"session_id": 5}', b"\xff\xfe"],
)
def test_bad_stdin_prints_nothing_and_exits_0(line, mc_task, raw):
    assert line(raw=raw) == ""


def test_narrow_terminal_drops_details_not_the_task(line, mc_task, mc_task_dir):
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp="2026-11-29 13:47"))
    wide = line(columns=200, env={"NO_COLOR": "1"}).strip()
    assert "saved Nov 29" in wide and "edits" in wide
    for columns in (60, 40, 30, 24):
        shown = line(columns=columns, env={"NO_COLOR": "1"}).strip()
        assert len(shown) <= max(20, columns - 4), (columns, shown)
        assert shown.startswith("◆ demo")
    assert line(columns=40, env={"NO_COLOR": "1"}).strip() == "◆ demo-task [2/4] · today 0s"


def test_cache_is_used_and_invalidated_by_each_source(
    line, mc_env, mc_task, mc_task_dir, transcript, mc_execute
):
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp="2026-11-29 13:47"))
    plain = {"NO_COLOR": "1"}
    assert "[2/4]" in line(env=plain)
    cache = mc_env.claude_dir / "hooks" / "state" / "statusline" / f"{SID}.json"
    assert json.loads(cache.read_text())["facts"]["name"] == "demo-task"

    # A checked item in the tasks file: progress follows on the next run.
    (mc_task_dir / f"{mc_task.name}-tasks.md").write_text(TASKS.replace("- [ ] 3.", "- [x] 3."))
    assert "[3/4]" in line(env=plain)
    # A save of the context file.
    stamp = time.strftime("%Y-%m-%d %H:%M")
    (mc_task_dir / f"{mc_task.name}-context.md").write_text(CONTEXT.format(stamp=stamp))
    _saved_at_stamp(mc_task_dir, CONTEXT.format(stamp=stamp))
    assert f"saved {stamp[11:]}" in line(env=plain)
    # Time recorded in tasks.db.
    record_work(mc_env.data_root / "tasks.db", mc_task.id, time.time() - 4000, [(3900, 0)])
    assert "today 0s" in line(env=plain)  # tasks.db alone: taken in within a minute
    _age_cache(mc_env)
    assert "today 1h 5m" in line(env=plain)
    # New edits in the transcript: counted incrementally.
    with transcript.open("a") as handle:
        handle.write(_edit_record() + "\n")
    assert "1 edit ·" in line(env=plain)
    with transcript.open("a") as handle:
        handle.write(
            _edit_record()
            + "\n"
            + _edit_record("MultiEdit")
            + "\n"
            + '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit"'
        )
    assert "3 edits" in line(env=plain)  # the half-written last line is not counted yet


def test_a_cache_hit_opens_no_database_and_parses_no_markdown(
    line, mc_task, mc_task_dir, transcript
):
    """What a run imports shows what it did: the first run opens tasks.db (``sqlite3``)
    and parses the task's files; a second run with nothing changed does neither."""
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp="2026-11-29 13:47"))
    profile = {"NO_COLOR": "1", "PYTHONPROFILEIMPORTTIME": "1"}
    first, first_err = line(env=profile, with_stderr=True)
    second, second_err = line(env=profile, with_stderr=True)
    assert first == second and "demo-task" in first
    assert "sqlite3" in first_err and "missioncache_context" in first_err
    assert "sqlite3" not in second_err and "missioncache_context" not in second_err
    assert "missioncache_statusline.line" in second_err  # the profile is really there


def test_a_run_only_tasks_db_made_stale_parses_no_markdown(
    line, mc_env, mc_task, mc_task_dir, transcript
):
    """After a prompt's heartbeat (tasks.db changed, the grace over) the line reads
    today's time again but keeps what the task's unchanged files said; a changed file is
    read again."""
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp="2026-11-29 13:47"))
    for path in mc_task_dir.iterdir():  # written a while ago, not in the read's tick
        os.utime(path, (time.time() - 60, time.time() - 60))
    profile = {"NO_COLOR": "1", "PYTHONPROFILEIMPORTTIME": "1"}
    line(env=profile, with_stderr=True)
    record_work(mc_env.data_root / "tasks.db", mc_task.id, time.time() - 4000, [(3900, 0)])
    _age_cache(mc_env)
    shown, err = line(env=profile, with_stderr=True)
    assert "today 1h 5m" in shown and "[2/4]" in shown
    assert "sqlite3" in err and "missioncache_context" not in err
    (mc_task_dir / f"{mc_task.name}-tasks.md").write_text(TASKS.replace("- [ ] 3.", "- [x] 3."))
    shown, err = line(env=profile, with_stderr=True)
    assert "[3/4]" in shown and "missioncache_context" in err


def test_a_compaction_or_a_new_start_on_the_same_task_reads_only_the_files(
    line, mc_plugin, mc_env, mc_task, mc_task_dir, transcript
):
    """SessionStart rewrites the session's binding on every start and PreCompact writes a
    snapshot into the context file: with the task the same and tasks.db's figures within
    their minute, the next run reads the task's files again and opens no database."""
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp="2026-11-29 13:47"))
    for path in mc_task_dir.iterdir():  # written a while ago, not in the read's tick
        os.utime(path, (time.time() - 60, time.time() - 60))
    profile = {"NO_COLOR": "1", "PYTHONPROFILEIMPORTTIME": "1"}
    assert mc_env.bundled(mc_plugin, "bind", SID, mc_task.name).returncode == 0
    shown, err = line(env=profile, with_stderr=True)
    assert "[2/4]" in shown and "sqlite3" in err
    time.sleep(0.05)  # the rebinding in a later clock tick than the binding
    assert mc_env.bundled(mc_plugin, "bind", SID, mc_task.name).returncode == 0
    (mc_task_dir / f"{mc_task.name}-tasks.md").write_text(TASKS.replace("- [ ] 3.", "- [x] 3."))
    shown, err = line(env=profile, with_stderr=True)
    assert "[3/4]" in shown and "◆ demo-task" in shown
    assert "missioncache_context" in err and "sqlite3" not in err


def test_a_session_bound_to_another_task_shows_it_at_once(
    line, mc_plugin, mc_env, mc_task, mc_make_task, transcript
):
    other = mc_make_task("other-task")
    assert mc_env.bundled(mc_plugin, "bind", SID, mc_task.name).returncode == 0
    assert "◆ demo-task" in line(env={"NO_COLOR": "1"})
    assert mc_env.bundled(mc_plugin, "bind", SID, other.name).returncode == 0
    assert "◆ other-task" in line(env={"NO_COLOR": "1"})  # within the minute tasks.db has


def test_a_file_changed_in_the_tick_it_was_read_is_read_again(
    line, mc_env, mc_task, mc_task_dir, transcript
):
    """A save that keeps a file's size and lands in the clock tick of the line's read has
    the stamp the line saw: the line reads such a file again rather than keep its facts."""
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp="2026-11-29 13:47"))
    tasks = mc_task_dir / f"{mc_task.name}-tasks.md"
    assert "[2/4]" in line(env={"NO_COLOR": "1"})
    stamp = tasks.stat().st_mtime_ns
    tasks.write_text(TASKS.replace("- [ ] 3.", "- [x] 3."))  # the same size
    os.utime(tasks, ns=(stamp, stamp))
    record_work(mc_env.data_root / "tasks.db", mc_task.id, time.time() - 4000, [(3900, 0)])
    _age_cache(mc_env)
    assert "[3/4]" in line(env={"NO_COLOR": "1"})


def test_today_moves_when_work_arrives_only_in_the_spool(line, mc_env, mc_task, mc_task_dir):
    """Stop's turn ends (and heartbeats of a busy moment) wait in the spool, so no file the
    cache watches changes while Claude works: the cached figure still expires within a
    minute and the recompute folds the spool in (a quarantine folder alone does not)."""
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp="2026-11-29 13:47"))
    plain = {"NO_COLOR": "1"}
    assert "today 0s" in line(env=plain)
    spool = mc_env.data_root / "spool"
    (spool / "quarantine").mkdir(parents=True, exist_ok=True)
    start = time.time() - 3000
    beat = {
        "uid": "a1" * 8,
        "task_id": mc_task.id,
        "epoch": start,
        "session_id": "s-9",
        "prompt_id": "p-9",
        "kind": "prompt",
    }
    end = {
        "type": "turn_end",
        "uid": "b2" * 8,
        "session_id": "s-9",
        "prompt_id": "p-9",
        "epoch": start + 2700,
        "outcome": "stop",
        "background": 0,
    }
    (spool / "7-a.jsonl").write_text(json.dumps(beat) + "\n" + json.dumps(end) + "\n")
    assert "today 0s" in line(env=plain)  # within the minute: the cached figure
    _age_cache(mc_env)
    assert "today 45m (Claude 45m, you 0s)" in line(env=plain)


def test_a_failure_shows_the_last_good_line_marked_stale(line, mc_env, mc_task, mc_task_dir):
    """Without the mark the human took an old line (old time, old save) for current."""
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp="2026-11-29 13:47"))
    first = line(env={"NO_COLOR": "1"})
    assert first
    db = mc_env.data_root / "tasks.db"
    data = db.read_bytes()
    db.write_bytes(b"garbage" * 1000)  # a new stamp, and not a database
    _age_cache(mc_env)  # past the grace for tasks.db changes: a recompute, which fails
    try:
        shown, imports = line(
            env={"NO_COLOR": "1", "PYTHONPROFILEIMPORTTIME": "1"}, with_stderr=True
        )
        assert shown == "(stale) " + first
        assert "sqlite3" in imports  # it did try tasks.db, and fell back
    finally:
        db.write_bytes(data)


def test_heartbeats_are_folded_so_today_is_current(line, mc_task, mc_execute, mc_query):
    now = time.time()
    for offset in (600, 300, 0):
        mc_execute(
            "INSERT INTO heartbeats(task_id, timestamp, session_id, epoch, uid)"
            " VALUES (?, 'x', ?, ?, ?)",
            (mc_task.id, SID, now - offset, uuid.uuid4().hex),
        )
    assert "today 10m" in line(env={"NO_COLOR": "1"})
    assert mc_query("SELECT COUNT(*) FROM heartbeats WHERE processed = 0") == [(0,)]


def test_a_locked_database_does_not_block_the_line(line, mc_env, mc_task):
    conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"), isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    try:
        start = time.monotonic()
        line(env={"NO_COLOR": "1"})
        assert time.monotonic() - start < 10
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def _tree(root: Path) -> dict:
    return {
        str(p): (p.stat().st_mtime_ns, p.stat().st_size)
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_the_cache_lives_in_the_state_dir_only(line, mc_env, mc_task, mc_plugin):
    before = _tree(mc_plugin)
    assert line()
    assert _tree(mc_plugin) == before  # nothing written under the plugin root
    assert (mc_env.claude_dir / "hooks" / "state" / "statusline" / f"{SID}.json").is_file()


def test_a_compaction_after_the_last_save_is_shown(line, mc_task, mc_task_dir):
    saved = time.time() - 600
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(saved))
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp=stamp))
    plain = {"NO_COLOR": "1"}
    assert line(env=plain).rstrip().endswith(f"saved {stamp[11:]}")
    records = mc_task_dir / ".compactions"
    records.mkdir()
    before = int((saved - 3600) * 1_000_000)  # an older compaction: not "since"
    (records / f"{before:016d}-0a0b0c0d.json").write_text('{"epoch": 0, "trigger": "auto"}')
    assert line(env=plain).rstrip().endswith(f"saved {stamp[11:]}")
    after = int(time.time() * 1_000_000)
    (records / f"{after:016d}-01020304.json").write_text('{"epoch": 0, "trigger": "auto"}')
    assert line(env=plain).rstrip().endswith(f"saved {stamp[11:]} · compacted since")
    narrow = line(columns=60, env=plain).rstrip()
    assert narrow == f"◆ demo-task [2/4] · today 0s · 0 edits · saved {stamp[11:]} ⟳"


def test_old_caches_of_other_sessions_are_pruned(line, mc_env, mc_task):
    folder = mc_env.claude_dir / "hooks" / "state" / "statusline"
    folder.mkdir(parents=True)
    old, recent, record = (
        folder / "old-session.json",
        folder / "recent.json",
        folder / "install.json",
    )
    for path in (old, recent, record):
        path.write_text("{}")
    month_ago = time.time() - 30 * 86400
    os.utime(old, (month_ago, month_ago))
    os.utime(record, (month_ago, month_ago))
    assert line()
    assert not old.exists() and recent.exists() and record.exists()
    assert (folder / f"{SID}.json").exists()


def test_a_huge_resumed_transcript_counts_its_end_and_says_so(line, mc_task, transcript):
    """A first look at a transcript over 8 MiB reads only its end, so the count it shows
    is a floor ("2+ edits"), never presented as the session's whole count."""
    filler = json.dumps({"type": "user", "message": {"role": "user", "content": "x" * 1000}})
    with transcript.open("w") as handle:
        handle.write(_edit_record() + "\n")  # beyond the first read: not counted
        handle.write((filler + "\n") * 9000)
        handle.write(_edit_record() + "\n" + _edit_record("Write") + "\n")
    assert transcript.stat().st_size > 8 * 1024 * 1024
    plain = {"NO_COLOR": "1"}
    assert "· 2+ edits ·" in line(env=plain)
    with transcript.open("a") as handle:
        handle.write(_edit_record() + "\n")
    assert "· 3+ edits ·" in line(env=plain)  # continued from where it stopped, still a floor


def test_a_context_file_too_large_to_edit_still_shows_its_save(line, mc_task, mc_task_dir):
    """Only the head is read (as the task tracker reads it): a context file past the
    64 MiB edit limit used to show "not saved" in red, though its stamp said 13:47."""
    context = CONTEXT.format(stamp="2026-11-29 13:47") + "### Task 3\nnotes\n"
    _write_files(mc_task_dir, mc_task.name, TASKS, context + ("old notes\n" * (7 << 20)))
    (mc_task_dir / ".missioncache-saved").unlink()  # a task from before the save record
    assert (mc_task_dir / f"{mc_task.name}-context.md").stat().st_size > 64 << 20
    shown = line(env={"NO_COLOR": "1"})
    assert "[2/4] ✎1" in shown and "saved Nov 29" in shown and "never saved" not in shown


def test_saved_means_a_real_save_never_the_template_or_a_snapshot(line, mc_task, mc_task_dir):
    """Issue 26 item 2: right after /missioncache:new the template's stamp showed as
    "saved 21:39", and after /compact MissionCache's own snapshot did."""
    from missioncache_state.saves import record_save

    plain = {"NO_COLOR": "1"}
    assert line(env=plain).rstrip().endswith("never saved")
    context = mc_task_dir / f"{mc_task.name}-context.md"
    stamp = time.strftime("%Y-%m-%d %H:%M")
    context.write_text(CONTEXT.format(stamp=stamp))  # a snapshot stamps the file too
    records = mc_task_dir / ".compactions"
    records.mkdir()
    (records / f"{int(time.time() * 1e6):016d}-01020304.json").write_text('{"trigger": "auto"}')
    assert line(env=plain).rstrip().endswith("never saved · compacted since")
    record_save(mc_task_dir, time.time() + 1)  # /missioncache:save after the compaction
    shown = line(env=plain).rstrip()
    assert shown.endswith(f"saved {time.strftime('%H:%M', time.localtime(time.time() + 1))}")


def test_todays_cost_is_shown_and_fits_80_columns(line, mc_env, mc_task, mc_task_dir, mc_execute):
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() - 120))
    _write_files(mc_task_dir, mc_task.name, TASKS, CONTEXT.format(stamp=stamp))
    record_work(
        mc_env.data_root / "tasks.db", mc_task.id, time.time() - 800, [(270, 180), (270, 0)]
    )
    # 300k input and 100k output tokens of claude-sonnet-4-5 today: $0.90 + $1.50
    mc_execute(
        "INSERT INTO usage(session_id, message_key, model, epoch, input_tokens, output_tokens,"
        " task_id) VALUES (?, 'm:', 'claude-sonnet-4-5', ?, 150000, 100000, ?)",
        (SID, time.time() - 700, mc_task.id),
    )
    mc_execute(
        "INSERT INTO usage(session_id, message_key, model, epoch, input_tokens, output_tokens,"
        " task_id) VALUES (?, 'n:', 'claude-sonnet-4-5', ?, 150000, 0, ?)",
        (SID, time.time() - 600, mc_task.id),
    )
    mc_execute(  # yesterday's tokens are not today's
        "INSERT INTO usage(session_id, message_key, model, epoch, input_tokens, output_tokens,"
        " task_id) VALUES (?, 'o:', 'claude-sonnet-4-5', ?, 9000000, 0, ?)",
        (SID, time.time() - 3 * 86400, mc_task.id),
    )
    wide = line(env={"NO_COLOR": "1", "COLUMNS": "200"})
    full = "◆ demo-task [2/4] · today 12m (Claude 9m, you 3m) · $2.40 · 0 edits"
    assert wide == f"{full} · saved {stamp[11:]}\n"
    shown = line(env={"NO_COLOR": "1", "COLUMNS": "80"})
    assert shown == f"◆ demo-task [2/4] · today 12m · $2.40 · 0 edits · saved {stamp[11:]}\n"
    assert len(shown.rstrip("\n")) <= 80
