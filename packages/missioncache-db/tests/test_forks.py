"""Forks (docs/forks.md): creating them, the rules on parents, resolution in git worktrees,
and a parent's time as the union of its own and its forks' turns."""

from __future__ import annotations

import os
import shutil

import pytest

from missioncache_db._forks import FORK_LINE, fork_of_line
from missioncache_harness.forks import repo_with_worktrees as make_worktrees
from missioncache_harness.forks import require_git
from missioncache_state.bindings import read_session_binding, write_session_binding
from missioncache_time import process_pending, record_heartbeat, spool_turn_end, time_split

NOW = 1_800_000_000.0


@pytest.fixture
def repo_with_worktrees(tmp_path):
    """A repository with a commit and two linked worktrees (``wa`` beside it, ``wb``
    inside it, as Claude Code's own ``.claude/worktrees`` are)."""
    require_git("the worktree tests")
    main = tmp_path / "work" / "main"
    wa, wb = tmp_path / "work" / "wa", main / ".claude" / "worktrees" / "wb"
    make_worktrees(main, wa, wb)
    return main, wa, wb


# -- create ----------------------------------------------------------------------------


def test_a_fork_is_a_task_of_its_own_whose_file_names_its_parent(db, mc_workdir):
    parent = db.create_task("shop", repo=mc_workdir)
    fork = db.create_fork("shop", "shop-api")
    assert fork.fork_of == parent.id and fork.full_path == "active/shop-api"
    assert fork.context_path != parent.context_path and os.path.isfile(fork.tasks_path)
    lines = fork.context_file.read_text().splitlines()
    stamp = next(i for i, line in enumerate(lines) if line.startswith("**Last Updated:**"))
    assert lines[stamp + 1] == f"{FORK_LINE} shop"
    assert fork_of_line(fork.context_file.read_text()) == "shop"
    assert db.parent_of(fork) == parent and db.parent_of(parent) is None
    assert [f.name for f in db.forks_of(parent.id)] == ["shop-api"]


def test_a_fork_of_a_subtask_names_it_by_its_path(db):
    db.create_task("top")
    db.create_task("sub", parent="top")
    fork = db.create_fork("top/sub", "sub-b")
    assert fork_of_line(fork.context_file.read_text()) == "top/sub"


def test_a_fork_of_a_fork_is_refused(db):
    db.create_task("p")
    db.create_fork("p", "f1")
    with pytest.raises(ValueError, match="itself a fork; fork its parent"):
        db.create_fork("f1", "f2")
    assert db.get_task_by_name("f2") is None


@pytest.mark.parametrize(
    "name",
    [
        "../evil",
        "a/b",
        "/abs",
        "UPPER",
        "-dash",
        "",
        "x" * 129,
        "caf\u00e9",
        "a\x00b",
        "..",
        "a\\b",
    ],
)
def test_hostile_fork_names_are_refused_and_nothing_is_written(db, mc_roots, name):
    data, _ = mc_roots
    db.create_task("p")
    before = sorted(str(p) for p in data.rglob("*"))
    with pytest.raises(ValueError, match="invalid task name"):
        db.create_fork("p", name)
    assert sorted(str(p) for p in data.rglob("*")) == before
    assert [t.name for t in db.list_tasks()] == ["p"]


def test_a_fork_takes_a_name_no_task_has(db):
    db.create_task("p")
    db.create_task("taken")
    with pytest.raises(ValueError, match="already exists"):
        db.create_fork("p", "taken")
    with pytest.raises(ValueError, match="already exists"):
        db.create_fork("p", "p")


def test_forking_an_unknown_closed_or_folderless_parent_is_refused(db):
    with pytest.raises(ValueError, match="no task named 'nope'"):
        db.create_fork("nope", "f")
    done = db.create_task("done")
    db.set_status(done.id, "completed")
    with pytest.raises(ValueError, match="completed; reopen it"):
        db.create_fork("done", "f")
    gone = db.create_task("gone")
    shutil.rmtree(gone.directory)
    with pytest.raises(ValueError, match=r"folder .* is gone"):
        db.create_fork("gone", "f")
    assert db.get_task_by_name("f") is None


def test_one_open_fork_per_tied_directory(db, mc_workdir, tmp_path):
    db.create_task("p", repo=mc_workdir)
    tree = tmp_path / "tree"
    tree.mkdir()
    db.create_fork("p", "fa", tree)
    with pytest.raises(ValueError, match="already tied to the open fork fa"):
        db.create_fork("p", "fb", tree)
    with pytest.raises(ValueError, match="is not a directory"):
        db.create_fork("p", "fc", tmp_path / "missing")


def test_a_parent_with_open_forks_stays_open_and_cannot_be_deleted(db):
    parent = db.create_task("p")
    fork = db.create_fork("p", "f")
    with pytest.raises(ValueError, match=r"open forks \(f\)"):
        db.set_status(parent.id, "completed")
    with pytest.raises(ValueError, match="has forks"):
        db.delete_task(parent.id)
    assert db.set_status(parent.id, "paused").status == "paused"  # pausing is fine
    db.set_status(fork.id, "completed")
    assert db.set_status(parent.id, "completed").status == "completed"
    # Its forks' rows still point at it: deleting waits for them.
    with pytest.raises(ValueError, match="has forks"):
        db.delete_task(parent.id)
    db.delete_task(fork.id)
    db.delete_task(parent.id)


def test_a_fork_whose_parent_was_closed_elsewhere_still_knows_its_parent(db):
    """Another tool closed the parent behind our back: the fork still resolves, names its
    parent and reads its (kept) files."""
    parent = db.create_task("p")
    fork = db.create_fork("p", "f")
    db.conn.execute("UPDATE tasks SET status = 'completed' WHERE id = ?", (parent.id,))
    assert db.parent_of(fork).status == "completed"
    write_session_binding("s1", "f", fork.id, fork.full_path)
    assert db.find_task_for_cwd("/", "s1") == fork


