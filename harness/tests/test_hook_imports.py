"""No hook imports a heavy standard-library module on its working path.

WHY at the hook level: the libraries guard their own functions one by one, but only a
hook run shows what a hook really pulls in, through every library it touches. Each of
these modules costs milliseconds of a ~12 ms interpreter start, paid on every prompt
(``json`` alone 4.6 ms: it imports ``re``, which imports ``enum`` and ``functools``).

The BUILT plugin plays a session that takes every hook down its working path (a task
tied to the project, a divergent tasks file, an edit, a manual compaction), with
``PYTHONPROFILEIMPORTTIME=1`` in the environment Claude Code gives the hooks: the same
as ``python3 -X importtime -S <hook>``, each process lists every module it imported, as
a tree, on its stderr. Every module counts, the driver's too: the hooks open SQLite
through ``missioncache_state.sqlite``, which loads neither ``datetime`` nor ``functools``.
"""

from __future__ import annotations

import re
from pathlib import Path

from missioncache_harness.children import wait_heartbeat_children
from missioncache_harness.import_cost import HEAVY_ON_HOOK_PATH
from missioncache_harness.runner import HookRun
from missioncache_harness.session import Session
from missioncache_harness.tools import Text, Write
from missioncache_harness.workspace import McEnv, McTask

EXPECTED = {
    "SessionStart:startup session_start",
    "SessionStart:compact session_start",
    "UserPromptSubmit activity_tracker",
    "UserPromptSubmit task_tracker",
    "PreCompact pre_compact",
    "PostCompact post_compact",
    "Stop stop",
    "StopFailure stop_failure",
}
_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \| ( *)(\S+)$")


def imported(stderr: str) -> list[tuple[str, list[str]]]:
    """(module, the modules whose import imported it) for each line of an importtime tree.

    The tree is printed children first, each line indented two spaces per level; read
    backwards, every line comes after its parent."""
    found = []
    stack: list[str] = []
    for line in reversed(stderr.splitlines()):
        match = _LINE.match(line)
        if match is None:
            continue
        depth = len(match.group(1)) // 2
        name = match.group(2)
        stack = stack[:depth]
        found.append((name, list(stack)))
        stack.append(name)
    return found


def heavy_imports(run: HookRun) -> list[str]:
    """The forbidden modules this hook imported itself, with who imported each."""
    return [
        f"{name} (via {' <- '.join(reversed(parents)) or 'a call at run time'})"
        for name, parents in imported(run.stderr)
        if name in HEAVY_ON_HOOK_PATH
    ]


def label(event: str, payload: dict, run: HookRun) -> str:
    script = re.search(r"hooks/(?:run\"? +)?(\w+)", run.command)  # `hooks/run" stop`
    source = f":{payload['source']}" if event == "SessionStart" else ""
    return f"{event}{source} {script.group(1) if script else run.command}"


