"""The dashboard as the acceptance test and a user meet it: the built plugin's
``missioncache dashboard --port P`` in a throwaway home with a task."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess

from missioncache_harness import dashboard as dash
from missioncache_harness.dashboard import SID


def test_tasks_api_names_the_task(dashboard, mc_task):
    tasks = dashboard.get("/api/tasks")["tasks"]
    assert [t["name"] for t in tasks] == [mc_task.name]
    row = tasks[0]
    assert row["status"] == "active" and set(row["time"]) == {"today", "week", "all"}
    detail = dashboard.get(f"/api/tasks/{row['id']}")
    assert detail["name"] == mc_task.name and "<h2>" in detail["context_html"]


def test_edit_count_hook_shows_in_sessions(dashboard, mc_task):
    status, body = dashboard.post("/api/hooks/edit-count", dash.edit_payload(mc_task.repo))
    assert (status, body) == (200, {})
    row = dash.session_row(dashboard)
    assert row is not None and row["edit_count"] == 1
    assert row["task"] == mc_task.name  # resolved from the payload's cwd
    # The same tool call posted again counts once; another one counts.
    dashboard.post("/api/hooks/edit-count", dash.edit_payload(mc_task.repo))
    dashboard.post("/api/hooks/edit-count", dash.edit_payload(mc_task.repo, "toolu_02"))
    assert dash.session_row(dashboard)["edit_count"] == 2


def test_hooks_answer_empty_json_to_anything(dashboard, mc_task):
    for body in (None, [], {"session_id": "../../etc"}, {"tool_name": "Read", "session_id": SID}):
        assert dashboard.post("/api/hooks/edit-count", body) == (200, {})
        assert dashboard.post("/api/hooks/heartbeat", body) == (200, {})
    read = dict(dash.edit_payload(mc_task.repo), tool_name="Read")
    dashboard.post("/api/hooks/edit-count", read)
    assert dash.session_row(dashboard) is None  # a Read is no edit
    assert dashboard.post("/api/hooks/task-created", {"name": "x"}) == (200, {})


def test_foreign_host_and_origin_are_refused(dashboard, mc_task):
    status, body = dashboard.request("GET", "/api/tasks", headers={"Host": "evil.example"})
    assert status == 403 and "127.0.0.1" in body["error"]
    wrong_port = {"Host": f"127.0.0.1:{dashboard.port + 1}"}
    assert dashboard.request("GET", "/api/tasks", headers=wrong_port)[0] == 403
    localhost = {"Host": f"localhost:{dashboard.port}"}
    assert dashboard.request("GET", "/api/health", headers=localhost)[0] == 200
    foreign = {"Origin": "http://evil.example"}
    payload = dash.edit_payload(mc_task.repo)
    assert dashboard.post("/api/hooks/edit-count", payload, headers=foreign)[0] == 403
    assert dash.session_row(dashboard) is None  # nothing was counted
    own = {"Origin": dashboard.url}
    assert dashboard.post("/api/hooks/edit-count", payload, headers=own) == (200, {})


def test_listens_on_loopback_only(dashboard):
    addresses = set()
    for family, *_rest, address in socket.getaddrinfo(socket.gethostname(), None):
        if family == socket.AF_INET and not address[0].startswith("127."):
            addresses.add(address[0])
    for address in addresses:
        with socket.socket() as sock:
            sock.settimeout(1)
            assert sock.connect_ex((address, dashboard.port)) != 0, address
    listening = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True, check=False)
    if listening.returncode == 0:
        mine = [line for line in listening.stdout.splitlines() if f":{dashboard.port} " in line]
        assert mine and all("127.0.0.1:" in line for line in mine), mine


def test_unknown_task_is_404_and_no_path_is_served(dashboard):
    assert dashboard.request("GET", "/api/tasks/999")[0] == 404
    assert dashboard.request("GET", "/api/tasks/..%2F..%2Fetc")[0] == 404
    assert dashboard.request("GET", "/static/../install.py")[0] == 404


def test_port_in_use_is_one_clear_sentence(mc_plugin, mc_env, dashboard):
    done = subprocess.run(
        dash.command(mc_plugin, "--port", str(dashboard.port)),
        env=dashboard.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert f"port {dashboard.port}" in done.stderr and "already in use" in done.stderr
    assert f"--port {dashboard.port + 1}" in done.stderr and "Traceback" not in done.stderr


def test_context_file_is_rendered_escaped(dashboard, mc_env, mc_task):
    context = mc_env.data_root / "active" / mc_task.name / f"{mc_task.name}-context.md"
    context.write_text("# T\n\n<script>alert(1)</script> **bold**\n", encoding="utf-8")
    task_id = dashboard.get("/api/tasks")["tasks"][0]["id"]
    rendered = dashboard.get(f"/api/tasks/{task_id}")["context_html"]
    assert "<script>" not in rendered and "&lt;script&gt;" in rendered
    assert "<strong>bold</strong>" in rendered


def test_heartbeat_from_both_paths_counts_once(dashboard, mc_plugin, mc_env, mc_task):
    """The command hook's heartbeat-auto and the http heartbeat record the same prompt:
    one row in tasks.db, whichever comes first."""
    env = dict(mc_env.env, CLAUDE_SESSION_ID=SID, MISSIONCACHE_PROMPT_ID=dash.PROMPT_ID)
    env["PYTHONPATH"] = str(mc_plugin / "lib")
    subprocess.run(
        ["python3", "-S", "-m", "missioncache_time", "heartbeat-auto"],
        cwd=mc_task.repo,
        env=env,
        check=True,
        timeout=30,
    )
    assert dashboard.post("/api/hooks/heartbeat", dash.prompt_payload(mc_task.repo)) == (
        200,
        {},
    )
    dashboard.post("/api/hooks/heartbeat", dash.prompt_payload(mc_task.repo))
    row = dash.session_row(dashboard)
    assert row["turn_running"] and row["last_prompt"] == "make the login work"
    with sqlite3.connect(mc_env.data_root / "tasks.db") as conn:
        rows = conn.execute(
            "SELECT COUNT(*) FROM heartbeats WHERE session_id = ? AND prompt_id = ?",
            (SID, dash.PROMPT_ID),
        ).fetchone()
    assert rows == (1,)
    stop = dict(dash.prompt_payload(mc_task.repo), hook_event_name="Stop")
    dashboard.post("/api/hooks/heartbeat", stop)
    assert not dash.session_row(dashboard)["turn_running"]


def test_http_heartbeat_alone_is_recorded(dashboard, mc_env, mc_task):
    dashboard.post("/api/hooks/heartbeat", dash.prompt_payload(mc_task.repo))
    for _ in range(100):  # recorded after the answer was sent
        with sqlite3.connect(mc_env.data_root / "tasks.db") as conn:
            count = conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0]
        if count:
            break
        import time

        time.sleep(0.05)
    assert count == 1
    assert dash.session_row(dashboard)["task"] == mc_task.name


def test_edits_made_before_the_dashboard_ran_come_from_the_transcript(dashboard, mc_env, mc_task):
    """The hooks report only what happens while the dashboard runs; the session's
    transcript (found from its id) holds every edit Claude made."""
    folder = mc_env.claude_dir / "projects" / "-work-tracked-repo"
    folder.mkdir(parents=True)
    lines = [
        {"type": "user", "message": {"role": "user", "content": "fix it"}},
        *(
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": {}}
                    ],
                },
            }
            for n, tool in enumerate(["Edit", "Read", "Write", "MultiEdit"])
        ),
    ]
    (folder / f"{SID}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    dashboard.post("/api/hooks/edit-count", dash.edit_payload(mc_task.repo, "toolu_3"))
    assert dash.session_row(dashboard)["edit_count"] == 3  # Edit, Write, MultiEdit


def test_the_page_itself_names_the_task(dashboard, mc_task):
    """Before any script runs: a reader without JavaScript sees the tasks too."""
    status, page = dashboard.request("GET", "/")
    assert status == 200 and f'data-task="{mc_task.name}"' in page
    assert "<!--tasks-->" not in page


def test_the_task_list_shows_the_client_and_this_months_billable(
    dashboard, mc_task, mc_cli, mc_env
):
    import time

    from missioncache_harness.worklog import record_work

    t = time.localtime()
    midnight = time.mktime((t.tm_year, t.tm_mon, t.tm_mday, 0, 0, 1, 0, 0, -1))
    record_work(mc_env.data_root / "tasks.db", mc_task.id, midnight, [(600, 0)])
    assert dashboard.get("/api/tasks")["tasks"][0]["billing"] is None  # no client yet
    mc_cli("client", "add", "Acme", "--rate", "100", "--currency", "GBP", "--rounding", "30m")
    mc_cli("task", "set", mc_task.name, "--client", "Acme")
    row = dashboard.get("/api/tasks")["tasks"][0]
    assert row["billing"] == {"client": "Acme", "hours": "0.50", "amount": "£50.00"}
    assert dashboard.get(f"/api/tasks/{row['id']}")["billing"] == row["billing"]  # its page


def test_the_task_page_answers_within_a_second_for_any_file(dashboard, mc_env, mc_task):
    """Regression: a context file with a 100 KB line of ``**a `` held the task page for
    over 6 s (quadratic inline patterns), and 400 ``>`` answered 500."""
    import time

    context = mc_env.data_root / "active" / mc_task.name / f"{mc_task.name}-context.md"
    task_id = dashboard.get("/api/tasks")["tasks"][0]["id"]
    for body, shown in (("**a " * 25_000, "**a **a"), (">" * 400 + " deep", "&gt; deep")):
        context.write_text("# Notes\n\n" + body + "\n", encoding="utf-8")
        dashboard.get(f"/api/tasks/{task_id}")  # warm: the first read opens tasks.db
        started = time.monotonic()
        detail = dashboard.get(f"/api/tasks/{task_id}")
        assert time.monotonic() - started < 1.0
        assert shown in detail["context_html"]


def _session_end(cwd: object, session: str = SID) -> dict:
    """A SessionEnd body as Claude Code posts it at `/exit` (contract section 1)."""
    return {
        "session_id": session,
        "transcript_path": f"{cwd}/t.jsonl",
        "cwd": str(cwd),
        "hook_event_name": "SessionEnd",
        "prompt_id": dash.PROMPT_ID,
        "reason": "prompt_input_exit",
    }


def test_an_ended_session_leaves_the_live_table(dashboard, mc_task):
    """Five `/exit`s used to leave five rows saying "waiting for you" for six hours: the
    SessionEnd hook takes the row out, although tasks.db keeps the session's heartbeat."""
    dashboard.post("/api/hooks/heartbeat", dash.prompt_payload(mc_task.repo))
    dashboard.post(
        "/api/hooks/heartbeat", dict(dash.prompt_payload(mc_task.repo), hook_event_name="Stop")
    )
    assert dash.session_row(dashboard) is not None
    assert dashboard.post("/api/hooks/session-end", _session_end(mc_task.repo)) == (200, {})
    assert dash.session_row(dashboard) is None
    # `claude --resume` of the same session: its next prompt brings the row back.
    dashboard.post("/api/hooks/heartbeat", dict(dash.prompt_payload(mc_task.repo), prompt_id=None))
    row = dash.session_row(dashboard)
    assert row is not None and row["turn_running"]


