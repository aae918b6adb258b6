"""Which task is this session on? Every rule of data model §4."""

import os
from pathlib import Path

import pytest

from missioncache_db._remote import normalise
from missioncache_state import locations
from missioncache_state.atomic import write_json_atomic
from missioncache_state.bindings import read_session_binding, write_session_binding
from missioncache_time import record_heartbeat_auto


def projects_dir() -> Path:
    return Path(locations.projects_dir())


SID = "sess-1"


def bind_raw(sid, payload):
    write_json_atomic(projects_dir() / f"{sid}.json", payload)


def test_nothing_resolves_outside_everything(db, mc_workdir):
    db.create_task("a")
    assert db.find_task_for_cwd(mc_workdir, SID) is None
    assert db.find_task_for_cwd(mc_workdir) is None


def test_binding_by_task_id_wins_over_cwd(db):
    bound = db.create_task("bound")
    other = db.create_task("other")
    assert write_session_binding(SID, "bound", bound.id)
    assert db.find_task_for_cwd(other.directory, SID) == bound
    assert db.find_task_for_cwd(other.directory, "sess-2") == other


def test_binding_to_paused_task_resolves(db, mc_workdir):
    task = db.create_task("p")
    db.set_status(task.id, "paused")
    write_session_binding(SID, "p", task.id)
    assert db.find_task_for_cwd(mc_workdir, SID).id == task.id


@pytest.mark.parametrize("fate", ["completed", "archived", "deleted"])
def test_binding_to_gone_task_does_not_fall_back_to_its_name(db, mc_workdir, fate):
    """The binding's task is closed or gone; another open task now has its name. The
    name must not be used: resolution continues by cwd."""
    first = db.create_task("alpha")
    db.create_task("holder")
    namesake = db.create_task("alpha", parent="holder")
    write_session_binding(SID, "alpha", first.id)
    if fate == "deleted":
        db.delete_task(first.id)
    else:
        db.set_status(first.id, fate)
    assert db.find_task_for_cwd(mc_workdir, SID) is None
    # ... and step 2 still applies
    assert db.find_task_for_cwd(namesake.directory, SID) == namesake


def test_binding_to_gone_task_continues_with_repository(db, mc_workdir):
    gone = db.create_task("gone")
    repo_task = db.create_task("in-repo", repo=mc_workdir)
    write_session_binding(SID, "gone", gone.id)
    db.set_status(gone.id, "completed")
    assert db.find_task_for_cwd(mc_workdir, SID) == repo_task


def test_legacy_binding_resolves_unique_open_name(db, mc_workdir):
    task = db.create_task("legacy")
    bind_raw(SID, {"projectName": "legacy", "sessionId": SID})
    assert db.find_task_for_cwd(mc_workdir, SID) == task


def test_legacy_binding_ignores_closed_namesakes(db, mc_workdir):
    db.create_task("p1")
    closed = db.create_task("legacy", parent="p1")
    db.set_status(closed.id, "completed")
    db.create_task("p2")
    open_one = db.create_task("legacy", parent="p2")
    bind_raw(SID, {"projectName": "legacy"})
    assert db.find_task_for_cwd(mc_workdir, SID) == open_one


def test_ambiguous_legacy_binding_resolves_nothing_and_says_so(db, capfd):
    db.create_task("p1")
    one = db.create_task("twin", parent="p1")
    db.create_task("p2")
    db.create_task("twin", parent="p2")
    bind_raw(SID, {"projectName": "twin", "updated": "x"})
    capfd.readouterr()
    # even from inside one of the candidates' directories: the binding is explicit
    assert db.find_task_for_cwd(one.directory, SID) is None
    err = capfd.readouterr().err
    assert err.count("\n") == 1
    assert "twin" in err and "2" in err and SID in err


def test_legacy_binding_to_unknown_name_continues_with_cwd(db):
    task = db.create_task("here")
    bind_raw(SID, {"projectName": "nobody"})
    assert db.find_task_for_cwd(task.directory, SID) == task


def test_hostile_breadcrumb_stays_one_line(db, capfd):
    db.create_task("p1")
    db.create_task("p2")
    db.conn.execute("UPDATE tasks SET name = 'a\nb'")  # a foreign tool wrote odd names
    bind_raw(SID, {"projectName": "a\nb"})
    capfd.readouterr()
    assert db.find_task_for_cwd("/", SID) is None
    assert capfd.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("payload", ["{not json", "[1, 2]", '{"taskId": "3"}', "", '"x"'])
def test_corrupt_binding_reads_as_absent(db, payload):
    task = db.create_task("here")
    path = projects_dir() / f"{SID}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(payload)
    assert read_session_binding(SID) is None
    assert db.find_task_for_cwd(task.directory, SID) == task


