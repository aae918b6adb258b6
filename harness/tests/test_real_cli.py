"""The real Claude Code CLI, run offline against the fake API, honours our hook contract.

The conformance tests drive the installed CLI (skipped when absent) with a probe plugin whose hooks
log their stdin and environment and print scripted output. One module-level session (startup turn
with a Write, a resumed turn, a manual /compact) serves most assertions; every other CLI test gets
its own HOME. The helper tests at the bottom use stand-in executables and need no CLI.
"""

from __future__ import annotations

import json
import shutil
import stat
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from missioncache_harness.claude_cli import (
    BIN_ENV,
    ClaudeRun,
    ClaudeRunError,
    claude_env,
    claude_version,
    find_claude,
    install_from_marketplace,
    load_transcript,
    requires_claude,
    run_claude,
    run_turn,
    transcript_path,
)
from missioncache_harness.fake_api import FakeAnthropicAPI, Text, ToolUse
from missioncache_harness.locate import repo_root
from missioncache_harness.payloads import cwd_key
from missioncache_harness.polling import poll_until

COMMON_FIELDS = {"session_id", "transcript_path", "cwd", "hook_event_name"}
SUMMARY = "<analysis>\nprobe analysis\n</analysis>\n<summary>\nPROBE-SUMMARY\n</summary>"
BEHAVIOUR = {
    "SessionStart": {"stdout": "SS-CTX-{SRC}"},
    "UserPromptSubmit": {"stdout": "UPS-CTX"},
    "Stop": {"json": {"systemMessage": "STOP-SYSMSG"}},
    "PreCompact": {"stdout": "PRECOMPACT-INSTR"},
    "PostCompact": {"stdout": "POSTCOMPACT-OUT"},
}


def probe_env(log: Path, behaviour: dict[str, Any]) -> dict[str, str]:
    return {"MC_PROBE_LOG": str(log), "MC_PROBE_BEHAVIOUR": json.dumps(behaviour)}


def hook_log(log: Path) -> list[dict[str, Any]]:
    """The probe's log entries ({event, stdin, env, cwd, transcript_exists}), in call order."""
    return load_transcript(log)


def stdins(log: list[dict[str, Any]], event: str) -> list[dict[str, Any]]:
    return [e["stdin"] for e in log if e["event"] == event]


@dataclass
class Session:
    """A three-process session: startup turn with a Write, a resumed turn, a manual /compact."""

    api: FakeAnthropicAPI
    home: Path
    work: Path
    sid: str
    startup: ClaudeRun
    resume: ClaudeRun
    compact: ClaudeRun
    log: list[dict[str, Any]]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory, cli_probe: Path) -> Session:
    base = tmp_path_factory.mktemp("cli-session")
    home, work, log = base / "home", base / "work", base / "hooks.jsonl"
    work.mkdir()
    write = ToolUse(
        "Write", {"file_path": str(work / "hello.txt"), "content": "hi\n"}, id="toolu_mc_write"
    )
    env = probe_env(log, BEHAVIOUR)
    common = {"home": home, "cwd": work, "plugin_dirs": [cli_probe], "env_extra": env}
    with FakeAnthropicAPI([[Text("Writing."), write], "All done."], compact_summary=SUMMARY) as api:
        startup = run_turn("WRITEFILE please", fake_api=api, **common).check()
        sid = startup.session_id
        assert sid
        api.enqueue("Second answer.")
        resume = run_turn("second prompt", fake_api=api, resume=sid, **common).check()
        compact = run_turn("/compact", resume=sid, fake_api=api, **common).check()
    return Session(api, home, work, sid, startup, resume, compact, hook_log(log))


# -- one session, many facts ---------------------------------------------------------------------


@pytest.mark.conformance
@requires_claude
def test_scripted_write_runs_and_its_result_is_sent_back(session: Session) -> None:
    assert (session.work / "hello.txt").read_text() == "hi\n"
    assert session.startup.result_text == "All done."
    assert session.startup.result["num_turns"] == 2
    first, second, third = session.api.main_requests()
    assert first.tool_results() == []
    (result,) = second.tool_results()
    assert result["tool_use_id"] == "toolu_mc_write"
    assert "File created successfully" in json.dumps(result)
    assert "second prompt" in third.last_user_text()
    assert session.resume.result_text == "Second answer."
    assert session.api.pending == 0
    assert session.api.unhandled_requests() == []


