"""Attackers: ids and names built to escape, and symlinks planted where hooks write.

Session ids (stdin), terminal ids (TERM_SESSION_ID / WT_SESSION) and task names are
attacker-controlled as far as the file system is concerned. None may make a hook write
outside the state directory or read from outside it. Symlinks planted at state files,
hooks-state.db, rule files and lock files must be replaced or refused, never written
through. Every case runs the built plugin through the harness.
"""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from missioncache_harness.reliability import (
    EVENTS,
    INSTRUCTION,
    SESSION_ID,
    TASK,
    diff,
    fire_raw,
    snapshot,
    system_message,
)
from missioncache_harness.workspace import create_task

HOSTILE_SESSION_IDS = [
    "../../../../outside/sess-main",
    "../sess-main",
    "/abs/sess-main",
    "..",
    ".",
    "a/b",
    "a\\..\\..\\b",
    "a\x00b",
    "x" * 129,
    "x" * 5000,
    "C:\\Windows\\x",
    "-leading-dash",
    "caf\u00e9",
    "%2e%2e%2fx",
    "sess-main\n",
]

HOSTILE_TERMINAL_IDS = [
    "../../../../outside/secret.md",
    "/etc/passwd",
    "..",
    ".",
    "...",
    "a\\..\\..\\b",
    "x" * 5000,
    "w0t1p0:6F1E2D3C-AAAA-BBBB-CCCC-123456789ABC",
    "C:\\Users\\x",
    "\u00e9\u00e9",
]


def other_task_binding(scene, mc_plugin) -> None:
    """A second task in another repository, and a binding to it planted OUTSIDE the state
    directory where a traversing session id would land: if a hook ever read it, the
    banner would name ``other-task``."""
    repo = scene.root / "work" / "other-repo"
    repo.mkdir()
    other = create_task(mc_plugin, scene.env, "other-task", repo)
    planted = {"projectName": "other-task", "taskId": other.id, "sessionId": SESSION_ID}
    for where in (scene.outside, scene.env.claude_dir / "hooks", scene.env.claude_dir):
        (where / f"{SESSION_ID}.json").write_text(json.dumps(planted), encoding="utf-8")


def state_files(scene) -> dict[str, tuple]:
    """Everything under the Claude dir except the places hooks are allowed to write."""
    claude = scene.env.claude_dir
    allowed = (claude / "hooks" / "state", claude / "rules", claude / "projects")
    entries = snapshot(claude, skip=allowed)
    return {k: v for k, v in entries.items() if not k.startswith("hooks-state.db")}


def assert_contained(scene, before_outside, before_claude, fired, label) -> None:
    assert fired.problems() == [], label
    assert diff(before_outside, scene.outside_snapshot()) == [], label
    # session-env/ and plugins/data/ are the simulator's own (Claude Code makes them).
    changed = [
        p
        for p in diff(before_claude, state_files(scene))
        if not p.startswith(("session-env", "plugins"))
    ]
    assert changed == [], label
    for event_out in (r.stdout for r in fired.runs):
        assert "other-task" not in event_out, label


@pytest.mark.parametrize("session_id", HOSTILE_SESSION_IDS, ids=range(len(HOSTILE_SESSION_IDS)))
def test_hostile_session_ids_stay_inside(session_id, scene, strict_plugin, mc_plugin):
    other_task_binding(scene, mc_plugin)
    for event in EVENTS:
        before_outside, before_claude = scene.outside_snapshot(), state_files(scene)
        data = json.dumps(scene.payload(event, session_id=session_id, source="compact"))
        fired = fire_raw(
            strict_plugin, event, data.encode(), project_dir=scene.repo, env=scene.env.env
        )
        assert_contained(scene, before_outside, before_claude, fired, (event, session_id))
    names = os.listdir(scene.env.claude_dir / "hooks" / "state" / "projects")
    assert names == [f"{SESSION_ID}.json"]  # only the scene's own binding exists


@pytest.mark.parametrize("variable", ["TERM_SESSION_ID", "WT_SESSION"])
def test_hostile_terminal_ids_stay_inside(variable, scene, strict_plugin):
    term_dir = scene.env.claude_dir / "hooks" / "state" / "term-sessions"
    for raw in HOSTILE_TERMINAL_IDS:
        env = dict(scene.env.env, **{variable: raw})
        before_outside, before_claude = scene.outside_snapshot(), state_files(scene)
        data = json.dumps(scene.payload("SessionStart")).encode()
        fired = fire_raw(strict_plugin, "SessionStart", data, project_dir=scene.repo, env=env)
        assert_contained(scene, before_outside, before_claude, fired, raw)
    for name in os.listdir(term_dir):
        path = term_dir / name
        assert not path.is_symlink() and path.parent == term_dir
        assert len(name) <= 128 and name not in (".", "..")
        assert path.read_text(encoding="utf-8") == f"{SESSION_ID}\n"
    conn = sqlite3.connect(scene.env.claude_dir / "hooks-state.db")
    rows = conn.execute("SELECT term_session_id FROM term_sessions").fetchall()
    conn.close()
    # Rows are keyed by the raw id (a bound SQL parameter, never a path); each maps to
    # exactly one file, named by the sanitised id.
    names = sorted(
        {
            "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in r[0][:128])
            for r in rows
        }
    )
    assert names == sorted(os.listdir(term_dir))


