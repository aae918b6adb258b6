"""Time from turns (docs/time.md): the rules by example, then as properties."""

from __future__ import annotations

import os
import random
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from missioncache_db import TaskDB
from missioncache_time import (
    TimeSplit,
    format_split,
    process_pending,
    record_heartbeat,
    spool_turn_end,
    time_split,
)
from missioncache_time._turns import split

IDLE, TAIL = 300.0, 120.0
NOW = 1_800_000_000.0


def s(epoch, sid="s1", pid=None, synthetic=False):
    return (epoch, sid, pid, synthetic)


# -- the rules, by example -------------------------------------------------------------


def test_a_long_autonomous_turn_counts_its_whole_length():
    """40 minutes of Claude working on one prompt: 40 minutes, not the 2-minute tail."""
    got = split([s(0, pid="p1")], {("s1", "p1"): (2400, 0)}, IDLE, TAIL, NOW)
    assert got == TimeSplit(2400, 2400, 0)


def test_the_judged_scenario():
    """Idle timeout 5 s: a 12 s turn, a 15 s idle gap, a quick prompt: the gap is nobody's."""
    starts = [s(0, pid="p1"), s(27, pid="p2")]
    ends = {("s1", "p1"): (12, 0), ("s1", "p2"): (28, 0)}
    assert split(starts, ends, 5, TAIL, NOW) == TimeSplit(13, 13, 0)


def test_reading_time_within_the_idle_timeout_is_yours():
    starts = [s(0, pid="p1"), s(100, pid="p2")]
    ends = {("s1", "p1"): (60, 0), ("s1", "p2"): (130, 0)}
    assert split(starts, ends, IDLE, TAIL, NOW) == TimeSplit(130, 90, 40)


def test_an_interrupted_turn_ends_at_the_next_prompt_or_after_the_tail():
    # Esc fires no hook: p1 has no end. The next prompt 50 s later bounds it.
    starts = [s(0, pid="p1"), s(50, pid="p2")]
    assert split(starts, {("s1", "p2"): (60, 0)}, IDLE, TAIL, NOW) == TimeSplit(60, 60, 0)
    # Nothing follows: the assumed-work tail, never more.
    assert split([s(0, pid="p1")], {}, IDLE, TAIL, NOW).total == TAIL


def test_parallel_sessions_on_one_task_are_merged_never_summed():
    starts = [s(0, "a", "p1"), s(10, "b", "p2")]
    ends = {("a", "p1"): (100, 0), ("b", "p2"): (90, 0)}
    assert split(starts, ends, IDLE, TAIL, NOW) == TimeSplit(100, 100, 0)


def test_background_work_continues_until_its_report():
    """Stop with a subagent running, its <task-notification> 20 minutes later: Claude's."""
    starts = [s(0, pid="p1"), s(1200, pid="p2", synthetic=True)]
    ends = {("s1", "p1"): (60, 1), ("s1", "p2"): (1210, 0)}
    assert split(starts, ends, IDLE, TAIL, NOW) == TimeSplit(1210, 1210, 0)
    # The same stop without background work: a 19-minute gap is nobody's.
    ends[("s1", "p1")] = (60, 0)
    assert split(starts, ends, IDLE, TAIL, NOW) == TimeSplit(70, 70, 0)


def test_repeated_stop_of_a_continued_turn_and_duplicate_prompts_count_once():
    starts = [s(0, pid="p1"), s(5, pid="p1")]  # the same prompt recorded twice
    assert split(starts, {("s1", "p1"): (30, 0)}, IDLE, TAIL, NOW) == TimeSplit(30, 30, 0)


def test_heartbeats_without_turn_ends_keep_their_old_meaning():
    """History from before turn ends: gaps within the idle timeout plus the tail."""
    starts = [s(0), s(200), s(450), s(2000)]
    # 0..450 is one session (gaps 200, 250 <= 300) + tail; 2000 alone gets the tail.
    assert split(starts, {}, IDLE, TAIL, NOW).total == 450 + TAIL + TAIL


