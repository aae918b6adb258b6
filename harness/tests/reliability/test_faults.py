"""Faults: corrupt databases, a database locked for 10 s, read-only directories, a full
disk, the plugin directory vanishing. Hooks must exit 0 within their timeout, be silent or
leave one breadcrumb line, never lose an existing heartbeat or context edit, and recover
once the fault is gone (spooled heartbeats counted).

How faults are made (as root, permission bits mean nothing): read-only is a read-only
bind mount (``mount --bind`` + ``remount,ro``), a full disk is a 1 MiB tmpfs filled to
ENOSPC. Both need CAP_SYS_ADMIN; without it (a non-root developer) read-only falls back to
``chmod a-w`` and the full-disk case is skipped.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import time

import pytest

from missioncache_harness.children import wait_heartbeat_children
from missioncache_harness.reliability import (
    EVENTS,
    INSTRUCTION,
    SESSION_ID,
    breadcrumb_only,
    context_grew_only_by_entries,
    fire_event,
    heartbeats,
    make_scene,
    pending_failure,
    process_heartbeats,
    snapshots,
    spooled,
    wait_for,
    wait_for_lock_waiter,
)
from missioncache_state.lock import lock_file_for


def checkpoint(db) -> bytes:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return db.read_bytes()


def fire_all(scene, plugin, prompt: str, env=None) -> dict:
    results = {}
    for event in EVENTS:
        results[event] = fire_event(plugin, scene, event, env=env, prompt=prompt)
    return results


def assert_survived(results: dict) -> None:
    for event, fired in results.items():
        assert breadcrumb_only(fired) == [], event
        for run in fired.runs:  # shown with -s: what each hook said under the fault
            name = run.command.rsplit("/", 1)[-1].strip('"')
            print(f"{event:17} {name:20} exit {run.exit_code} {run.duration:5.2f}s", end=" ")
            print(repr(run.stderr.strip()[:160]), "out" if run.stdout else "silent")


def assert_works(scene, plugin, prompt: str) -> None:
    """The fault is gone: a full round works again and the heartbeat is recorded."""
    before = heartbeats(scene, SESSION_ID)
    saved_before = snapshots(scene)
    results = fire_all(scene, plugin, prompt)
    for event, fired in results.items():
        assert fired.problems() == [], event
    assert '"systemMessage"' in results["SessionStart"].stdout("session_start.py")
    assert results["PreCompact"].stdout("pre_compact.py") == INSTRUCTION
    assert snapshots(scene) == saved_before + 1  # the snapshot landed in the context file
    assert pending_failure(scene) is None  # and nothing is left for SessionStart to report
    # The heartbeat child may meet this round's own write lock and spool its heartbeat (the
    # product's way of never losing one): fold the spool in before counting.
    assert wait_heartbeat_children(scene.env.data_root)
    process_heartbeats(scene, plugin.root)
    assert wait_for(lambda: heartbeats(scene, SESSION_ID) > before)


@pytest.mark.parametrize("which", ["tasks.db", "hooks-state.db"])
def test_corrupt_database(which, scene, strict_plugin, mc_plugin):
    home = scene.env.data_root if which == "tasks.db" else scene.env.claude_dir
    db = home / which
    good = checkpoint(db)
    for extra in ("-wal", "-shm", "-journal"):
        (home / f"{which}{extra}").unlink(missing_ok=True)
    garbage = b"not a database " + os.urandom(8192)
    db.write_bytes(garbage)
    context_before = scene.context.read_text(encoding="utf-8")
    env = dict(scene.env.env, TERM_SESSION_ID="tab-corrupt")
    assert_survived(fire_all(scene, strict_plugin, "while corrupt", env=env))
    assert wait_heartbeat_children(scene.env.data_root)  # its attempt is over
    assert db.read_bytes() == garbage  # never "repaired" away: the user may want it back
    assert context_grew_only_by_entries(context_before, scene.context.read_text("utf-8")) is None
    if which == "hooks-state.db":  # the statusline's plain-text map does not need SQLite
        term = scene.env.claude_dir / "hooks" / "state" / "term-sessions" / "tab-corrupt"
        assert term.read_text() == f"{SESSION_ID}\n"
    db.write_bytes(good)  # the fault is gone
    assert_works(scene, strict_plugin, "after repair")


def hold_exclusive(db, seconds: float) -> subprocess.Popen:
    code = (
        "import sqlite3, sys, time\n"
        f"c = sqlite3.connect({str(db)!r}, isolation_level=None, timeout=5)\n"
        "c.execute('BEGIN EXCLUSIVE')\n"
        "print('locked', flush=True)\n"
        f"time.sleep({seconds})\n"
        "c.execute('ROLLBACK')\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    return holder


def test_databases_locked_for_ten_seconds(scene, strict_plugin, mc_plugin):
    """Another process holds BEGIN EXCLUSIVE on tasks.db and hooks-state.db for 10 s. The
    prompt hooks finish at once (the heartbeat is spooled), SessionStart and Stop answer
    from reads, PreCompact waits inside its budget and then counts the spooled heartbeat."""
    process_heartbeats(scene, mc_plugin)
    before = heartbeats(scene)
    context_before = scene.context.read_text(encoding="utf-8")
    env = dict(scene.env.env, TERM_SESSION_ID="tab-locked")
    # Before the holders start, so no later than the lock is taken: timed from after both
    # had started, a second holder slow to start under load (>0.5 s) failed the check.
    started = time.monotonic()
    holders = [
        hold_exclusive(scene.env.data_root / "tasks.db", 10),
        hold_exclusive(scene.env.claude_dir / "hooks-state.db", 10),
    ]
    try:
        ups = fire_event(strict_plugin, scene, "UserPromptSubmit", env=env, prompt="locked")
        assert ups.problems() == []
        assert wait_for(lambda: spooled(scene) >= 1, timeout=5)  # spooled, never dropped
        for event in ("SessionStart", "Stop"):
            fired = fire_event(strict_plugin, scene, event, env=env)
            assert breadcrumb_only(fired) == [], event
        assert '"systemMessage"' in fired.stdout("stop.py")
        saved_before = snapshots(scene)
        pre = fire_event(strict_plugin, scene, "PreCompact", env=env)
        assert time.monotonic() - started >= 9.5  # it did wait for the lock, in budget
        assert pre.problems() == []
        assert pre.stdout("pre_compact.py") == INSTRUCTION
        assert snapshots(scene) == saved_before + 1  # the context file needs no database
        assert pending_failure(scene) is None
    finally:
        for holder in holders:
            holder.communicate(timeout=30)  # waits and closes its stdout pipe
    assert spooled(scene) == 0
    assert heartbeats(scene) == before + 1  # the spooled heartbeat counted exactly once
    assert context_grew_only_by_entries(context_before, scene.context.read_text("utf-8")) is None
    assert_works(scene, strict_plugin, "after the lock")


# ------------------------------------------------------------------ read-only


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True, check=False).returncode == 0


@contextlib.contextmanager
def read_only(*paths):
    """Make directories read-only for real, even for root: a read-only bind mount."""
    mounted, chmodded = [], []
    try:
        for path in paths:
            if os.geteuid() == 0:
                if not _mount("--bind", str(path), str(path)):
                    pytest.skip("read-only bind mounts need CAP_SYS_ADMIN")
                mounted.append(path)
                if not _mount("-o", "remount,ro,bind", str(path)):
                    pytest.skip("read-only remount not permitted")
            else:
                for folder, _dirs, _files in os.walk(path):
                    os.chmod(folder, 0o555)
                    chmodded.append(folder)
        yield
    finally:
        for path in reversed(mounted):
            subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)
        for folder in chmodded:
            os.chmod(folder, 0o755)


def test_read_only_directories(scene, strict_plugin, mc_plugin):
    process_heartbeats(scene, mc_plugin)
    before = heartbeats(scene)
    context_before = scene.context.read_bytes()
    with read_only(scene.env.data_root, scene.env.claude_dir):
        env = dict(scene.env.env, TERM_SESSION_ID="tab-ro")
        assert_survived(fire_all(scene, strict_plugin, "read only", env=env))
        assert wait_heartbeat_children(scene.env.data_root)
        assert scene.context.read_bytes() == context_before
    assert heartbeats(scene) >= before  # nothing existing was lost
    assert_works(scene, strict_plugin, "writable again")


# ------------------------------------------------------------------ full disk


@pytest.fixture
def tiny_fs(tmp_path):
    mount_point = tmp_path / "tinyfs"
    mount_point.mkdir()
    if os.geteuid() != 0 or not _mount("-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount_point)):
        pytest.skip("a tmpfs needs CAP_SYS_ADMIN")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True, check=False)


def fill(path) -> None:
    """Write zeros until the file system says ENOSPC."""
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)


def test_full_disk(tiny_fs, strict_plugin, mc_plugin):
    scene = make_scene(tiny_fs, strict_plugin, mc_plugin)
    process_heartbeats(scene, mc_plugin)
    before = heartbeats(scene)
    context_before = scene.context.read_text(encoding="utf-8")
    filler = tiny_fs / "filler"
    fill(filler)
    env = dict(scene.env.env, TERM_SESSION_ID="tab-full")
    assert_survived(fire_all(scene, strict_plugin, "disk full", env=env))
    assert wait_heartbeat_children(scene.env.data_root)
    text = scene.context.read_text(encoding="utf-8")
    assert context_grew_only_by_entries(context_before, text) is None  # whole, never torn
    filler.unlink()  # the fault is gone
    conn = sqlite3.connect(scene.env.data_root / "tasks.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    assert heartbeats(scene) >= before
    assert_works(scene, strict_plugin, "space again")
    for path in (scene.env.claude_dir / "hooks" / "state").rglob("*.json"):
        assert path.read_text(encoding="utf-8").strip().startswith("{"), path


# ------------------------------------------------------------------ the plugin vanishes


def test_plugin_directory_vanishes(scene, mc_plugin, tmp_path):
    """Claude Code replaces the plugin directory on update, under running sessions, and
    exit 2 would block the prompt or the compaction. The whole folder gone: the real
    commands (``"${CLAUDE_PLUGIN_ROOT}/hooks/run" <hook>``) are the shell's exit 127, which
    blocks nothing. Half replaced (``run`` still there, launch.sh or the hook scripts not):
    ``run`` exits 0, where python on the missing script alone WOULD exit 2."""
    from missioncache_harness.plugin import load_plugin

    copy = tmp_path / "installed" / "missioncache"
    shutil.copytree(mc_plugin, copy)
    real = load_plugin(copy)
    assert all(h.command.startswith('"${CLAUDE_PLUGIN_ROOT}/hooks/run" ') for h in real.hooks)
    for gone in ("launch.sh", "*.py", "the plugin"):
        if gone == "the plugin":
            shutil.rmtree(copy)
        for path in (copy / "hooks").glob(gone):
            path.unlink()
        exit_code = 127 if gone == "the plugin" else 0
        for event in EVENTS:
            fired = fire_event(real, scene, event)
            assert [r.exit_code for r in fired.runs] == [exit_code] * len(fired.runs), gone
            assert fired.runs and not fired.routed.blocked, (gone, event)  # no Stop continuation
            assert all(r.stdout == "" for r in fired.runs), (gone, event)
    bare = subprocess.run(
        [sys.executable, str(copy / "hooks" / "task_tracker.py")],
        capture_output=True,
        check=False,
    )
    assert bare.returncode == 2  # what a command without ``run`` would have told Claude Code


def test_library_directory_vanishes_mid_update(scene, mc_plugin, tmp_path):
    """Half-replaced plugin: scripts present, bundled libraries gone. The ImportError
    guard exits 0 in silence."""
    from missioncache_harness.plugin import load_plugin
    from missioncache_harness.reliability import strict

    copy = tmp_path / "installed" / "missioncache"
    shutil.copytree(mc_plugin, copy)
    shutil.rmtree(copy / "lib")
    plugin = strict(load_plugin(copy))
    # Not the workspace's virtualenv python (it has the libraries installed): a python3
    # without them, as on a user's machine.
    venv = os.environ.get("VIRTUAL_ENV", "\0")
    path = [p for p in scene.env.env["PATH"].split(os.pathsep) if not p.startswith(venv)]
    env = dict(scene.env.env, PYTHONPATH="", PATH=os.pathsep.join(path))
    found = shutil.which("python3", path=env["PATH"])
    done = subprocess.run(
        [found or "python3", "-c", "import missioncache_hookio"],
        env=env,
        capture_output=True,
        check=False,
    )
    if done.returncode == 0:
        pytest.skip("every python3 on PATH has the MissionCache libraries installed")
    for event in EVENTS:
        fired = fire_event(plugin, scene, event, env=env)
        assert fired.problems() == [], event
        assert all(r.stdout == "" for r in fired.runs), event


def test_plugin_vanishes_while_a_hook_runs(scene, strict_plugin, mc_plugin, tmp_path):
    """PreCompact is waiting for the context lock when the plugin directory is deleted:
    it still exits 0, within its timeout, and the context file is whole."""
    import threading

    from missioncache_harness.plugin import load_plugin
    from missioncache_harness.reliability import strict
    from missioncache_state.lock import FileLock

    copy = tmp_path / "installed" / "missioncache"
    shutil.copytree(mc_plugin, copy)
    plugin = strict(load_plugin(copy))
    context_before = scene.context.read_text(encoding="utf-8")
    result = {}
    env = dict(scene.env.env, MISSIONCACHE_ROOT=str(scene.env.data_root))
    with FileLock(scene.context, timeout=5):
        worker = threading.Thread(
            target=lambda: result.update(fired=fire_event(plugin, scene, "PreCompact", env=env))
        )
        worker.start()
        # The hook is past its imports and waiting for the lock before its plugin disappears.
        assert wait_for_lock_waiter(lock_file_for(scene.context)), (
            "PreCompact never waited for the lock"
        )
        shutil.rmtree(copy)
    worker.join(timeout=60)
    assert breadcrumb_only(result["fired"]) == []
    assert context_grew_only_by_entries(context_before, scene.context.read_text("utf-8")) is None
