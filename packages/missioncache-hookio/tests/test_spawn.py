"""spawn_detached starts a real child that holds none of our descriptors."""

import json
import os
import sys

import pytest

from missioncache_harness.polling import poll_until
from missioncache_hookio import spawn

REPORT = r"""
import json, os, sys
fds = sorted(int(n) for n in os.listdir("/proc/self/fd" if os.path.isdir("/proc/self/fd")
                                         else "/dev/fd"))
null = os.stat(os.devnull)
same = [os.path.samestat(os.fstat(fd), null) for fd in (0, 1, 2)]
report = {"cwd": os.getcwd(), "sid": os.getsid(0), "pid": os.getpid(), "fds": fds,
          "stdio_is_null": same, "marker": os.environ.get("SPAWN_MARKER")}
with open(sys.argv[1] + ".tmp", "w") as out:
    json.dump(report, out)
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
"""

posix_only = pytest.mark.skipif(os.name != "posix", reason="sessions and fds are POSIX here")


def wait_for(path, timeout=20.0):
    assert poll_until(path.exists, timeout, 0.01), "the child never wrote its report"
    return json.loads(path.read_text())


@posix_only
@pytest.mark.parametrize("starter", [spawn.spawn_detached, spawn._subprocess_spawn])
# The subprocess fallback never waits for the detached child (that is its point), so its Popen
# object warns when collected; a hook ends with os._exit and never collects it.
@pytest.mark.filterwarnings(r"ignore:subprocess \d+ is still running:ResourceWarning")
def test_child_is_detached_in_cwd_with_env_and_no_inherited_fds(tmp_path, starter):
    work = tmp_path / "work dir"
    work.mkdir()
    report = tmp_path / "report.json"
    leaked_r, leaked_w = os.pipe()
    os.set_inheritable(leaked_r, True)
    os.set_inheritable(leaked_w, True)
    here = os.getcwd()
    try:
        env = dict(os.environ, SPAWN_MARKER="m-1")
        pid = starter([sys.executable, "-c", REPORT, str(report)], str(work), env)
        seen = wait_for(report)
    finally:
        os.close(leaked_r)
        os.close(leaked_w)
    assert os.getcwd() == here  # the parent's own cwd is untouched
    assert seen["pid"] == pid
    assert seen["cwd"] == os.path.realpath(work)
    assert seen["marker"] == "m-1"
    assert seen["sid"] == pid != os.getsid(0)  # a session of its own
    assert seen["stdio_is_null"] == [True, True, True]
    assert leaked_r not in seen["fds"] and leaked_w not in seen["fds"]
    assert max(seen["fds"]) <= 3  # 0-2 and the descriptor listdir used


def test_a_missing_executable_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        spawn.spawn_detached([str(tmp_path / "no-such-python")], str(tmp_path), dict(os.environ))


def test_a_missing_cwd_raises_oserror_and_keeps_ours(tmp_path):
    here = os.getcwd()
    with pytest.raises(OSError):
        spawn.spawn_detached([sys.executable, "-c", "pass"], str(tmp_path / "gone"), {})
    assert os.getcwd() == here