@pytest.mark.conformance
@requires_claude
def test_session_start_and_prompt_stdout_reach_the_model_with_their_prefixes(
    session: Session,
) -> None:
    first = session.api.main_requests()[0].index
    expected = {
        "SessionStart:startup hook success: SS-CTX-startup": first,
        "UserPromptSubmit hook success: UPS-CTX": first,
        "SessionStart:resume hook success: SS-CTX-resume": session.api.main_requests()[2].index,
    }
    for needle, request_index in expected.items():
        hits = session.api.find_texts(needle)
        assert hits, needle
        assert hits[0].request_index == request_index
    # The raw stdout never travels without its prefix.
    for raw, prefixed in [
        ("SS-CTX-startup", "SessionStart:startup hook success: SS-CTX-startup"),
        ("UPS-CTX", "UserPromptSubmit hook success: UPS-CTX"),
    ]:
        for text in session.api.model_texts():
            assert text.count(raw) == text.count(prefixed)


@pytest.mark.conformance
@requires_claude
def test_stop_system_message_is_recorded_in_the_transcript_but_never_sent(
    session: Session,
) -> None:
    messages = session.compact.attachments("hook_system_message")
    assert [(m["hookName"], m["content"]) for m in messages] == [("Stop", "STOP-SYSMSG")] * 2
    # Later requests replay the transcript (the startup hook text comes back) but not this.
    replayed = session.api.find_texts("SessionStart:startup hook success: SS-CTX-startup")
    assert {t.request_index for t in replayed} >= {r.index for r in session.api.message_requests()}
    assert not [r for r in session.api.requests if b"STOP-SYSMSG" in r.raw]


@pytest.mark.conformance
@requires_claude
def test_hook_stdin_and_environment_follow_the_contract(session: Session, cli_probe: Path) -> None:
    log = session.log
    assert [e["stdin"].get("source") for e in log if e["event"] == "SessionStart"] == [
        "startup",
        "resume",
        "resume",
        "compact",
    ]
    tpath = str(session.startup.transcript_path)
    for entry in log:
        stdin = entry["stdin"]
        assert set(stdin) >= COMMON_FIELDS, entry["event"]
        assert (stdin["session_id"], stdin["transcript_path"]) == (session.sid, tpath)
        assert stdin["cwd"] == entry["cwd"] == str(session.work)
        env = entry["env"]
        assert env["CLAUDE_PLUGIN_ROOT"] == str(cli_probe)
        assert env["CLAUDE_PROJECT_DIR"] == str(session.work)
        assert env["CLAUDE_CODE_SESSION_ID"] == session.sid
        assert env["HOME"] == str(session.home)
        assert env["ANTHROPIC_BASE_URL"] == session.api.base_url
        assert ("CLAUDE_ENV_FILE" in env) == (entry["event"] == "SessionStart")
    assert log[0]["event"] == "SessionStart"
    assert log[0]["transcript_exists"] is False

    ups = stdins(log, "UserPromptSubmit")
    assert [u["prompt"] for u in ups] == ["WRITEFILE please", "second prompt"]
    assert all({"prompt_id", "permission_mode"} <= set(u) for u in ups)
    stop = stdins(log, "Stop")[0]
    assert {"prompt_id", "stop_hook_active", "last_assistant_message"} <= set(stop)
    assert stop["stop_hook_active"] is False
    assert stop["last_assistant_message"] == "All done."
    resume = stdins(log, "SessionStart")[1]
    assert {"seconds_since_last_response", "context_tokens"} <= set(resume)
    assert {s["reason"] for s in stdins(log, "SessionEnd")} == {"other"}


@pytest.mark.conformance
@requires_claude
def test_manual_compact_fires_precompact_and_its_stdout_becomes_instructions(
    session: Session,
) -> None:
    (pre,) = stdins(session.log, "PreCompact")
    assert pre["trigger"] == "manual"
    assert pre["custom_instructions"] is None
    assert "prompt_id" in pre
    (request,) = session.api.compaction_requests()
    assert "\n\nAdditional Instructions:\nPRECOMPACT-INSTR\n\n" in request.last_user_text()
    (post,) = stdins(session.log, "PostCompact")
    assert post["trigger"] == "manual"
    assert post["compact_summary"] == SUMMARY
    events = [e["event"] for e in session.log]
    after_pre = events[events.index("PreCompact") :]
    assert after_pre[:3] == ["PreCompact", "SessionStart", "PostCompact"]
    boundary = session.compact.records("system", "compact_boundary")
    assert boundary
    assert boundary[0]["compactMetadata"]["trigger"] == "manual"
    summaries = [r for r in session.compact.records("user") if r.get("isCompactSummary")]
    assert "PROBE-SUMMARY" in json.dumps(summaries)


