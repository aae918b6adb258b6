"""Failures the human must hear about and can recover from (issue 12, items 9 and 10).

A broken tasks.db used to make the banner, reminders and snapshots vanish and drop every
heartbeat without a word; a deleted or moved task folder left the status saying
"tracking" while every save failed. Here each kind of breakage is made under a lived-in
scene and the built plugin is driven through it: the human hears it once per session with
the command that diagnoses it, no heartbeat is lost (they wait in the spool and are
counted once the database is back), and no hook fails, blocks or times out.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from missioncache_harness.children import wait_heartbeat_children
from missioncache_harness.reliability import (
    INSTRUCTION,
    SESSION_ID,
    TASK,
    breadcrumb_only,
    fire_event,
    heartbeats,
    process_heartbeats,
    system_message,
)

PROMPTS = 3  # counted prompts per broken database, from the bound session
BROKEN_KINDS = ["garbage", "truncated", "zeroed-pages", "directory", "fifo"]


def good_bytes(db) -> bytes:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return db.read_bytes()


def break_database(db, kind: str, good: bytes) -> None:
    for extra in ("-wal", "-shm", "-journal"):
        (db.parent / f"{db.name}{extra}").unlink(missing_ok=True)
    db.unlink()
    if kind == "garbage":
        db.write_bytes(b"not a database " + os.urandom(8192))
    elif kind == "truncated":
        db.write_bytes(good[:100])  # the header survives, every page is gone
    elif kind == "zeroed-pages":
        db.write_bytes(good[:4096] + bytes(len(good) - 4096))  # the schema page only
    elif kind == "directory":
        db.mkdir()
    elif kind == "fifo":
        os.mkfifo(db)


def restore_database(db, good: bytes) -> None:
    if db.is_dir():
        db.rmdir()
    else:
        db.unlink()
    db.write_bytes(good)


@pytest.mark.parametrize("kind", BROKEN_KINDS)
def test_a_broken_database_is_told_once_and_loses_no_heartbeat(
    kind, scene, strict_plugin, mc_plugin
):
    db = scene.env.data_root / "tasks.db"
    process_heartbeats(scene, mc_plugin)
    before = heartbeats(scene, SESSION_ID)
    good = good_bytes(db)
    break_database(db, kind, good)

    first = fire_event(strict_plugin, scene, "SessionStart")
    assert breadcrumb_only(first) == []
    message = system_message(first)
    assert str(db) in message and message.rstrip().endswith("/bin/missioncache doctor")
    again = fire_event(strict_plugin, scene, "SessionStart", source="compact")
    assert again.problems() == [] and system_message(again) == ""  # once per session

    for number in range(PROMPTS):
        fired = fire_event(strict_plugin, scene, "UserPromptSubmit", prompt=f"step {number}")
        assert breadcrumb_only(fired) == []  # the task tracker may leave its one line
    assert wait_heartbeat_children(scene.env.data_root)

    restore_database(db, good)
    process_heartbeats(scene, mc_plugin)
    assert heartbeats(scene, SESSION_ID) == before + PROMPTS


def test_an_unbound_session_spooled_while_broken_is_resolved_from_its_cwd(
    scene, strict_plugin, mc_plugin
):
    db = scene.env.data_root / "tasks.db"
    good = good_bytes(db)
    break_database(db, "garbage", good)
    payload = {"session_id": "sess-unbound", "prompt": "carry on"}
    fired = fire_event(strict_plugin, scene, "UserPromptSubmit", **payload)
    assert breadcrumb_only(fired) == []
    assert wait_heartbeat_children(scene.env.data_root)
    restore_database(db, good)
    process_heartbeats(scene, mc_plugin)
    assert heartbeats(scene, "sess-unbound") == 1


def slash(mc_plugin, scene, *args: str) -> str:
    script = mc_plugin / "slash" / "slash.py"
    env = dict(scene.env.env, CLAUDE_CODE_SESSION_ID=SESSION_ID)
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(script), *args],
        env=env,
        cwd=str(scene.repo),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("kind", ["deleted", "moved", "file-in-its-place"])
def test_a_vanished_task_folder_is_said_with_the_ways_out(kind, scene, strict_plugin, mc_plugin):
    folder = scene.context.parent
    if kind == "deleted":
        shutil.rmtree(folder)
    elif kind == "moved":
        folder.rename(scene.outside / "moved-task")
    else:
        shutil.rmtree(folder)
        folder.write_text("not a folder\n", encoding="utf-8")
    before = scene.outside_snapshot()

    start = fire_event(strict_plugin, scene, "SessionStart")
    assert start.problems() == []
    assert "is gone (deleted or moved)" in system_message(start)
    for event in ("UserPromptSubmit", "Stop"):
        assert fire_event(strict_plugin, scene, event).problems() == []
    compact = fire_event(strict_plugin, scene, "PreCompact")
    assert breadcrumb_only(compact) == []
    assert compact.stdout("pre_compact.py") == INSTRUCTION
    after = system_message(fire_event(strict_plugin, scene, "SessionStart", source="compact"))
    assert f"the pre-compaction snapshot of {TASK}" in after and "was not saved" in after

    for command in (["load", TASK], ["save"]):
        out = slash(mc_plugin, scene, *command)
        assert out.startswith(f"MISSIONCACHE PROBLEM: the folder of task {TASK} is gone")
        assert "Errno" not in out
    assert scene.outside_snapshot() == before  # nothing recreated or written elsewhere
    assert kind == "file-in-its-place" or not os.path.lexists(folder)

    if kind != "file-in-its-place":
        out = slash(mc_plugin, scene, "new", TASK)
        assert "its context and tasks files were recreated" in out
        assert scene.context.is_file() and scene.tasks.is_file()
        assert "MissionCache: tracking" in system_message(
            fire_event(strict_plugin, scene, "SessionStart", source="resume")
        )