def test_session_end_answers_empty_json_to_anything_and_needs_the_secret(dashboard, mc_task):
    dashboard.post("/api/hooks/edit-count", dash.edit_payload(mc_task.repo))
    for body in (None, [1], "not an object", {"session_id": 5}, {"hook_event_name": "SessionEnd"}):
        assert dashboard.post("/api/hooks/session-end", body) == (200, {})
    other = dict(_session_end(mc_task.repo), hook_event_name="Stop")
    assert dashboard.post("/api/hooks/session-end", other) == (200, {})
    assert dash.session_row(dashboard) is not None  # none of those ended it
    stranger = {"X-MissionCache-Token": "wrong"}
    status, _ = dashboard.post(
        "/api/hooks/session-end", _session_end(mc_task.repo), headers=stranger
    )
    assert status == 403 and dash.session_row(dashboard) is not None


def test_a_session_of_another_machine_says_which(dashboard, mc_env, mc_task):
    """Sessions synced from another machine (their heartbeats imported by sync) are listed
    with that machine's name; this machine's own say none."""
    import time

    dashboard.post("/api/hooks/heartbeat", dash.prompt_payload(mc_task.repo))
    with sqlite3.connect(mc_env.data_root / "tasks.db") as conn:
        conn.execute(
            "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, prompt_id,"
            " synced, machine) VALUES ('ab01', 1, 'x', ?, 'desk-session', 'p1', 1, 'desk')",
            (time.time(),),
        )
    theirs = dash.session_row(dashboard, "desk-session")
    assert theirs is not None and theirs["machine"] == "desk" and theirs["task"] == mc_task.name
    assert dash.session_row(dashboard)["machine"] is None
