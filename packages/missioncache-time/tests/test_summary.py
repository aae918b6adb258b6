"""The all-time split read through a task's summary (missioncache_time._summary) is always
the full computation's: on random event streams with late arrivals, after a damaged row,
a crash mid-write, a busy database or a changed setting."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from missioncache_db import TaskDB
from missioncache_harness.workspace import sources_path
from missioncache_time import process_pending, record_heartbeat, spool_turn_end, time_split
from missioncache_time._turns import Sweep, split, turn_intervals

IDLE, TAIL = 300.0, 120.0
BASE = 1_700_000_000.0
DAY = 86400.0


def record(db, task_id, starts, ends, now):
    for epoch, sid, pid, synthetic in starts:
        kind = "synthetic" if synthetic else "prompt"
        record_heartbeat(db, task_id, sid, None, epoch, pid, kind)
    for (sid, pid), (epoch, background) in ends.items():
        spool_turn_end(db, sid, pid, "stop", background, epoch)
    process_pending(db, now=now)


def summary_row(db, task_id):
    try:
        return db.conn.execute(
            "SELECT cut, claude FROM time_summary WHERE task_id = ?", (task_id,)
        ).fetchone()
    except Exception:  # no table yet
        return None


def history(rnd, count=400, end=BASE + 20 * DAY):
    """A task's prompts over the weeks before ``end``: sessions of a few hours, most
    turns ended, some with background work or synthetic follow-ups."""
    starts, ends, t, sid = [], {}, end - 20 * DAY, "s0"
    for n in range(count):
        if n % 25 == 0:
            sid, t = f"s{n}", t + rnd.choice([3600.0, 20000.0, 60000.0])
        t += rnd.choice([5.0, 60.0, 250.0, 400.0])
        starts.append((t, sid, f"p{n}", rnd.random() < 0.1))
        if rnd.random() < 0.85:
            ends[(sid, f"p{n}")] = (t + rnd.choice([1.0, 30.0, 600.0]), rnd.choice([0, 0, 1]))
    return starts, ends


# -- the sweep itself ----------------------------------------------------------------------


@given(
    st.lists(st.tuples(st.floats(0, 5000), st.floats(0, 900), st.floats(0, 600)), max_size=30),
    st.integers(0, 30),
    st.floats(0, 8000),
)
def test_a_sweep_stopped_anywhere_and_resumed_gives_the_split(raw, at, now):
    turns = sorted((a, a + length, a + length + reach) for a, length, reach in raw)
    whole = Sweep().add(turns, now).result(now)
    resumed = Sweep().add(turns[:at], now)
    stored = Sweep(
        resumed.claude, resumed.you, resumed.block and list(resumed.block), resumed.reach
    )
    assert stored.add(turns[at:], now).result(now) == whole


# -- the summary against the full computation ---------------------------------------------

sessions = st.sampled_from(["a", "b", "c", "d"])
events = st.lists(
    st.tuples(
        st.floats(0, 10 * DAY),  # start offset: the summary only covers turns days old
        sessions,
        st.integers(0, 60),  # prompt number
        st.booleans(),  # synthetic
        st.one_of(st.none(), st.floats(0, 3 * DAY)),  # turn length, None: no end recorded
        st.integers(0, 2),  # background tasks at the end
    ),
    max_size=30,
)


def as_inputs(drawn):
    starts, ends = [], {}
    for offset, sid, number, synthetic, length, background in drawn:
        pid = f"p{number}"
        starts.append((BASE + offset, sid, pid, synthetic))
        if length is not None:
            key, value = (sid, pid), (BASE + offset + length, background)
            ends[key] = max(ends.get(key, value), value)
    return starts, ends


@settings(max_examples=100, deadline=None)
@given(events, events, st.floats(0, 14 * DAY), st.floats(-DAY, 5 * DAY))
def test_the_summary_never_changes_the_split(tmp_path_factory, first, later, now1, delta):
    """A summary is kept at one moment; more events arrive, old ones too (a late spool),
    with ends of earlier prompts; at a later moment (or an earlier one: a clock set back)
    the split read through it equals the full computation, and so does a new summary."""
    now1, now2 = BASE + now1, BASE + now1 + delta
    starts1, ends1 = as_inputs(first)
    starts2, ends2 = as_inputs(later)
    every = starts1 + starts2
    last_ends = dict(ends1)
    for key, value in ends2.items():
        last_ends[key] = max(last_ends.get(key, value), value)
    with roots_in(tmp_path_factory.mktemp("db")), TaskDB() as db:
        task = db.create_task("t", repo=None)
        record(db, task.id, starts1, ends1, now1)
        expected = split(starts1, ends1, IDLE, TAIL, now1)
        assert time_split(db, task.id, now=now1, keep_summary=True) == expected
        assert time_split(db, task.id, now=now1) == expected
        record(db, task.id, starts2, ends2, now2)
        expected = split(every, last_ends, IDLE, TAIL, now2)
        assert time_split(db, task.id, now=now2) == expected
        assert time_split(db, task.id, now=now2, keep_summary=True) == expected
        assert time_split(db, task.id, now=now2) == expected


class roots_in:  # lowercase: used like a function, as ``with roots_in(path):``
    """The data root and Claude dir under ``path`` for one hypothesis example (the
    function-scoped ``mc_roots`` fixture is set up once for all of them)."""

    NAMES = ("MISSIONCACHE_ROOT", "CLAUDE_CONFIG_DIR")

    def __init__(self, path):
        self.values = dict(zip(self.NAMES, (str(path / "mc"), str(path / "c"))))

    def __enter__(self):
        self.saved = {name: os.environ.get(name) for name in self.NAMES}
        os.environ.update(self.values)

    def __exit__(self, *exc):
        for name, value in self.saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def kept(db, seed):
    """A task with a few weeks of history and the summary SessionStart would keep."""
    starts, ends = history(random.Random(seed))
    now = BASE + 20 * DAY
    task = db.create_task("t")
    record(db, task.id, starts, ends, now)
    assert time_split(db, task.id, now=now, keep_summary=True) == split(
        starts, ends, IDLE, TAIL, now
    )
    return task, starts, ends, now


def test_the_summary_is_kept_read_and_outlives_todays_prompts(db):
    task, starts, ends, now = kept(db, 3)
    full = split(starts, ends, IDLE, TAIL, now)
    cut, claude = summary_row(db, task.id)
    assert starts[0][0] < cut <= now - 2 * DAY
    # Read, not recomputed: a tampered row shows (then is put back).
    db.conn.execute("UPDATE time_summary SET claude = ?", (claude + 1000,))
    assert time_split(db, task.id, now=now).claude == full.claude + 1000
    db.conn.execute("UPDATE time_summary SET claude = ?", (claude,))
    # Today's prompts, in a new session, leave it in place; the split stays exact.
    today = [(now + 10, "new", "q1", False), (now + 400, "new", "q2", False)]
    record(db, task.id, today, {("new", "q1"): (now + 200, 0)}, now + 500)
    assert summary_row(db, task.id) == (cut, claude)
    every_end = {**ends, ("new", "q1"): (now + 200, 0)}
    assert time_split(db, task.id, now=now + 500) == split(
        starts + today, every_end, IDLE, TAIL, now + 500
    )


def test_an_event_it_summarised_changing_deletes_it(db):
    task, starts, ends, now = kept(db, 4)
    cut, _ = summary_row(db, task.id)
    old = next(s for s in starts if s[0] < cut and (s[1], s[2]) not in ends)
    # A turn end arriving late for an old prompt: the summary goes, the split is exact.
    record(db, task.id, [], {(old[1], old[2]): (old[0] + 5000, 0)}, now)
    assert summary_row(db, task.id) is None
    every_end = {**ends, (old[1], old[2]): (old[0] + 5000, 0)}
    assert time_split(db, task.id, now=now) == split(starts, every_end, IDLE, TAIL, now)
    # Kept again; then a heartbeat of an old session arrives (a late spool file).
    time_split(db, task.id, now=now, keep_summary=True)
    assert summary_row(db, task.id) is not None
    late = (cut - 1, starts[0][1], "late", False)
    record(db, task.id, [late], {}, now)
    assert summary_row(db, task.id) is None
    assert time_split(db, task.id, now=now) == split([*starts, late], every_end, IDLE, TAIL, now)
    # Kept again; a deleted heartbeat (another tool) deletes it too.
    time_split(db, task.id, now=now, keep_summary=True)
    db.conn.execute("DELETE FROM heartbeats WHERE prompt_id = 'late'")
    assert summary_row(db, task.id) is None


def test_a_damaged_row_or_another_setting_means_the_full_computation(db):
    task, starts, ends, now = kept(db, 5)
    full = split(starts, ends, IDLE, TAIL, now)
    db.conn.execute("UPDATE time_summary SET claude = 'garbage'")
    assert time_split(db, task.id, now=now) == full
    assert time_split(db, task.id, now=now, keep_summary=True) == full  # and rebuilt
    assert isinstance(summary_row(db, task.id)[1], float)
    db.conn.execute("UPDATE config SET value = '600' WHERE key = 'idle_timeout_seconds'")
    assert time_split(db, task.id, now=now) == split(starts, ends, 600.0, TAIL, now)
    db.conn.execute("DELETE FROM time_summary")  # a missing row: computed in full, kept again
    assert time_split(db, task.id, now=now) == split(starts, ends, 600.0, TAIL, now)
    assert time_split(db, task.id, now=now, keep_summary=True) == split(
        starts, ends, 600.0, TAIL, now
    )
    assert summary_row(db, task.id) is not None


def test_a_busy_database_is_not_waited_for(db, mc_roots):
    import sqlite3

    from missioncache_state.locations import tasks_db_path

    starts, ends = history(random.Random(6))
    now = BASE + 20 * DAY
    task = db.create_task("t")
    record(db, task.id, starts, ends, now)
    other = sqlite3.connect(tasks_db_path(), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        began = time.monotonic()
        got = time_split(db, task.id, now=now, keep_summary=True)  # busy timeout is 5 s
        assert time.monotonic() - began < 2
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert got == split(starts, ends, IDLE, TAIL, now)
    assert summary_row(db, task.id) is None


CRASH = """
import os, sys
from missioncache_db import TaskDB
from missioncache_time import _summary as summary, time_split
real = summary._store
def store_then_die(*args):
    real(*args)
    os._exit(9)  # killed after writing the row, before the COMMIT