def test_future_timestamps_are_clamped_to_now():
    starts = [s(NOW + 3600, pid="p1")]
    assert split(starts, {("s1", "p1"): (NOW + 7200, 0)}, IDLE, TAIL, NOW).total == 0
    starts = [s(NOW - 10, pid="p1")]
    assert split(starts, {("s1", "p1"): (NOW + 7200, 0)}, IDLE, TAIL, NOW).total == 10


def test_a_prompt_stamped_in_the_future_adds_nothing_while_nobody_works():
    """Issue 35 item 12: another machine's clock runs an hour ahead. Its prompt must not
    turn the quiet minutes after this machine's last turn into "you" time that grows
    while nobody works; it counts once its time comes, as any prompt."""
    starts = [s(NOW - 550, pid="p1"), s(NOW + 3600, sid="s2", pid="q1")]
    ends = {("s1", "p1"): (NOW - 250, 0), ("s2", "q1"): (NOW + 3900, 0)}
    figures = [split(starts, ends, IDLE, TAIL, NOW + later) for later in (0, 20, 250)]
    assert [tuple(f) for f in figures] == [(300, 300, 0)] * 3
    assert tuple(split(starts, ends, IDLE, TAIL, NOW + 4000)) == (600, 600, 0)


def test_a_period_counts_only_its_part_of_a_session_across_midnight():
    midnight = time.mktime((2026, 3, 11, 0, 0, 0, 0, 0, -1))
    starts = [s(midnight - 600, pid="p1")]  # 23:50 to 00:20, one long turn
    ends = {("s1", "p1"): (midnight + 1200, 0)}
    now = midnight + 3600
    assert split(starts, ends, IDLE, TAIL, now, since=midnight).total == 1200
    assert split(starts, ends, IDLE, TAIL, now).total == 1800


def test_time_split_behaves_like_a_named_tuple():
    got = TimeSplit(90, 60, 30)
    assert tuple(got) == (90, 60, 30) and got[1] == 60 and len(got) == 3
    assert (got.total, got.claude, got.you) == (90, 60, 30)
    total, claude, you = got
    assert got == TimeSplit(total, claude, you) and got != (90, 60, 30)
    assert repr(got) == "TimeSplit(total=90, claude=60, you=30)"


def test_format_split():
    assert format_split(TimeSplit(4320, 3480, 840)) == "1h 12m (Claude 58m, you 14m)"
    assert format_split(TimeSplit(0, 0, 0)) == "0s (Claude 0s, you 0s)"


# -- properties ------------------------------------------------------------------------

sessions = st.sampled_from(["a", "b", "c"])
events = st.lists(
    st.tuples(
        st.floats(0, 20_000),  # start offset
        sessions,
        st.integers(0, 40),  # prompt number
        st.booleans(),  # synthetic
        st.one_of(st.none(), st.floats(0, 5000)),  # turn length, None: no end recorded
        st.integers(0, 2),  # background tasks at the end
    ),
    max_size=25,
)


def as_inputs(drawn, base=0.0):
    starts, ends = [], {}
    for offset, sid, number, synthetic, length, background in drawn:
        pid = f"p{number}"
        starts.append((base + offset, sid, pid, synthetic))
        if length is not None:
            key = (sid, pid)
            value = (base + offset + length, background)
            ends[key] = max(ends.get(key, value), value)
    return starts, ends


@given(events, st.floats(0, 30_000), st.randoms(use_true_random=False))
def test_time_is_never_negative_nor_more_than_the_span_and_ignores_order(drawn, now, rnd):
    starts, ends = as_inputs(drawn)
    got = split(starts, ends, IDLE, TAIL, now)
    assert got.total >= 0 and got.claude >= 0 and got.you >= 0
    assert got.total == got.claude + got.you
    if starts:
        first = min(min(e[0] for e in starts), now)
        last = max([e[0] for e in starts] + [e[0] for e in ends.values()])
        assert got.total <= max(0.0, min(now, last + TAIL) - first) + 1
    shuffled = starts[:]
    rnd.shuffle(shuffled)
    reordered = dict(sorted(ends.items(), key=lambda _: rnd.random()))
    assert split(shuffled, reordered, IDLE, TAIL, now) == got


