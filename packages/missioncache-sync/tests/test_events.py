"""The per-machine event logs (docs/sync.md): export, import, rebuild, in one process with
two data roots standing for two machines (their logs copied as a sync would)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess

import pytest

import missioncache_sync as events
from missioncache_cost import task_tokens
from missioncache_db import TaskDB
from missioncache_sync._rebuild import rebuild
from missioncache_time import process_pending, record_heartbeat, spool_turn_end, time_split

T0 = 1_700_000_000.0


@pytest.fixture
def machines(tmp_path, monkeypatch):
    """``use("A")`` points the data root at machine A's; ``carry(src, dst)`` copies logs."""
    monkeypatch.delenv("CLAUDE_SESSION_ID", raising=False)

    def use(name: str):
        monkeypatch.setenv("MISSIONCACHE_ROOT", str(tmp_path / name / "mc"))
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / name / "claude"))
        return TaskDB(busy_timeout=5.0)

    def carry(source: str, target: str) -> None:
        shutil.copytree(
            tmp_path / source / "mc" / "events",
            tmp_path / target / "mc" / "events",
            dirs_exist_ok=True,
        )

    return use, carry


def turns(db, task_id, session, spans):
    for index, (start, end) in enumerate(spans):
        record_heartbeat(db, task_id, session, None, T0 + start, prompt_id=f"{session}{index}")
        spool_turn_end(db, session, f"{session}{index}", timestamp=T0 + end)
    process_pending(db, now=T0 + 10**6)


def test_an_old_database_goes_into_the_log_once_losing_nothing(mc_roots):
    data, _ = mc_roots
    data.mkdir(parents=True)
    conn = sqlite3.connect(str(data / "tasks.db"), isolation_level=None)
    from missioncache_db import MIGRATIONS

    conn.execute("BEGIN")
    for migration in MIGRATIONS[:3]:
        migration(conn)
    conn.execute("PRAGMA user_version = 3")
    conn.execute("COMMIT")
    conn.execute("INSERT INTO tasks(name, full_path) VALUES ('old', 'active/old')")
    for n in range(3):
        conn.execute(
            "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, prompt_id)"
            " VALUES (?, 1, 'x', ?, 's', ?)",
            (f"ab{n}", T0 + n * 100, f"p{n}"),
        )
        conn.execute(
            "INSERT INTO turn_ends(uid, session_id, prompt_id, epoch) VALUES (?, 's', ?, ?)",
            (f"cd{n}", f"p{n}", T0 + n * 100 + 50),
        )
    conn.close()
    with TaskDB() as db:
        before = time_split(db, 1, now=T0 + 10**6)
        assert events.export_events(db.conn) == 1 + 3 + 3
        assert events.export_events(db.conn) == 0  # once
        uid = db.conn.execute("SELECT uid FROM tasks").fetchone()[0]
    logged = list(events.iter_events())
    assert {e["type"] for e in logged} == {"task", "heartbeat", "turn_end"}
    assert {e["task"] for e in logged if e["type"] == "heartbeat"} == {uid}
    assert before.claude == 150
    rebuild()
    with TaskDB() as db:
        assert time_split(db, 1, now=T0 + 10**6) == before


def test_each_kind_of_prompt_keeps_its_kind_on_another_machine(machines):
    """A control prompt (a slash command, a bare "y") is no work of its own: imported as a
    person's prompt, it counted as work on the other machines and after a rebuild."""
    use, carry = machines
    kinds = {"pa": "prompt", "pb": "synthetic", "pc": "control"}
    with use("A") as a:
        task = a.create_task("demo")
        for n, (prompt, kind) in enumerate(kinds.items()):
            record_heartbeat(a, task.id, "sa", None, T0 + n * 60, prompt_id=prompt, kind=kind)
        process_pending(a, now=T0 + 10**6)
        mine = dict(a.conn.execute("SELECT prompt_id, kind FROM heartbeats"))
        events.export_events(a.conn)
    carry("A", "B")
    with use("B") as b:
        events.import_events(b.conn)
        assert dict(b.conn.execute("SELECT prompt_id, kind FROM heartbeats")) == mine
    assert mine == {"pa": None, "pb": "synthetic", "pc": "control"}


