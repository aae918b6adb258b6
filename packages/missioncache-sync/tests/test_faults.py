"""Sync under faults (issue 35): a purge, a killed git, an interrupted merge, a remote
that brings a link or touches what is never synced, two machines with one id. Two HOMEs
and one bare repository, through the built plugin's command line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

import pytest

from missioncache_harness.machines import A_TURNS, Machine, bare_remote


@pytest.fixture
def pair(tmp_path, mc_plugin):
    project = tmp_path / "project"
    project.mkdir()
    a, b = Machine(tmp_path, "A", mc_plugin), Machine(tmp_path, "B", mc_plugin)
    url = bare_remote(tmp_path / "remote.git")
    a.cli("create-task", "demo", "--repo", str(project))
    a.cli("sync", "setup", url, "--name", "laptop")
    b.cli("sync", "setup", url, "--name", "desktop")
    return a, b, url


def _purge(machine: Machine, tmp_path, *extra: str):
    env = dict(machine.env.with_lib(machine.plugin), UV_CACHE_DIR=str(tmp_path / "uv-cache"))
    done = machine.env.bundled(machine.plugin, "uninstall", "--purge", *extra, env=env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def _b_keeps_everything(b: Machine) -> None:
    assert b.file("demo").is_file(), "B lost demo's context file"
    assert b.file("demo", "tasks.md").is_file()
    assert "demo" in b.cli("list").stdout
    assert b.time("demo").startswith("demo: 20m"), b.time("demo")


def test_a_purge_on_one_machine_deletes_nothing_on_the_other(pair, tmp_path):
    a, b, url = pair
    a.turns("demo", "sa", A_TURNS)
    a.cli("sync")
    b.cli("sync")
    said = _purge(a, tmp_path, "--dry-run")
    for made in (".git", "sync", "events", "machine-id", ".gitignore"):
        assert f"would remove: {a.root / made} (" in said, (made, said)
    said = _purge(a, tmp_path)
    assert url in said and "stay" in said  # what stays on the remote, and how to remove it
    assert not a.root.exists() or not any(a.root.iterdir()), list(a.root.iterdir())
    a.cli("sync")  # nothing set up any more: nothing is sent
    b.cli("sync")
    _b_keeps_everything(b)


def test_task_folders_removed_by_hand_are_never_sent_as_deletions(pair):
    """What an earlier version's purge left: the sync repository without the folders."""
    a, b, _ = pair
    a.turns("demo", "sa", A_TURNS)
    a.cli("sync")
    b.cli("sync")
    shutil.rmtree(a.root / "active")
    for name in ("tasks.db", "tasks.db-wal", "tasks.db-shm"):
        if (a.root / name).exists():
            os.unlink(a.root / name)
    said = a.cli("sync").stdout
    assert "active/demo was removed on this machine without a task delete" in said, said
    assert a.file("demo").is_file()  # restored here from the last sync
    b.cli("sync")
    _b_keeps_everything(b)


def _git(machine: Machine, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(machine.root), *args], capture_output=True, text=True)


def test_a_lock_left_by_a_killed_git_is_told_then_cleared(pair):
    a, b, _ = pair
    lock = a.root / ".git" / "index.lock"
    lock.write_text("")  # a git killed mid-commit, a moment ago: not yet known to be stale
    soon = time.time() + 60
    os.utime(lock, (soon, soon))  # "a moment ago" however slowly the sync starts
    a.turns("demo", "sa", A_TURNS)
    said = a.cli("sync").stdout
    assert "sync failed on this machine" in said, said
    assert not re.search(r"last sync[^\n]*: ok", a.cli("sync", "status").stdout)
    doctor = a.cli("doctor", ok=False).stdout
    assert "the last sync failed on this machine" in doctor, doctor
    old = time.time() - 60
    os.utime(lock, (old, old))  # its git is long gone
    said = a.cli("sync").stdout
    assert "pushed to the remote" in said, said
    assert not lock.exists()
    assert re.search(r"last sync [^\n]*: ok", a.cli("sync", "status").stdout)
    b.cli("sync")
    assert b.time("demo").startswith("demo: 20m")


