"""The task list with a fork, as ``/api/tasks`` and the page's own HTML give it: each fork
says which task it branched from and sits right under it, with its own time and cost,
and the parent's figures hold the family (docs/forks.md, "Time")."""

from __future__ import annotations

import sqlite3
import time

from missioncache_harness import dashboard as dash


def add_usage(db_path, task_id: int, key: str, output_tokens: int) -> None:
    """One priced assistant message of ``task_id``, as the Stop hook records it."""
    conn = sqlite3.connect(str(db_path))
    try:
        conn.execute(
            "INSERT INTO usage(session_id, message_key, model, epoch, input_tokens,"
            " output_tokens, task_id) VALUES ('s', ?, 'claude-sonnet-4-5', ?, 1000, ?, ?)",
            (key, time.time() - 3600, output_tokens, task_id),
        )
        conn.commit()
    finally:
        conn.close()


def test_a_fork_sits_under_its_parent_with_its_own_time(mc_plugin, mc_env, mc_repo):
    ids = dash.demo_world(mc_plugin, mc_env, mc_repo)
    add_usage(mc_env.data_root / "tasks.db", ids["auth-refactor"], "a", 10_000)
    add_usage(mc_env.data_root / "tasks.db", ids["auth-tokens"], "b", 20_000)
    with dash.serving(mc_plugin, mc_env) as running:
        tasks = running.get("/api/tasks")["tasks"]
        detail = running.get(f"/api/tasks/{ids['auth-refactor']}")
    by_name = {t["name"]: t for t in tasks}
    fork, parent = by_name["auth-tokens"], by_name["auth-refactor"]
    assert fork["fork_of"] == ids["auth-refactor"] and parent["fork_of"] is None
    names = [t["name"] for t in tasks]
    assert names.index("auth-tokens") == names.index("auth-refactor") + 1
    assert (fork["depth"], parent["depth"]) == (1, 0)
    # the fork's own time, and the parent's union holds it (their hours never overlap)
    assert fork["time"]["all"]["total"] > 0
    assert parent["time"]["all"]["total"] >= fork["time"]["all"]["total"] + 3600
    # the fork's own dollars; the parent's hold its own and its fork's
    assert 0 < fork["cost"] < parent["cost"]
    # sonnet: $3 per million input tokens, $15 per million output (the price table)
    assert round(fork["cost"], 3) == 0.303
    assert round(parent["cost"], 3) == round(0.153 + 0.303, 3)
    assert [f["name"] for f in detail["forks"]] == ["auth-tokens"]
    assert detail["forks"][0]["id"] == ids["auth-tokens"]


def test_a_part_under_a_minute_is_written_as_time_writes_it(mc_plugin, mc_env, mc_task):
    """42 s of Claude in 1m 42s: ``<1m``, as ``missioncache time`` and the report say."""
    from missioncache_harness.worklog import record_work

    record_work(mc_env.data_root / "tasks.db", mc_task.id, time.time() - 600, [(20, 60), (22, 0)])
    with dash.serving(mc_plugin, mc_env) as running:
        (row,) = running.get("/api/tasks")["tasks"]
        status, page = running.request("GET", "/")
    assert row["time"]["all"]["shown"] == {"claude": "<1m", "you": "1m"}
    assert status == 200 and "1m (&lt;1m / 1m)" in page


def test_the_day_chart_names_only_the_colours_it_draws(mc_plugin, mc_env, mc_repo):
    """A fork's time is drawn in its parent's bars: no legend entry for a colour no bar
    has."""
    ids = dash.demo_world(mc_plugin, mc_env, mc_repo)
    with dash.serving(mc_plugin, mc_env) as running:
        chart = running.get("/api/days?period=week")
    drawn = {name for day in chart["days"] for name in day["tasks"]}
    assert set(chart["tasks"]) == drawn and "auth-tokens" not in chart["tasks"]
    assert {"billing-export", "auth-refactor"} <= drawn and "auth-tokens" in ids


def test_a_work_session_names_every_claude_code_session_in_it(mc_plugin, mc_env, mc_task):
    """Five /exit and restarts within one span of work: one work session, five sessions."""
    from missioncache_harness.worklog import record_work

    start = time.time() - 3 * 3600
    for index in range(5):
        record_work(
            mc_env.data_root / "tasks.db", mc_task.id, start + index * 300, [(120, 0)],
            session_id=f"sess-{index}",
        )  # fmt: skip
    assert mc_env.bundled(mc_plugin, "process-heartbeats").returncode == 0  # as a hook does
    with dash.serving(mc_plugin, mc_env) as running:
        (row,) = running.get("/api/tasks")["tasks"]
        sessions = running.get(f"/api/tasks/{row['id']}")["sessions"]
    assert len(sessions) == 1
    assert sessions[0]["claude_sessions"] == [f"sess-{i}" for i in range(5)]
