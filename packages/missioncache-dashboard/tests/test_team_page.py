"""The dashboard's team page (docs/dashboard.md, "Team") against a real PostgreSQL: the
built plugin's dashboard, served on bob's laptop, answers ``/api/team`` with the figures
``missioncache team report --format json`` gives; says how to set a team up when there is
none; and says in plain words, quickly and without a traceback, when the server is down
or hangs, while the rest of the dashboard answers as before."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import pytest

from missioncache_harness import dashboard as dash
from missioncache_harness.team import Team, make_team, record_messages
from missioncache_harness.worklog import record_work

OPUS = "claude-opus-4-7"  # $5 input, $25 output, $0.50 cache read per million tokens
TIMEOUT = 8.0  # missioncache_dashboard.team.TIMEOUT


@pytest.fixture
def team(mc_postgres: object, tmp_path: Path) -> Team:
    """alice 600 s and bob 1200 s on checkout-v2, bob 100 s on billing, pushed."""
    team = make_team(mc_postgres, tmp_path)
    base = time.time() - 3 * 3600
    a = team.alice.task("checkout-v2")
    record_work(team.alice.db, a, base, [(600, 0)], session_id="s-a")
    record_messages(team.alice.db, a, "s-a", [(base + 10, OPUS, (1000, 2000, 0, 0, 0))])
    b = team.bob.task("checkout-v2")
    record_work(team.bob.db, b, base + 100, [(1200, 0)], session_id="s-b")
    record_messages(team.bob.db, b, "s-b", [(base + 200, OPUS, (0, 0, 0, 0, 10000))])
    billing = team.bob.task("billing")
    record_work(team.bob.db, billing, base + 2000, [(100, 0)], session_id="s-b2")
    team.alice.ok("team", "push")
    team.bob.ok("team", "push")
    return team


def _cli_report(team: Team, by: str) -> dict:
    return json.loads(
        team.bob.ok("team", "report", "--period", "month", "--by", by, "--format", "json")
    )


def test_the_team_page_has_the_reports_figures(mc_plugin: Path, team: Team) -> None:
    with dash.serving(mc_plugin, team.bob.env) as running:
        assert running.get("/api/health")["team"] is True
        answer = running.get("/api/team?period=month")
    assert answer["set_up"] is True and answer["problem"] is None
    by_task = {row["task"]: row for row in answer["task"]["rows"]}
    checkout = by_task["checkout-v2"]
    assert checkout["people"]["alice"]["seconds"] == 600
    assert checkout["people"]["bob"]["seconds"] == 1200
    assert checkout["seconds"] == 1800  # two people at once is two people's time
    assert checkout["tokens"] == {
        "input": 1000, "output": 2000, "cache_write": 0, "cache_read": 10000
    }  # fmt: skip
    assert checkout["cost_usd"] == pytest.approx(0.055 + 0.005)
    assert by_task["billing"]["seconds"] == 100
    by_person = {row["person"]: row for row in answer["person"]["rows"]}
    assert by_person["alice"]["seconds"] == 600 and by_person["bob"]["seconds"] == 1300
    assert by_person["alice"]["cost_usd"] == pytest.approx(0.055)
    # the same figures as the command line's report, row for row
    assert answer["task"]["rows"] == _cli_report(team, "task")["rows"]
    assert answer["person"]["rows"] == _cli_report(team, "person")["rows"]
    status = answer["status"]
    assert status["reached"] is True and status["waiting"] == 0
    assert status["last_push"] == pytest.approx(time.time(), abs=120)


def test_without_a_team_the_page_says_how_to_set_one_up(mc_plugin, mc_env, mc_task) -> None:
    with dash.serving(mc_plugin, mc_env) as running:
        assert running.get("/api/health")["team"] is False
        answer = running.get("/api/team?period=week")
        assert running.request("GET", "/api/team?period=week", token=False)[0] == 403
        assert running.request("GET", "/api/team?period=year")[0] == 400
    assert answer == {"set_up": False, "how": "missioncache team setup POSTGRES_URL --person NAME"}


def test_a_server_that_is_down_is_said_in_plain_words(mc_plugin: Path, team: Team) -> None:
    team.cluster.stop()  # type: ignore[attr-defined]
    with dash.serving(mc_plugin, team.bob.env) as running:
        started = time.monotonic()
        answer = running.get("/api/team?period=week", timeout=30)
        took = time.monotonic() - started
        again = running.get("/api/team?period=week")
    assert took < TIMEOUT
    assert answer["set_up"] is True and answer["task"] is None
    problem = answer["problem"]
    assert problem.startswith("The team's server could not be reached")
    assert "next push" in problem and "missioncache team status" in problem
    assert "Traceback" not in problem and 'File "' not in problem
    assert again["checked"] == answer["checked"]  # kept a minute: not asked again
    assert answer["status"]["reached"] is True  # the last push did reach it


def test_a_server_that_hangs_costs_the_page_seconds_and_the_rest_nothing(
    mc_plugin: Path, team: Team
) -> None:
    """The owner holds a lock the report's query waits on: the server accepts, then never
    answers. The team page gives up after its timeout; the task list answers meanwhile."""
    cluster = team.cluster
    holder = subprocess.Popen(
        [
            *cluster.psql_argv(),  # type: ignore[attr-defined]
            "-c",
            "BEGIN; LOCK TABLE missioncache.turn_starts IN ACCESS EXCLUSIVE MODE;"
            " SELECT pg_sleep(60);",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(1.0)  # the lock is taken
        with dash.serving(mc_plugin, team.bob.env) as running:
            found: dict = {}

            def ask_team() -> None:
                started = time.monotonic()
                found["team"] = running.get("/api/team?period=all", timeout=60)
                found["took"] = time.monotonic() - started

            asking = threading.Thread(target=ask_team)
            asking.start()
            time.sleep(1.0)  # the team request is waiting on the server now
            started = time.monotonic()
            tasks = running.get("/api/tasks")
            tasks_took = time.monotonic() - started
            asking.join(timeout=60)
    finally:
        holder.kill()
        holder.wait()
    assert {t["name"] for t in tasks["tasks"]} == {"checkout-v2", "billing"}
    assert tasks_took < 3.0, tasks_took
    assert TIMEOUT - 1 <= found["took"] < TIMEOUT + 5, found["took"]
    assert found["team"]["problem"].startswith(
        f"The team's server did not answer within {TIMEOUT:.0f} seconds"
    )


HOSTILE = "<img src=x onerror=\"document.title='pwned'\">billing"


def test_the_team_tab_shows_both_tables_and_other_peoples_names_as_text(
    mc_chromium: str, mc_plugin: Path, team: Team, tmp_path: Path
) -> None:
    """bob's own client renamed his task on the server (a member sends what it likes):
    the name is shown as text on alice's page, and nothing in it runs."""
    from missioncache_harness import browser

    renamed = team.cluster.psql(  # type: ignore[attr-defined]
        f"UPDATE missioncache.tasks SET team_key = $x${HOSTILE}$x$ WHERE name = 'billing'",
        user="bob",
    )
    assert renamed.returncode == 0, renamed.stderr
    with (
        dash.serving(mc_plugin, team.alice.env) as running,
        browser.browser_page(mc_chromium) as (page, errors),
    ):
        page.goto(running.page_url)
        tab = page.locator("#tab-team")
        tab.wait_for(state="visible", timeout=10_000)
        tab.click()
        page.locator("#team button[data-team-period='month']").click()
        rows = page.locator("#team tr.task-row")
        rows.first.wait_for(timeout=15_000)
        checkout = page.locator('#team tr[data-team-task="checkout-v2"][data-person="bob"]')
        assert "20m (20m / 0s)" in checkout.inner_text()
        assert "10,000" in checkout.inner_text() and "$0.01" in checkout.inner_text()
        assert page.locator("#team tr.task-row").all_inner_texts()[0].startswith(HOSTILE)
        assert page.locator("#team img").count() == 0 and page.title() != "pwned"
        alice = page.locator('#team tr[data-person="alice"]').last
        assert alice.inner_text().split("\t")[:2] == ["alice", "10m (10m / 0s)"]
        assert "reached the team's server" in page.locator("#team-status").inner_text()
        assert page.locator("#home").is_hidden()
        dash.screenshot(page, tmp_path / "team.png")
        assert (tmp_path / "team.png").stat().st_size > 10_000
        assert errors == []


def test_without_a_team_there_is_no_team_tab(mc_chromium, mc_plugin, mc_env, mc_task) -> None:
    from missioncache_harness import browser

    with (
        dash.serving(mc_plugin, mc_env) as running,
        browser.browser_page(mc_chromium) as (page, errors),
    ):
        page.goto(running.page_url)
        page.locator("#tasks tbody tr").first.wait_for()
        page.locator("#live-state", has_text="live").wait_for(timeout=10_000)
        assert page.locator("#tab-team").is_hidden()
        page.goto(f"{running.url}/#/team")  # typed by hand: the page says how
        line = page.locator("#team-not-set-up")
        line.wait_for(timeout=10_000)
        assert "missioncache team setup POSTGRES_URL --person NAME" in line.inner_text()
        assert line.locator("code").count() == 1
        assert errors == []
