"""Tasks: names, rows, directories and template files (data model §2, §7, §8)."""

import os
import re

import pytest

from missioncache_db import STATUSES, Task
from missioncache_time import record_heartbeat


def test_create_task_makes_row_directory_and_files(db, mc_roots, mc_workdir):
    data, _ = mc_roots
    task = db.create_task("my-task", repo=mc_workdir, jira_key="PROJ-12")
    assert isinstance(task, Task)
    assert (task.name, task.full_path, task.status) == ("my-task", "active/my-task", "active")
    assert task.jira_key == "PROJ-12"
    assert task.repo_path == os.path.realpath(mc_workdir)
    assert task.directory == data / "active" / "my-task"
    assert task.context_file == task.directory / "my-task-context.md"
    assert task.tasks_file == task.directory / "my-task-tasks.md"
    assert db.get_task(task.id) == task


def test_context_template_follows_the_data_model(db):
    text = db.create_task("my-task", jira_key="PROJ-12").context_file.read_text()
    lines = text.splitlines()
    assert lines[0] == "# My Task - Context"
    stamps = [line for line in lines if line.startswith("**Last Updated:**")]
    assert len(stamps) == 1
    assert re.fullmatch(r"\*\*Last Updated:\*\* \d{4}-\d\d-\d\d \d\d:\d\d", stamps[0])
    headings = [line for line in lines if line.startswith("## ")]
    assert headings == ["## Description", "## Next Steps", "## Recent Changes"]
    recent = text.split("## Recent Changes", 1)[1]
    assert re.search(r"^### \d{4}-\d\d-\d\d \d\d:\d\d$", recent, re.M)
    assert "PROJ-12" in text.split("## Next Steps")[0]


def test_tasks_template_has_a_heading_and_no_example_items(db):
    text = db.create_task("my-task").tasks_file.read_text()
    assert text.splitlines()[0] == "# My Task - Tasks"
    assert "## Tasks" in text
    assert not re.search(r"^\s*- \[[ xX]\]", text, re.M)


def test_existing_files_are_never_overwritten(db, mc_roots):
    data, _ = mc_roots
    directory = data / "active" / "kept"
    directory.mkdir(parents=True)
    (directory / "kept-context.md").write_text("my notes\n")
    task = db.create_task("kept")
    assert task.context_file.read_text() == "my notes\n"
    assert task.tasks_file.read_text().startswith("# Kept - Tasks")


def test_bare_layout_files_are_kept_and_found(db, mc_roots):
    data, _ = mc_roots
    directory = data / "active" / "old"
    directory.mkdir(parents=True)
    (directory / "context.md").write_text("old context\n")
    task = db.create_task("old")
    assert not (directory / "old-context.md").exists()
    assert task.context_file == directory / "context.md"
    assert task.tasks_file == directory / "old-tasks.md"


@pytest.mark.parametrize(
    "name",
    ["", "Demo", "-x", "a_b", "a b", "a.b", "x\n", "../x", "a/b", "é", "x" * 129, None, 5],
)
def test_invalid_names_are_refused_clearly(db, mc_roots, name):
    data, _ = mc_roots
    with pytest.raises(ValueError, match="invalid task name"):
        db.create_task(name)
    assert db.list_tasks() == []
    assert not (data / "active").exists()


@pytest.mark.parametrize("name", ["a", "0", "a-b-c", "9lives", "x" * 128, "trailing-"])
def test_valid_names(db, name):
    assert db.create_task(name).name == name


def test_duplicate_is_refused_and_changes_nothing(db):
    first = db.create_task("dup")
    first.context_file.write_text("edited\n")
    with pytest.raises(ValueError, match="already exists"):
        db.create_task("dup")
    assert len(db.list_tasks()) == 1
    assert first.context_file.read_text() == "edited\n"


