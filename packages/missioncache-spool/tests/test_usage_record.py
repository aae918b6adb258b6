"""Reading a turn's tokens at Stop (missioncache_spool._usage_record): what it waits for."""

from __future__ import annotations

import json
import os

import pytest

from missioncache_harness.transcript import TranscriptBuilder
from missioncache_spool import _usage_record as usage_record
from missioncache_spool import claim, read_records
from missioncache_state.locations import heartbeat_spool_dir

PARENT, FORK, FORK_PROMPT = "parent-session", "fork-session", "prompt_fork"


@pytest.fixture
def sleeps(monkeypatch):
    """The catch-up waits taken, without waiting."""
    taken: list[float] = []
    monkeypatch.setattr(usage_record.time, "sleep", taken.append)
    return taken


def transcript(tmp_path, *prompts):
    tx = TranscriptBuilder()
    for text in prompts:
        tx.prompt(text).text("Done.")
    return str(tx.write(tmp_path / "session.jsonl"))


def prompt_ids(path):
    import json

    with open(path, encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    return [r["promptId"] for r in records if r.get("type") == "user" and "promptId" in r]


def test_a_second_stop_for_a_turn_already_read_does_not_wait(db, tmp_path, sleeps):
    path = transcript(tmp_path, "first")
    (prompt,) = prompt_ids(path)
    assert usage_record.record_usage("s1", path, prompt) == 1
    assert usage_record.record_usage("s1", path, prompt) == 0  # the same turn again
    assert sleeps == []


def test_a_turn_not_yet_in_the_transcript_is_waited_for_then_given_up(db, tmp_path, sleeps):
    path = transcript(tmp_path, "first")
    (prompt,) = prompt_ids(path)
    usage_record.record_usage("s1", path, prompt)
    assert usage_record.record_usage("s1", path, "prompt_later") == 0
    assert len(sleeps) == usage_record.CATCH_UP_TRIES  # bounded, well inside Stop's 10 s


def test_the_next_turn_is_waited_for_even_after_the_last_was_read(db, tmp_path, sleeps):
    path = transcript(tmp_path, "first", "second")
    first, second = prompt_ids(path)
    usage_record.record_usage("s1", path, first)
    assert sleeps == []
    assert usage_record.record_usage("s1", path, second) == 0  # already read with the first
    assert sleeps == []


def written_late(monkeypatch, path, late: bytes) -> list:
    """Claude Code writing ``late`` to ``path`` only after Stop's first read (it drains
    its writes every 100 ms, later on a busy machine): at the first catch-up wait."""
    taken: list[float] = []

    def sleep(seconds: float) -> None:
        if not taken:
            with open(path, "ab") as out:
                out.write(late)
        taken.append(seconds)

    monkeypatch.setattr(usage_record.time, "sleep", sleep)
    return taken


def spooled_keys() -> list:
    """The message keys the spool holds."""
    keys = []
    for path in claim(heartbeat_spool_dir()):
        for record in read_records(path):
            keys.extend(row[0] for row in record.get("m", []))
    return keys


def fork_transcript(tmp_path):
    """A fork's transcript as 2.1.328 writes it (see the real-CLI test in
    harness/tests/test_cost_conformance.py): the parent's messages copied first, under the
    fork's prompt id; then the fork's own prompt and reply (returned apart: the late part)."""
    parent = TranscriptBuilder(session_id=PARENT)
    parent.prompt("one").text("First.", msg_id="msg_parent").stop_summary()
    fork = TranscriptBuilder(session_id=FORK).fork_of(parent, FORK_PROMPT)
    path = fork.write(tmp_path / "fork.jsonl")
    copied = len(fork.lines)
    fork.user("two", promptId=FORK_PROMPT).text("Forked.", msg_id="msg_fork")
    late = b"\n".join(fork.lines[copied:]) + b"\n"
    return str(path), late


def test_a_forks_copied_messages_are_no_reply_its_stop_waits_for_its_own(db, tmp_path, monkeypatch):
    """Regression: the copy of the parent's message, under the fork's prompt id, was taken
    for the turn's reply, so Stop read on no further and the fork's own tokens waited for a
    next Stop that may never come."""
    path, late = fork_transcript(tmp_path)
    waits = written_late(monkeypatch, path, late)
    assert usage_record.record_usage(FORK, path, FORK_PROMPT) == 2
    assert waits  # it waited for the reply
    assert sorted(spooled_keys()) == ["msg_fork:", "msg_parent:"]
    assert usage_record.record_usage(FORK, path, FORK_PROMPT) == 0  # a second Stop: read


def test_a_fork_whose_reply_never_comes_is_waited_for_again_at_the_next_stop(db, tmp_path, sleeps):
    """Copies alone do not mark the turn read: a second Stop for it (a Stop hook that
    made Claude go on) still waits for its reply."""
    path, _ = fork_transcript(tmp_path)
    assert usage_record.record_usage(FORK, path, FORK_PROMPT) == 1  # the copy, priced once
    assert len(sleeps) == usage_record.CATCH_UP_TRIES
    usage_record.record_usage(FORK, path, FORK_PROMPT)
    assert len(sleeps) == 2 * usage_record.CATCH_UP_TRIES


def test_a_transcript_not_written_yet_at_stop_is_waited_for(db, tmp_path, monkeypatch):
    """Regression: a new session's file may not exist yet when Stop runs (seen on 2.1.328
    on a busy machine); a read that had seen no prompt at all was never waited on, and the
    turn's tokens were lost with the session."""
    tx = TranscriptBuilder()
    tx.prompt("first").text("Done.", msg_id="msg_first")
    path = tmp_path / "session.jsonl"
    (prompt,) = [r for r in tx.lines if b'"promptId"' in r]
    prompt_id = json.loads(prompt)["promptId"]
    waits = written_late(monkeypatch, str(path), tx.data())
    assert usage_record.record_usage("s1", str(path), prompt_id) == 1
    assert waits and spooled_keys() == ["msg_first:"]


def test_a_failed_turn_is_never_waited_for(db, tmp_path, sleeps):
    """StopFailure's turn has no reply to wait for (and ``-p`` kills that hook within
    milliseconds): what the transcript holds is read, without waiting."""
    path = transcript(tmp_path, "first")
    assert usage_record.record_usage("s1", path, "prompt_failed", catch_up=False) == 1
    assert sleeps == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_fifo_at_the_transcript_path_is_never_waited_for(db, tmp_path, sleeps):
    """A FIFO never becomes a transcript: no catch-up on it."""
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert usage_record.record_usage("s1", str(fifo), "prompt_any") == 0
    assert sleeps == []


def test_a_transcript_never_written_costs_stop_a_third_of_a_second(db, tmp_path, sleeps):
    """A session that keeps no transcript (``--no-session-persistence``) is waited for
    only as long as Claude Code's first write takes, not the whole catch-up."""
    missing = tmp_path / "never.jsonl"
    assert usage_record.record_usage("s1", str(missing), "prompt_any") == 0
    assert len(sleeps) == usage_record.MISSING_TRIES
    assert sum(sleeps) <= 0.3


def test_a_catch_up_wait_lists_the_subagents_once(db, tmp_path, sleeps, monkeypatch):
    """Only the main transcript brings the turn's reply: the 50 ms retries of Stop's wait
    read it alone, not the session's subagent transcripts again each time."""
    import missioncache_transcript.usage as usage

    listed = []
    real = usage.subagent_transcripts
    monkeypatch.setattr(
        usage, "subagent_transcripts", lambda path: listed.append(path) or real(path)
    )
    path = transcript(tmp_path, "first")
    (prompt,) = prompt_ids(path)
    usage_record.record_usage("s1", path, prompt)
    listed.clear()
    assert usage_record.record_usage("s1", path, "prompt_later") == 0
    assert len(sleeps) == usage_record.CATCH_UP_TRIES and len(listed) == 1
