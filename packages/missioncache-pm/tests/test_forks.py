"""Forks in the commands and tools (docs/forks.md): /missioncache:fork and fork-done, the
shared layer in load and save, ``shared_decision`` and ``get_context_digest``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SLASH = Path(__file__).resolve().parents[2] / "missioncache-slash" / "slash.py"


def run_slash(world, *args, **env):
    """The helper as a ``!`` line runs it (the same as test_slash's)."""
    environ = {k: v for k, v in {**world.env, **env}.items() if v != ""}
    done = subprocess.run(
        [sys.executable, str(SLASH), *args],
        cwd=str(world.repo),
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout


def marker(world, sid=None):
    path = world.claude / "hooks" / "state" / "shared-seen" / f"{sid or world.sid}.json"
    return json.loads(path.read_text()) if path.exists() else None


def parent_and_fork(world):
    from missioncache_db import TaskDB

    parent = world.task("shop", repo=world.repo)
    with TaskDB() as db:
        fork = db.create_fork("shop", "shop-api")
    return parent, fork


def test_fork_command_forks_the_sessions_task_and_binds_the_session(world):
    parent = world.task("shop", repo=world.repo)
    run_slash(world, "load", "shop")
    out = run_slash(world, "fork", "shop-ui")
    assert out.startswith("MISSIONCACHE: created fork shop-ui of shop.")
    assert "**Fork of:** shop (active)" in out
    assert "No directory is tied to it" in out  # not a git worktree
    assert f"### Shared layer (context of the parent task shop): {parent.context_file}" in out
    binding = world.binding()
    assert binding["projectName"] == "shop-ui"
    assert marker(world)["parent"] == "shop"
    again = run_slash(world, "fork", "deeper")
    assert again.startswith("MISSIONCACHE ERROR:") and "itself a fork" in again


def test_fork_command_refuses_hostile_names_and_needs_a_task(world):
    assert "no fork name given" in run_slash(world, "fork", "")
    world.task("shop", repo=world.repo)
    for name in ("../x", "a/b", "Shop", "a b"):
        out = run_slash(world, "fork", name)
        assert out.startswith("MISSIONCACHE ERROR:") and "Invalid task name" in out, out
    assert not (world.root / "x").exists()


def test_save_in_a_fork_says_where_shared_decisions_go(world):
    _, _fork = parent_and_fork(world)
    run_slash(world, "load", "shop-api")
    out = run_slash(world, "save")
    assert "THIS TASK IS A FORK of shop" in out and "shared_decision" in out
    assert "PARENT UPDATED" not in out


def test_a_shared_decision_goes_to_the_parent_and_restamps_the_writer(world):
    parent, fork = parent_and_fork(world)
    run_slash(world, "load", "shop-api")
    before = marker(world)
    out = run_slash(
        world,
        "apply",
        "--context-file",
        str(fork.context_file),
        "--shared-decision",
        "prices are integers of cents",
    )
    assert "Updated the shared layer" in out
    text = parent.context_file.read_text()
    assert "- Shared decision from fork shop-api:\n  - prices are integers of cents" in text
    assert "prices are integers" not in fork.context_file.read_text()
    assert marker(world)["mtimeNs"] > before["mtimeNs"]  # this session wrote it: no news
    # Another session on the same fork, which read the parent before, is told.
    other = "1b2c3d4e-0000-4000-8000-000000000001"
    assert "PARENT UPDATED" not in run_slash(
        world, "load", "shop-api", CLAUDE_CODE_SESSION_ID=other
    )
    run_slash(
        world,
        "apply",
        "--context-file",
        str(fork.context_file),
        "--shared-decision",
        "currency is ISO 4217",
    )
    told = run_slash(world, "load", "shop-api", CLAUDE_CODE_SESSION_ID=other)
    assert "PARENT UPDATED: the shared layer (the context of the parent task shop)" in told
    assert "+  - currency is ISO 4217" in told


def test_a_shared_decision_is_no_save_of_the_parent(world):
    """The parent's own work since its compaction is still unsaved: its status line keeps
    `compacted since` (the save record in its folder is left as it was)."""
    parent, fork = parent_and_fork(world)
    record = parent.context_file.parent / ".missioncache-saved"
    before = record.read_bytes() if record.exists() else None
    run_slash(
        world, "apply", "--context-file", str(fork.context_file), "--shared-decision", "use ISO"
    )
    assert "Shared decision from fork shop-api" in parent.context_file.read_text()
    assert (record.read_bytes() if record.exists() else None) == before


def test_a_shared_decision_needs_a_fork(world):
    task = world.task("plain")
    out = run_slash(
        world, "apply", "--context-file", str(task.context_file), "--shared-decision", "x"
    )
    assert out.startswith("MISSIONCACHE ERROR:") and "not a fork" in out


def test_fork_done_from_the_fork_session_records_the_outcome(world):
    parent, _fork = parent_and_fork(world)
    run_slash(world, "load", "shop-api")
    out = run_slash(world, "fork-done", "the API is live")
    assert out.startswith("MISSIONCACHE: fork shop-api is finished (completed)")
    assert (
        "- Fork shop-api finished. Outcome:\n  - the API is live" in parent.context_file.read_text()
    )
    assert world.binding() is None  # closing a task unbinds its sessions
    assert "already completed" in run_slash(world, "fork-done", "shop-api")


def test_fork_done_without_an_outcome_takes_the_forks_newest_entry(world):
    parent, fork = parent_and_fork(world)
    run_slash(
        world, "apply", "--context-file", str(fork.context_file), "--recent-change", "wrote it"
    )
    run_slash(world, "fork-done", "shop-api")
    assert "- Fork shop-api finished. Outcome:\n  - wrote it" in parent.context_file.read_text()


def test_get_context_digest_reads_a_task_and_restamps_a_fork_reading_its_parent(world):
    parent, _fork = parent_and_fork(world)
    run_slash(world, "load", "shop-api")
    first = marker(world)
    with parent.context_file.open("a") as handle:
        handle.write("\n### 2026-01-01 10:00\n- an older shared note\n")
    reply = world.call("get_context_digest", {"task": "shop"})
    assert not reply.is_error, reply.text
    assert reply.text.startswith(f"Digest of shop's context file ({parent.context_file}).")
    assert "**Open forks:** shop-api" in reply.text and "an older shared note" in reply.text
    assert marker(world)["mtimeNs"] > first["mtimeNs"]
    own = world.call("get_context_digest", {"task": "shop-api"})
    assert "**Fork of:** shop" in own.text
    bad = world.call("get_context_digest", {"task": "../etc"})
    assert bad.is_error and "Invalid task name" in bad.text