@pytest.mark.parametrize("sid", ["../x", "a/b", "s" * 300, "a\x00b", ".", "", 7, None])
def test_hostile_session_ids_are_absent(db, mc_roots, sid):
    _, claude = mc_roots
    task = db.create_task("here")
    other = db.create_task("other")
    # a binding planted where a naive join of the hostile id would look
    for name in ("x.json", "..json", ".json", "b.json"):
        write_json_atomic(claude / "hooks" / "state" / name, {"taskId": other.id})
        write_json_atomic(projects_dir() / name, {"taskId": other.id})
    assert db.find_task_for_cwd(task.directory, sid) == task


def test_data_root_deepest_first(db):
    parent = db.create_task("parent")
    sub = db.create_task("sub", parent="parent")
    deep = sub.directory / "notes" / "more"
    deep.mkdir(parents=True)
    assert db.find_task_for_cwd(sub.directory) == sub
    assert db.find_task_for_cwd(deep) == sub
    assert db.find_task_for_cwd(parent.directory) == parent
    loose = parent.directory / "scratch"
    loose.mkdir()
    assert db.find_task_for_cwd(loose) == parent


def test_data_root_needs_an_active_task(db, mc_roots):
    data, _ = mc_roots
    task = db.create_task("sleepy")
    db.set_status(task.id, "paused")
    assert db.find_task_for_cwd(task.directory) is None
    assert db.find_task_for_cwd(data / "active") is None
    assert db.find_task_for_cwd(data) is None


def test_data_root_through_a_symlinked_cwd(db, tmp_path):
    task = db.create_task("linked")
    link = tmp_path / "shortcut"
    link.symlink_to(task.directory)
    assert db.find_task_for_cwd(link) == task


def test_repository_with_one_active_task(db, mc_workdir):
    task = db.create_task("repo-task", repo=mc_workdir)
    (mc_workdir / "src" / "pkg").mkdir(parents=True)
    assert db.find_task_for_cwd(mc_workdir) == task
    assert db.find_task_for_cwd(mc_workdir / "src" / "pkg") == task
    assert db.find_task_for_cwd(str(mc_workdir) + "-sibling") is None
    assert db.find_task_for_cwd(mc_workdir.parent) is None


def test_repository_with_several_active_tasks_resolves_nothing(db, mc_workdir):
    a = db.create_task("a", repo=mc_workdir)
    b = db.create_task("b", repo=mc_workdir)
    c = db.create_task("c", repo=mc_workdir)
    db.set_status(c.id, "paused")
    assert db.find_task_for_cwd(mc_workdir) is None
    assert {t.id for t in db.active_tasks_for_cwd_repo(mc_workdir)} == {a.id, b.id}
    db.set_status(b.id, "completed")
    assert db.find_task_for_cwd(mc_workdir) == a


def test_longest_repository_wins(db, mc_workdir):
    outer = db.create_task("outer", repo=mc_workdir)
    inner_dir = mc_workdir / "vendor" / "lib"
    inner_dir.mkdir(parents=True)
    inner = db.create_task("inner", repo=inner_dir)
    assert db.find_task_for_cwd(inner_dir / ".") == inner
    assert db.find_task_for_cwd(mc_workdir / "vendor") == outer
    assert [t.id for t in db.active_tasks_for_cwd_repo(inner_dir)] == [inner.id]
    db.set_status(inner.id, "completed")
    assert db.find_task_for_cwd(inner_dir) is None  # the inner repository is the one
    assert db.active_tasks_for_cwd_repo(inner_dir) == []


def test_data_root_before_repository(db, mc_roots):
    data, _ = mc_roots
    data.mkdir(parents=True, exist_ok=True)
    db.create_task("whole-root", repo=data)
    task = db.create_task("inside")
    assert db.find_task_for_cwd(task.directory) == task


def test_active_tasks_for_cwd_outside_repositories(db, mc_workdir):
    db.create_task("a", repo=mc_workdir)
    assert db.active_tasks_for_cwd_repo(os.path.dirname(mc_workdir)) == []


def test_a_cwd_named_with_non_utf8_bytes_resolves_to_its_repository(db, mc_workdir):
    """Regression (issue 12, item 4): POSIX paths are bytes. In a subdirectory whose name
    is not UTF-8 the cwd holds lone surrogates, SQLite refused to bind them, and every
    hook failed there: no banner, no heartbeat, no snapshot."""
    task = db.create_task("a", repo=mc_workdir)
    inside = os.fsencode(mc_workdir) + b"/caf\xe9-\xff"
    os.mkdir(inside)
    cwd = os.fsdecode(inside)
    assert db.find_task_for_cwd(cwd).id == task.id
    assert [t.id for t in db.active_tasks_for_cwd_repo(cwd)] == [task.id]
    assert record_heartbeat_auto(db, cwd, "s1") is True
    assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 1


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:me/app.git",
        "https://github.com/me/app",
        "ssh://git@GitHub.com/me/app.git",
        "https://me@github.com/me/app.git/",
    ],
)
def test_one_repository_whichever_way_it_was_cloned(url):
    assert normalise(url) == "github.com/me/app"