def test_recreating_a_forks_files_keeps_its_fork_line(db):
    db.create_task("p")
    fork = db.create_fork("p", "f")
    shutil.rmtree(fork.directory)
    db.recreate_task_files(fork)
    assert fork_of_line(fork.context_file.read_text()) == "p"


# -- resolution: worktrees and tied forks ---------------------------------------------


def test_a_worktree_resolves_like_its_main_repository(db, repo_with_worktrees):
    main, wa, wb = repo_with_worktrees
    parent = db.create_task("p", repo=main)
    for place in (main, wa, wa / "sub", wb):
        place.mkdir(exist_ok=True)
        assert db.find_task_for_cwd(place, None) == parent, place


def test_a_fork_tied_to_a_worktree_wins_there_and_only_there(db, repo_with_worktrees):
    main, wa, wb = repo_with_worktrees
    parent = db.create_task("p", repo=main)
    fa = db.create_fork("p", "fa", wa)
    fb = db.create_fork("p", "fb", wb)
    (wa / "deep").mkdir()
    assert db.find_task_for_cwd(main, None) == parent
    assert db.find_task_for_cwd(wa / "deep", None) == fa
    assert db.find_task_for_cwd(wb, None) == fb  # nested in main: the deeper tie wins
    # A closed fork gives its worktree back to the repository's task.
    db.set_status(fa.id, "completed")
    assert db.find_task_for_cwd(wa, None) == parent


def test_an_untied_fork_does_not_make_its_repository_ambiguous(db, mc_workdir):
    parent = db.create_task("p", repo=mc_workdir)
    db.create_fork("p", "f")
    assert db.find_task_for_cwd(mc_workdir, None) == parent


def test_a_fork_tied_to_the_parents_own_directory_wins_there(db, mc_workdir):
    db.create_task("p", repo=mc_workdir)
    fork = db.create_fork("p", "f", mc_workdir)
    assert db.find_task_for_cwd(mc_workdir, None) == fork


def test_a_submodule_or_broken_git_file_is_no_worktree(db, tmp_path, mc_workdir):
    db.create_task("p", repo=mc_workdir)
    odd = tmp_path / "odd"
    odd.mkdir()
    for content in ("gitdir: " + str(mc_workdir / ".git" / "modules" / "x"), "garbage", ""):
        (odd / ".git").write_text(content)
        assert db.find_task_for_cwd(odd, None) is None


def test_a_session_binding_still_wins_in_a_worktree(db, repo_with_worktrees):
    main, wa, _ = repo_with_worktrees
    db.create_task("p", repo=main)
    db.create_fork("p", "fa", wa)
    other = db.create_task("other")
    write_session_binding("s1", "other", other.id, other.full_path)
    assert db.find_task_for_cwd(wa, "s1") == other
    assert read_session_binding("s1")["taskId"] == other.id


# -- time ------------------------------------------------------------------------------


def turn(db, task, sid, pid, start, end):
    record_heartbeat(db, task.id, sid, None, start, pid)
    spool_turn_end(db, sid, pid, "stop", 0, end)


def test_a_parents_time_is_the_union_of_its_own_and_its_forks(db):
    parent = db.create_task("p")
    fa = db.create_fork("p", "fa")
    fb = db.create_fork("p", "fb")
    base = NOW - 10_000
    turn(db, fa, "sa", "a1", base, base + 600)  # 10 minutes in fa
    turn(db, fb, "sb", "b1", base + 300, base + 900)  # 10 minutes in fb, 5 overlapping
    turn(db, parent, "sp", "p1", base + 5000, base + 5060)  # a minute in the parent alone
    process_pending(db, now=NOW)
    assert time_split(db, fa.id, now=NOW).total == 600
    assert time_split(db, fb.id, now=NOW).total == 600
    family = time_split(db, parent.id, now=NOW)
    assert family.total == 900 + 60  # the overlap once, not 1200 + 60
    assert family.claude == 960
    # A finished fork's time still counts in its parent.
    db.set_status(fb.id, "completed")
    assert time_split(db, parent.id, now=NOW).total == 960


def test_a_parents_period_time_clips_its_forks_too(db):
    parent = db.create_task("p")
    fork = db.create_fork("p", "f")
    turn(db, fork, "s", "x", NOW - 400, NOW - 100)
    process_pending(db, now=NOW)
    assert time_split(db, parent.id, "week", now=NOW).total == 300
    assert time_split(db, parent.id, "week", now=NOW + 40 * 86400).total == 0


def test_finishing_a_fork_twice_at_once_records_one_outcome(db):
    """Regression: two ``fork-done`` at once both found the fork open, and both wrote an
    outcome into the parent. Finishing is exclusive: the second says it is done."""
    import threading
    import time

    from missioncache_db import TaskDB, finish_fork

    db.create_task("p")
    db.create_fork("p", "f")
    written: list[str] = []
    refused: list[str] = []

    def slow_write(parent_context, fork_context, key, outcome):
        written.append(outcome)
        time.sleep(0.4)  # the window in which a second finish used to slip in

    def finish(outcome):
        with TaskDB(busy_timeout=5.0) as own:
            try:
                finish_fork(own, "f", outcome, slow_write)
            except ValueError as error:
                refused.append(str(error))

    threads = [threading.Thread(target=finish, args=(o,)) for o in ("one", "two")]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join(30)
    assert len(written) == 1, refused
    assert len(refused) == 1 and "already completed" in refused[0]