def test_import_is_idempotent_and_counts_the_union(machines):
    use, carry = machines
    with use("A") as a:
        task = a.create_task("demo")
        turns(a, task.id, "sa", [(0, 600)])
        events.export_events(a.conn)
    carry("A", "B")
    with use("B") as b:
        assert events.import_events(b.conn) == 3
        assert events.import_events(b.conn) == 0
        mine = b.get_task_by_name("demo")
        turns(b, mine.id, "sb", [(300, 900)])
        assert time_split(b, mine.id, now=T0 + 10**6).claude == 900  # 0-900, not 1200
        events.export_events(b.conn)
    carry("B", "A")
    with use("A") as a:
        events.import_events(a.conn)
        # the log folder of A itself was copied back: it is never imported as foreign
        events.import_events(a.conn)
        process_pending(a, now=T0 + 10**6)
        assert time_split(a, task.id, now=T0 + 10**6).claude == 900


def test_a_heartbeat_says_which_machine_it_came_from(machines, tmp_path):
    """The dashboard names another machine's session: an imported heartbeat keeps the name
    its machine gives itself (``sync setup --name``); this machine's own stay unnamed, in
    a rebuild too; a name no one could show (a control character) falls back to the id."""
    use, carry = machines
    with use("A") as a:
        config = tmp_path / "A" / "mc" / "sync" / "config.json"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({"remote": "x", "name": "desk"}))
        task = a.create_task("demo")
        turns(a, task.id, "sa", [(0, 600)])
        events.export_events(a.conn)
        config.write_text(json.dumps({"remote": "x", "name": "bad\x1bname"}))
        turns(a, task.id, "sx", [(700, 800)])
        events.export_events(a.conn)
        a_id = events.machine_id()
    carry("A", "B")
    with use("B") as b:
        events.import_events(b.conn)
        turns(b, b.get_task_by_name("demo").id, "sb", [(900, 1000)])
        found = dict(b.conn.execute("SELECT session_id, machine FROM heartbeats"))
    assert found["sa"] == "desk" and found["sb"] is None
    assert found["sx"] == a_id[:8]
    with use("A"):
        rebuild()
    with use("A") as a:
        assert set(dict(a.conn.execute("SELECT session_id, machine FROM heartbeats")).values()) == {
            None
        }


def _message(session: str, key: str, at: float, counts: tuple) -> dict:
    return {"rows": [(session, key, "claude-sonnet-4-5", None, None, f"{session}0", at, *counts)]}


def test_tokens_travel_once_and_a_bad_usage_line_spoils_only_itself(machines, tmp_path):
    """A message reaches the other machine once, however often the logs are read; one
    whose session never reached a task stays home; a line with a negative count, a bad
    session id or an unknown task is skipped, the good lines beside it still count."""
    from missioncache_time import insert_usage

    use, carry = machines
    with use("A") as a:
        task = a.create_task("demo")
        turns(a, task.id, "sa", [(0, 600)])
        insert_usage(a.conn, [_message("sa", "m1", T0 + 10, (1000, 10, 0, 0, 0))])
        insert_usage(a.conn, [_message("untracked", "m2", T0 + 20, (5, 5, 0, 0, 0))])
        events.export_events(a.conn)
        mine = a.conn.execute("SELECT uid FROM tasks").fetchone()[0]
    logged = [e for e in events.iter_events() if e["type"] == "usage"]
    assert [(e["key"], e["tokens"]) for e in logged] == [("m1", [1000, 10, 0, 0, 0])]
    carry("A", "B")
    log = next((tmp_path / "B" / "mc" / "events").iterdir()) / "extra.jsonl"
    good = dict(logged[0], key="m3")
    bad = [
        dict(good, key="m4", tokens=[-1, 0, 0, 0, 0]),
        dict(good, key="m5", session="../x"),
        dict(good, key="m6", task="f" * 32),
        dict(good, key="m7", tokens=[1, 2]),
    ]
    log.write_text("".join(json.dumps(e) + "\n" for e in [*bad, good, {"type": "usage"}]))
    with use("B") as b:
        events.import_events(b.conn)
        events.import_events(b.conn)
        here = b.get_task_by_name("demo")
        assert b.conn.execute("SELECT uid FROM tasks").fetchone()[0] == mine
        keys = [r[0] for r in b.conn.execute("SELECT message_key FROM usage ORDER BY 1")]
        assert keys == ["m1", "m3"]
        assert task_tokens(b.conn, here.id).total == 2 * 1010


