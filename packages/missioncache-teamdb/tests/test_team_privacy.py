"""Nothing private reaches the team's server: a ``pg_dump`` of the whole database after a
push holds no prompt text, path, file content, repository URL, nor a private task's name
(docs/team.md, "What leaves the laptop")."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from missioncache_harness.team import Team, record_messages
from missioncache_harness.worklog import record_work

PROMPT = "PROMPT-TEXT-7431 please refactor the payment flow"
FILE_TEXT = "FILE-CONTENT-9921 the customer's secret plan"
REMOTE = "https://git.example.invalid/acme/secret-repo-5510.git"


def test_pg_dump_holds_no_prompt_path_file_content_or_private_name(
    team: Team, tmp_path: Path
) -> None:
    repo = tmp_path / "work" / "secret-repo-5510"
    repo.mkdir(parents=True)
    alice = team.alice
    shared = alice.task("checkout-v2", repo=repo)
    alice.ok("create-task", "acquisition-talks-3307", "--repo", str(repo), "--team", "private")
    with sqlite3.connect(alice.db) as conn:
        private = conn.execute("SELECT max(id) FROM tasks").fetchone()[0]
    alice.ok("team", "task", "checkout-v2", "--client", "Acme")
    base = time.time() - 3600
    record_work(alice.db, shared, base, [(600, 0)], session_id="s-shared")
    record_work(alice.db, private, base + 1200, [(300, 0)], session_id="s-private")
    record_messages(alice.db, private, "s-private", [(base + 1250, "m", (10, 20, 0, 0, 0))])
    with sqlite3.connect(alice.db) as conn:
        conn.execute("UPDATE heartbeats SET context = ?", (PROMPT,))
        conn.execute("UPDATE repositories SET remote = ?", (REMOTE,))
    for folder in (alice.env.data_root / "active").iterdir():
        for name in ("context.md", "tasks.md"):
            (folder / name).write_text(FILE_TEXT + "\n", encoding="utf-8")
    alice.ok("team", "push")

    dump = team.cluster.dump()  # type: ignore[attr-defined]
    assert "checkout-v2" in dump and "Acme" in dump  # what is sent is there ...
    for secret in (
        "PROMPT-TEXT-7431", "FILE-CONTENT-9921", "secret-repo-5510", "acquisition-talks-3307",
        str(tmp_path), str(alice.env.home), "git.example.invalid",
    ):  # fmt: skip
        assert secret not in dump  # ... and nothing else

    report = json.loads(team.bob.ok("team", "report", "--by", "task", "--format", "json"))
    rows = {row["task"]: row for row in report["rows"]}
    opaque = [name for name in rows if name.startswith("private-")]
    assert len(opaque) == 1  # the private task's figures, under an opaque name
    assert rows[opaque[0]]["seconds"] == 300
    assert rows[opaque[0]]["tokens"]["output"] == 20
    assert rows["checkout-v2"]["client"] == "Acme"


def test_a_password_in_the_connection_string_is_refused_and_never_stored(team: Team) -> None:
    url = team.cluster.url().replace("mc_owner@", "alice:hunter2-6618@")  # type: ignore[attr-defined]
    done = team.alice.cli("team", "setup", url, "--person", "alice")
    assert done.returncode == 1
    assert "password" in done.stderr and ".pgpass" in done.stderr
    stored = (team.alice.env.data_root / "team" / "config.json").read_text()
    assert "hunter2-6618" not in stored