@given(events, st.floats(0, 30_000), st.floats(0, 30_000))
def test_a_period_never_counts_more_than_a_longer_one(drawn, now, since):
    starts, ends = as_inputs(drawn)
    whole = split(starts, ends, IDLE, TAIL, now)
    part = split(starts, ends, IDLE, TAIL, now, since=since)
    assert 0 <= part.total <= whole.total
    assert part.claude <= whole.claude + 1 and part.you <= whole.you + 1


@given(events)
def test_a_parallel_copy_of_the_same_work_adds_nothing(drawn):
    starts, ends = as_inputs(drawn)
    copy = [(e, f"{sid}-copy", pid, syn) for e, sid, pid, syn in starts]
    copy_ends = {(f"{sid}-copy", pid): v for (sid, pid), v in ends.items()}
    both = split(starts + copy, {**ends, **copy_ends}, IDLE, TAIL, 1e9)
    assert both == split(starts, ends, IDLE, TAIL, 1e9)


@settings(max_examples=40)
@given(events, st.randoms(use_true_random=False))
def test_recorded_through_the_database_in_any_order_and_processed_at_any_moment(
    tmp_path_factory, drawn, rnd
):
    """Heartbeats and turn ends arrive in any order, some through the spool, with
    processing run at random moments: the time equals the pure function of the events."""
    base = 1_700_000_000.0
    starts, ends = as_inputs(drawn, base)
    root = tmp_path_factory.mktemp("db")
    saved = {k: os.environ.get(k) for k in ("MISSIONCACHE_ROOT", "CLAUDE_CONFIG_DIR")}
    os.environ.update(MISSIONCACHE_ROOT=str(root / "mc"), CLAUDE_CONFIG_DIR=str(root / "c"))
    try:
        got = _record_in_random_order(starts, ends, rnd, base)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    assert got == split(starts, ends, IDLE, TAIL, base + 30_000)


def _record_in_random_order(starts, ends, rnd, base):
    with TaskDB() as db:
        task = db.create_task("t", repo=None)
        writes = [("start", e) for e in starts]
        writes += [("end", (k, v)) for k, v in ends.items()]
        rnd.shuffle(writes)
        for kind, item in writes:
            if kind == "start":
                epoch, sid, pid, synthetic = item
                kind_name = "synthetic" if synthetic else "prompt"
                record_heartbeat(db, task.id, sid, None, epoch, pid, kind_name)
            else:
                (sid, pid), (epoch, background) = item
                spool_turn_end(db, sid, pid, "stop", background, epoch)
            if rnd.random() < 0.3:
                process_pending(db, now=base + 30_000)
        process_pending(db, now=base + 30_000)
        return time_split(db, task.id, now=base + 30_000)


def test_the_database_keeps_the_last_end_of_a_prompt(db):
    task = db.create_task("t")
    record_heartbeat(db, task.id, "s1", None, NOW - 100, "p1")
    spool_turn_end(db, "s1", "p1", "stop", 0, NOW - 90)
    spool_turn_end(db, "s1", "p1", "stop", 0, NOW - 40)  # Stop again after a continuation
    spool_turn_end(db, "s1", "p1", "stop", 0, NOW - 60)  # arrives late, changes nothing
    process_pending(db, now=NOW)
    assert time_split(db, task.id, now=NOW) == TimeSplit(60, 60, 0)


