"""Finding and waiting for the detached heartbeat children of one data root."""

import subprocess
import sys
import time

import pytest

from missioncache_harness.children import (
    heartbeat_children,
    processes_running,
    wait_heartbeat_children,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def stand_in(root, seconds):
    """A process that looks like a heartbeat child of ``root`` (same argv word, same env),
    returned once /proc shows its new command line (it reads empty for an instant while
    the kernel finishes the exec)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", f"import time; time.sleep({seconds})", "heartbeat-auto"],
        env={"MISSIONCACHE_ROOT": str(root)},
    )
    deadline = time.monotonic() + 30
    while proc.pid not in processes_running(b"heartbeat-auto") and time.monotonic() < deadline:
        time.sleep(0.001)
    return proc


def test_a_child_of_this_data_root_is_found_and_waited_for(tmp_path):
    mine, other = tmp_path / "mine", tmp_path / "other"
    child = stand_in(mine, 0.3)
    stranger = stand_in(other, 30)
    try:
        assert heartbeat_children(mine) == [child.pid]
        assert heartbeat_children(other) == [stranger.pid]
        assert wait_heartbeat_children(mine, timeout=30)
        child.wait(timeout=30)
        assert heartbeat_children(mine) == []
        assert stranger.pid in processes_running(b"heartbeat-auto")
    finally:
        stranger.kill()
        stranger.wait()


def test_waiting_for_a_stuck_child_gives_up(tmp_path):
    stuck = stand_in(tmp_path, 30)
    try:
        assert wait_heartbeat_children(tmp_path, timeout=0.2) is False
    finally:
        stuck.kill()
        stuck.wait()
