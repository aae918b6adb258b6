"""The team report and views against a real PostgreSQL: three laptops, two people,
overlapping turns with known truth, to the second and to the token (docs/team.md)."""

from __future__ import annotations

import shutil
import time

import pytest

from missioncache_harness.team import Team, count_rows, record_messages
from missioncache_harness.worklog import record_work

OPUS = "claude-opus-4-7"  # $5 input, $25 output, $0.50 cache read per million tokens


def _work(team: Team, base: float) -> None:
    """alice: two laptops on checkout-v2 at once; bob: checkout-v2 and billing."""
    a1 = team.alice.task("checkout-v2")
    record_work(team.alice.db, a1, base, [(600, 60), (300, 0)], session_id="s-a1")
    record_messages(team.alice.db, a1, "s-a1", [(base + 10, OPUS, (1000, 2000, 0, 0, 0))])
    a2 = team.alice2.task("checkout-v2")
    record_work(team.alice2.db, a2, base + 300, [(600, 0)], session_id="s-a2")
    record_messages(team.alice2.db, a2, "s-a2", [(base + 310, OPUS, (500, 100, 0, 0, 0))])
    b1 = team.bob.task("checkout-v2")
    record_work(team.bob.db, b1, base + 100, [(1200, 0)], session_id="s-b1")
    record_messages(team.bob.db, b1, "s-b1", [(base + 200, OPUS, (0, 0, 0, 0, 10000))])
    b2 = team.bob.task("billing")
    record_work(team.bob.db, b2, base + 2000, [(100, 0)], session_id="s-b2")


def test_report_by_task_and_person_to_the_second_and_token(team: Team) -> None:
    _work(team, time.time() - 3 * 3600)
    team.push_all()

    by_task = {row["task"]: row for row in team.report("task")["rows"]}
    checkout = by_task["checkout-v2"]
    # alice's two laptops overlap: their union, 960 s, not 600 + 300 + 600
    assert checkout["people"]["alice"]["seconds"] == 960
    assert checkout["people"]["bob"]["seconds"] == 1200
    assert checkout["seconds"] == 960 + 1200  # two people at once is two people's time
    assert checkout["tokens"] == {
        "input": 1500, "output": 2100, "cache_write": 0, "cache_read": 10000
    }  # fmt: skip
    assert checkout["cost_usd"] == pytest.approx(0.055 + 0.005 + 0.005)
    assert by_task["billing"]["seconds"] == 100
    assert set(by_task["billing"]["people"]) == {"bob"}

    by_person = {row["person"]: row for row in team.report("person")["rows"]}
    assert by_person["alice"]["seconds"] == 960
    assert by_person["bob"]["seconds"] == 1300
    assert by_person["alice"]["cost_usd"] == pytest.approx(0.06)


def test_views_agree_with_the_report_and_members_read_them(team: Team) -> None:
    _work(team, time.time() - 3 * 3600)
    team.push_all()
    psql = team.cluster.psql  # type: ignore[attr-defined]

    per_person = psql(
        "SELECT person, task, seconds FROM missioncache.team_time_per_person ORDER BY 1, 2",
        user="alice",
    )
    assert per_person.returncode == 0, per_person.stderr
    assert per_person.stdout.split() == [
        "alice|checkout-v2|960", "bob|billing|100", "bob|checkout-v2|1200"
    ]  # fmt: skip
    per_day = psql("SELECT sum(seconds) FROM missioncache.team_time_per_day", user="bob")
    assert per_day.stdout.strip() == "2260"
    cost = psql(
        "SELECT task, people, input_tokens, output_tokens, cache_read_tokens,"
        " round(cost_usd::numeric, 6)"
        " FROM missioncache.team_cost_per_task WHERE task = 'checkout-v2'",
        user="bob",
    )
    assert cost.stdout.strip() == "checkout-v2|2|1500|2100|10000|0.065000"


def test_a_push_repeated_stores_once(team: Team) -> None:
    _work(team, time.time() - 3 * 3600)
    team.push_all()
    psql = team.cluster.psql  # type: ignore[attr-defined]
    before = {table: count_rows(psql, table) for table in ("turn_starts", "turn_ends", "messages")}
    assert before == {"turn_starts": 5, "turn_ends": 5, "messages": 3}

    again = team.alice.cli("team", "push")
    assert again.returncode == 0 and "nothing new" in again.stdout
    # forget what was sent: everything goes again, and the server keeps one of each
    (team.alice.env.data_root / "team" / "sent.sqlite").unlink()
    assert "pushed" in team.alice.ok("team", "push")
    after = {table: count_rows(psql, table) for table in before}
    assert after == before
    assert team.report("task")["rows"][1]["seconds"] == 2160


def test_one_persons_synced_machines_count_once(team: Team) -> None:
    """alice's second laptop holds the same events (synced through git): pushing from both
    stores each once and her time is the same as from one laptop."""
    base = time.time() - 3 * 3600
    a1 = team.alice.task("checkout-v2")
    record_work(team.alice.db, a1, base, [(600, 60), (300, 0)], session_id="s-a1")
    shutil.copy(team.alice.db, team.alice2.db)  # what a sync leaves: the same rows
    team.alice.ok("team", "push")
    team.alice2.ok("team", "push")
    psql = team.cluster.psql  # type: ignore[attr-defined]
    assert count_rows(psql, "turn_starts") == 2
    assert count_rows(psql, "tasks") == 1
    alice = team.report("person")["rows"][0]
    assert (alice["person"], alice["seconds"], alice["you_seconds"]) == ("alice", 960, 60)


def test_report_formats(team: Team) -> None:
    _work(team, time.time() - 3 * 3600)
    team.push_all()
    text = team.alice.ok("team", "report", "--by", "task")
    assert "checkout-v2: 36m" in text and "alice: 16m" in text and "bob: 20m" in text
    csv = team.alice.ok("team", "report", "--by", "client", "--format", "csv")
    assert "(no client),(team),2260," in csv
    html = team.alice.ok("team", "report", "--by", "day", "--format", "html")
    assert html.startswith("<!doctype html>") and "37m" in html
