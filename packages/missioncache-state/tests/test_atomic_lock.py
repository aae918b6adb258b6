import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from missioncache_state.atomic import atomic_write_text, read_json_object, write_json_atomic
from missioncache_state.lock import FileLock, LockTimeout


@pytest.mark.parametrize("durable", [True, False])
def test_atomic_write_replaces_and_leaves_no_temp(tmp_path, durable):
    target = tmp_path / "d" / "f.txt"
    atomic_write_text(target, "one\r\n", durable=durable)
    atomic_write_text(target, "two\r\n", durable=durable)
    assert target.read_bytes() == b"two\r\n"
    assert [p.name for p in target.parent.iterdir()] == ["f.txt"]


def test_atomic_write_replaces_a_planted_symlink_instead_of_writing_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "state.json"
    link.symlink_to(victim)
    write_json_atomic(link, {"a": 1})
    assert victim.read_text() == "precious"
    assert not link.is_symlink()
    assert json.loads(link.read_text()) == {"a": 1}


@pytest.mark.parametrize(
    "content", [None, b"", b"{not json", b"[1, 2]", b'"str"', b"\xff\xfe", b"null"]
)
def test_read_json_object_tolerates_bad_files(tmp_path, content):
    path = tmp_path / "x.json"
    if content is not None:
        path.write_bytes(content)
    assert read_json_object(path) is None


def test_read_json_object_reads_objects(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"k": [1]}')
    assert read_json_object(path) == {"k": [1]}


def test_lock_times_out_while_another_process_holds_it(tmp_path):
    """The holder keeps the lock until told to let go (a fixed hold let a descheduled
    test find the lock already free under CI load)."""
    target = tmp_path / "file.md"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import sys
            from missioncache_state.lock import FileLock
            with FileLock({str(target)!r}, timeout=5):
                print("held", flush=True)
                sys.stdin.readline()
        """),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(LockTimeout), FileLock(target, timeout=0.2):
            pass
        waited = time.monotonic() - started
    finally:
        holder.communicate("release\n", timeout=60)
    # it waited its timeout, then gave up (the bound is generous: only a wait far past
    # the timeout, e.g. for the holder to let go, is a defect)
    assert 0.2 <= waited < 5.0
    # once the holder is gone the lock is ours
    with FileLock(target, timeout=0):
        pass


def test_lock_serialises_increments_across_processes(tmp_path):
    counter = tmp_path / "n.txt"
    counter.write_text("0")
    script = textwrap.dedent(f"""
        from pathlib import Path
        from missioncache_state.lock import FileLock
        p = Path({str(counter)!r})
        for _ in range(100):
            with FileLock(p, timeout=30):
                p.write_text(str(int(p.read_text()) + 1))
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(4)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    assert counter.read_text() == "400"


def test_lock_does_not_follow_a_planted_symlink(tmp_path):
    victim = tmp_path / "victim"
    target = tmp_path / "ctx.md"
    os.symlink(victim, tmp_path / "ctx.md.lock")
    with pytest.raises(OSError), FileLock(target, timeout=0.1):
        pass
    assert not victim.exists()


def test_atomic_write_declined_by_still_valid_leaves_the_target(tmp_path):
    """Regression support (reliability suite): the check read-modify-write callers use to
    notice an unlocked writer runs after the temp file is complete, before the replace."""
    from missioncache_state.atomic import atomic_write_bytes

    target = tmp_path / "f.md"
    target.write_bytes(b"user\n")
    assert atomic_write_bytes(target, b"ours\n", still_valid=lambda: False) is False
    assert target.read_bytes() == b"user\n"
    assert os.listdir(tmp_path) == ["f.md"]
    assert atomic_write_bytes(target, b"ours\n", still_valid=lambda: True) is True
    assert target.read_bytes() == b"ours\n"