HOSTILE_TASK_NAMES = [
    "../escape",
    "../../outside/x",
    "/abs",
    "a\\b",
    "..",
    "C:\\x",
    "x" * 129,
    "UPPER",
    "a b",
    "-dash",
]


def test_hostile_task_names_are_refused(scene, mc_plugin):
    """The bundled CLI refuses every name outside ``^[a-z0-9][a-z0-9-]*$`` (<= 128) and
    creates nothing anywhere (NUL cannot even reach it: exec refuses it in argv)."""
    before = snapshot(scene.root, skip=(scene.env.claude_dir,))
    for name in HOSTILE_TASK_NAMES:
        args = ("create-task", name, "--repo", str(scene.repo))
        done = scene.env.bundled(mc_plugin, *args, cwd=str(scene.repo))
        assert done.returncode != 0, name
        assert "Traceback" not in done.stderr, name
    after = snapshot(scene.root, skip=(scene.env.claude_dir,))
    changed = [p for p in diff(before, after) if not p.startswith("home/.missioncache/tasks.db")]
    assert changed == []


@pytest.mark.parametrize(
    "full_path", ["active/../../../outside", "../../outside", "/../../outside"]
)
def test_escaping_task_row_is_never_followed(full_path, scene, strict_plugin):
    """Another tool (or a damaged database) stored a task path that climbs out of the data
    root, where a file with the task's context-file name waits: no hook may read it (the
    banner digest, the task tracker) or write it (the PreCompact snapshot)."""
    conn = sqlite3.connect(scene.env.data_root / "tasks.db")
    with conn:
        conn.execute("UPDATE tasks SET full_path = ? WHERE name = ?", (full_path, TASK))
    conn.close()
    (scene.outside / f"{TASK}-tasks.md").write_text("- [ ] 7. secret\n", encoding="utf-8")
    with (scene.outside / f"{TASK}-context.md").open("a", encoding="utf-8") as handle:
        handle.write("\n## Next Steps\nOUTSIDE-SECRET\n### Task 7\n")
    for event in EVENTS:
        before = scene.outside_snapshot()
        payload = scene.payload(event, source="compact", session_id="fresh-session")
        fired = fire_raw(
            strict_plugin,
            event,
            json.dumps(payload).encode(),
            project_dir=scene.repo,
            env=scene.env.env,
        )
        assert fired.problems(quiet=False) == [], event
        assert diff(before, scene.outside_snapshot()) == [], event
        for run in fired.runs:
            assert "OUTSIDE-SECRET" not in run.stdout and '"7"' not in run.stdout, event


# ------------------------------------------------------------------ planted symlinks


def plant(link, target) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target)


def test_symlinked_state_files_are_replaced_not_followed(scene, strict_plugin):
    state = scene.env.claude_dir / "hooks" / "state"
    targets = {
        state / "projects" / f"{SESSION_ID}.json": "binding",
        state / "term-sessions" / "tab-1": "terminal",
        state / "divergence" / f"{SESSION_ID}.json": "divergence",
        state / "precompact-error.json": "error",
    }
    for index, (link, label) in enumerate(targets.items()):
        target = scene.outside / f"target-{index}"
        target.write_text(f"user file {label}\n", encoding="utf-8")
        plant(link, target)
    env = dict(scene.env.env, TERM_SESSION_ID="tab-1")
    before = scene.outside_snapshot()
    for event in EVENTS:
        payload = scene.payload(event, prompt="one more thing")
        fired = fire_raw(
            strict_plugin, event, json.dumps(payload).encode(), project_dir=scene.repo, env=env
        )
        assert fired.problems() == [], event
    assert diff(before, scene.outside_snapshot()) == []
    binding = state / "projects" / f"{SESSION_ID}.json"
    assert not binding.is_symlink() and json.loads(binding.read_text())["taskId"] == scene.task_id
    assert (state / "term-sessions" / "tab-1").read_text() == f"{SESSION_ID}\n"