def _push_from_clone(tmp_path, url: str, change) -> None:
    """Someone (another tool, an attacker with the remote) pushes a commit by hand."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "-b", "main", url, str(clone)], check=True)
    change(clone)
    run = ["git", "-C", str(clone), "-c", "user.name=x", "-c", "user.email=x@x"]
    subprocess.run([*run, "add", "-A"], check=True)
    subprocess.run([*run, "commit", "-qm", "by hand"], check=True)
    subprocess.run([*run, "push", "-q", "origin", "HEAD:main"], check=True)


def test_a_link_from_the_remote_is_never_checked_out(pair, tmp_path):
    _a, b, url = pair
    outside = tmp_path / "outside.txt"
    outside.write_text("not MissionCache's\n")

    def link(clone):
        target = clone / "active" / "demo" / "demo-context.md"
        target.unlink()
        target.symlink_to(outside)

    _push_from_clone(tmp_path, url, link)
    said = b.cli("sync").stdout
    assert "symbolic link" in said, said
    context = b.file("demo")
    assert not context.is_symlink() and "Task created" in context.read_text()
    assert outside.read_text() == "not MissionCache's\n"
    assert "not merged" in b.cli("sync", "status").stdout


def test_a_linked_context_file_travels_as_its_content(pair, tmp_path):
    a, b, _ = pair
    real = tmp_path / "elsewhere.md"
    real.write_text(a.file("demo").read_text() + "\n- kept elsewhere\n")
    a.file("demo").unlink()
    a.file("demo").symlink_to(real)
    a.cli("sync")
    b.cli("sync")
    assert not b.file("demo").is_symlink()
    assert "- kept elsewhere" in b.file("demo").read_text()


def test_a_remote_gitignore_cannot_bring_what_is_never_synced(pair, tmp_path):
    _a, b, url = pair
    before = (b.root / "machine-id").read_text()

    def widen(clone):
        (clone / ".gitignore").write_text("")
        (clone / "machine-id").write_text("0123456789abcdef\n")
        (clone / "sync").mkdir()
        (clone / "sync" / "config.json").write_text('{"remote": "/elsewhere"}')

    _push_from_clone(tmp_path, url, widen)
    said = b.cli("sync").stdout
    assert "never syncs" in said and "not merged" in said, said
    assert (b.root / "machine-id").read_text() == before
    assert url in (b.root / "sync" / "config.json").read_text()
    assert (b.root / "tasks.db").is_file()
    doctor = b.cli("doctor", ok=False).stdout
    assert "merged nothing" in doctor, doctor


def test_a_sync_killed_after_a_conflicting_merge_never_commits_gits_markers(pair):
    a, b, _ = pair
    for machine, words in ((a, "A's plan"), (b, "B's plan")):
        path = machine.file("demo")
        path.write_text(path.read_text().replace("## Next Steps\n", f"## Next Steps: {words}\n"))
    a.cli("sync")
    _git(b, "add", "-A")
    _git(b, "commit", "-qm", "B's edit")
    _git(b, "fetch", "-q", "origin")
    merged = _git(b, "merge", "origin/main")  # the sync was killed right after this
    assert merged.returncode != 0 and "<<<<<<< HEAD" in b.file("demo").read_text()
    said = b.cli("sync").stdout
    text = b.file("demo").read_text()
    assert "<<<<<<< HEAD" not in text and "A's plan" in text and "B's plan" in text
    assert f"conflict in {b.root / 'active' / 'demo' / 'demo-context.md'}:" in said
    a.cli("sync")
    assert "<<<<<<< HEAD" not in a.file("demo").read_text()
    assert "<<<<<<< version from" in a.file("demo").read_text()


def test_gits_own_markers_in_a_task_file_are_reported(pair):
    a, _, _ = pair
    path = a.file("demo")
    path.write_text(path.read_text() + "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> abc\n")
    doctor = a.cli("doctor", ok=False).stdout
    assert "demo-context.md holds both versions" in doctor, doctor


def test_two_machines_with_one_id_find_out_and_count_both(tmp_path, mc_plugin):
    """B is a copy of A's home (a cloned machine): same machine id."""
    project = tmp_path / "project"
    project.mkdir()
    a = Machine(tmp_path, "A", mc_plugin)
    url = bare_remote(tmp_path / "remote.git")
    a.cli("create-task", "demo", "--repo", str(project))
    a.cli("sync", "setup", url, "--name", "laptop")
    b = Machine(tmp_path, "B", mc_plugin)
    shutil.rmtree(b.root, ignore_errors=True)
    shutil.copytree(a.root, b.root, symlinks=True)  # a restored home: the same machine id
    _git(b, "config", "user.name", "MissionCache on desktop")
    a.turns("demo", "sa", A_TURNS)
    b.turns("demo", "sb", [(A_TURNS[1][1] + 1000, A_TURNS[1][1] + 1600)])
    a.cli("sync")
    said = b.cli("sync").stdout
    assert "shares this machine's id" in said, said
    assert (b.root / "machine-id").read_text() != (a.root / "machine-id").read_text()
    for path in (b.root / "events").glob("*/*.jsonl"):
        assert "<<<<<<<" not in path.read_text()
    a.cli("sync")
    b.cli("sync")
    a.cli("sync")
    assert b.time("demo").startswith("demo: 30m"), b.time("demo")
    assert a.time("demo").startswith("demo: 30m"), a.time("demo")