summary._store = store_then_die
with TaskDB() as db:
    time_split(db, int(sys.argv[1]), now=float(sys.argv[2]), keep_summary=True)
"""


def test_a_crash_while_writing_leaves_no_summary_behind(db, mc_roots):
    starts, ends = history(random.Random(7))
    now = BASE + 20 * DAY
    task = db.create_task("t")
    record(db, task.id, starts, ends, now)
    env = {
        **os.environ,
        "PYTHONPATH": sources_path(
            "missioncache-state",
            "missioncache-spool",
            "missioncache-db",
            "missioncache-cost",
            "missioncache-transcript",
            "missioncache-time",
        ),
    }
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(task.id), repr(now)],
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 9, done.stderr
    assert summary_row(db, task.id) is None
    assert time_split(db, task.id, now=now) == split(starts, ends, IDLE, TAIL, now)


def test_the_turns_summarised_are_the_full_computations(db):
    """What the summary stores is the sweep of the turns before its cut, and the events
    read after it are exactly the rest."""
    task, starts, ends, now = kept(db, 8)
    cut, claude = summary_row(db, task.id)
    turns = sorted(turn_intervals(starts, ends, IDLE, TAIL, now))
    before = Sweep().add([t for t in turns if t[0] < cut], now)
    assert claude == before.claude


# -- each rule that keeps it exact, on the history that needs it --------------------------


def recent_work(now):
    """A session two weeks ago, for the summary to cover, and one active today."""
    starts = [(now - 3600.0 * k, "today", f"t{k}", False) for k in range(5)]
    ends = {("today", f"t{k}"): (now - 3600.0 * k + 60, 0) for k in range(5)}
    for k in range(5):
        starts.append((now - 14 * DAY + 600.0 * k, "then", f"w{k}", False))
        ends[("then", f"w{k}")] = (now - 14 * DAY + 600.0 * k + 200, 0)
    return starts, ends


def kept_then(db, starts, ends, now, later_starts, later_ends, then):
    task = db.create_task("t")
    record(db, task.id, starts, ends, now)
    assert time_split(db, task.id, now=now, keep_summary=True) == split(
        starts, ends, IDLE, TAIL, now
    )
    assert summary_row(db, task.id) is not None
    record(db, task.id, later_starts, later_ends, then)
    every_end = {**ends, **later_ends}
    return time_split(db, task.id, now=then), split(
        [*starts, *later_starts], every_end, IDLE, TAIL, then
    )


def test_resuming_an_old_session_reopens_its_last_turn(db):
    """Weeks later the user resumes a session whose last turn ended with a subagent still
    running: its report, the next prompt, decides how long that turn ran."""
    now = BASE + 20 * DAY
    starts, ends = recent_work(now)
    old = now - 10 * DAY
    starts.append((old, "old", "o1", False))
    ends[("old", "o1")] = (old + 100, 1)  # background work at the end
    got, full = kept_then(db, starts, ends, now, [(now + 50, "old", "o2", True)], {}, now + 60)
    assert got == full


def test_a_prompt_counted_on_both_sides_of_the_cut_counts_once(db):
    now = BASE + 20 * DAY
    starts, ends = recent_work(now)
    x = now - 5 * DAY
    starts += [(x, "b", "b1", False)] + [(x + 7200.0 * k, "b", f"b{k}", False) for k in (1, 2)]
    starts += [(now - 3 * 3600.0, "b", "b3", False)]  # b is a recent session: the cut is x
    starts += [(x - 10, "a", "dup", False), (x + 10, "a", "dup", False)]  # no end recorded
    got, full = kept_then(db, starts, ends, now, [], {}, now + 1)
    assert got == full


def test_a_turn_ending_in_the_future_is_left_out(db):
    """A turn end from a clock that ran ahead: now clamps it until now passes it."""
    now = BASE + 20 * DAY
    starts, ends = recent_work(now)
    old = now - 3 * DAY
    starts.append((old, "skew", "k1", False))
    ends[("skew", "k1")] = (now + 5000, 0)
    got, full = kept_then(db, starts, ends, now, [], {}, now + 3000)
    assert got == full


def test_a_summary_older_than_the_horizon_moves_forward(db):
    """New sessions never delete a summary, so without a refresh the turns after its cut
    (read in full at every SessionStart) would only grow, and the summary save nothing."""
    task, starts, ends, now = kept(db, 5)
    cut, _ = summary_row(db, task.id)
    later = [
        (now + day * DAY + n * 60, f"d{day}", f"q{day}-{n}", False)
        for day in range(1, 8)
        for n in range(3)
    ]
    record(db, task.id, later, {}, now + 8 * DAY)
    assert summary_row(db, task.id)[0] == cut  # new sessions left it in place
    assert time_split(db, task.id, now=now + DAY) == split(
        starts + later, ends, IDLE, TAIL, now + DAY
    )
    assert summary_row(db, task.id)[0] == cut  # not two days old yet: read, not replaced
    at = now + 8 * DAY
    assert time_split(db, task.id, now=at, keep_summary=True) == split(
        starts + later, ends, IDLE, TAIL, at
    )
    assert summary_row(db, task.id)[0] > cut + 4 * DAY
    assert time_split(db, task.id, now=at) == split(starts + later, ends, IDLE, TAIL, at)
