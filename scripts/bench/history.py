"""Part: every read against years of heavy use (``--years N``, default 3; docs/history.md).

The history is written through the product's write path, as the hooks write it:
``record_heartbeat`` per prompt, the spool for every turn end and every turn's
usage (four messages), folded once a working day by ``process_heartbeats`` as any reader
does; a report is run once after the first week, so the day summaries are then kept up
by the folds as a user's would be. 12 tasks, 80 turns a working day (Monday to Friday).
Building it takes minutes, so the data root is kept in ``~/.cache/missioncache-bench``
under a key of the years and the sources of the write path, and copied for each run.

Measured on a copy: the commands (median of ``runs`` runs, seconds), the dashboard's
task list (``/api/tasks``'s data, in process, median), and the hooks and the status line
against the ``python3 -S`` floor in interleaved rounds (ratios of medians); the bytes
of tasks.db; and the first ``sync setup`` on this machine and on a second one, with the
bytes of the event log and the git remote (``history_sync``).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import statistics
import time
import uuid
from pathlib import Path

from bench import history_sync
from bench.common import REPO, Bench, Home, interleaved

NEEDS_HOOKS = True
YEARS = 3.0  # set by bench.py --years
TASKS, TURNS_A_DAY, MESSAGES_A_TURN = 12, 80, 4
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "missioncache-bench"
COMMAND_TARGETS = {"report all": 1.0, "report week": 0.5, "time": 0.5}
HOOK_TARGETS = {
    "SessionStart": 2.5,
    "PreCompact": 2.5,
    "UserPromptSubmit pair": 2.0,
    "Stop": 2.0,
    "status line": 2.0,
}
DASHBOARD_TARGET_MS = 100.0


def _key(years: float) -> str:
    digest = hashlib.sha256()
    for package in ("missioncache-db", "missioncache-state", "missioncache-time",
                    "missioncache-cost", "missioncache-spool"):  # fmt: skip
        for path in sorted((REPO / "packages" / package / "src").rglob("*.py")):
            digest.update(path.read_bytes())
    return f"history-{years:g}y-{digest.hexdigest()[:12]}"


def _environ(home: Home) -> dict:
    saved = {k: os.environ.get(k) for k in ("MISSIONCACHE_ROOT", "CLAUDE_CONFIG_DIR")}
    os.environ["MISSIONCACHE_ROOT"] = str(home.mc.data_root)
    os.environ["CLAUDE_CONFIG_DIR"] = str(home.mc.claude_dir)
    return saved


def _restore(saved: dict) -> None:
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def build(home: Home, years: float) -> dict:
    """Write ``years`` of history into the home's data root through the write path."""
    from missioncache_cost import day_pricing
    from missioncache_db import TaskDB
    from missioncache_spool import append as spool_append
    from missioncache_spool import spool_records
    from missioncache_time import process_pending, refresh_days

    rnd = random.Random(36)
    saved = _environ(home)
    counts = {"turns": 0, "messages": 0, "days": 0}
    try:
        with TaskDB(home.db_path) as db:
            ids = [home.task_id] + [
                db.create_task(f"history-{n:02d}", repo=None).id for n in range(TASKS - 1)
            ]
            spool_dir = db.spool_folder
            now = time.time()
            day = time.mktime((*time.localtime(now - years * 365 * 86400)[:3], 9, 0, 0, 0, 0, -1))
            while day < now - 86400:
                if time.localtime(day).tm_wday < 5:
                    _one_day(db, spool_dir, spool_append, spool_records, rnd, ids, day, counts)
                    process_pending(db, now=day + 14 * 3600)  # a reader folds, once a day
                    counts["days"] += 1
                    if counts["days"] == 5:
                        refresh_days(
                            db.conn, day + 14 * 3600, pricing=day_pricing()
                        )  # the first report
                lt = time.localtime(day)
                day = time.mktime((lt.tm_year, lt.tm_mon, lt.tm_mday + 1, 9, 0, 0, 0, 0, -1))
            process_pending(db)
            db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        _restore(saved)
    return counts


