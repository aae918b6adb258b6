"""The day summaries (missioncache_db.rollup) are a cache that never changes a figure: on
random histories arriving late and out of order (a turn end after midnight, old events
from another machine, a fork joining its parent, a changed idle timeout), every read
through them equals the full computation from every event, to the second and the token,
and the summaries kept up incrementally equal the ones rebuilt from scratch."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from missioncache_cost import Tokens, day_pricing, load_prices, task_rows
from missioncache_db import TaskDB, local_midnight_epoch
from missioncache_time import _daily as daily
from missioncache_time import _rollup as rollup
from missioncache_time import (
    insert_usage,
    process_pending,
    record_heartbeat,
    spool_turn_end,
    time_split,
)
from missioncache_time._fold import read_config
from missioncache_time._sessions import family_events, period_start
from missioncache_time._summary import waiting_seconds
from missioncache_time._turns import TimeSplit, clipped, merge, split, turn_intervals

BASE = 1_700_000_000
DAY = 86400
BATCHES = 4
_names = itertools.count()

sessions = st.sampled_from(["s1", "s2", "s3"])
prompts = st.lists(
    st.tuples(
        st.integers(0, 12 * DAY),  # when
        sessions,
        st.integers(0, 40),  # prompt number
        st.sampled_from(["prompt", "prompt", "synthetic", "control"]),
        st.one_of(st.none(), st.integers(0, 5 * 3600), st.integers(0, 40 * 3600)),  # None: no end
        st.sampled_from([0, 0, 1]),  # background work at the end
        st.sampled_from(["stop", "stop", "failure"]),
        st.booleans(),  # the fork's (else the parent's)
        st.integers(0, BATCHES - 1),  # the batch it arrives in
        st.integers(0, BATCHES - 1),  # the batch its end arrives in
    ),
    max_size=40,
)
messages = st.lists(
    st.tuples(st.integers(0, 12 * DAY), sessions, st.integers(1, 5000), st.integers(0, 3)),
    max_size=10,
)
waits = st.lists(
    st.tuples(st.integers(0, 12 * DAY), sessions, st.integers(1, 3600), st.integers(0, 3)),
    max_size=5,
)


def within_the_turn_limit(drawn: list) -> bool:
    """No turn longer than two days: a turn left running (background work, a failure) is
    not followed by its notification days later in the same session. The summaries, like
    the periods, assume it (docs/time.md, "Day summaries", known limit)."""
    by_session: dict = {}
    for when, sid, _n, kind, length, background, outcome, forked, _a, _e in drawn:
        by_session.setdefault((sid, forked), []).append((when, kind, length, background, outcome))
    for prompts in by_session.values():
        prompts.sort(key=lambda p: p[0])
        for (when, _k, length, background, outcome), following in zip(prompts, prompts[1:]):
            running = length is not None and (background or outcome == "failure")
            if running and following[1] == "synthetic" and following[0] - when > DAY:
                return False
    return True


def arrival(batch: int, *epochs: float) -> int:
    """The first batch at or after ``batch`` whose moment is past every epoch given."""
    while batch < BATCHES - 1 and max(epochs) > moment(batch):
        batch += 1
    return batch


def moment(batch: int) -> int:
    return BASE + (4 + 3 * batch) * DAY


def full_split(conn, family, since, now):
    idle, tail = read_config(conn)
    starts, ends = family_events(conn, family, None)
    found = split(starts, ends, idle, float(tail), now, since)
    return found.less_waiting(waiting_seconds(conn, family, since, now))


def full_days(conn, family, now):
    """Every day's split from every event, cut once and clipped to the day."""
    idle, tail = read_config(conn)
    starts, ends = family_events(conn, family, None)
    blocks, gaps = merge(turn_intervals(starts, ends, idle, float(tail), now))
    out = {}
    start = local_midnight_epoch(0, BASE - DAY)
    while start < now:
        end = local_midnight_epoch(-1, start + 12 * 3600)
        claude, you = clipped(blocks, start, end), clipped(gaps, start, end)
        total = round(claude + you)
        whole = min(total, round(claude))
        split_ = TimeSplit(total, whole, total - whole)
        out[start] = split_.less_waiting(waiting_seconds(conn, family, start, end))
        start = end
    return out


