"""Waiting is nobody's, in the team's figures too (docs/time.md, docs/team.md): the waits
a laptop recorded (retry back-offs, usage limits) go to the server and come out of
Claude's time in the team report and the views, to the second, as ``missioncache report``
takes them out on the laptop."""

from __future__ import annotations

import json
import time

from missioncache_harness.team import Team, count_rows, record_waits
from missioncache_harness.worklog import record_work


def _work(team: Team, base: float) -> None:
    """alice: 600 s with two overlapping back-offs (union 110 s), her second laptop 300 s
    inside it with a back-off inside hers; bob: 1200 s, no wait."""
    a = team.alice.task("checkout-v2")
    record_work(team.alice.db, a, base, [(600, 0)], session_id="s-a")
    record_waits(team.alice.db, a, "s-a", [(base + 100, 90), (base + 150, 60)])
    a2 = team.alice2.task("checkout-v2")
    record_work(team.alice2.db, a2, base, [(300, 0)], session_id="s-a2")
    record_waits(team.alice2.db, a2, "s-a2", [(base + 120, 30)])
    b = team.bob.task("checkout-v2")
    record_work(team.bob.db, b, base, [(1200, 0)], session_id="s-b")
    team.push_all()


def test_a_known_wait_comes_out_of_the_team_time_to_the_second(team: Team) -> None:
    _work(team, time.time() - 3 * 3600)
    psql = team.cluster.psql  # type: ignore[attr-defined]
    assert count_rows(psql, "waits") == 3

    checkout = team.report("task")["rows"][0]
    alice = checkout["people"]["alice"]
    assert (alice["seconds"], alice["claude_seconds"], alice["you_seconds"]) == (490, 490, 0)
    assert alice["waiting_seconds"] == 110  # 90 + 60 overlapping by 40; the other inside
    assert checkout["people"]["bob"]["seconds"] == 1200
    assert checkout["people"]["bob"]["waiting_seconds"] == 0
    assert (checkout["seconds"], checkout["waiting_seconds"]) == (1690, 110)
    by_person = {row["person"]: row for row in team.report("person")["rows"]}
    assert by_person["alice"]["seconds"] == 490
    by_day = team.report("day")
    assert by_day["total"]["seconds"] == 1690 and by_day["total"]["waiting_seconds"] == 110

    # the laptop's own report takes out the same seconds
    local = json.loads(
        team.alice.ok("report", "--period", "month", "--format", "json", "--task", "checkout-v2")
    )
    row = next(r for r in local["tasks"] if r["name"] == "checkout-v2")
    assert (row["seconds"], row["waiting"]) == (alice["seconds"], alice["waiting_seconds"])

    per_person = psql(
        "SELECT person, seconds, claude_seconds, you_seconds, waiting_seconds"
        " FROM missioncache.team_time_per_person ORDER BY 1",
        user="bob",
    )
    assert per_person.stdout.split() == ["alice|490|490|0|110", "bob|1200|1200|0|0"]
    per_day = psql(
        "SELECT sum(seconds), sum(waiting_seconds) FROM missioncache.team_time_per_day",
        user="alice",
    )
    assert per_day.stdout.strip() == "1690|110"


def test_a_server_from_before_waits_keeps_them_waiting_until_init_migrates_it(
    team: Team,
) -> None:
    """A server whose schema predates waits stores everything else; the waits stay on the
    laptop, the push says what the administrator does, and after ``--init`` they go."""
    psql = team.cluster.psql  # type: ignore[attr-defined]
    dropped = psql(
        "DROP TABLE missioncache.waits CASCADE;"
        " UPDATE missioncache.meta SET value = '1' WHERE key = 'schema_version'"
    )
    assert dropped.returncode == 0, dropped.stderr
    base = time.time() - 3 * 3600
    a = team.alice.task("checkout-v2")
    record_work(team.alice.db, a, base, [(600, 0)], session_id="s-a")
    record_waits(team.alice.db, a, "s-a", [(base + 100, 90)])
    said = team.alice.ok("team", "push")
    assert "older schema" in said and "--init" in said
    assert count_rows(psql, "turn_starts") == 1
    assert "events waiting to be pushed: 1" in team.alice.ok("team", "status")
    assert team.report("person")["rows"][0]["seconds"] == 600  # no waits known yet

    team.owner.ok("team", "setup", team.cluster.url(), "--person", "mc_owner", "--init")  # type: ignore[attr-defined]
    assert "pushed 1 event" in team.alice.ok("team", "push")
    assert count_rows(psql, "waits") == 1
    alice = team.report("person")["rows"][0]
    assert (alice["seconds"], alice["waiting_seconds"]) == (510, 90)
