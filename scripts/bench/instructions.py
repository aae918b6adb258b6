"""Part: instructions each hook executes (callgrind), beside the interpreter floor.

WHY beside the wall clock: a hook's wall time on a shared machine moves by more than the
few percent a change to its imports makes; the count of instructions the interpreter
executes does not (it repeats to within 0.1% run to run). So a change is judged here and
confirmed in the ``hooks`` part. Each case runs the hook script itself
(``python3 -S <hook>``, what the launcher execs on Linux and macOS) under
``valgrind --tool=callgrind``, once after one untimed warm-up run (byte-code caches);
detached children are not traced (they are off the prompt's path).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

from bench.common import Bench, Home

NEEDS_HOOKS = True
TRANSCRIPT_BYTES = 1024 * 1024
COLLECTED = re.compile(rb"==(\d+)== Collected : (\d+)")
CASES = {
    "session_start (startup)": ("session_start.py", "SessionStart", {}),
    "session_start (compact)": ("session_start.py", "SessionStart", {"source": "compact"}),
    "activity_tracker": ("activity_tracker.py", "UserPromptSubmit", {}),
    "task_tracker": ("task_tracker.py", "UserPromptSubmit", {}),
    "pre_compact": ("pre_compact.py", "PreCompact", {}),
    "post_compact": ("post_compact.py", "PostCompact", {}),
    "stop": ("stop.py", "Stop", {}),
    "stop_failure": ("stop_failure.py", "StopFailure", {}),
}


def count(home: Home, argv: list[str], stdin: bytes = b"") -> int | None:
    """Instructions the first process of ``argv`` executed, or None when it failed."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        input=stdin,
        capture_output=True,
        env=home.env,
        cwd=home.repo,
        timeout=300,
    )
    found = COLLECTED.findall(done.stderr)
    if done.returncode != 0 or not found:
        return None
    return int(found[0][1])


def _hook(home: Home, script: str, event: str, options: dict) -> int | None:
    if script == "pre_compact.py":  # the same work every run (see the hooks part)
        home.context_file.write_text(home.context_text, encoding="utf-8")
        earlier = time.time() - 60
        os.utime(home.context_file, (earlier, earlier))
    path = str(home.bench.plugin / "hooks" / script)
    return count(home, ["python3", "-S", path], home.payload(event, **options))


def run(bench: Bench) -> dict:
    if shutil.which("valgrind") is None:
        return {"skipped": "valgrind is not installed (apt-get install valgrind)", "targets": []}
    home = bench.new_home("instructions", TRANSCRIPT_BYTES)
    floor_argv = ["python3", "-S", "-c", "pass"]
    count(home, floor_argv)
    floor = count(home, floor_argv)
    rows = [{"case": "floor: python3 -S -c pass", "instructions": floor, "ratio": 1.0}]
    for name, (script, event, options) in CASES.items():
        if script not in bench.hooks:
            continue
        _hook(home, script, event, options)  # warm-up: byte code written, state settled
        figure = _hook(home, script, event, options)
        ratio = round(figure / floor, 2) if figure and floor else None
        rows.append({"case": name, "instructions": figure, "ratio": ratio})
        print(f"  {name:28s} {_millions(figure):>10s}  {ratio}x", flush=True)
    return {"floor": floor, "rows": rows, "targets": []}


def _millions(value: int | None) -> str:
    return "failed" if value is None else f"{value / 1e6:.1f} M"


def markdown(result: dict) -> str:
    if "skipped" in result:
        return f"## Instructions per hook\n\nSkipped: {result['skipped']}\n"
    lines = [
        "## Instructions per hook (callgrind)",
        "",
        "| case | instructions | × floor |",
        "|---|---:|---:|",
    ]
    for row in result["rows"]:
        lines.append(f"| {row['case']} | {_millions(row['instructions'])} | {row['ratio']} |")
    return "\n".join(lines) + "\n"