def tokens_of_rows(conn, family, since=None):
    prices, tokens = load_prices(), Tokens()
    for member in family:
        for row in task_rows(conn, member, since):
            tokens.add(row[0], row[1], tuple(row[2:7]), prices)
    return tokens


# mc_roots once for every example: each draws a database and task names of its own.
@settings(
    max_examples=150,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(prompts, messages, waits, st.integers(0, BATCHES), st.integers(0, BATCHES))
# A prompt recorded again days later counts once, at its first heartbeat: a day computed
# from a window that misses the first one counted it twice (the second's tail), in a
# sealed day and in the days after the seal.
@example(
    drawn=[(0, "s1", 0, "prompt", None, 0, "stop", False, 0, 0)] * 4
    + [(380681, "s1", 0, "prompt", None, 0, "stop", False, 0, 0)],
    drawn_messages=[],
    drawn_waits=[],
    fork_batch=0,
    idle_batch=0,
)
@example(
    drawn=[(0, "s1", 0, "prompt", None, 0, "stop", False, 0, 0)] * 4
    + [(985481, "s1", 0, "prompt", None, 0, "stop", False, 0, 0)],
    drawn_messages=[],
    drawn_waits=[],
    fork_batch=0,
    idle_batch=0,
)
def test_day_summaries_equal_the_full_computation(
    mc_roots, tmp_path_factory, drawn, drawn_messages, drawn_waits, fork_batch, idle_batch
):
    assume(within_the_turn_limit(drawn))
    path = tmp_path_factory.mktemp("db") / "tasks.db"
    name = f"t{next(_names)}"
    with TaskDB(path) as db:
        parent = db.create_task(name, repo=None)
        fork = None
        for batch in range(BATCHES):
            if batch == fork_batch:  # a fork joins, its events (old ones too) after it
                fork = db.create_fork(name, f"{name}-fork")
            if batch == idle_batch:
                db.conn.execute(
                    "INSERT OR REPLACE INTO config(key, value)"
                    " VALUES ('idle_timeout_seconds', '600')"
                )
            for when, sid, number, kind, length, background, outcome, forked, at, end_at in drawn:
                epoch = BASE + when
                owner = fork if forked and fork is not None else parent
                if forked and fork is None:
                    continue
                if arrival(max(at, fork_batch if forked else 0), epoch) == batch:
                    record_heartbeat(
                        db, owner.id, f"{sid}-{int(forked)}", None, epoch, f"p{number}", kind
                    )
                if length is not None and arrival(end_at, epoch + length) == batch:
                    spool_turn_end(
                        db,
                        f"{sid}-{int(forked)}",
                        f"p{number}",
                        outcome,
                        background,
                        epoch + length,
                    )
            records = []
            for when, sid, count, at in drawn_messages:
                if arrival(at, BASE + when) == batch:
                    message = [f"m{when}{sid}", "claude-sonnet-4-5", None, None, None,
                               float(BASE + when), count, count // 2, 0, 0, count * 3]  # fmt: skip
                    records.append({"rows": [(f"{sid}-0", *message[:5], message[5], *message[6:])]})
            for when, sid, seconds, at in drawn_waits:
                if arrival(at, BASE + when) == batch:
                    records.append(
                        {"rows": [], "waits": [(f"{sid}-0", float(BASE + when), float(seconds))]}
                    )
            if records:
                with db.conn:
                    insert_usage(db.conn, records)
            process_pending(db, now=moment(batch))
            rollup.refresh(db.conn, moment(batch), pricing=day_pricing())
        now = moment(BATCHES - 1) + DAY
        process_pending(db, now=now)
        assert rollup.refresh(db.conn, now, pricing=day_pricing())
        idle, tail = read_config(db.conn)
        sealed_cut = rollup.sealed_at(db.conn, idle, float(tail), now)
        assert sealed_cut is not None
        kept = db.conn.execute("SELECT * FROM day_rollup ORDER BY task_id, start").fetchall()
        totals = db.conn.execute("SELECT * FROM task_rollup ORDER BY task_id").fetchall()
        for task in [parent] + ([fork] if fork else []):
            family = [task.id] + ([fork.id] if task is parent and fork else [])
            for period in ("all", "month", "week", "today"):
                since = period_start(period, now)
                assert time_split(db, task.id, period, now) == full_split(
                    db.conn, family, since, now
                )
                assert (
                    time_split(db, task.id, period, now).waiting
                    == full_split(db.conn, family, since, now).waiting
                )
                cached = daily.window_tokens(db.conn, task.id, since, day_pricing(), now)
                if since is not None and since >= sealed_cut:  # today: from the events
                    assert cached is None
                    continue
                expected = tokens_of_rows(db.conn, family, since)
                assert (cached.as_json(), round(cached.known, 9)) == (
                    expected.as_json(),
                    round(expected.known, 9),
                )
            cut, sealed = daily.sealed_days(db.conn, task.id, None, now, day_pricing())
            days = full_days(db.conn, family, now)
            for item in sealed:
                start = next(s for s in days if time_label(s) == item.day)
                assert item.split == days[start] and item.split.waiting == days[start].waiting
            shown = {item.day for item in sealed if item.split.total}
            assert shown == {time_label(s) for s, v in days.items() if v.total and s < cut}
        rollup.rebuild(db.conn, day_pricing(), now)  # rebuilt from the events: the very same rows
        assert (
            db.conn.execute("SELECT * FROM day_rollup ORDER BY task_id, start").fetchall() == kept
        )
        assert db.conn.execute("SELECT * FROM task_rollup ORDER BY task_id").fetchall() == totals


def time_label(start: float) -> str:
    import time

    return time.strftime("%Y-%m-%d", time.localtime(start + 12 * 3600))


def test_a_fold_of_recent_events_leaves_the_summaries_in_use(mc_roots, tmp_path):
    """The fold gives each new row its task (an UPDATE): recent rows mark no day, so the
    summaries stay usable and ``rollup_dirty`` stays empty through months of folds that no
    reader follows (a mark per row made tasks.db a tenth bigger and every read recompute)."""
    with TaskDB(tmp_path / "tasks.db") as db:
        task = db.create_task("folded", repo=None)
        now = BASE + 10 * DAY
        assert rollup.refresh(db.conn, now, pricing=day_pricing())
        for turn in range(6):
            epoch = now + turn * 600
            record_heartbeat(db, task.id, "s1", None, epoch, f"p{turn}", "prompt")
            spool_turn_end(db, "s1", f"p{turn}", "stop", 0, epoch + 120)
            row = [f"m{turn}", "claude-sonnet-4-5", None, None, None, epoch + 60, 10, 5, 0, 0, 30]
            with db.conn:
                insert_usage(db.conn, [{"rows": [("s1", *row)]}])
            process_pending(db, now=epoch + 300)
        unassigned = db.conn.execute("SELECT count(*) FROM usage WHERE task_id IS NULL")
        assert unassigned.fetchone() == (0,)
        assert db.conn.execute("SELECT count(*) FROM rollup_dirty").fetchone() == (0,)
        idle, tail = read_config(db.conn)
        assert rollup.sealed_at(db.conn, idle, float(tail), now + DAY) is not None
        # A row of a sealed day given another task still marks it.
        old = ["m-old", "claude-sonnet-4-5", None, None, None, float(BASE), 10, 5, 0, 0, 30]
        with db.conn:
            insert_usage(db.conn, [{"rows": [("s9", *old)]}])
            db.conn.execute("DELETE FROM rollup_dirty")  # the insert's own mark
            db.conn.execute("UPDATE usage SET task_id = ? WHERE message_key = 'm-old'", (task.id,))
        marks = db.conn.execute("SELECT task_id, lo FROM rollup_dirty").fetchall()
        assert (task.id, float(BASE)) in marks


def test_summaries_of_another_version_or_price_table_are_not_read(mc_roots, tmp_path):
    """Rows a refresh could not rebuild (a busy or read-only tasks.db) are never served
    when they were made by another version or priced with another table."""
    with TaskDB(tmp_path / "tasks.db") as db:
        task = db.create_task("kept", repo=None)
        record_heartbeat(db, task.id, "s1", None, BASE, "p1", "prompt")
        spool_turn_end(db, "s1", "p1", "stop", 0, BASE + 600)
        process_pending(db, now=BASE + DAY)
        now = BASE + 10 * DAY
        assert rollup.refresh(db.conn, now, pricing=day_pricing())
        assert daily.sealed_days(db.conn, task.id, None, now, day_pricing()) is not None
        idle, tail = read_config(db.conn)
        with db.conn:
            db.conn.execute("UPDATE rollup_meta SET value = 'other' WHERE key = 'prices'")
        assert daily.sealed_days(db.conn, task.id, None, now, day_pricing()) is None
        with db.conn:
            db.conn.execute("UPDATE rollup_meta SET value = 2 WHERE key = 'version'")
        assert rollup.sealed_at(db.conn, idle, float(tail), now) is None


def test_a_database_of_the_older_version_stops_marking_every_folded_row(mc_roots, tmp_path):
    """Version 2's update triggers marked every row a fold touched; a refresh of this
    version replaces them with ones that mark only what reaches a sealed day."""
    with TaskDB(tmp_path / "tasks.db") as db:
        assert rollup.refresh(db.conn, BASE, pricing=day_pricing())
        with db.conn:
            db.conn.execute("DROP TRIGGER rollup_usage_update")
            db.conn.execute(
                "CREATE TRIGGER rollup_usage_update AFTER UPDATE OF task_id ON usage BEGIN"
                " INSERT INTO rollup_dirty VALUES (OLD.task_id, OLD.epoch, OLD.epoch); END"
            )
            db.conn.execute("UPDATE rollup_meta SET value = 2 WHERE key = 'version'")
        assert rollup.refresh(db.conn, BASE + DAY, pricing=day_pricing())
        (sql,) = db.conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'rollup_usage_update'"
        ).fetchone()
        assert "WHEN" in sql


def test_deleting_the_counted_copy_of_a_message_moves_its_cost_to_the_other(mc_roots, tmp_path):
    """A message in two sessions' transcripts counts once, on its first row; when that row
    goes (its task deleted), the other copy counts, and its task's sealed days say so."""
    with TaskDB(tmp_path / "tasks.db") as db:
        first, second = db.create_task("first", repo=None), db.create_task("second", repo=None)
        for task, sid in ((first, "s1"), (second, "s2")):
            record_heartbeat(db, task.id, sid, None, BASE, "p1", "prompt")
            row = ["msg_1:req_1", "claude-sonnet-4-5", None, None, "p1", BASE + 10, 10, 5, 0, 0, 30]
            with db.conn:
                insert_usage(db.conn, [{"rows": [(sid, *row)]}])
        process_pending(db, now=BASE + DAY)
        now = BASE + 10 * DAY
        assert rollup.refresh(db.conn, now, pricing=day_pricing())
        assert daily.window_tokens(db.conn, second.id, None, day_pricing(), now).total == 0
        with db.conn:
            db.conn.execute("DELETE FROM usage WHERE session_id = 's1'")
        assert rollup.refresh(db.conn, now, pricing=day_pricing())
        kept = daily.window_tokens(db.conn, second.id, None, day_pricing(), now)
        assert kept.as_json() == tokens_of_rows(db.conn, [second.id]).as_json()
        assert kept.total == 45
