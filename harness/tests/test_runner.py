"""The runner starts hooks as Claude Code does: parallel, deduplicated, its env, cwd, timeouts."""

from __future__ import annotations

import json
import os
import time

import pytest

from missioncache_harness.plugin import load_plugin
from missioncache_harness.polling import poll_until
from missioncache_harness.probes import read_log, write_plugin
from missioncache_harness.runner import run_event


def _payload(sim, event: str, **extra) -> dict:
    return {
        "session_id": "sess-1",
        "transcript_path": str(sim.env.claude_dir / "projects" / "x" / "sess-1.jsonl"),
        "cwd": str(sim.project),
        "hook_event_name": event,
        **extra,
    }


def _run(sim, root, event: str, **extra):
    return run_event(
        load_plugin(root),
        event,
        _payload(sim, event, **extra),
        project_dir=sim.project,
        env=sim.env.env,
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); count it as dead.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def test_hooks_of_one_event_run_in_parallel(sim):
    root = sim.plugin({"Stop": ["P1", "P2"]}, {"P1": {"sleep": 1}, "P2": {"sleep": 1}})
    runs = _run(sim, root, "Stop")
    assert [r.exit_code for r in runs] == [0, 0]
    # Parallel means each started before the other finished, however slow the machine is.
    assert max(r.started for r in runs) < min(r.finished for r in runs)


def test_results_come_in_completion_order(sim):
    root = sim.plugin(
        {"UserPromptSubmit": ["SLOW", "FAST"]},
        {"SLOW": {"sleep": 0.6, "stdout": "slow"}, "FAST": {"stdout": "fast"}},
    )
    runs = _run(sim, root, "UserPromptSubmit", prompt="x")
    assert [r.stdout for r in runs] == ["fast", "slow"]


def test_identical_commands_run_once_per_plugin(sim):
    cmd = 'echo once >> "$CLAUDE_PLUGIN_ROOT/count"'
    hooks = {
        "Stop": [
            {"hooks": [{"type": "command", "command": cmd}, {"type": "command", "command": cmd}]},
            {"hooks": [{"type": "command", "command": cmd}]},
        ]
    }
    first = write_plugin(sim.root / "one", hooks, name="one")
    second = write_plugin(sim.root / "two", hooks, name="two")
    runs = run_event(
        [load_plugin(first), load_plugin(second)],
        "Stop",
        _payload(sim, "Stop"),
        project_dir=sim.project,
        env=sim.env.env,
    )
    assert len(runs) == 2
    assert (first / "count").read_text() == "once\n"
    assert (second / "count").read_text() == "once\n"


def test_environment_cwd_and_stdin(sim):
    root = sim.plugin({"SessionStart": ["A"], "Stop": ["A"]})
    _run(sim, root, "SessionStart", source="startup")
    _run(sim, root, "Stop", stop_hook_active=False)
    start, stop = read_log(root)
    for entry in (start, stop):
        env = entry["env"]
        assert env["CLAUDE_PLUGIN_ROOT"] == str(root.resolve())
        data_dir = sim.env.claude_dir / "plugins" / "data" / "probe-plugin-inline"
        assert env["CLAUDE_PLUGIN_DATA"] == str(data_dir)
        assert data_dir.is_dir()
        assert env["CLAUDE_PROJECT_DIR"] == str(sim.project)
        assert env["CLAUDE_CODE_SESSION_ID"] == "sess-1"
        assert env["CLAUDECODE"] == "1"
        assert env["CLAUDE_CODE_ENTRYPOINT"] == "sdk-cli"
        assert env["HOME"] == str(sim.env.home)
        assert entry["cwd"] == str(sim.project)
        assert entry["stdin"]["cwd"] == str(sim.project)
        # A session and process group of its own.
        assert entry["sid"] == entry["pgid"] != os.getpgid(0)
    assert start["stdin"]["hook_event_name"] == "SessionStart"
    assert stop["stdin"]["stop_hook_active"] is False


def test_hook_that_never_reads_a_big_stdin_does_not_stall(sim):
    root = sim.plugin({"UserPromptSubmit": ["N"]}, {"N": {"no_stdin": True, "stdout": "ok"}})
    runs = _run(sim, root, "UserPromptSubmit", prompt="y" * 400_000)
    assert runs[0].exit_code == 0
    assert runs[0].stdout == "ok"