@pytest.mark.parametrize("suffix", ["", "-journal", "-wal", "-shm"])
def test_symlinked_hooks_state_db_is_never_written_through(suffix, scene, strict_plugin):
    """hooks-state.db (or a journal SQLite would create beside it) planted as a link to
    another SQLite database of the user's: the terminal row is not written there (the
    plain-text term-session file still is)."""
    victim = scene.outside / "victim.db"
    conn = sqlite3.connect(victim)
    with conn:
        conn.execute("CREATE TABLE notes(x)")
        conn.execute("INSERT INTO notes VALUES ('precious')")
    conn.close()
    db = scene.env.claude_dir / "hooks-state.db"
    for extra in ("", "-journal", "-wal", "-shm"):
        (scene.env.claude_dir / f"hooks-state.db{extra}").unlink(missing_ok=True)
    plant(scene.env.claude_dir / f"hooks-state.db{suffix}", victim)
    before = scene.outside_snapshot()
    env = dict(scene.env.env, TERM_SESSION_ID="tab-2")
    payload = json.dumps(scene.payload("SessionStart")).encode()
    fired = fire_raw(strict_plugin, "SessionStart", payload, project_dir=scene.repo, env=env)
    assert fired.problems(quiet=False) == []
    assert diff(before, scene.outside_snapshot()) == []
    assert (scene.env.claude_dir / "hooks" / "state" / "term-sessions" / "tab-2").is_file()
    assert '"systemMessage"' in fired.stdout("session_start.py")
    assert db.is_symlink() or not db.exists() or suffix != ""


def test_symlinked_lock_file_is_refused(scene, strict_plugin):
    """The context file's lock sidecar planted as a link: PreCompact must not create,
    truncate or write the target; it records the failure instead."""
    target = scene.outside / "lock-target"
    target.write_text("user data\n", encoding="utf-8")
    plant(scene.context.with_name(scene.context.name + ".lock"), target)
    before = scene.outside_snapshot()
    context_before = scene.context.read_bytes()
    payload = json.dumps(scene.payload("PreCompact")).encode()
    fired = fire_raw(
        strict_plugin, "PreCompact", payload, project_dir=scene.repo, env=scene.env.env
    )
    assert fired.problems() == []
    assert diff(before, scene.outside_snapshot()) == []
    assert scene.context.read_bytes() == context_before
    assert fired.stdout("pre_compact.py") == INSTRUCTION  # the summariser's line, nothing else
    error = json.loads(
        (scene.env.claude_dir / "hooks" / "state" / "precompact-error.json").read_text()
    )
    assert "context file" in error["error"]
    payload = json.dumps(scene.payload("SessionStart", source="compact")).encode()
    start = fire_raw(
        strict_plugin, "SessionStart", payload, project_dir=scene.repo, env=scene.env.env
    )
    told = system_message(start)  # the person hears of it after the compaction
    assert f"snapshot of {TASK}" in told and "was not saved" in told
    assert "/missioncache:save" in told


MARKER = "<!-- missioncache-plugin:managed"


@pytest.mark.parametrize(
    "kind", ["user-file", "link-to-user-file", "link-to-managed-file", "fifo", "directory"]
)
def test_legacy_rules_cleanup_never_touches_what_the_user_owns(kind, scene, strict_plugin):
    """Item 8 of issue 12: only the managed file an earlier version installed is removed
    (a link to one: the link, never its target); a user's file, a FIFO (no hang) or a
    directory stays, and nothing is installed in its place."""
    rules = scene.env.claude_dir / "rules"
    shutil_rmtree(rules)
    rules.mkdir()
    dest = rules / "missioncache.md"
    user_text = "# my own rules\n" if kind != "link-to-managed-file" else f"{MARKER} -->\nold\n"
    if kind == "user-file":
        dest.write_text(user_text, encoding="utf-8")
    elif kind == "fifo":
        os.mkfifo(dest)
    elif kind == "directory":
        dest.mkdir()
    else:
        target = scene.outside / "rules-target.md"
        target.write_text(user_text, encoding="utf-8")
        plant(dest, target)
    before = scene.outside_snapshot()
    payload = json.dumps(scene.payload("SessionStart")).encode()
    fired = fire_raw(
        strict_plugin, "SessionStart", payload, project_dir=scene.repo, env=scene.env.env
    )
    assert fired.problems() == []
    assert diff(before, scene.outside_snapshot()) == []
    if kind == "link-to-managed-file":
        assert not os.path.lexists(dest)
    elif kind == "user-file":
        assert dest.read_text(encoding="utf-8") == user_text
    else:
        assert os.path.lexists(dest)


def shutil_rmtree(path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
