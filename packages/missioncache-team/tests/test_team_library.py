"""The laptop's side of the team (docs/team.md): the settings never hold a password, the
outbox sends only the listed fields, a private task leaves under an opaque name, the
hooks' push is one stat where no team is set up and debounced where one is."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from missioncache_db import TaskDB
from missioncache_harness.polling import poll_until
from missioncache_harness.team import record_waits
from missioncache_harness.worklog import record_work
from missioncache_team import config, hooks, outbox, paths, status

PROMPT = "PROMPT-4410 fix the invoice totals"


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://alice:s3cret@db.example.invalid/team",
        "postgresql://db.example.invalid/team?password=s3cret",
        "host=db.example.invalid dbname=team password=s3cret",
    ],
)
def test_a_connection_string_with_a_password_is_refused(
    mc_roots: tuple[Path, Path], url: str
) -> None:
    with pytest.raises(config.TeamError, match="pgpass"):
        config.setup(url, "alice")
    assert not paths.is_set_up()


@pytest.mark.parametrize("name", ["Alice", "1alice", "al ice", "alice;drop", ""])
def test_a_member_name_is_a_plain_role_name(mc_roots: tuple[Path, Path], name: str) -> None:
    with pytest.raises(config.TeamError, match="lower-case"):
        config.setup("postgresql://db.example.invalid/team", name)


def _world(mc_roots: tuple[Path, Path]) -> tuple[TaskDB, dict]:
    config.setup("postgresql://db.example.invalid/team", "alice")
    db = TaskDB()
    task = db.create_task("checkout-v2", None)
    secret = db.create_task("acquisition-talks", None)
    record_work(db.file, task.id, time.time() - 3600, [(600, 60), (300, 0)], session_id="s1")
    record_work(db.file, secret.id, time.time() - 1800, [(100, 0)], session_id="s2")
    record_waits(db.file, task.id, "s1", [(time.time() - 3500, 45)])
    db.conn.execute("UPDATE heartbeats SET context = ?", (PROMPT,))
    uid = db.conn.execute("SELECT uid FROM tasks WHERE id = ?", (secret.id,)).fetchone()[0]
    config.mark_task(uid, True, "Acme")
    return db, config.read()


def test_the_outbox_holds_only_the_listed_fields(mc_roots: tuple[Path, Path]) -> None:
    db, settings = _world(mc_roots)
    events = outbox.all_events(db.conn, settings)
    assert {kind: len(found) for kind, found in events.items()} == {
        "task": 2, "start": 3, "end": 3, "message": 0, "wait": 1
    }  # fmt: skip
    assert set(events["task"][0]) == {
        "id", "uid", "name", "key", "client", "fork_parent", "private", "changed"
    }  # fmt: skip
    assert set(events["start"][0]) == {"id", "task", "session", "prompt", "epoch", "kind"}
    assert set(events["end"][0]) == {"id", "session", "prompt", "epoch", "background"}
    assert set(events["wait"][0]) == {"id", "task", "session", "epoch", "seconds"}
    text = json.dumps(events)
    assert "PROMPT-4410" not in text and str(mc_roots[0]) not in text
    assert "acquisition-talks" not in text  # private: an opaque name, no client
    private = next(task for task in events["task"] if task["private"])
    assert private["name"].startswith("private-") and private["client"] is None
    assert outbox.all_events(db.conn, settings) == events  # ids are stable


def test_what_was_sent_is_not_pending_again(mc_roots: tuple[Path, Path]) -> None:
    db, settings = _world(mc_roots)
    sent = outbox.Sent()
    batch = outbox.pending(db.conn, settings, sent)
    assert outbox.count(batch) == 9
    sent.add(batch)
    assert outbox.count(outbox.pending(db.conn, settings, sent)) == 0
    record_work(db.file, 1, time.time() - 60, [(30, 0)], session_id="s3")
    assert outbox.count(outbox.pending(db.conn, settings, sent)) == 2  # its start and end
    sent.close()


def test_the_person_is_told_once_per_outage(mc_roots: tuple[Path, Path]) -> None:
    config.setup("postgresql://db.example.invalid/team", "alice")
    assert status.record(0, 3, "connection refused") is True
    assert status.record(0, 4, "connection refused") is False
    assert "not reached" in hooks.take_notice()
    assert hooks.take_notice() == ""
    status.record(4, 0, None)  # reached again: the next outage is told again
    assert status.record(0, 1, "timeout") is True


def test_no_team_no_push_and_pushes_are_debounced(mc_roots: tuple[Path, Path]) -> None:
    assert hooks.start_auto() is False
    assert not Path(paths.team_dir()).exists()
    config.setup("postgresql://127.0.0.1:1/team?connect_timeout=1", "alice")
    assert hooks.start_auto() is True
    assert hooks.start_auto() is False  # within the debounce


def test_a_push_that_hangs_is_stopped_and_said(mc_roots: tuple[Path, Path]) -> None:
    """A server that accepts the connection and never answers must not hold the push lock
    for ever with the last success still shown: the push is stopped and the person told."""
    import subprocess
    import sys

    config.setup("postgresql://127.0.0.1:1/team?connect_timeout=1", "alice")
    code = (
        "from missioncache_team import __main__ as entry, launch\n"
        "def hang(args, timeout=None):\n"
        "    raise launch.TimedOut()\n"
        "launch.run = hang\n"
        "raise SystemExit(entry.auto())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.returncode == 1
    shown = status.read()
    assert "was stopped" in str(shown.get("error")) and "team status" in str(shown.get("error"))
    assert "not reached" in hooks.take_notice()


def test_a_client_past_its_deadline_is_killed_with_its_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timed push: uvx starts the client as a child of its own, so a hung server's
    client must go with uvx at the deadline, not linger holding the connection."""
    import sys

    from missioncache_harness.children import processes_running
    from missioncache_team import launch

    marker = f"mc-grandchild-{tmp_path.name}"
    uvx = (  # what uvx does: start the client, wait for it
        "import subprocess, sys\n"
        f"subprocess.run([sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}])\n"
    )

    def uvx_argv(args: list[str], installed: bool) -> list[str]:
        return [sys.executable, "-c", "pass" if args == ["--check"] else uvx]

    monkeypatch.setattr(launch, "_in_process", lambda: False)
    monkeypatch.setattr(launch, "uvx_argv", uvx_argv)
    started = time.monotonic()
    with pytest.raises(launch.TimedOut):
        launch.run(["push", "--auto"], timeout=1.0)
    assert time.monotonic() - started < 10
    assert poll_until(lambda: not processes_running(marker.encode()), timeout=10)
