"""The file lock and the atomic replace between real Windows processes (CPython 3.13 under
Wine): what keeps two hooks, the MCP server and an editor from losing each other's writes.
Windows has no ``fcntl`` (the lock is ``msvcrt.locking``) and refuses ``os.replace`` over
a file another process holds open."""

from __future__ import annotations

import subprocess
from pathlib import Path

from missioncache_harness.windows import to_windows

PRELUDE = "import os, sys, time\nsys.path.insert(0, sys.argv[1])\n"

HOLD_LOCK = PRELUDE + (
    "from missioncache_state.lock import FileLock\n"
    "with FileLock(sys.argv[2], timeout=30):\n"
    "    print('held', flush=True)\n"
    "    sys.stdin.readline()\n"
)
TRY_LOCK = PRELUDE + (
    "from missioncache_state.lock import FileLock, LockTimeout\n"
    "try:\n"
    "    with FileLock(sys.argv[2], timeout=float(sys.argv[3])):\n"
    "        print('acquired')\n"
    "except LockTimeout:\n"
    "    print('timed out')\n"
)
COUNT = PRELUDE + (
    "from missioncache_state.lock import FileLock\n"
    "for _ in range(int(sys.argv[3])):\n"
    "    with FileLock(sys.argv[2], timeout=60):\n"
    "        with open(sys.argv[2]) as f:\n"
    "            n = int(f.read() or 0)\n"
    "        time.sleep(0.002)  # widen the window a lost update needs\n"
    "        with open(sys.argv[2], 'w') as f:\n"
    "            f.write(str(n + 1))\n"
    "print('done')\n"
)
HOLD_OPEN = PRELUDE + (
    "fd = os.open(sys.argv[2], os.O_RDONLY)\n"
    "print('open', flush=True)\n"
    "sys.stdin.readline()\n"
    "os.close(fd)\n"
)
WRITE = PRELUDE + (
    "from missioncache_state.atomic import atomic_write_bytes\n"
    "target = sys.argv[2]\n"
    "probe = target + '.probe'\n"
    "open(probe, 'wb').close()\n"
    "try:\n"
    "    os.replace(probe, target)\n"
    "    print('not refused', flush=True)\n"
    "except PermissionError:\n"
    "    os.remove(probe)\n"
    "    print('refused', flush=True)\n"
    "try:\n"
    "    atomic_write_bytes(target, b'new notes\\r\\n')\n"
    "    print('written')\n"
    "except PermissionError as error:\n"
    "    print('gave up', error.winerror)\n"
)


def lib(win_user) -> str:
    return to_windows(win_user.plugin / "lib")


def finish(proc: subprocess.Popen, stdin: str = "") -> str:
    out, err = proc.communicate(stdin, timeout=120)
    assert proc.returncode == 0, err
    return out


def test_a_held_lock_makes_another_process_wait_and_time_out(win_user, tmp_path: Path) -> None:
    target = to_windows(tmp_path / "notes.md")
    holder = win_user.python.popen(["-c", HOLD_LOCK, lib(win_user), target], env=win_user.env)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    assert win_user.run("-c", TRY_LOCK, lib(win_user), target, "0.5").stdout == "timed out\n"
    finish(holder, "\n")
    assert win_user.run("-c", TRY_LOCK, lib(win_user), target, "5").stdout == "acquired\n"


def test_a_killed_holder_leaves_the_lock_free(win_user, tmp_path: Path) -> None:
    target = to_windows(tmp_path / "notes.md")
    holder = win_user.python.popen(["-c", HOLD_LOCK, lib(win_user), target], env=win_user.env)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    holder.kill()  # a Wine process is a Linux process: it dies holding the lock
    holder.communicate(timeout=60)
    assert win_user.run("-c", TRY_LOCK, lib(win_user), target, "5").stdout == "acquired\n"


def test_three_processes_under_the_lock_lose_no_update(win_user, tmp_path: Path) -> None:
    counter = tmp_path / "count.txt"
    counter.write_text("0")
    args = ["-c", COUNT, lib(win_user), to_windows(counter), "25"]
    workers = [win_user.python.popen(args, env=win_user.env) for _ in range(3)]
    assert [finish(worker) for worker in workers] == ["done\n"] * 3
    assert counter.read_text() == "75"


def test_a_replace_refused_by_an_open_handle_is_retried(win_user, tmp_path: Path) -> None:
    """Another program holds the file open: the write waits for it, then lands whole."""
    folder = tmp_path / "notes"
    folder.mkdir()
    target = folder / "notes.md"
    target.write_bytes(b"old notes\r\n")
    holder = win_user.python.popen(
        ["-c", HOLD_OPEN, lib(win_user), to_windows(target)], env=win_user.env
    )
    assert holder.stdout is not None and holder.stdout.readline() == "open\n"
    writer = win_user.python.popen(
        ["-c", WRITE, lib(win_user), to_windows(target)], env=win_user.env
    )
    assert writer.stdout is not None and writer.stdout.readline() == "refused\n"
    finish(holder, "\n")  # the other program lets go while the write is retrying
    assert finish(writer) == "written\n"
    assert target.read_bytes() == b"new notes\r\n"
    assert sorted(p.name for p in folder.iterdir()) == ["notes.md"]  # no temp file left


def test_a_handle_held_past_the_retry_fails_loudly_and_leaves_no_temp(win_user, tmp_path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    target = folder / "notes.md"
    target.write_bytes(b"old notes\r\n")
    holder = win_user.python.popen(
        ["-c", HOLD_OPEN, lib(win_user), to_windows(target)], env=win_user.env
    )
    assert holder.stdout is not None and holder.stdout.readline() == "open\n"
    done = win_user.run("-c", WRITE, lib(win_user), to_windows(target))
    finish(holder, "\n")
    assert done.stdout == "refused\ngave up 5\n", done.stderr
    assert target.read_bytes() == b"old notes\r\n"  # the old version, whole
    assert sorted(p.name for p in folder.iterdir()) == ["notes.md"]