def _one_day(db, spool_dir, spool_append, spool_records, rnd, ids, day, counts) -> None:
    """80 turns over two to four tasks, one Claude Code session each, with breaks."""
    from missioncache_time import record_heartbeat, spool_turn_end

    worked = rnd.sample(ids, rnd.randint(2, 4))
    sessions = {task: str(uuid.uuid4()) for task in worked}
    t = day
    for number in range(TURNS_A_DAY):
        task = worked[number * len(worked) // TURNS_A_DAY]
        sid, pid = sessions[task], str(uuid.uuid4())
        record_heartbeat(db, task, sid, None, t, pid, "prompt")
        work = rnd.uniform(20, 300)
        spool_turn_end(db, sid, pid, "stop", 0, t + work)
        rows = [
            [
                f"msg-{pid}-{m}",
                "claude-sonnet-4-5",
                None,
                None,
                pid,
                t + work * (m + 1) / 5,
                rnd.randint(1, 50),
                rnd.randint(50, 2000),
                rnd.randint(0, 3000),
                0,
                rnd.randint(1000, 60000),
            ]
            for m in range(MESSAGES_A_TURN)
        ]
        for record in spool_records(sid, rows):
            spool_append(spool_dir, record)
        counts["turns"] += 1
        counts["messages"] += MESSAGES_A_TURN
        t += work + (rnd.uniform(1800, 3600) if number % 20 == 19 else rnd.uniform(10, 240))


def _history_home(bench: Bench, years: float) -> tuple[Home, dict, float, Path]:
    """A copy of the built history (built first when not cached); its counts, the
    seconds the build took (0 from the cache), and the cached data root."""
    home = bench.new_home("history", 64 * 1024)
    cached = CACHE / _key(years)
    built = 0.0
    if not (cached / "done.json").exists():
        started = time.perf_counter()
        counts = build(home, years)
        built = time.perf_counter() - started
        shutil.rmtree(cached, ignore_errors=True)
        shutil.copytree(home.mc.data_root, cached / "data", symlinks=True)
        (cached / "done.json").write_text(json.dumps(dict(counts, seconds=built)))
    else:
        shutil.rmtree(home.mc.data_root)
        shutil.copytree(cached / "data", home.mc.data_root, symlinks=True)
    counts = json.loads((cached / "done.json").read_text())
    # The cached history names the project folder of the home that built it: the session
    # the hooks and the status line run in is put on the task, as a person's would be.
    home.cli("bind", home.session_id, "bench-task")
    return home, counts, built, cached / "data"


def _median(samples: list[float]) -> float:
    return statistics.median(samples) if samples else float("nan")


def _command(home: Home, *args: str) -> float:
    started = time.perf_counter()
    home.cli(*args)
    return time.perf_counter() - started


def run(bench: Bench) -> dict:
    years = YEARS
    home, counts, built, data = _history_home(bench, years)
    size = home.db_path.stat().st_size
    runs = 2 if bench.quick else 5
    commands = {
        "report all": ("report", "--period", "all", "--format", "json"),
        "report all text": ("report", "--period", "all", "--format", "text"),
        "report all csv": ("report", "--period", "all", "--format", "csv"),
        "report all html": (
            "report",
            "--period",
            "all",
            "--format",
            "html",
            "--output",
            str(home.mc.data_root / "r.html"),
        ),
        "report week": ("report", "--period", "week", "--format", "json"),
        "report month": ("report", "--period", "month", "--format", "json"),
        "time": ("time", "bench-task"),
    }
    _command(home, *commands["report all"])  # the first read after the copy seals today
    seconds = {
        name: _median([_command(home, *args) for _ in range(runs)])
        for name, args in commands.items()
    }
    dashboard = _dashboard(home, runs)
    hooks = _hooks(bench, home)
    sync = history_sync.run(bench, data)
    targets = [
        {
            "name": f"history {years:g}y: {name}",
            "target": f"<= {limit} s",
            "value": f"{seconds[name]:.2f} s",
            "met": seconds[name] <= limit,
        }
        for name, limit in COMMAND_TARGETS.items()
    ]
    for name in ("report all text", "report all csv", "report all html"):
        targets.append(
            {
                "name": f"history {years:g}y: {name}",
                "target": "<= 1.0 s",
                "value": f"{seconds[name]:.2f} s",
                "met": seconds[name] <= 1.0,
            }
        )
    targets.append(
        {
            "name": f"history {years:g}y: dashboard /api/tasks",
            "target": "<= 100 ms",
            "value": f"{dashboard:.0f} ms",
            "met": dashboard <= DASHBOARD_TARGET_MS,
        }
    )
    for name, limit in HOOK_TARGETS.items():
        targets.append(
            {
                "name": f"history {years:g}y: {name}",
                "target": f"<= {limit}x floor",
                "value": f"{hooks[name]:.2f}x",
                "met": hooks[name] <= limit,
            }
        )
    per_year = size / years / 1e6
    targets.append(
        {
            "name": "tasks.db per year",
            "target": "<= 50 MB",
            "value": f"{per_year:.1f} MB",
            "met": per_year <= 50,
        }
    )
    targets += history_sync.targets(sync, years)
    return {
        "years": years,
        "counts": counts,
        "build_seconds": round(built, 1),
        "tasks_db_bytes": size,
        "seconds": seconds,
        "dashboard_ms": dashboard,
        "hooks": hooks,
        "sync": sync,
        "targets": targets,
    }


def _dashboard(home: Home, runs: int) -> float:
    """``/api/tasks``'s data (``task_list``), in process: median ms of ``runs`` calls."""
    from missioncache_dashboard.data import task_list
    from missioncache_db import TaskDB

    saved = _environ(home)
    try:
        with TaskDB(home.db_path) as db:
            task_list(db)
            samples = []
            for _ in range(max(runs, 5)):
                started = time.perf_counter()
                task_list(db)
                samples.append((time.perf_counter() - started) * 1000)
    finally:
        _restore(saved)
    return _median(samples)


def _hooks(bench: Bench, home: Home) -> dict:
    """Median of each hook (and the status line) over the median floor, interleaved."""
    from bench.hooks import _pair
    from bench.statusline import _install

    command = _install(home)
    home.env["COLUMNS"] = "160"
    from missioncache_harness import payloads

    line = json.dumps(
        payloads.statusline(
            session_id=home.session_id,
            transcript_path=str(home.transcript),
            cwd=home.repo,
            prompt_id=payloads.new_id(),
        )
    ).encode()
    turn = [0]

    def prompt_pair() -> float:
        turn[0] += 1
        home.new_turn(turn[0])
        return _pair(home).seconds  # both hooks started together, as Claude Code does

    def as_built(plugin: Path, hooks: dict, job):
        """``job`` with the commands and plugin root of one build (``--baseline``: the
        other build's hooks on the same history, in the same rounds)."""

        def case() -> float:
            saved_root, saved_hooks = home.env["CLAUDE_PLUGIN_ROOT"], bench.hooks
            home.env["CLAUDE_PLUGIN_ROOT"], bench.hooks = str(plugin), hooks
            try:
                return float(job())
            finally:
                home.env["CLAUDE_PLUGIN_ROOT"], bench.hooks = saved_root, saved_hooks

        return case

    jobs = {
        "SessionStart": lambda: (
            home.run_hook("session_start.py", home.payload("SessionStart")).seconds
        ),
        "PreCompact": lambda: home.run_hook("pre_compact.py", home.payload("PreCompact")).seconds,
        "UserPromptSubmit pair": prompt_pair,
        "Stop": lambda: home.run_hook("stop.py", home.payload("Stop")).seconds,
        "status line": lambda: home.run(command, line).seconds,
    }
    cases = {"floor": lambda: home.floor().seconds, **jobs}
    if bench.baseline is not None:
        for name, job in jobs.items():
            if name != "status line":  # installed from this build only
                cases[f"{name} (baseline)"] = as_built(
                    bench.baseline.plugin, bench.baseline.hooks, job
                )
    samples = interleaved(bench, cases)
    floor = _median(samples.pop("floor"))
    return {name: round(_median(values) / floor, 2) for name, values in samples.items()}


def markdown(result: dict) -> str:
    from bench.report import table

    counts = result["counts"]
    lines = [
        f"## History: {result['years']:g} years of heavy use",
        "",
        f"{counts['days']:,} working days, {counts['turns']:,} turns, {counts['messages']:,} "
        f"messages, 12 tasks; tasks.db {result['tasks_db_bytes'] / 1e6:.1f} MB "
        f"({result['tasks_db_bytes'] / 1e6 / result['years']:.1f} MB a year); built in "
        f"{result['build_seconds']} s (0: from the cache).",
        "",
        table(
            ["command", "median"], [[n, f"{s:.2f} s"] for n, s in result["seconds"].items()], "lr"
        ),
        "",
        f"Dashboard task list (`/api/tasks`'s data): {result['dashboard_ms']:.1f} ms.",
        "",
        table(["hook", "× floor"], [[n, f"{r:.2f}x"] for n, r in result["hooks"].items()], "lr"),
        "",
        history_sync.markdown(result["sync"], result["years"]),
    ]
    return "\n".join(lines)
