"""Issue 12, item 3: one bad spool entry must not stop time tracking for good.

Regression: a deeply nested line (RecursionError), an epoch no clock can show
(OverflowError), an integer no SQLite row can hold, or a FIFO in the spool made every
later ingest fail or hang, and since the bad entry stayed, forever. Now each is
quarantined once, the good heartbeats beside it are counted, and later heartbeats go
straight in."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from missioncache_spool import _pending_records as spool
from missioncache_time import process_pending, record_heartbeat

T0 = 1_700_000_000


def _good(task_id: int, uid: str, offset: int = 0) -> dict:
    return {"uid": uid, "task_id": task_id, "epoch": T0 + offset, "session_id": "s1"}


def _bad_lines(task_id: int) -> list[bytes]:
    deep = "[" * 5000 + "]" * 5000
    nested = f'{{"uid": "ab", "task_id": {task_id}, "epoch": {T0}, "context": {deep}}}'
    return [
        nested.encode(),  # RecursionError in the JSON reader
        json.dumps(_good(task_id, "cd") | {"epoch": 10**18}).encode(),  # OverflowError
        json.dumps(_good(task_id, "ef") | {"epoch": 1e300}).encode(),
        json.dumps(_good(10**30, "0a")).encode(),  # no SQLite integer holds it
        json.dumps(_good(task_id, "0b") | {"context": {"n": float("inf")}}).encode(),
    ]


def _spool_file(db, name: str, lines: list[bytes]) -> str:
    os.makedirs(db.spool_folder, exist_ok=True)
    path = os.path.join(db.spool_folder, name)
    with open(path, "wb") as handle:
        handle.write(b"".join(line + b"\n" for line in lines))
    return path


def test_bad_spool_lines_are_quarantined_and_good_ones_counted(db):
    task = db.create_task("a")
    lines = _bad_lines(task.id)
    good = [json.dumps(_good(task.id, uid, n)).encode() for n, uid in enumerate(["01", "02"])]
    _spool_file(db, "1-aa.jsonl", [good[0], *lines, good[1]])
    assert process_pending(db, now=T0 + 10) == 2
    # a new heartbeat goes straight in, and the bad lines are never read again
    assert record_heartbeat(db, task.id, "s1", timestamp=T0 + 20) == "db"
    assert process_pending(db, now=T0 + 30) == 1
    uids = {row[0] for row in db.conn.execute("SELECT uid FROM heartbeats")}
    assert {"01", "02"} <= uids and not uids & {"ab", "cd", "ef", "0a", "0b"}
    kept = spool.quarantined(db.spool_folder)
    assert len(kept) == 1 and kept[0].endswith(".bad")
    with open(kept[0], "rb") as handle:
        assert handle.read().count(b"\n") == len(lines)
    assert [n for n in os.listdir(db.spool_folder) if n != spool.QUARANTINE] == []


def test_a_bad_line_costs_no_heartbeat_being_recorded(db):
    task = db.create_task("a")
    _spool_file(db, "2-bb.jsonl", _bad_lines(task.id))
    assert record_heartbeat(db, task.id, "s1", timestamp=T0) == "db"
    assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 1
    assert spool.quarantined(db.spool_folder)


def test_a_fifo_or_directory_in_the_spool_is_moved_aside_not_read(db, mc_bare):
    task = db.create_task("a")
    os.makedirs(db.spool_folder, exist_ok=True)
    os.mkfifo(os.path.join(db.spool_folder, "3-cc.jsonl"))
    os.mkfifo(os.path.join(db.spool_folder, "4-dd.claimed"))
    os.mkdir(os.path.join(db.spool_folder, "5-ee.jsonl"))
    _spool_file(db, "6-ff.jsonl", [json.dumps(_good(task.id, "0c")).encode()])
    # In a child with a deadline: the old reader blocked on the FIFO forever.
    code = (
        "from missioncache_db import TaskDB\n"
        "from missioncache_time import process_pending\n"
        "db = TaskDB(busy_timeout=5.0)\n"
        f"print(process_pending(db, now={T0 + 10}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env=mc_bare.env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
    names = sorted(os.path.basename(p) for p in spool.quarantined(db.spool_folder))
    assert names == ["3-cc.jsonl", "4-dd.claimed", "5-ee.jsonl"]
    assert [n for n in os.listdir(db.spool_folder) if n != spool.QUARANTINE] == []


def test_each_quarantined_entry_is_reported_once(db):
    task = db.create_task("a")
    _spool_file(db, "7-gg.jsonl", _bad_lines(task.id)[:1])
    process_pending(db, now=T0)
    first = spool.take_unreported(db.spool_folder)
    assert len(first) == 1 and first[0].startswith("7-gg.")
    assert spool.take_unreported(db.spool_folder) == []
    os.mkfifo(os.path.join(db.spool_folder, "8-hh.jsonl"))
    process_pending(db, now=T0 + 1)
    assert spool.take_unreported(db.spool_folder) == ["8-hh.jsonl"]
    assert len(spool.quarantined(db.spool_folder)) == 2


def test_a_line_still_being_appended_is_not_quarantined(tmp_path, monkeypatch):
    """An ingester can read a spool file while its writer is mid-append: one read returns
    a torn line (end of file so far) and the next the rest of that line. The rest is not a
    bad record: reading stops at the torn line (the writer re-appends the line elsewhere)
    and nothing is set aside. The line reads below are the ones such a race produces."""
    path = tmp_path / "1-a.jsonl"
    path.write_text("")
    first = (json.dumps(_good(1, "aa")) + "\n").encode()
    second = (json.dumps(_good(1, "bb", 1)) + "\n").encode()
    monkeypatch.setattr(spool, "_lines", lambda _path: iter([first, second[:20], second[20:]]))
    assert [r["uid"] for r in spool.read_records(path)] == ["aa"]
    assert spool.quarantined(tmp_path) == []


def test_an_entry_that_vanished_after_listing_is_skipped_not_quarantined(db, monkeypatch):
    """Issue 20, defect 10: another claimer renamed a spool file away between this claim's
    ``listdir`` and its ``lstat``. The old claim took the vanished entry for "not a regular
    file", made ``quarantine/`` and failed to move it: an empty quarantine folder that
    doctor reports and the concurrency test found under load."""
    task = db.create_task("a")
    kept = _spool_file(db, "7-aa.jsonl", [json.dumps(_good(task.id, "0d")).encode()])
    real_listdir = os.listdir

    def listdir_with_a_vanished_entry(path):
        names = real_listdir(path)
        return [*names, "8-gone.jsonl", "9-gone.claimed"] if path == db.spool_folder else names

    monkeypatch.setattr(os, "listdir", listdir_with_a_vanished_entry)
    claimed = spool.claim(db.spool_folder)
    monkeypatch.setattr(os, "listdir", real_listdir)
    assert len(claimed) == 1 and os.path.basename(claimed[0]).startswith("7-aa.")
    assert not os.path.exists(kept)
    assert not os.path.lexists(spool.quarantine_dir(db.spool_folder))
    assert spool.quarantined(db.spool_folder) == []


def test_a_fifo_that_vanishes_before_its_move_leaves_no_quarantine_folder(db, monkeypatch):
    """The same race one step later: the entry was not a regular file when looked at, and
    is gone when it is moved aside. Nothing is created for nothing."""
    os.makedirs(db.spool_folder, exist_ok=True)
    fifo = os.path.join(db.spool_folder, "10-ff.jsonl")
    os.mkfifo(fifo)
    real_lstat = os.lstat

    def lstat_then_vanish(path, *args, **kwargs):
        result = real_lstat(path, *args, **kwargs)
        if os.fspath(path) == fifo:
            os.unlink(fifo)  # another claimer took it right after this look
        return result

    monkeypatch.setattr(os, "lstat", lstat_then_vanish)
    assert spool.claim(db.spool_folder) == []
    monkeypatch.setattr(os, "lstat", real_lstat)
    assert not os.path.lexists(spool.quarantine_dir(db.spool_folder))
