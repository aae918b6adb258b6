"""The team as a user gets it: the built plugin's command line under a Python without
psycopg (``-S``: no site-packages) hands over to ``uvx --from
<plugin>/missioncache-teamdb`` (docs/team.md), and the hooks' detached push
(``python3 -S -m missioncache_team auto``) goes the same way."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from missioncache_harness.fixtures import McEnv
from missioncache_harness.team import count_rows
from missioncache_harness.worklog import record_work
from missioncache_harness.workspace import python3


def test_setup_push_and_report_through_uvx_from_the_built_plugin(
    mc_plugin: Path, mc_env: McEnv, mc_postgres: object
) -> None:
    def cli(*args: str) -> str:
        argv = [python3(), "-S", str(mc_plugin / "bin" / "missioncache"), *args]
        done = mc_env.run(argv, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout

    probe = mc_env.run([python3(), "-S", "-c", "import psycopg"])
    assert probe.returncode != 0  # a Python without psycopg, as a user's is: uvx it is
    cli("create-task", "checkout-v2")
    url = mc_postgres.url()  # type: ignore[attr-defined]
    cli("team", "setup", url, "--person", "mc_owner", "--init")
    db = mc_env.data_root / "tasks.db"
    record_work(db, 1, time.time() - 3600, [(600, 60), (300, 0)], session_id="s1")

    auto = [python3(), "-S", "-m", "missioncache_team", "auto"]
    subprocess.run(auto, env=mc_env.with_lib(mc_plugin), timeout=600, check=True)
    assert count_rows(mc_postgres.psql, "turn_starts") == 2  # type: ignore[attr-defined]
    assert "nothing new to push" in cli("team", "push")
    report = json.loads(cli("team", "report", "--by", "person", "--format", "json"))
    assert report["rows"][0]["seconds"] == 960
