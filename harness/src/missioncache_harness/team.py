"""People and machines of a team, for the team tests (docs/team.md).

WHY: the team tests play several laptops against one real PostgreSQL (``postgres``): each
laptop is an isolated home (``workspace.make_env``) running the workspace's command line
as a process, with its own machine id and tasks.db, and past work written straight into
tasks.db (``worklog``) with the tokens its messages used (``record_messages``).

- ``Laptop``: ``cli(...)`` runs ``missioncache ...`` there; ``db`` is its tasks.db;
  ``task(name)`` creates a task and returns its id.
- ``record_messages``: usage rows (one per message) as the Stop hook records them;
  ``record_waits``: its waits (retry back-offs).
- ``count_rows``: rows of a table as the owner sees them (every person's).
- ``make_team``: the owner's ``--init``, two members, three laptops set up (``Team``).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from missioncache_harness.workspace import McEnv, make_env

TEAM_TABLES = ("tasks", "turn_starts", "turn_ends", "messages", "waits")


@dataclass
class Laptop:
    """One machine of one person."""

    name: str
    env: McEnv

    @property
    def db(self) -> Path:
        return self.env.data_root / "tasks.db"

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """``missioncache ARGS`` with the workspace's Python (psycopg importable)."""
        argv = [sys.executable, "-m", "missioncache_cli", *args]
        return subprocess.run(
            argv, env=self.env.env, capture_output=True, text=True, timeout=timeout, check=False
        )

    def spawn(self, *args: str) -> subprocess.Popen:
        """``missioncache ARGS`` started in its own process group (to be killed whole)."""
        argv = [sys.executable, "-m", "missioncache_cli", *args]
        return subprocess.Popen(
            argv,
            env=self.env.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def ok(self, *args: str) -> str:
        done = self.cli(*args)
        if done.returncode != 0:
            raise AssertionError(f"missioncache {' '.join(args)}: {done.stdout}{done.stderr}")
        return done.stdout

    def task(self, name: str, repo: Path | None = None) -> int:
        args = ["create-task", name, *(["--repo", str(repo)] if repo else [])]
        self.ok(*args)
        with sqlite3.connect(self.db) as conn:
            return int(conn.execute("SELECT id FROM tasks WHERE name = ?", (name,)).fetchone()[0])


def laptop(root: Path, name: str) -> Laptop:
    folder = root / name
    folder.mkdir(parents=True)
    return Laptop(name, make_env(folder))


def record_messages(
    db: Path, task_id: int, session_id: str, messages: list[tuple[float, str, tuple]]
) -> None:
    """Usage rows: each ``(epoch, model, (input, output, cache 5 m, cache 1 h, cache read))``."""
    with sqlite3.connect(db) as conn:
        conn.executemany(
            "INSERT INTO usage(session_id, message_key, epoch, model, input_tokens,"
            " output_tokens, cache_5m_tokens, cache_1h_tokens, cache_read_tokens, task_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (session_id, uuid.uuid4().hex, epoch, model, *counts, task_id)
                for epoch, model, counts in messages
            ],
        )


def record_waits(db: Path, task_id: int, session_id: str, waits: list[tuple[float, float]]) -> None:
    """Waits (retry back-offs) as the Stop hook records them: each ``(epoch, seconds)``."""
    with sqlite3.connect(db) as conn:
        conn.executemany(
            "INSERT INTO waits(session_id, epoch, seconds, task_id) VALUES (?, ?, ?, ?)",
            [(session_id, epoch, seconds, task_id) for epoch, seconds in waits],
        )


def count_rows(psql: object, table: str) -> int:
    """Rows of ``missioncache.<table>`` as the owner sees them (``Cluster.psql``)."""
    done = psql(f"SELECT count(*) FROM missioncache.{table}")  # type: ignore[operator]
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    return int(done.stdout.strip())


def member_url(url: str) -> str:
    """The owner's URL without its user: a member connects as its own role (``--person``)."""
    return url.replace("mc_owner@", "")


@dataclass
class Team:
    """A server set up by its owner, with members alice (two laptops) and bob (one)."""

    cluster: object
    owner: Laptop
    alice: Laptop
    alice2: Laptop
    bob: Laptop

    def push_all(self) -> None:
        """Every member's laptop pushes what it has."""
        for machine in (self.alice, self.alice2, self.bob):
            machine.ok("team", "push")

    def report(self, by: str, period: str = "month") -> dict:
        """``team report --by BY --format json`` as bob reads it."""
        import json

        return json.loads(
            self.bob.ok("team", "report", "--period", period, "--by", by, "--format", "json")
        )


def make_team(cluster: object, root: Path) -> Team:
    """``team setup --init`` as the owner, ``add-member`` alice and bob, each laptop set up."""
    url = cluster.url()  # type: ignore[attr-defined]
    owner = laptop(root, "owner")
    owner.ok("team", "setup", url, "--person", "mc_owner", "--init")
    owner.ok("team", "add-member", "alice")
    owner.ok("team", "add-member", "bob")
    team = Team(cluster, owner, laptop(root, "alice"), laptop(root, "alice2"), laptop(root, "bob"))
    for machine, person in ((team.alice, "alice"), (team.alice2, "alice"), (team.bob, "bob")):
        machine.ok("team", "setup", member_url(url), "--person", person)
    return team
