"""Faults against a real PostgreSQL: the server down during a push, a push killed midway,
a member writing, changing or deleting another person's rows, a clock two days ahead
(docs/team.md). The server, not our client, is what refuses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from missioncache_harness.polling import poll_until
from missioncache_harness.team import (
    TEAM_TABLES,
    Team,
    count_rows,
    member_url,
    record_messages,
    record_waits,
)
from missioncache_harness.worklog import record_work


def _seconds(team: Team, person: str) -> int:
    done = team.bob.ok("team", "report", "--by", "person", "--format", "json")
    rows = {row["person"]: row for row in json.loads(done)["rows"]}
    return int(rows[person]["seconds"]) if person in rows else 0


def test_server_down_events_wait_person_told_once_then_sent(team: Team) -> None:
    task = team.alice.task("checkout-v2")
    record_work(team.alice.db, task, time.time() - 3600, [(600, 0)], session_id="s1")
    team.cluster.stop()  # type: ignore[attr-defined]

    down = team.alice.cli("team", "push")
    assert down.returncode == 1
    assert "not reached" in down.stderr and "wait here" in down.stderr
    assert "events waiting to be pushed: 3" in team.alice.ok("team", "status")

    # the hooks' detached pushes: the person is told once, not at every turn
    notice = team.alice.env.data_root / "team" / "notice.txt"
    for _ in range(2):
        auto = [sys.executable, "-m", "missioncache_team", "auto"]
        subprocess.run(auto, env=team.alice.env.env, timeout=120, check=True)
    assert notice.read_text().count("not reached") == 1

    team.cluster.start()  # type: ignore[attr-defined]
    assert "pushed 3 events" in team.alice.ok("team", "push")
    assert _seconds(team, "alice") == 600
    assert "events waiting to be pushed: 0" in team.alice.ok("team", "status")


def test_push_killed_midway_stores_nothing_then_everything_once(team: Team) -> None:
    task = team.alice.task("checkout-v2")
    record_work(team.alice.db, task, time.time() - 3600, [(300, 30), (300, 0)], session_id="s1")
    record_messages(team.alice.db, task, "s1", [(time.time() - 3500, "m", (1, 2, 0, 0, 0))])
    # the owner holds a lock on the last table the push writes: the push stops inside its
    # transaction, after its turn starts went in, and is killed there
    holder = psycopg.connect(team.cluster.url())  # type: ignore[attr-defined]
    holder.execute("LOCK TABLE missioncache.messages IN ACCESS EXCLUSIVE MODE")
    watcher = psycopg.connect(team.cluster.url(), autocommit=True)  # type: ignore[attr-defined]
    push = team.alice.spawn("team", "push")
    try:

        def waiting_on_lock() -> bool:
            row = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE usename = 'alice'"
                " AND wait_event_type = 'Lock'"
            ).fetchone()
            return bool(row and row[0])

        poll_until(waiting_on_lock, timeout=60)
        os.killpg(push.pid, signal.SIGKILL)
        push.communicate(timeout=30)
    finally:
        holder.rollback()
        holder.close()
        watcher.close()
    psql = team.cluster.psql  # type: ignore[attr-defined]
    poll_until(lambda: "alice" not in psql("SELECT usename FROM pg_stat_activity").stdout, 30)
    assert [count_rows(psql, t) for t in TEAM_TABLES] == [0, 0, 0, 0, 0]  # all or nothing

    assert "pushed" in team.alice.ok("team", "push")
    team.alice.ok("team", "push")
    assert [count_rows(psql, t) for t in TEAM_TABLES] == [1, 2, 2, 1, 0]
    assert _seconds(team, "alice") == 630


@pytest.mark.parametrize("table", TEAM_TABLES)
def test_a_member_cannot_touch_another_persons_rows(team: Team, table: str) -> None:
    for laptop in (team.alice, team.bob):
        task = laptop.task("checkout-v2")
        record_work(laptop.db, task, time.time() - 3600, [(600, 0)], session_id=laptop.name)
        record_messages(laptop.db, task, laptop.name, [(time.time() - 3500, "m", (1, 2, 0, 0, 0))])
        record_waits(laptop.db, task, laptop.name, [(time.time() - 3400, 30)])
        laptop.ok("team", "push")
    psql = team.cluster.psql  # type: ignore[attr-defined]
    bobs = psql(f"SELECT count(*) FROM missioncache.{table} WHERE person = 'bob'").stdout.strip()
    assert bobs != "0"
    url = member_url(team.cluster.url())  # type: ignore[attr-defined]
    with psycopg.connect(url, user="alice", autocommit=True) as alice:
        qualified = f"missioncache.{table}"
        seen = alice.execute(f"SELECT DISTINCT person FROM {qualified}").fetchall()
        assert seen == [("alice",)]  # another person's rows cannot be read
        changed = alice.execute(f"UPDATE {qualified} SET person = 'alice' WHERE person = 'bob'")
        assert changed.rowcount == 0
        assert alice.execute(f"DELETE FROM {qualified} WHERE person = 'bob'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # row-level security
            alice.execute(_insert_as_bob(table))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # her row made bob's
            alice.execute(f"UPDATE {qualified} SET person = 'bob'")
        assert alice.execute(f"DELETE FROM {qualified}").rowcount >= 1  # her own only
    after = psql(f"SELECT count(*) FROM missioncache.{table} WHERE person = 'bob'").stdout.strip()
    assert after == bobs


def _insert_as_bob(table: str) -> str:
    values = {
        "tasks": "(person, uid, machine, name, team_key, changed)"
        " VALUES ('bob', 'f00d', 'x', 'n', 'n', 0)",
        "turn_starts": "(person, id, machine, task_uid, session_id, epoch, kind)"
        " VALUES ('bob', 'f00d', 'x', 't', 's', 1, 0)",
        "turn_ends": "(person, id, machine, session_id, prompt_id, epoch, background)"
        " VALUES ('bob', 'f00d', 'x', 's', 'p', 1, 0)",
        "messages": "(person, id, machine, task_uid, session_id, epoch, input_tokens,"
        " output_tokens, cache_5m_tokens, cache_1h_tokens, cache_read_tokens)"
        " VALUES ('bob', 'f00d', 'x', 't', 's', 1, 0, 0, 0, 0, 0)",
        "waits": "(person, id, machine, task_uid, session_id, epoch, seconds)"
        " VALUES ('bob', 'f00d', 'x', 't', 's', 1, 30)",
    }
    return f"INSERT INTO missioncache.{table} {values[table]}"


def test_a_clock_two_days_ahead_makes_no_time_that_has_not_happened(team: Team) -> None:
    now = time.time()
    a = team.alice.task("checkout-v2")
    record_work(team.alice.db, a, now - 3600, [(600, 0)], session_id="s-now")
    # alice's second laptop runs two days ahead: its turns are stamped in the future
    a2 = team.alice2.task("checkout-v2")
    record_work(team.alice2.db, a2, now + 2 * 86400, [(900, 0)], session_id="s-ahead")
    b = team.bob.task("checkout-v2")
    record_work(team.bob.db, b, now - 3600, [(300, 0)], session_id="s-bob")
    for laptop in (team.alice, team.alice2, team.bob):
        laptop.ok("team", "push")
    assert _seconds(team, "alice") == 600
    assert _seconds(team, "bob") == 300
    per_person = team.cluster.psql(  # type: ignore[attr-defined]
        "SELECT person, seconds FROM missioncache.team_time_per_person ORDER BY 1", user="bob"
    )
    assert per_person.stdout.split() == ["alice|600", "bob|300"]
