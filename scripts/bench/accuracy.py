"""Part 6: time invested against the ground truth of a scripted week, through the hooks.

The week (``bench.week``: long autonomous turns, short exchanges, idle gaps, a parallel
session, background subagents, Esc-interrupted turns, API errors, a session across
midnight) is replayed through the BUILT hooks as Claude Code runs them: UserPromptSubmit
(``activity_tracker.py``, whose detached child records the heartbeat), Stop and
StopFailure, each with the stdin Claude Code gives it. An interrupted turn fires nothing,
as measured (contract 11.2).

The clock: each hook process (and the heartbeat child it starts) runs under libfaketime
(Debian package ``faketime``) with ``FAKETIME="@<event time>"`` and ``TZ=UTC``, so the
product is unchanged and a week replays in about a minute. Without libfaketime the part is
skipped with a note.

A hook that crashes or fails (anything on its stderr) stops the part with exit status 1
and the hook's stderr: the hooks.json command (hooks/run, which always exits 0) hides it otherwise.

Figures: the new model (``time_split``, from turns) and the heartbeat-only model (the
``sessions`` table, the old rule), each against the truth, for the week and for each day
(``--period today`` queried at the day's last second, so the session across midnight counts
only its part in each day). Target: within 2% of the truth for the week.
"""

from __future__ import annotations

import json
import os
import subprocess
import time

from bench.common import Bench, Home
from bench.week import DAY, WEEK_START, Event, make_week, truth
from missioncache_harness import payloads

NEEDS_HOOKS = True
TARGET_PERCENT = 2.0
LIBFAKETIME = (
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/faketime/libfaketime.so.1",
    "/usr/local/lib/faketime/libfaketime.so.1",
)
NOTIFICATION = (
    "<task-notification>\n<task-id>agent</task-id>\n<status>completed</status>\n"
    "<result>The agent finished.</result>\n</task-notification>"
)
_QUERY = """
import json, sys
from missioncache_db import TaskDB
from missioncache_time import process_pending, time_split
with TaskDB() as db:
    process_pending(db)
    task = db.get_task_by_name("bench-task")
    split = time_split(db, task.id, sys.argv[1])
    old = db.conn.execute(
        "SELECT COALESCE(SUM(duration_seconds), 0) FROM sessions WHERE task_id = ?", (task.id,)
    ).fetchone()[0]
print(json.dumps({"total": split.total, "claude": split.claude, "you": split.you, "old": old}))
"""


def find_libfaketime() -> str | None:
    return next((path for path in LIBFAKETIME if os.path.isfile(path)), None)


class Replay:
    """Fires the week's events at the built hooks of one bench HOME, on a fake clock."""

    def __init__(self, home: Home, library: str):
        self.home = home
        self.library = library
        self.transcript = str(home.transcript)

    def env(self, epoch: float) -> dict[str, str]:
        clock = time.strftime("@%Y-%m-%d %H:%M:%S", time.gmtime(epoch))
        return dict(self.home.env, TZ="UTC", LD_PRELOAD=self.library, FAKETIME=clock)

    def fire(self, event: Event) -> None:
        base = payloads.common(
            "UserPromptSubmit" if event.kind in ("prompt", "notify") else "Stop",
            session_id=event.session_id,
            transcript_path=self.transcript,
            cwd=self.home.repo,
        )
        if event.kind in ("prompt", "notify"):
            text = NOTIFICATION if event.kind == "notify" else "Please continue with the plan."
            data = payloads.user_prompt_submit(base, text, prompt_id=event.prompt_id)
            script = "activity_tracker.py"
        elif event.kind == "stop":
            running = [{"id": "a1", "type": "subagent", "status": "running"}]
            data = payloads.stop(
                base,
                prompt_id=event.prompt_id,
                last_assistant_message="Done.",
                background_tasks=running * event.background,
            )
            script = "stop.py"
        else:
            data = payloads.stop_failure(dict(base, hook_event_name="StopFailure"),
                                         prompt_id=event.prompt_id)  # fmt: skip
            script = "stop_failure.py"
        spec = self.home.bench.hooks[script]
        done = subprocess.run(
            ["/bin/sh", "-c", spec.command],
            input=json.dumps(data).encode(),
            env=self.env(event.epoch),
            cwd=self.home.repo,
            capture_output=True,
            timeout=spec.timeout + 30,
        )
        _fail_loudly_on_stderr(script, event, done)
        if script == "activity_tracker.py":
            self.home.wait_children_gone(timeout=20)

    def query(self, epoch: float, period: str) -> dict:
        env = dict(self.env(epoch), PYTHONPATH=str(self.home.bench.plugin / "lib"))
        done = subprocess.run(
            [self.home.bench.python, "-S", "-c", _QUERY, period],
            env=env,
            cwd=self.home.repo,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise RuntimeError(f"time query failed: {done.stderr[:500]}")
        return json.loads(done.stdout)


def _fail_loudly_on_stderr(script: str, event: Event, done: subprocess.CompletedProcess) -> None:
    """Stop the benchmark when a hook crashed or failed. The hooks.json command (hooks/run)
    always exits 0 and a hook turns any failure into a breadcrumb on stderr, so the
    exit status says nothing: a crashed hook would only show as a wrong figure. In this
    replay every hook must be silent on stderr."""
    stderr = done.stderr.decode("utf-8", "replace").strip()
    if done.returncode != 0 or stderr:
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(event.epoch))
        raise SystemExit(
            f"[accuracy] {script} failed on the {event.kind} event at {when} (exit"
            f" {done.returncode}); its stderr:\n{stderr[-4000:]}"
        )


