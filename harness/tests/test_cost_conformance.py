"""Tokens and cost per task through the real CLI, checked against ccusage (issue 23).

A task on one project; two turns in one session, whose replies (from the fake API) report
known usage, cache writes and reads included, and one of which is two content blocks (the
CLI writes a record per block, each repeating the usage). Then an untracked session in
another project. ``report --period all --format json`` must give the task exactly the
tracked transcript's distinct messages (the untracked session's excluded), and a cost
within 1% of what ccusage 18.0.11 (``session --json --offline``) computes for the same
project. ccusage is installed by ``.ci/run``; in CI its absence fails the test.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import uuid
from pathlib import Path

import pytest

from missioncache_harness.claude_cli import (
    load_transcript,
    requires_claude,
    run_turn,
    transcript_path,
)
from missioncache_harness.fake_api import FakeAnthropicAPI, Reply, ToolUse
from missioncache_harness.fake_api import Text as ApiText
from missioncache_harness.locate import repo_root
from missioncache_harness.polling import poll_until
from missioncache_harness.workspace import McEnv, create_task, make_env

TASK = "cost-task"
MODEL = "claude-sonnet-4-5"  # priced in ccusage's offline table and ours
CCUSAGE_ENV = "MISSIONCACHE_CCUSAGE_BIN"
CCUSAGE_BIN = Path(".tools/ccusage/node_modules/.bin/ccusage")


def find_ccusage() -> Path | None:
    configured = os.environ.get(CCUSAGE_ENV)
    if configured:
        return Path(configured)
    root = repo_root()
    if root is not None and (root / CCUSAGE_BIN).is_file():
        return root / CCUSAGE_BIN
    return None


def require_ccusage() -> Path:
    """ccusage, or a skip; in CI a failure (``.ci/run`` installs it)."""
    found = find_ccusage()
    if found is None:
        message = f"ccusage 18.0.11 not found: set {CCUSAGE_ENV} or run .ci/run"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def distinct_messages(path: Path) -> dict[tuple[str, str], dict]:
    """The transcript's assistant messages, once each (message id and request)."""
    found: dict[tuple[str, str], dict] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") != "assistant":
            continue
        request = record.get("requestId") or record.get("requestRef") or ""
        found[(record["message"]["id"], request)] = record["message"]["usage"]
    return found


def expected_tokens(messages: dict) -> dict[str, int]:
    def total(field: str) -> int:
        return sum(usage.get(field, 0) for usage in messages.values())

    return {
        "input": total("input_tokens"),
        "output": total("output_tokens"),
        "cache_write": total("cache_creation_input_tokens"),
        "cache_read": total("cache_read_input_tokens"),
    }