def test_a_machine_whose_clock_is_ahead_is_told_and_adds_nothing_yet(pair):
    a, b, _ = pair
    now = time.time()
    a.turns("demo", "sa", [(now - 900, now - 700)])
    b.turns("demo", "sb", [(now + 7200, now + 7500)])  # B's clock runs two hours ahead
    b.cli("sync")
    said = a.cli("sync").stdout
    assert "ahead of this one" in said, said
    first = a.time("demo")
    assert first.startswith("demo: 3m"), first  # A's own turn only, for now
    time.sleep(1.5)
    assert a.time("demo") == first
    assert "clock" in a.cli("sync", "status").stdout
    assert "clock: time is recorded" in a.cli("doctor", ok=False).stdout


def test_a_link_an_earlier_sync_checked_out_is_never_written_through(pair, tmp_path):
    a, _, _ = pair
    outside = tmp_path / "outside.md"
    outside.write_text("not MissionCache's\n")
    context = a.file("demo")
    context.unlink()
    context.symlink_to(outside)  # what an earlier version checked out from a remote
    sha = subprocess.run(
        ["git", "-C", str(a.root), "hash-object", "-w", "--stdin"],
        input=str(outside), capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    _git(a, "update-index", "--cacheinfo", f"120000,{sha},active/demo/demo-context.md")
    said = a.cli("sync").stdout
    assert "arrived from the remote as a link" in said, said
    assert not context.is_symlink()
    assert outside.read_text() == "not MissionCache's\n"


def test_a_fork_on_one_machine_and_its_parent_deleted_on_the_other_never_stop_sync(pair):
    a, b, _ = pair
    b.cli("delete", "demo", "--yes")
    b.cli("create-task", "other")
    b.turns("other", "sb", A_TURNS)
    a.cli("fork", "demo", "fa")
    b.cli("sync")
    done = a.cli("sync")
    assert "Traceback" not in done.stderr and "FOREIGN KEY" not in done.stdout
    assert "deleted the task demo, but it has forks here" in done.stdout, done.stdout
    assert a.time("other").startswith("other: 20m")
    listing = a.cli("list").stdout
    assert "demo" in listing and "fa" in listing
    rebuilt = a.cli("doctor", "--rebuild", ok=False)
    assert "rebuilt from the event logs" in rebuilt.stdout, rebuilt.stdout
    assert a.time("other").startswith("other: 20m")


def test_the_folder_of_a_deleted_task_may_be_removed_everywhere(pair):
    a, b, _ = pair
    b.cli("sync")
    a.cli("delete", "demo", "--yes")  # the files stay: they are the person's notes
    shutil.rmtree(a.root / "active" / "demo")  # then the person removes them too
    said = a.cli("sync").stdout
    assert "without a task delete" not in said, said
    assert not (a.root / "active" / "demo").exists()
    b.cli("sync")
    assert "demo" not in b.cli("list").stdout
    assert not (b.root / "active" / "demo").exists()


def test_task_folders_removed_with_the_git_index_are_never_sent_as_deletions(pair):
    a, b, _ = pair
    b.cli("sync")
    shutil.rmtree(a.root / "active")
    (a.root / ".git" / "index").unlink()
    said = a.cli("sync").stdout
    assert "active/demo was removed on this machine without a task delete" in said, said
    b.cli("sync")
    assert b.file("demo").is_file() and a.file("demo").is_file()
