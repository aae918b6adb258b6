"""pm_health: what the ``pm`` server's record says about it, as the hooks read it."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from missioncache_state import pm_health

NOW = 1_800_000_000.0


@pytest.fixture
def dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def ready(server_pid: int, beat: float = NOW) -> dict:
    return {
        "state": "ready",
        "launcher_pid": server_pid,
        "server_pid": server_pid,
        "started": NOW - 100,
        "beat": beat,
    }


def test_a_beating_live_server_is_up():
    assert pm_health.judge(ready(os.getpid()), NOW).state == "up"


def test_a_killed_server_is_down_and_says_stopped(dead_pid):
    found = pm_health.judge(ready(dead_pid), NOW)
    assert found.down and found.reason == "stopped"


def test_a_live_server_that_stopped_beating_is_not_answering():
    found = pm_health.judge(ready(os.getpid(), beat=NOW - pm_health.STALE_SECONDS - 1), NOW)
    assert found.down and found.reason == "not answering"


def test_a_start_still_running_is_not_reported(dead_pid):
    starting = {"state": "starting", "launcher_pid": os.getpid(), "started": NOW}
    assert pm_health.judge(starting, NOW).state == "starting"
    failed = {**starting, "launcher_pid": dead_pid}
    found = pm_health.judge(failed, NOW)
    assert found.down and found.reason == "failed to start"


def test_a_server_that_ended_is_down():
    found = pm_health.judge({**ready(os.getpid()), "state": "stopped"}, NOW)
    assert found.down and found.reason == "stopped"


def test_no_record_or_a_strange_one_is_unknown():
    assert pm_health.judge(None, NOW).state == "unknown"
    assert pm_health.judge({"state": 3}, NOW).state == "unknown"


def test_health_reads_the_record_of_the_named_claude_process(mc_roots, dead_pid):
    me = os.getpid()
    pm_health.write_record(me, ready(dead_pid, beat=time.time()))
    assert pm_health.health(me).reason == "stopped"
    pm_health.write_record(me, ready(me, beat=time.time()))
    assert pm_health.health(me).state == "up"


def test_a_start_that_failed_in_an_earlier_session_is_reported(mc_roots, dead_pid):
    """Claude Code caches a failed start and does not launch the server again for a
    while: this process has no record, an ended one failed not long ago."""
    pm_health.write_record(
        dead_pid, {"state": "starting", "launcher_pid": dead_pid, "started": time.time() - 60}
    )
    me = os.getpid()
    found = pm_health.earlier_failure(time.time())
    assert found.down and "earlier session" in found.reason
    pm_health.write_record(me, ready(me, beat=time.time()))
    assert pm_health.health(me).state == "up"  # this process's own record wins


def test_a_young_process_tells_only_a_start_the_cache_could_not_serve(mc_roots, dead_pid):
    """A start cut short when its Claude Code ended (print mode) leaves a "starting"
    record with no launcher, like a failed one: a new process that has not launched its own
    server yet tells only the start whose launcher found no server in uv's cache."""
    record = {"state": "starting", "launcher_pid": dead_pid, "started": time.time() - 5}
    pm_health.write_record(dead_pid, record)
    young = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert pm_health.health(young.pid).state == "unknown"  # cut short: not a failure
        pm_health.write_record(dead_pid, {**record, "cached": False})
        found = pm_health.health(young.pid)
        assert found.down and "earlier session" in found.reason
    finally:
        young.kill()
        young.wait()


def test_an_old_earlier_failure_is_forgotten(mc_roots, dead_pid):
    old = time.time() - pm_health.EARLIER_FAILURE_SECONDS - 1
    pm_health.write_record(
        dead_pid, {"state": "starting", "launcher_pid": dead_pid, "started": old}
    )
    assert pm_health.earlier_failure(time.time()).state == "unknown"


def test_each_outage_is_told_once_per_session(mc_roots, dead_pid):
    down = pm_health.judge(ready(dead_pid), NOW)
    assert pm_health.first_telling("s-1", down)
    assert not pm_health.first_telling("s-1", down)
    assert pm_health.first_telling("s-2", down)  # another session hears it too
    again = pm_health.judge({**ready(dead_pid), "started": NOW}, NOW)  # restarted, died again
    assert pm_health.first_telling("s-1", again)
    assert not pm_health.first_telling("s-1", pm_health.judge(ready(os.getpid()), NOW))


def test_the_claude_process_is_the_first_parent_that_is_no_shell(monkeypatch, tmp_path):
    """A hook runs as ``/bin/sh -c 'python3 hook.py'`` under Claude Code: walking up from
    the hook skips the shell and python and finds the process that started them (here a
    python started under the name ``claude-x``, playing Claude Code)."""
    if not os.path.exists("/proc/self/stat"):
        pytest.skip("no /proc: the walk answers None")
    monkeypatch.delenv(pm_health.PID_VARIABLE, raising=False)
    src = os.path.dirname(os.path.dirname(pm_health.__file__))
    walk = tmp_path / "walk.py"
    walk.write_text(
        f"import sys; sys.path.insert(0, {src!r}); from missioncache_state import pm_health;"
        " print(pm_health.claude_pid())"
    )
    claude = tmp_path / "claude-x"
    claude.symlink_to(sys.executable)
    starter = (
        "import os, subprocess, sys; print(os.getpid());"
        f" subprocess.run(['sh', '-c', {sys.executable!r} + ' ' + {str(walk)!r}])"
    )
    done = subprocess.run(
        [str(claude), "-c", starter], capture_output=True, text=True, check=True, timeout=30
    )
    claude_pid, found = done.stdout.split()
    assert found == claude_pid


def test_the_variable_names_the_claude_process(monkeypatch):
    monkeypatch.setenv(pm_health.PID_VARIABLE, "4242")
    assert pm_health.claude_pid() == 4242
    monkeypatch.setenv(pm_health.PID_VARIABLE, "1; rm")
    assert pm_health.claude_pid() != "1; rm"


def test_the_message_says_what_to_do(dead_pid):
    text = pm_health.what_to_do(pm_health.judge(ready(dead_pid), NOW))
    assert "stopped" in text and "/mcp" in text and "Reconnect" in text
    assert "/missioncache:save still saves" in text