def _error(value: float, expected: float) -> float:
    return round(100.0 * (value - expected) / expected, 2) if expected else 0.0


def run(bench: Bench) -> dict:
    library = find_libfaketime()
    if library is None:
        note = "libfaketime not found: apt-get install faketime (Debian/Ubuntu)"
        print(f"  skipped: {note}", flush=True)
        return {"skipped": note, "targets": []}
    days = 2 if bench.quick else 7
    week = make_week(days=days)
    home = bench.new_home("accuracy")
    replay = Replay(home, library)
    day_rows = []
    day = 0
    for event in week.events:
        while event.epoch >= WEEK_START + (day + 1) * DAY:
            day_rows.append(_day(replay, week, day))
            day += 1
        replay.fire(event)
    while day < days:
        day_rows.append(_day(replay, week, day))
        day += 1
    end = WEEK_START + days * DAY + DAY  # a day later: every turn is over
    got = replay.query(end, "all")
    expected = truth(week)
    result = {
        "days": days,
        "events": len(week.events),
        "features": week.features,
        "truth": {"total": expected[0], "claude": expected[1], "you": expected[2]},
        "new": got,
        "new_error_pct": _error(got["total"], expected[0]),
        "old_error_pct": _error(got["old"], expected[0]),
        "day_rows": day_rows,
    }
    print(f"  week: {json.dumps({k: result[k] for k in ('truth', 'new')})}", flush=True)
    print(f"  error: new {result['new_error_pct']}%, heartbeat-only {result['old_error_pct']}%")
    result["targets"] = [
        {
            "name": f"time invested vs ground truth ({days}-day scripted week)",
            "target": f"within {TARGET_PERCENT:g}%",
            "value": f"{result['new_error_pct']:+.2f}% (heartbeat-only model "
            f"{result['old_error_pct']:+.2f}%)",
            "met": abs(result["new_error_pct"]) <= TARGET_PERCENT,
        }
    ]
    return result


def _day(replay: Replay, week, day: int) -> dict:
    """``--period today`` at the day's last second against the truth of that day so far."""
    midnight = WEEK_START + day * DAY
    last = midnight + DAY - 1
    got = replay.query(last, "today")
    expected = truth(week, midnight, last)
    # Work still going on at the day's last second is in the truth up to then; the model
    # sees a running turn only once it ends, so the day's figure covers closed turns.
    return {
        "day": time.strftime("%a %Y-%m-%d", time.gmtime(midnight)),
        "truth": expected[0],
        "new": got["total"],
        "error_pct": _error(got["total"], expected[0]),
    }


def markdown(result: dict) -> str:
    from bench.report import table

    if "skipped" in result:
        return f"## Time accuracy\n\nSkipped: {result['skipped']}."

    def hm(seconds: float) -> str:
        return f"{int(seconds) // 3600}h {int(seconds) % 3600 // 60:02d}m {int(seconds) % 60:02d}s"

    t, new = result["truth"], result["new"]
    rows = [
        ["ground truth", hm(t["total"]), hm(t["claude"]), hm(t["you"]), ""],
        ["turns (new)", hm(new["total"]), hm(new["claude"]), hm(new["you"]),
         f"{result['new_error_pct']:+.2f}%"],
        ["heartbeats only (old)", hm(new["old"]), "", "", f"{result['old_error_pct']:+.2f}%"],
    ]  # fmt: skip
    days = [[r["day"], hm(r["truth"]), hm(r["new"]), f"{r['error_pct']:+.2f}%"]
            for r in result["day_rows"]]  # fmt: skip
    features = ", ".join(f"{n} {name}" for name, n in sorted(result["features"].items()))
    return "\n".join(
        [
            "## Time accuracy: a scripted week against its ground truth",
            "",
            f"{result['days']} days, {result['events']} hook events replayed through the built "
            f"hooks under libfaketime ({features}).",
            "",
            table(["model", "total", "Claude", "you", "error"], rows, "l"),
            "",
            table(["day (--period today)", "truth", "turns (new)", "error"], days, "l"),
        ]
    )
