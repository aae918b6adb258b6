"""Part 6: the prompt and SessionStart hooks against the size of the task's files.

Issue 12 measured the task tracker at 4 s with 30,000 tasks-file items and 67 s with
100,000 (its timeout is 5 s), and a 50 MB context file at ~1.8 s on every prompt. The
hooks now read the first 1 MiB of each file and parse it linearly, so their time should
stop growing with the file. Each row is the hook's median over the runs, next to the
``python3 -S -c pass`` floor spawned the same way in the same round.
"""

from __future__ import annotations

from bench.common import Bench, Home, interleaved
from bench.stats import ratio, summarize

NEEDS_HOOKS = True
ITEMS = (1_000, 30_000, 100_000)
CONTEXT_MB = (1, 5, 50)


def _big_tasks(home: Home, items: int) -> None:
    """A checklist of ``items`` unchecked items; every other one has findings."""
    lines = "".join(f"- [ ] {n}. Step {n} of the rework\n" for n in range(1, items + 1))
    tasks_file = home.task_dir / "bench-task-tasks.md"
    tasks_file.write_text(f"# Bench Task - Tasks\n\n## Tasks\n\n{lines}", encoding="utf-8")
    findings = "".join(f"### Task {n}\nfound\n" for n in range(1, min(items, 3000), 2))
    home.context_file.write_text(home.context_text + "\n" + findings, encoding="utf-8")


def _big_context(home: Home, megabytes: int) -> None:
    """The lived-in context file with ``megabytes`` of old findings appended."""
    line = "- an old finding that nobody reads any more, kept for the record " + "x" * 40
    count = megabytes * 1_000_000 // (len(line) + 1)
    home.context_file.write_text(
        home.context_text + "\n## Old findings\n\n" + (line + "\n") * count, encoding="utf-8"
    )


def _measure(bench: Bench, home: Home, script: str, stdin: bytes) -> dict:
    runs = interleaved(bench, {"floor": home.floor, "hook": lambda: home.run_hook(script, stdin)})
    # The hooks.json command (hooks/run) always exits 0 and a hook turns a crash into a
    # breadcrumb on stderr: the exit status alone would never count one.
    failed = sum(1 for r in runs["hook"] if r.returncode != 0 or r.stderr.strip())
    stats = {name: summarize([r.seconds for r in found]) for name, found in runs.items()}
    return {**stats, "failed": failed}


def run(bench: Bench) -> dict:
    rows = []
    items = ITEMS[:2] if bench.quick else ITEMS
    for count in items:
        home = bench.new_home(f"bigfiles-items-{count}")
        _big_tasks(home, count)
        stdin = home.payload("UserPromptSubmit")
        row = {"file": f"tasks file, {count:,} items", "script": "task_tracker"}
        row.update(_measure(bench, home, "task_tracker.py", stdin))
        rows.append(row)
        print(f"  {row['file']}: {row['hook']['median_ms']} ms", flush=True)
    sizes = CONTEXT_MB[:2] if bench.quick else CONTEXT_MB
    for megabytes in sizes:
        home = bench.new_home(f"bigfiles-context-{megabytes}")
        _big_context(home, megabytes)
        for script, event, options in (
            ("task_tracker.py", "UserPromptSubmit", {}),
            ("session_start.py", "SessionStart", {"source": "compact"}),
        ):
            stdin = home.payload(event, **options)
            row = {"file": f"context file, {megabytes} MB", "script": script[:-3]}
            row.update(_measure(bench, home, script, stdin))
            rows.append(row)
            print(f"  {row['file']}, {row['script']}: {row['hook']['median_ms']} ms", flush=True)
    return {"rows": rows, "targets": []}


def markdown(result: dict) -> str:
    from bench.report import ms, table

    rows = [
        [
            r["file"],
            r["script"],
            ms(r["hook"]["median_ms"]),
            ms(r["hook"]["p95_ms"]),
            f"{ratio(r['hook']['median_ms'], r['floor']['median_ms']):.2f}x",
            str(r["failed"]),
        ]
        for r in result["rows"]
    ]
    header = ["file", "hook", "median", "p95", "× floor", "failed runs"]
    return "\n".join(["## Hooks against the size of the task's files", "", table(header, rows), ""])