def test_no_hook_imports_heavy_modules_on_its_working_path(
    mc_plugin: Path, mc_env: McEnv, mc_task: McTask, mc_repo: Path
) -> None:
    folder = mc_env.data_root / "active" / mc_task.name
    context, tasks = folder / f"{mc_task.name}-context.md", folder / f"{mc_task.name}-tasks.md"
    context.write_text(context.read_text() + "\n### Task 2\nFound the cause.\n")
    tasks.write_text(tasks.read_text() + "- [x] 1. Reproduce\n- [ ] 2. Fix\n")
    session = Session(mc_plugin, mc_repo, env={**mc_env.env, "PYTHONPROFILEIMPORTTIME": "1"})

    start = session.start()
    turn = session.prompt("add greet.py", reply=[Text("Adding."), Write("greet.py", "x = 1\n")])
    failed = session.prompt("try again", ending="failure")  # StopFailure records the end
    compaction = session.compact("manual")
    assert wait_heartbeat_children(mc_env.data_root)

    # Every hook took its working path, not an early exit.
    assert any("Active Task Detected" in t for t in start.routed.model_texts)
    assert any("MissionCache task tracker" in t for t in turn.model_texts)
    assert any("Claude changed 1 file in this turn" in t for t in turn.human_texts)
    assert [e.event for e in failed.events][-1] == "StopFailure"
    spool = mc_env.data_root / "spool"
    assert any("failure" in p.read_text() for p in spool.glob("*.jsonl")) or _ingested(mc_env)
    # PreCompact's stdout is the summariser's instruction alone; the snapshot is in the file.
    instruction = f'Keep the MissionCache task name "{mc_task.name}" and its Next Steps in'
    assert compaction.instructions == f"{instruction} the summary."
    assert "Auto-saved before compaction" in context.read_text()
    assert list((folder / ".compactions").glob("*.json"))  # PostCompact kept the summary
    compact_start = [e for e in session.events if e.payload.get("source") == "compact"]
    assert any("Where the work stands" in t for t in compact_start[0].routed.model_texts)

    runs = {}
    for event in session.events:
        for run in event.hooks:
            runs[label(event.event, event.payload, run)] = run
    assert set(runs) >= EXPECTED
    for name in EXPECTED:
        # The profile really is there: the hook's own libraries appear in it.
        assert any(m.startswith("missioncache_") for m, _ in imported(runs[name].stderr)), name
    heavy = {name: heavy_imports(runs[name]) for name in sorted(EXPECTED)}
    assert heavy == {name: [] for name in sorted(EXPECTED)}
    # The databases are opened through the C driver (missioncache_state.sqlite): the sqlite3
    # package imports datetime for its date adapters, about 2.5 ms a run.
    dated = {name: sorted(dated_imports(runs[name])) for name in sorted(EXPECTED)}
    assert dated == {name: [] for name in sorted(EXPECTED)}


def dated_imports(run: HookRun) -> set[str]:
    return {name for name, _ in imported(run.stderr)} & {"datetime", "sqlite3"}


def _ingested(mc_env: McEnv) -> bool:
    """The failed turn's end already reached tasks.db (a later writer ingested the spool)."""
    import sqlite3

    conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"))
    try:
        return bool(conn.execute("SELECT 1 FROM turn_ends WHERE outcome = 'failure'").fetchall())
    finally:
        conn.close()


def test_status_line_imports_nothing_heavy_cold_or_cached(
    mc_plugin: Path, mc_env: McEnv, mc_task: McTask, mc_repo: Path
) -> None:
    """The status line runs after every assistant message: the same rule as the hooks,
    on its slow path (first run: tasks.db, the task's files, the transcript) and on its
    cached path."""
    import json
    import subprocess

    from missioncache_harness import payloads
    from missioncache_harness.workspace import python3

    sid = "5e0c1a2b-0000-4000-8000-0000000000aa"
    transcript = Path(payloads.transcript_path(mc_env.claude_dir, mc_repo, sid))
    transcript.parent.mkdir(parents=True)
    edit = {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Edit"}]}}
    transcript.write_text(json.dumps(edit) + "\n")
    stdin = payloads.statusline(session_id=sid, transcript_path=str(transcript), cwd=mc_repo)
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [python3(), "-S", str(mc_plugin / "statusline" / "statusline.py")],
            input=json.dumps(stdin).encode(),
            cwd=str(mc_repo),
            env={**mc_env.env, "PYTHONPROFILEIMPORTTIME": "1", "COLUMNS": "200"},
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0 and "demo-task" in done.stdout.decode(), done.stderr
        runs.append(
            HookRun("statusline", 0, 0.0, False, done.stdout.decode(), done.stderr.decode())
        )
    cold, cached = runs
    assert any(m == "_sqlite3" for m, _ in imported(cold.stderr))  # really the slow path
    assert not any(m == "_sqlite3" for m, _ in imported(cached.stderr))  # really the cache
    assert heavy_imports(cold) == [] and heavy_imports(cached) == []
    assert dated_imports(cold) == set() and dated_imports(cached) == set()