def test_duplicate_full_path_is_refused_even_with_another_repo(db, mc_workdir, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    db.create_task("dup", repo=mc_workdir)
    with pytest.raises(ValueError, match="already exists"):
        db.create_task("dup", repo=other)


def test_subtask_lives_under_its_parent(db, mc_roots):
    data, _ = mc_roots
    parent = db.create_task("parent")
    sub = db.create_task("sub", parent="parent")
    assert sub.full_path == "active/parent/sub"
    assert sub.parent_id == parent.id
    assert sub.directory == data / "active" / "parent" / "sub"
    assert sub.context_file.name == "sub-context.md"
    assert sub.context_file.is_file()


def test_unknown_parent_is_refused(db, mc_roots):
    with pytest.raises(ValueError, match="no top-level task named 'nope'"):
        db.create_task("sub", parent="nope")
    assert db.list_tasks() == []


def test_missing_repository_is_refused(db, tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        db.create_task("x", repo=tmp_path / "missing")
    assert db.list_tasks() == []


def test_repository_is_stored_resolved_once_with_short_name(db, mc_workdir, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(mc_workdir)
    a = db.create_task("a", repo=link)
    b = db.create_task("b", repo=str(mc_workdir) + "/")
    assert a.repo_path == b.repo_path == os.path.realpath(mc_workdir)
    assert a.repo_id == b.repo_id
    rows = db.conn.execute("SELECT path, short_name, created_at FROM repositories").fetchall()
    assert [(r[0], r[1]) for r in rows] == [(os.path.realpath(mc_workdir), "repo")]


def test_lookups_by_id_and_name(db):
    a = db.create_task("a")
    db.create_task("b")
    one = db.create_task("same", parent="a")
    db.create_task("b-child", parent="b")
    two = db.create_task("same", parent="b")
    assert db.get_task(a.id) == a
    assert db.get_task(999) is None
    assert db.get_task("1") is None
    assert db.get_task_by_name("a") == a
    assert db.get_task_by_name("missing") is None
    assert {t.id for t in db.get_tasks_by_name("same")} == {one.id, two.id}
    with pytest.raises(ValueError, match="several tasks"):
        db.get_task_by_name("same")
    assert db.get_task_by_name("b/same") == two


def test_list_and_status_changes(db):
    a = db.create_task("a")
    b = db.create_task("b")
    assert [t.name for t in db.list_tasks()] == ["a", "b"]
    for status in STATUSES:
        assert db.set_status(a.id, status).status == status
        expected = ["a", "b"] if status == "active" else ["a"]
        assert [t.name for t in db.list_tasks(status)] == expected
    assert db.get_task(b.id).status == "active"


def test_bad_status_and_unknown_task(db):
    a = db.create_task("a")
    with pytest.raises(ValueError, match="invalid status"):
        db.set_status(a.id, "done")
    with pytest.raises(ValueError, match="invalid status"):
        db.list_tasks("done")
    with pytest.raises(ValueError, match="no task"):
        db.set_status(999, "paused")
    assert db.get_task(a.id).status == "active"


def test_delete_task_keeps_files_and_cascades(db):
    parent = db.create_task("parent")
    sub = db.create_task("sub", parent="parent")
    record_heartbeat(db, sub.id, "s1", timestamp=1_700_000_000)
    with pytest.raises(ValueError, match="subtasks"):
        db.delete_task(parent.id)
    db.delete_task(sub.id)
    assert db.get_task(sub.id) is None
    assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 0
    assert sub.context_file.is_file()
    with pytest.raises(ValueError, match="no task"):
        db.delete_task(sub.id)


def test_task_paths_follow_the_data_root_at_call_time(db, monkeypatch, tmp_path):
    task = db.create_task("moved")
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(tmp_path / "elsewhere"))
    assert task.directory == tmp_path / "elsewhere" / "active" / "moved"


def test_row_is_rolled_back_when_files_cannot_be_written(db, mc_roots):
    data, _ = mc_roots
    data.mkdir(parents=True, exist_ok=True)
    (data / "active").write_text("not a directory")
    with pytest.raises(OSError):
        db.create_task("x")
    assert db.list_tasks() == []


@pytest.mark.parametrize(
    ("full_path", "name"),
    [
        ("active/../../outside", "demo"),
        ("../outside", "demo"),
        ("/etc", "demo"),
        ("active//x", "demo"),
        ("active\\..\\x", "demo"),
        ("C:/x", "demo"),
        ("active/demo", "../../x"),
        ("active/demo", "a/b"),
    ],
)
def test_rows_whose_files_would_leave_the_data_root_are_not_served(db, mc_roots, full_path, name):
    """Regression (reliability suite): a row written by another tool with a climbing path
    made the hooks read and write `<root>/../../outside/<name>-context.md`."""
    task = db.create_task("demo")
    db.conn.execute(
        "UPDATE tasks SET full_path = ?, name = ? WHERE id = ?", (full_path, name, task.id)
    )
    assert db.get_task(task.id) is None
    assert db.list_tasks() == []
    kept = db.create_task("kept")
    assert [t.name for t in db.list_tasks()] == ["kept"] and db.get_task(kept.id) == kept


def test_hooks_never_create_a_database_for_a_user_without_tasks(tmp_path, monkeypatch):
    """open_if_set_up / find_task: no tasks.db means None, and nothing is created."""
    from missioncache_db import find_task, open_if_set_up

    root = tmp_path / "mc"
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(root))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    assert open_if_set_up(0.1) is None
    assert find_task(str(tmp_path), "s1", 0.1) is None
    assert not root.exists()


def test_find_task_resolves_like_the_database(tmp_path, monkeypatch):
    from missioncache_db import TaskDB, find_task

    monkeypatch.setenv("MISSIONCACHE_ROOT", str(tmp_path / "mc"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    repo = tmp_path / "repo"
    repo.mkdir()
    with TaskDB() as db:
        created = db.create_task("demo", repo=str(repo))
    found = find_task(str(repo / "sub"), None, 0.5)
    assert found is not None and found.id == created.id
    assert find_task(str(tmp_path), None, 0.5) is None
