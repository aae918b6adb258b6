"""A read costs what its window holds: the report of a week or a month and the
dashboard's task list (its live update) do the same work whether the history before
their window is five weeks or ten. Work is counted as SQLite virtual machine steps
(``set_progress_handler``), which grow with every row a query visits."""

from __future__ import annotations

import time
import uuid

import pytest

from missioncache_dashboard.data import task_list
from missioncache_db import TaskDB
from missioncache_report.data import collect
from missioncache_spool import append, spool_records
from missioncache_time import process_pending, record_heartbeat, spool_turn_end

NOW = time.mktime((2026, 3, 20, 18, 0, 0, 0, 0, -1))
TICK = 50  # steps between two calls of the counter


def history(path, days: int) -> TaskDB:
    """``days`` working days up to ``NOW`` of three tasks, through the write path."""
    db = TaskDB(path)
    ids = [db.create_task(f"task-{n}-{uuid.uuid4().hex[:6]}", repo=None).id for n in range(3)]
    for back in range(days, 0, -1):
        lt = time.localtime(NOW)
        day = time.mktime((lt.tm_year, lt.tm_mon, lt.tm_mday - back, 9, 0, 0, 0, 0, -1))
        for n, task in enumerate(ids[back % 2 :]):
            sid, t = str(uuid.uuid4()), day + n * 3 * 3600
            for _turn in range(6):
                pid = str(uuid.uuid4())
                record_heartbeat(db, task, sid, None, t, pid, "prompt")
                spool_turn_end(db, sid, pid, "stop", 0, t + 120)
                rows = [
                    [f"m-{pid}", "claude-sonnet-4-5", None, None, pid, t + 60, 5, 300, 0, 0, 900]
                ]
                for record in spool_records(sid, rows):
                    append(db.spool_folder, record)
                t += 400
        process_pending(db, now=day + 12 * 3600)
    return db


def steps(db: TaskDB, read) -> int:
    count = [0]

    def tick() -> int:
        count[0] += 1
        return 0

    read()  # the first read seals the days; the next ones are what a user waits for
    db.conn.set_progress_handler(tick, TICK)
    try:
        read()
    finally:
        db.conn.set_progress_handler(None, TICK)
    return count[0]


READS = {
    "report week": lambda db: collect(db, "week", NOW),
    "report month": lambda db: collect(db, "month", NOW),
    "dashboard task list": lambda db: task_list(db, NOW),
}


@pytest.mark.parametrize("name", list(READS))
def test_a_read_does_no_more_work_when_the_history_before_its_window_doubles(
    mc_roots, tmp_path, name
):
    work = []
    for days in (35, 70):
        with history(tmp_path / f"{days}.db", days) as db:
            work.append(steps(db, lambda db=db: READS[name](db)))
    short, long = work
    assert short > 0
    assert long <= short * 1.1, f"{name}: {short} steps with 35 days, {long} with 70"