def test_the_same_task_created_on_both_machines_is_one_task(machines):
    use, carry = machines
    with use("A") as a:
        turns(a, a.create_task("demo").id, "sa", [(0, 60)])
        events.export_events(a.conn)
    with use("B") as b:
        local = b.create_task("demo")
        turns(b, local.id, "sb", [(1000, 1060)])
    carry("A", "B")
    with use("B") as b:
        events.import_events(b.conn)
        process_pending(b, now=T0 + 10**6)
        assert [t.name for t in b.list_tasks()] == ["demo"]
        assert time_split(b, local.id, now=T0 + 10**6).claude == 120


def test_a_newer_status_wins_and_a_delete_travels(machines):
    use, carry = machines
    with use("A") as a:
        task = a.create_task("demo")
        events.export_events(a.conn)
    carry("A", "B")
    with use("B") as b:
        events.import_events(b.conn)
        b.set_status(b.get_task_by_name("demo").id, "completed")
        events.export_events(b.conn)
    carry("B", "A")
    with use("A") as a:
        events.import_events(a.conn)
        assert a.get_task(task.id).status == "completed"
        a.delete_task(task.id)
        events.export_events(a.conn)
    carry("A", "B")
    with use("B") as b:
        events.import_events(b.conn)
        assert b.list_tasks() == []


def test_a_repository_elsewhere_is_found_by_its_name_or_remote(machines, tmp_path):
    use, carry = machines
    there = tmp_path / "A" / "work" / "app"
    there.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(there)], check=True)
    subprocess.run(
        ["git", "-C", str(there), "remote", "add", "origin", "git@github.com:me/app.git"],
        check=True,
    )
    with use("A") as a:
        a.create_task("demo", repo=there)
        events.export_events(a.conn)
    shutil.rmtree(tmp_path / "A" / "work")  # A's path does not exist on B
    clone = tmp_path / "B" / "src" / "my-app"
    clone.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run(
        ["git", "-C", str(clone), "remote", "add", "origin", "https://github.com/me/app"],
        check=True,
    )
    carry("A", "B")
    with use("B") as b:
        events.import_events(b.conn)
        assert b.find_task_for_cwd(tmp_path / "B" / "src") is None
        found = b.find_task_for_cwd(clone / "lib")
        assert found is not None and found.name == "demo"
        assert b.get_task(found.id).repo_path == str(clone)  # remembered


def test_a_first_export_puts_the_history_in_last_months_file_and_later_ones_in_this_months(
    machines, tmp_path
):
    """The first export of a long history writes it into last month's file, not this
    month's (which every sync of the month changes, and git stores whole again at each
    one); the next export changes only this month's file; every turn reaches the other
    machine."""
    use, carry = machines
    day = 86400
    with use("A") as a:
        task = a.create_task("demo")
        a.conn.execute("UPDATE tasks SET changed = ? WHERE id = ?", (T0, task.id))
        for number, start in enumerate((0, 20 * day, 40 * day)):  # Nov., Dec. 2023
            record_heartbeat(a, task.id, "s", None, T0 + start, prompt_id=f"p{number}")
            spool_turn_end(a, "s", f"p{number}", timestamp=T0 + start + 600)
        process_pending(a, now=T0 + 60 * day)
        assert events.export_events(a.conn, now=T0 + 60 * day) == 7  # in Jan. 2024
        log = tmp_path / "A" / "mc" / "events" / events.machine_id()
        assert [p.name for p in log.iterdir()] == ["2023-12.jsonl"]
        before = (log / "2023-12.jsonl").read_bytes()
        record_heartbeat(a, task.id, "s", None, T0 + 61 * day, prompt_id="p3")
        spool_turn_end(a, "s", "p3", timestamp=T0 + 61 * day + 600)
        process_pending(a, now=T0 + 62 * day)
        assert events.export_events(a.conn, now=T0 + 62 * day) == 2
        assert sorted(p.name for p in log.iterdir()) == ["2023-12.jsonl", "2024-01.jsonl"]
        assert (log / "2023-12.jsonl").read_bytes() == before
    carry("A", "B")
    with use("B") as b:
        events.import_events(b.conn)
        process_pending(b, now=T0 + 70 * day)
        split = time_split(b, b.get_task_by_name("demo").id, now=T0 + 70 * day)
        assert split.claude == 4 * 600