def ccusage_sessions(binary: Path, env: McEnv) -> dict[str, dict]:
    run_env = dict(os.environ, CLAUDE_CONFIG_DIR=str(env.claude_dir), HOME=str(env.home))
    done = subprocess.run(
        [str(binary), "session", "--json", "--offline"],
        env=run_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {s["sessionId"]: s for s in json.loads(done.stdout)["sessions"]}


def heartbeat_count(env: McEnv) -> int:
    conn = sqlite3.connect(str(env.data_root / "tasks.db"))
    try:
        return conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.conformance
@requires_claude
def test_task_tokens_and_cost_match_the_transcript_and_ccusage(
    mc_plugin: Path, tmp_path: Path
) -> None:
    ccusage = require_ccusage()
    env = make_env(tmp_path)
    tracked_cwd = (tmp_path / "work" / "tracked").resolve()
    other_cwd = (tmp_path / "work" / "untracked").resolve()
    tracked_cwd.mkdir(parents=True)
    other_cwd.mkdir(parents=True)
    create_task(mc_plugin, env, TASK, tracked_cwd)
    common = dict(
        home=env.home,
        plugin_dirs=[mc_plugin],
        env_extra={"MISSIONCACHE_ROOT": str(env.data_root)},
        extra_args=["--allowedTools", "Bash", "--model", MODEL],
    )
    bash = ToolUse("Bash", {"command": "true", "description": "Nothing"})
    replies = [
        Reply((ApiText("Checking."), bash), input_tokens=1200, output_tokens=80,
              cache_write_tokens=3000, cache_read_tokens=5000),
        Reply((ApiText("Done."),), input_tokens=900, output_tokens=40, cache_read_tokens=8000),
    ]  # fmt: skip
    sid, other = str(uuid.uuid4()), str(uuid.uuid4())
    with FakeAnthropicAPI(replies) as api:
        run_turn("look at it", fake_api=api, session_id=sid, cwd=tracked_cwd, **common).check()
        api.enqueue(Reply((ApiText("Second."),), input_tokens=500, output_tokens=25,
                          cache_write_tokens=200))  # fmt: skip
        run_turn("and again", fake_api=api, resume=sid, cwd=tracked_cwd, **common).check()
        api.enqueue(Reply((ApiText("Elsewhere."),), input_tokens=7000, output_tokens=300))
        run_turn("untracked", fake_api=api, session_id=other, cwd=other_cwd, **common).check()
    assert poll_until(lambda: heartbeat_count(env) >= 2), "the heartbeats never landed"

    messages = distinct_messages(transcript_path(env.home, tracked_cwd, sid))
    assert len(messages) == 3  # the two-block reply is one message
    done = env.bundled(mc_plugin, "report", "--period", "all", "--format", "json")
    assert done.returncode == 0, done.stderr
    task = next(t for t in json.loads(done.stdout)["tasks"] if t["name"] == TASK)
    assert task["tokens"] == expected_tokens(messages)
    assert task["tokens"] == {"input": 2600, "output": 145, "cache_write": 3200,
                              "cache_read": 13000}  # fmt: skip

    theirs = ccusage_sessions(ccusage, env)
    key = next(k for k in theirs if k.endswith("tracked") and "untracked" not in k)
    peer = theirs[key]
    assert (peer["inputTokens"], peer["outputTokens"]) == (2600, 145)
    assert (peer["cacheCreationTokens"], peer["cacheReadTokens"]) == (3200, 13000)
    assert peer["totalCost"] > 0
    assert task["cost_usd"] == pytest.approx(peer["totalCost"], rel=0.01)

    shown = env.bundled(mc_plugin, "time", TASK).stdout
    assert f", ${task['cost_usd']:.2f}, 18.9k tokens, all time" in shown, shown


@pytest.mark.conformance
@requires_claude
def test_a_forked_sessions_copied_messages_are_priced_once(mc_plugin: Path, tmp_path: Path) -> None:
    """Regression (issue 35, item 13): ``claude --resume ID --fork-session`` copies the
    parent's messages into the new transcript, same message id and request (measured on
    the pinned CLI); they were counted again."""
    env = make_env(tmp_path)
    cwd = (tmp_path / "work" / "tracked").resolve()
    cwd.mkdir(parents=True)
    create_task(mc_plugin, env, TASK, cwd)
    common = dict(
        home=env.home,
        plugin_dirs=[mc_plugin],
        env_extra={"MISSIONCACHE_ROOT": str(env.data_root)},
        extra_args=["--model", MODEL],
    )
    sid = str(uuid.uuid4())
    with FakeAnthropicAPI() as api:
        api.enqueue(Reply((ApiText("First."),), input_tokens=3000, output_tokens=100))
        run_turn("one", fake_api=api, session_id=sid, cwd=cwd, **common).check()
        api.enqueue(Reply((ApiText("Forked."),), input_tokens=1000, output_tokens=50))
        forked = run_turn(
            "two",
            fake_api=api,
            resume=sid,
            cwd=cwd,
            **{**common, "extra_args": ["--model", MODEL, "--fork-session"]},
        ).check()
    fork_sid = (forked.result or {}).get("session_id")
    assert fork_sid and fork_sid != sid
    parent = distinct_messages(transcript_path(env.home, cwd, sid))
    copied = distinct_messages(transcript_path(env.home, cwd, fork_sid))
    assert set(parent) <= set(copied)  # the fork's transcript repeats the parent's message
    # What Stop's catch-up tells a copy from the fork's own reply by (docs/cost.md): the
    # copied user record carries the fork's prompt id, so a prompt id cannot; the copied
    # assistant record names the parent in requestSessionId, the fork's own reply nothing.
    (own,) = set(copied) - set(parent)  # the fork's own reply
    records = load_transcript(transcript_path(env.home, cwd, fork_sid))
    assert len({r.get("promptId") for r in records if r.get("type") == "user"}) == 1
    requesters = {
        r["message"]["id"]: r.get("requestSessionId")
        for r in records
        if r.get("type") == "assistant"
    }
    assert requesters == {
        **{message_id: sid for message_id, _ in parent},
        own[0]: None,
    }
    assert poll_until(lambda: heartbeat_count(env) >= 2), "the heartbeats never landed"
    done = env.bundled(mc_plugin, "report", "--period", "all", "--format", "json")
    assert done.returncode == 0, done.stderr
    task = next(t for t in json.loads(done.stdout)["tasks"] if t["name"] == TASK)
    assert (task["tokens"]["input"], task["tokens"]["output"]) == (4000, 150)
