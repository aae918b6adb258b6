"""The SQL views compute time by the same rules as the product's time model in Python
(``missioncache_time``, which the team report uses): on random turns, with and without
ends, background work, synthetic and control prompts, several sessions at once, and
waits (retry back-offs) that overlap each other, turns and gaps, the two agree to the
second (docs/team.md)."""

from __future__ import annotations

import random
import time

import psycopg

from missioncache_teamdb import schema
from missioncache_teamdb.report import collect


def _random_events(rng: random.Random, base: float) -> tuple[list, list]:
    starts, ends = [], []
    for session in range(rng.randint(1, 3)):
        moment = base + rng.uniform(0, 3000)
        for turn in range(rng.randint(1, 8)):
            prompt = f"p{session}-{turn}"
            kind = rng.choice([0, 0, 0, 1, 2])
            starts.append((f"s{session}-{turn}", "task", f"sess{session}", prompt, moment, kind))
            if rng.random() < 0.2:  # the same prompt seen twice: counted once, at its first
                starts.append((f"d{session}-{turn}", "task", f"sess{session}", prompt,
                               moment + rng.uniform(0, 50), kind))  # fmt: skip
            length = rng.uniform(0, 900)
            if rng.random() < 0.8:
                background = rng.choice([0, 0, 0, 1, -1])
                ends.append((f"e{session}-{turn}", f"sess{session}", prompt, moment + length,
                             background))  # fmt: skip
            moment += length + rng.uniform(0, 700)
    return starts, ends


def _random_waits(rng: random.Random, base: float) -> list:
    waits = []
    for n in range(rng.randint(0, 6)):
        epoch = base + rng.uniform(0, 6000)
        waits.append((f"w{n}", f"sess{rng.randint(0, 2)}", epoch, rng.uniform(1, 400)))
    return waits


def test_views_and_report_agree_on_random_turns(mc_postgres: object) -> None:
    with psycopg.connect(mc_postgres.url(), autocommit=True) as conn:  # type: ignore[attr-defined]
        schema.init(conn)
        for seed in range(8):
            conn.execute(
                "TRUNCATE missioncache.tasks, missioncache.turn_starts, missioncache.turn_ends,"
                " missioncache.waits"
            )
            _compare(conn, random.Random(seed))


def _compare(conn: psycopg.Connection, rng: random.Random) -> None:
    base = time.time() - 5 * 86400
    for person in ("alice", "bob"):
        starts, ends = _random_events(rng, base)
        conn.execute(
            "INSERT INTO missioncache.tasks (person, uid, machine, name, team_key, changed)"
            " VALUES (%s, 'task', 'm', 'checkout', 'checkout', 0)",
            (person,),
        )
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO missioncache.turn_starts (person, id, machine, task_uid,"
                " session_id, prompt_id, epoch, kind) VALUES (%s, %s, 'm', %s, %s, %s, %s, %s)",
                [(person, *row) for row in starts],
            )
            cursor.executemany(
                "INSERT INTO missioncache.turn_ends (person, id, machine, session_id,"
                " prompt_id, epoch, background) VALUES (%s, %s, 'm', %s, %s, %s, %s)",
                [(person, *row) for row in ends],
            )
            cursor.executemany(
                "INSERT INTO missioncache.waits (person, id, machine, task_uid, session_id,"
                " epoch, seconds) VALUES (%s, %s, 'm', 'task', %s, %s, %s)",
                [(person, *row) for row in _random_waits(rng, base)],
            )
    views = {
        person: (seconds, claude, you, waiting)
        for person, seconds, claude, you, waiting in conn.execute(
            "SELECT person, seconds, claude_seconds, you_seconds, waiting_seconds"
            " FROM missioncache.team_time_per_person"
        )
    }
    per_day = dict(
        conn.execute(
            "SELECT person, sum(seconds) FROM missioncache.team_time_per_day GROUP BY person"
        ).fetchall()
    )
    report = collect(conn, "all", "person").as_json()
    python = {
        row["person"]: (
            row["seconds"],
            row["claude_seconds"],
            row["you_seconds"],
            row["waiting_seconds"],
        )
        for row in report["rows"]
    }
    assert views == python
    for person, (seconds, *_parts) in python.items():
        assert abs(per_day[person] - seconds) <= 1  # a day's rounding at most
