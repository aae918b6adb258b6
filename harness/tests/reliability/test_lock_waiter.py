"""The lock-waiter probe the fault tests act on: it must see a hook waiting, and nothing else."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from missioncache_harness.reliability import wait_for_lock_waiter


# Python 3.12+ warns of fork in a threaded process; this child only sleeps and exits.
@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")
def test_a_child_not_yet_exec_d_is_not_a_waiter(tmp_path):
    """Between fork and exec a child holds every descriptor of the test, the lock's too: a
    probe that counted it let a test delete the plugin before the hook's shell had read it."""
    sidecar = tmp_path / "context.md.lock"
    fd = os.open(sidecar, os.O_RDWR | os.O_CREAT)
    pid = os.fork()
    if pid == 0:  # the child stays a copy of the test, as in the window before exec
        time.sleep(3)
        os._exit(0)
    try:
        assert not wait_for_lock_waiter(sidecar, timeout=1.0)
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)


def test_another_program_holding_the_sidecar_is_a_waiter(tmp_path):
    sidecar = tmp_path / "context.md.lock"
    sidecar.touch()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; f = open(sys.argv[1]); time.sleep(30)",
            str(sidecar),
        ]
    )
    try:
        assert wait_for_lock_waiter(sidecar, timeout=10.0)
    finally:
        holder.kill()
        holder.wait()