@pytest.mark.conformance
@requires_claude
def test_transcript_lives_where_the_contract_says(session: Session) -> None:
    path = session.startup.transcript_path
    assert path == transcript_path(session.home, session.work, session.sid)
    assert path.parent.name == cwd_key(session.work)
    assert path.is_file()
    records = session.startup.transcript()
    assert records == load_transcript(path)
    tool_uses = [
        block
        for r in records
        if r.get("type") == "assistant"
        for block in r["message"]["content"]
        if block.get("type") == "tool_use"
    ]
    assert [(t["id"], t["name"]) for t in tool_uses] == [("toolu_mc_write", "Write")]
    names = [a["hookName"] for a in session.startup.attachments("hook_success")]
    assert "SessionStart:startup" in names
    assert "UserPromptSubmit" in names


# -- independent runs ------------------------------------------------------------------------------


@pytest.mark.conformance
@requires_claude
def test_identical_session_start_stdout_is_not_resent_on_resume(
    tmp_path: Path, cli_probe: Path
) -> None:
    """Observed on 2.1.328: a resume hook that prints what startup printed reaches nothing."""
    log, work = tmp_path / "hooks.jsonl", tmp_path / "work"
    work.mkdir()
    env = probe_env(log, {"SessionStart": {"stdout": "SAME-CTX"}})
    common = {
        "home": tmp_path / "home",
        "cwd": work,
        "plugin_dirs": [cli_probe],
        "env_extra": env,
    }
    with FakeAnthropicAPI() as api:
        first = run_turn("one", fake_api=api, **common).check()
        second = run_turn("two", fake_api=api, resume=first.session_id, **common).check()
    assert [s["source"] for s in stdins(hook_log(log), "SessionStart")] == ["startup", "resume"]
    assert api.find_texts("SessionStart:startup hook success: SAME-CTX")
    assert api.find_texts("SessionStart:resume hook success") == []
    names = [a["hookName"] for a in second.attachments("hook_success")]
    assert "SessionStart:resume" not in names


@pytest.mark.conformance
@requires_claude
def test_plugin_validate_passes_the_probe_and_fails_a_nameless_copy(
    tmp_path: Path, cli_probe: Path
) -> None:
    good = run_claude(["plugin", "validate", str(cli_probe)], home=tmp_path / "home")
    assert good.rc == 0, good.describe()
    assert "Validation passed" in good.stdout
    broken = tmp_path / "broken"
    shutil.copytree(cli_probe, broken)
    manifest = broken / ".claude-plugin" / "plugin.json"
    data = json.loads(manifest.read_text())
    del data["name"]
    manifest.write_text(json.dumps(data))
    bad = run_claude(["plugin", "validate", str(broken)])  # in a throwaway HOME
    assert bad.rc == 1
    assert "name" in bad.stdout + bad.stderr


@pytest.mark.conformance
@requires_claude
def test_marketplace_install_runs_hooks_without_plugin_dir(tmp_path: Path, cli_probe: Path) -> None:
    market, home, work, log = (
        tmp_path / "market",
        tmp_path / "home",
        tmp_path / "w",
        tmp_path / "log",
    )
    work.mkdir()
    root = install_from_marketplace(
        cli_probe,
        market,
        home,
        name="mc-probe",
        marketplace="mc-probe-market",
        folder="plugin",
        about="Probe marketplace",
        summary="Probe",
    )
    with FakeAnthropicAPI() as api:
        run_turn("hi", home=home, cwd=work, fake_api=api, env_extra=probe_env(log, {})).check()
    entries = hook_log(log)
    assert [e["event"] for e in entries][:2] == ["SessionStart", "UserPromptSubmit"]
    assert root == market / "plugin"
    assert entries[0]["env"]["CLAUDE_PLUGIN_ROOT"] == str(market / "plugin")


@pytest.mark.conformance
@requires_claude
def test_claude_version_reports_a_semver() -> None:
    version = claude_version()
    assert version is not None
    assert version.split(".")[0].isdigit()
    assert version.count(".") >= 2


# -- helpers, with stand-in executables (no CLI needed) --------------------------------------------

ENV_DUMP = """#!{python}
import json, os, sys
print(json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}}))
"""
SLEEPER = """#!{python}
import os, subprocess, sys, time
child = subprocess.Popen(["sleep", "60"])
open(sys.argv[1], "w").write(str(child.pid))
time.sleep(60)
"""