def test_big_stdin_arrives_whole(sim):
    root = sim.plugin({"UserPromptSubmit": ["R"]})
    big = "é" * 300_000
    _run(sim, root, "UserPromptSubmit", prompt=big)
    assert read_log(root)[0]["stdin"]["prompt"] == big


def test_non_utf8_output_is_replaced(sim):
    root = sim.plugin({"Stop": ["B"]}, {"B": {"stdout_hex": "4142fffe43c32844"}})
    (run,) = _run(sim, root, "Stop")
    assert run.stdout == "AB\ufffd\ufffdC\ufffd(D"


def test_five_megabytes_of_stdout(sim):
    root = sim.plugin({"Stop": ["BIG"]}, {"BIG": {"stdout_chars": 5_000_000}})
    (run,) = _run(sim, root, "Stop")
    assert len(run.stdout) == 5_000_000


def test_background_child_is_not_waited_for(sim):
    root = write_plugin(
        sim.root / "bg",
        {"Stop": [{"hooks": [{"type": "command", "command": "(sleep 3; touch late) & echo now"}]}]},
    )
    (run,) = _run(sim, root, "Stop")
    assert not (sim.project / "late").exists(), "the runner waited for the background child"
    assert run.stdout.strip() == "now"
    assert not run.timed_out


def test_timeout_terms_the_whole_group_and_discards_output(sim):
    behaviour = {"early_stdout": "partial", "sleep": 5, "child": 30}
    root = sim.plugin({"Stop": [{"name": "T", "timeout": 1}]}, {"T": behaviour})
    (run,) = _run(sim, root, "Stop")
    assert run.timed_out
    assert 0.9 < run.duration < 5  # killed at its 1 s timeout, before its 5 s sleep ended
    assert run.stdout == ""
    child = read_log(root)[0]["child_pid"]
    assert poll_until(lambda: not _alive(child), timeout=2), (
        "the hook's child survived the group SIGTERM"
    )


@pytest.mark.slow
def test_term_ignoring_hook_is_killed_about_1_5_s_later(sim):
    behaviour = {"ignore_term": True, "sleep": 30}
    root = sim.plugin({"Stop": [{"name": "I", "timeout": 1}]}, {"I": behaviour})
    (run,) = _run(sim, root, "Stop")
    termed = time.monotonic()
    assert run.timed_out
    pid = read_log(root)[0]["pid"]
    assert _alive(pid), "the TERM-ignoring hook should outlive SIGTERM for a while"
    while _alive(pid) and time.monotonic() - termed < 4:
        time.sleep(0.05)
    waited = time.monotonic() - termed
    assert not _alive(pid)
    assert 0.8 < waited < 2.5, f"SIGKILL came {waited:.2f} s after SIGTERM"


@pytest.mark.slow
def test_term_ignoring_grandchild_is_killed_after_the_grace(sim):
    script = "trap '' TERM; sleep 30 & echo $! > \"$CLAUDE_PLUGIN_ROOT/pid\"; wait"
    root = write_plugin(
        sim.root / "trap",
        {"Stop": [{"hooks": [{"type": "command", "command": script, "timeout": 1}]}]},
    )
    (run,) = _run(sim, root, "Stop")
    assert run.timed_out
    pid = int((root / "pid").read_text())
    assert poll_until(lambda: not _alive(pid), timeout=3)


def test_default_timeouts(sim):
    root = sim.plugin(
        {"UserPromptSubmit": ["U"], "Stop": ["S"], "PreCompact": [{"name": "P", "timeout": 7}]}
    )
    (ups,) = _run(sim, root, "UserPromptSubmit", prompt="x")
    (stop,) = _run(sim, root, "Stop")
    (pre,) = _run(sim, root, "PreCompact", trigger="manual")
    assert (ups.timeout, stop.timeout, pre.timeout) == (30.0, 600.0, 7.0)


def test_commands_run_under_sh_with_plugin_root_expanded(sim):
    root = write_plugin(
        sim.root / "sh",
        {"Stop": [{"hooks": [{"type": "command", "command": 'echo "${CLAUDE_PLUGIN_ROOT}" $0'}]}]},
    )
    (run,) = _run(sim, root, "Stop")
    assert run.stdout.split() == [str(root.resolve()), "/bin/sh"]


def test_stdin_is_json_then_eof(sim):
    root = write_plugin(
        sim.root / "cat", {"Stop": [{"hooks": [{"type": "command", "command": "cat"}]}]}
    )
    (run,) = _run(sim, root, "Stop", last_assistant_message="é")
    assert json.loads(run.stdout)["last_assistant_message"] == "é"
