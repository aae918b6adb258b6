"""find_task answers from the session's binding when it can, without opening tasks.db.

Stop and the task tracker run on every turn; the binding (written by SessionStart,
/missioncache:load and `bind` with the task's folder) spares them the sqlite3 import. These
tests pin that the shortcut never answers differently from tasks.db where it matters: a
closed or deleted task, a hostile binding, a vanished folder.
"""

import sys

import pytest

from missioncache_db import find_task
from missioncache_db._bound import bound_task
from missioncache_state import locations
from missioncache_state.atomic import write_json_atomic
from missioncache_state.bindings import write_session_binding

SID = "sess-b"


def bind_raw(payload):
    write_json_atomic(f"{locations.projects_dir()}/{SID}.json", payload)


def test_a_binding_with_its_folder_answers_without_sqlite(db, mc_workdir, monkeypatch):
    task = db.create_task("fast")
    write_session_binding(SID, task.name, task.id, task.full_path)
    # Forgotten for this test only: opening tasks.db would import it again.
    monkeypatch.delitem(sys.modules, "missioncache_db._db")
    found = find_task(str(mc_workdir), SID)
    assert (found.id, found.name, found.context_path) == (task.id, task.name, task.context_path)
    assert "missioncache_db._db" not in sys.modules


def test_a_binding_without_a_folder_resolves_through_the_database(db, mc_workdir):
    task = db.create_task("legacy")
    write_session_binding(SID, task.name, task.id)  # as an earlier version wrote it
    assert bound_task(SID) is None
    assert find_task(str(mc_workdir), SID) == task


@pytest.mark.parametrize("status", ["completed", "archived"])
def test_closing_a_task_removes_the_bindings_that_name_it(db, mc_workdir, status):
    task = db.create_task("closing")
    other = db.create_task("other")
    write_session_binding(SID, task.name, task.id, task.full_path)
    write_session_binding("sess-other", other.name, other.id, other.full_path)
    db.set_status(task.id, status)
    assert find_task(str(mc_workdir), SID) is None
    assert find_task(str(mc_workdir), "sess-other") is not None  # other bindings are kept


def test_pausing_keeps_the_binding(db, mc_workdir):
    task = db.create_task("paused")
    write_session_binding(SID, task.name, task.id, task.full_path)
    db.set_status(task.id, "paused")
    assert find_task(str(mc_workdir), SID).id == task.id


def test_deleting_a_task_removes_its_bindings(db, mc_workdir):
    task = db.create_task("gone")
    write_session_binding(SID, task.name, task.id, task.full_path)
    db.delete_task(task.id)
    assert bound_task(SID) is None
    assert find_task(str(mc_workdir), SID) is None


@pytest.mark.parametrize(
    "full_path",
    ["../outside", "active/../../x", "/etc", "active/x\0y", 7, None, "active/other-name/.."],
)
def test_a_hostile_or_odd_folder_is_never_followed(db, mc_workdir, full_path):
    task = db.create_task("safe")
    bind_raw({"projectName": "safe", "taskId": task.id, "fullPath": full_path})
    assert bound_task(SID) is None
    assert find_task(str(mc_workdir), SID) == task  # the database still answers


def test_a_vanished_folder_falls_back_to_the_database(db, mc_workdir, tmp_path):
    task = db.create_task("moved")
    write_session_binding(SID, task.name, task.id, task.full_path)
    task.directory.rename(tmp_path / "moved-away")
    assert bound_task(SID) is None
    assert find_task(str(mc_workdir), SID) == task


def test_nothing_without_tasks_db(mc_roots, mc_workdir):
    """Not set up: a binding left behind by an earlier install answers nothing."""
    data, _ = mc_roots
    (data / "active" / "old").mkdir(parents=True)
    bind_raw({"projectName": "old", "taskId": 1, "fullPath": "active/old"})
    assert find_task(str(mc_workdir), SID) is None


def test_a_task_id_no_database_row_can_hold_names_no_task(db, mc_workdir):
    """A binding's taskId beyond SQLite's 64 bits made every lookup raise OverflowError:
    each prompt of that session lost its heartbeat without a word."""
    task = db.create_task("wide", repo=mc_workdir)
    bind_raw({"projectName": "wide", "taskId": 10**30})
    assert db.get_task(10**30) is None
    assert find_task(str(mc_workdir), SID) == task  # the cwd answers, as for a deleted task