def stand_in(path: Path, template: str) -> Path:
    path.write_text(template.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_run_gives_the_process_a_hermetic_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for leaked in ("ANTHROPIC_MODEL", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR", "CLAUDECODE"):
        monkeypatch.setenv(leaked, "from-parent")
    monkeypatch.setenv("MC_KEEP_ME", "kept")
    binary = stand_in(tmp_path / "claude", ENV_DUMP)
    work = tmp_path / "work"
    work.mkdir()
    with FakeAnthropicAPI() as api:
        run = run_claude(
            ["-p", "hi"],
            home=tmp_path / "h",
            cwd=work,
            fake_api=api,
            env_extra={"X": "1"},
            binary=binary,
        ).check()
        url = api.base_url
    env = run.result["env"]
    assert run.result["argv"] == ["-p", "hi"]
    assert run.result["cwd"] == str(work)
    assert env["HOME"] == str(tmp_path / "h")
    assert env["ANTHROPIC_BASE_URL"] == url
    assert env["ANTHROPIC_API_KEY"] == "sk-test-dummy"
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert env["DISABLE_AUTOUPDATER"] == "1"
    assert (env["X"], env["MC_KEEP_ME"]) == ("1", "kept")
    for leaked in ("ANTHROPIC_MODEL", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR", "CLAUDECODE"):
        assert leaked not in env


def test_without_a_fake_api_the_base_url_points_nowhere(tmp_path: Path) -> None:
    env = claude_env(tmp_path, base_env={"PATH": "/bin", "ANTHROPIC_BASE_URL": "https://real"})
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["PATH"] == "/bin"


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    binary = stand_in(tmp_path / "claude", SLEEPER)
    pid_file = tmp_path / "child.pid"
    run = run_claude([str(pid_file)], home=tmp_path / "h", cwd=tmp_path, timeout=2, binary=binary)
    assert run.timed_out
    assert not run.ok
    with pytest.raises(ClaudeRunError, match="timed out"):
        run.check()
    child = int(pid_file.read_text())
    assert poll_until(lambda: not _alive(child), timeout=10)


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie counts as gone: it has been killed, only not reaped)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


def test_session_ids_paths_and_arguments(tmp_path: Path) -> None:
    assert cwd_key("/tmp/w_x.y z-1") == "-tmp-w-x-y-z-1"
    sid = "0b0c4d4e-0000-4000-8000-000000000000"
    path = transcript_path(tmp_path, "/p/q", sid)
    assert path == tmp_path / ".claude" / "projects" / "-p-q" / f"{sid}.jsonl"
    assert load_transcript(path) == []
    path.parent.mkdir(parents=True)
    path.write_text('{"type": "user"}\n{"type": "assistant"}\n{"torn')
    assert load_transcript(path) == [{"type": "user"}, {"type": "assistant"}]
    binary = stand_in(tmp_path / "claude", ENV_DUMP)
    options = {"home": tmp_path / "h", "binary": binary}
    new = run_turn("hi", plugin_dirs=["/plug"], session_id=sid, **options).result["argv"]
    assert new == [
        "-p",
        "hi",
        "--plugin-dir",
        "/plug",
        "--permission-mode",
        "acceptEdits",
        "--output-format",
        "json",
        "--session-id",
        sid,
    ]
    resumed = run_turn("/compact", resume=sid, session_id="ignored", **options).result["argv"]
    assert resumed[-2:] == ["--resume", sid]
    fresh = run_turn("hi", **options).result["argv"]
    assert fresh[-2] == "--session-id" and uuid.UUID(fresh[-1])
    run = ClaudeRun(["-p", "x", "--resume", sid], tmp_path, Path("/p/q"), 0, "not json", "", 0.1)
    assert (run.result, run.session_id, run.transcript_path) == (None, sid, path)
    assert [r["type"] for r in run.transcript()] == ["user", "assistant"]


def test_find_claude_prefers_the_environment_then_the_pinned_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configured = tmp_path / "my-claude"
    monkeypatch.setenv(BIN_ENV, str(configured))
    assert find_claude() == configured  # even when missing: a wrong setting must fail, not skip
    monkeypatch.delenv(BIN_ENV)
    root = repo_root()
    assert root is not None
    assert (root / "harness" / "src" / "missioncache_harness").is_dir()
    pinned = root / ".tools" / "claude" / "node_modules" / ".bin" / "claude"
    if pinned.is_file():
        assert find_claude() == pinned
    on_path = stand_in(tmp_path / "claude", ENV_DUMP)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_claude() == (pinned if pinned.is_file() else on_path)