def test_turn_ends_reach_the_database_through_a_busy_spool(db):
    """Recorded while no process holds the lock or while one does: never lost, never twice."""
    task = db.create_task("t")
    record_heartbeat(db, task.id, "s1", None, NOW - 100, "p1")
    assert spool_turn_end(db, "s1", "p1", "failure", 0, NOW - 50)
    assert spool_turn_end(db, "s1", "../bad", "stop", 0, NOW - 50) is False
    for _ in range(3):
        process_pending(db, now=NOW)
    rows = db.conn.execute("SELECT prompt_id, outcome FROM turn_ends").fetchall()
    assert rows == [("p1", "failure")]
    assert time_split(db, task.id, now=NOW).claude == 50


def test_random_arrival_matches_a_single_pass_for_many_events(mc_roots):
    """A bigger mixed history than the property draws, recorded in a shuffled order."""
    rnd = random.Random(7)
    starts, ends, t = [], {}, 1_700_000_000.0
    for n in range(300):
        t += rnd.choice([5, 60, 250, 400, 3000])
        sid = rnd.choice(["a", "b"])
        starts.append((t, sid, f"p{n}", rnd.random() < 0.1))
        if rnd.random() < 0.8:
            ends[(sid, f"p{n}")] = (t + rnd.choice([1, 30, 600, 2400]), rnd.choice([0, 0, 1]))
    with TaskDB() as db:
        task = db.create_task("t")
        order = list(range(len(starts)))
        rnd.shuffle(order)
        for i in order:
            epoch, sid, pid, synthetic = starts[i]
            kind = "synthetic" if synthetic else "prompt"
            record_heartbeat(db, task.id, sid, None, epoch, pid, kind)
            if (sid, pid) in ends:
                spool_turn_end(db, sid, pid, "stop", ends[sid, pid][1], ends[sid, pid][0])
        process_pending(db, now=t + 10_000)
        assert time_split(db, task.id, now=t + 10_000) == split(
            starts, ends, IDLE, TAIL, t + 10_000
        )


def test_a_heartbeat_from_the_future_never_pins_last_worked_on_there(db):
    task = db.create_task("t")
    record_heartbeat(db, task.id, "s1", None, time.time() + 86400 * 30, "p1")
    stamp = db.get_task(task.id).last_worked_on
    assert stamp <= time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time()))
    process_pending(db)
    assert time_split(db, task.id).total == 0  # clamped to now: no time that has not happened


def test_a_control_prompt_that_starts_a_turn_counts_the_turn_as_claudes():
    """A `y` approving a plan (or a slash command that runs a prompt) starts a 6-minute
    turn: Claude's 360 s, where skipping the prompt used to count nothing of it."""
    from missioncache_time._turns import CONTROL

    starts = [s(0, pid="p1"), (100.0, "s1", "p2", CONTROL)]
    ends = {("s1", "p1"): (60, 0), ("s1", "p2"): (460, 0)}
    # the first turn 60 s, your 40 s reading the plan, then Claude's 6 minutes
    assert split(starts, ends, IDLE, TAIL, NOW) == TimeSplit(460, 420, 40)


def test_a_bare_control_answer_counts_nothing_but_ends_the_turn_before_it():
    from missioncache_time._turns import CONTROL

    starts = [s(0, pid="p1"), (50.0, "s1", "n1", CONTROL)]  # p1 interrupted, then `n`
    assert split(starts, {}, IDLE, TAIL, NOW) == TimeSplit(50, 50, 0)  # no tail for `n`


def test_a_failed_turn_with_an_agent_running_is_claudes_until_the_agents_report():
    """StopFailure carries no background tasks; when the session's next prompt is the
    agent's <task-notification>, the agent's minutes in between were Claude's."""
    starts = [s(0, pid="p1"), s(900, pid="p2", synthetic=True)]
    ends = {("s1", "p1"): (60, -1), ("s1", "p2"): (930, 0)}  # -1: a failure's end
    assert split(starts, ends, IDLE, TAIL, NOW) == TimeSplit(930, 930, 0)
    starts[1] = s(900, pid="p2")  # a human prompt 14 minutes later: nobody's gap
    assert split(starts, ends, IDLE, TAIL, NOW) == TimeSplit(90, 90, 0)
