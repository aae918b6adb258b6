"""Two machines for the sync tests (``packages/missioncache-sync/tests``): two HOMEs (each
its own data root and machine id) running the built plugin's command line and libraries,
and one bare git repository."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from missioncache_harness.workspace import McEnv, make_env, python3

# Two days back: nothing here is clamped by "now" or still open.
T0 = float(int(time.time()) - 2 * 86400)
A_TURNS = [(T0, T0 + 600), (T0 + 2000, T0 + 2600)]  # 20 minutes of Claude on A
B_TURNS = [(T0 + 300, T0 + 900), (T0 + 4000, T0 + 4300)]  # 15 on B, 5 of them beside A's

# Records turns through the same library calls the hooks use (a heartbeat per prompt, a
# turn end per Stop, and with ``tokens`` a message's usage per turn and the ``waits``),
# at given epochs, so the tests control overlap exactly.
_TURNS = """
import json, sys
from missioncache_db import TaskDB
from missioncache_time import insert_usage, process_pending, record_heartbeat, spool_turn_end
spec = json.loads(sys.argv[1])
with TaskDB() as db:
    task = db.get_task_by_name(spec["task"])
    for index, (start, end) in enumerate(spec["turns"]):
        prompt = "%s-%d" % (spec["session"], index)
        record_heartbeat(db, task.id, spec["session"], None, start, prompt_id=prompt)
        spool_turn_end(db, spec["session"], prompt, timestamp=end)
        if spec["tokens"]:  # one message per turn, stored as Stop's usage record is
            row = (spec["session"], prompt, "claude-sonnet-4-5", None, None, prompt, end - 1,
                   *spec["tokens"])
            waits = [(spec["session"], *wait) for wait in spec["waits"]]
            insert_usage(db.conn, [{"rows": [row], "waits": waits}])
            spec["waits"] = []
    process_pending(db)
"""


class Machine:
    def __init__(self, base: Path, name: str, plugin: Path):
        self.name, self.plugin = name, plugin
        self.env: McEnv = make_env(base / name)
        self.root = self.env.data_root

    def cli(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
        result = self.env.bundled(self.plugin, *args)
        if ok:
            assert result.returncode == 0, (self.name, args, result.stdout, result.stderr)
        return result

    def turns(
        self,
        task: str,
        session: str,
        turns: list[tuple[float, float]],
        tokens: tuple[int, ...] = (),
        waits: list[tuple[float, float]] = (),  # type: ignore[assignment]
    ) -> None:
        """``tokens``: five counts (input, output, 5m and 1h cache writes, cache reads) of
        one message per turn; ``waits``: (epoch, seconds) of the session's retry waits."""
        fields = {"task": task, "session": session, "turns": turns, "tokens": list(tokens)}
        spec = json.dumps({**fields, "waits": [list(w) for w in waits]})
        argv = [python3(), "-c", _TURNS, spec]
        result = self.env.run(argv, env=self.env.with_lib(self.plugin))
        assert result.returncode == 0, result.stderr

    def time(self, task: str) -> str:
        return self.cli("time", task).stdout.strip()

    def session_start(self, cwd: Path, session: str = "s-start") -> str:
        """Fire the built plugin's SessionStart in ``cwd``; the human's one line."""
        payload = {"session_id": session, "hook_event_name": "SessionStart", "cwd": str(cwd)}
        argv = [python3(), str(self.plugin / "hooks" / "session_start.py")]
        done = self.env.run(argv, input=json.dumps(payload), cwd=str(cwd))
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["systemMessage"]

    def file(self, task: str, suffix: str = "context.md") -> Path:
        return self.root / "active" / task / f"{task}-{suffix}"


def bare_remote(path: Path) -> str:
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return str(path)
