"""Reading token usage forward from an offset (missioncache_transcript.usage)."""

from __future__ import annotations

import calendar
import json
import os
import time

import pytest

from missioncache_harness.transcript import TranscriptBuilder
from missioncache_transcript.usage import iso_epoch, read_usage, subagent_transcripts


def test_the_sample_counts_each_api_response_once(sample_path):
    """The real 2.1.328 sample: three responses (two reuse the id msg_2, told apart by
    their request), 30 input and 15 output tokens, as its own cost-state record says."""
    found = read_usage(sample_path)
    assert len(found.messages) == 3
    assert sum(m.input for m in found.messages) == 30
    assert sum(m.output for m in found.messages) == 15
    records = [json.loads(line) for line in sample_path.read_text().splitlines()]
    cost_state = next(r for r in records if r["type"] == "cost-state")
    usage = cost_state["modelUsage"]["claude-opus-5-5"]
    assert (usage["inputTokens"], usage["outputTokens"]) == (30, 15)
    assert {m.model for m in found.messages} == {"claude-opus-5-5"}
    assert found.offset == sample_path.stat().st_size


def test_a_message_split_into_blocks_counts_once(tx, tmp_path):
    tx.prompt("go").text("one", msg_id="msg_x").text("two", msg_id="msg_x").text("b")
    found = read_usage(tx.write(tmp_path / "t.jsonl"))
    assert len(found.messages) == 2 and found.messages[0].key == "msg_x:"
    assert [m.tokens() for m in found.messages] == [(10, 5, 0, 0, 0)] * 2


def test_reads_on_from_the_offset_and_stops_at_the_last_complete_line(tx, tmp_path):
    path = tx.prompt("go").text("first", msg_id="m1").write(tmp_path / "t.jsonl")
    first = read_usage(path)
    assert [m.key for m in first.messages] == ["m1:"]
    again = read_usage(path, first.offset, first.prompt_id)
    assert again.messages == [] and again.offset == first.offset
    tx.text("second", msg_id="m2")
    whole = tx.data()
    path.write_bytes(whole[:-10])  # the newest line is still being written
    torn = read_usage(path, first.offset, first.prompt_id)
    assert torn.messages == [] and torn.offset == first.offset
    path.write_bytes(whole)
    later = read_usage(path, torn.offset, torn.prompt_id)
    assert [m.key for m in later.messages] == ["m2:"]
    assert later.messages[0].prompt_id == first.prompt_id  # the same turn


def test_a_replaced_shorter_file_is_read_from_the_start(tx, tmp_path):
    path = tx.prompt("go").text("a", msg_id="m1").text("b", msg_id="m2").write(tmp_path / "t")
    end = read_usage(path).offset
    fresh = type(tx)().prompt("new").text("c", msg_id="m3").write(path)
    found = read_usage(fresh, end)
    assert found.restarted and [m.key for m in found.messages] == ["m3:"]


def test_cache_writes_keep_their_one_hour_split(tmp_path):
    usage = {
        "input_tokens": 3,
        "output_tokens": 7,
        "cache_creation_input_tokens": 1000,
        "cache_read_input_tokens": 50,
        "cache_creation": {"ephemeral_5m_input_tokens": 600, "ephemeral_1h_input_tokens": 400},
        "speed": "fast",
    }
    record = {
        "type": "assistant",
        "requestId": "req_1",
        "timestamp": "2026-12-01T22:28:37.227Z",
        "message": {"id": "msg_1", "model": "claude-opus-4-6", "usage": usage},
    }
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(record) + "\n" + "garbage\n" + '{"usage": 1}\n')
    (found,) = read_usage(path).messages
    assert found.tokens() == (3, 7, 600, 400, 50) and found.speed == "fast"
    assert found.key == "msg_1:req_1"


def test_iso_epoch_is_the_utc_instant():
    expected = calendar.timegm(time.strptime("2026-02-28T23:59:59", "%Y-%m-%dT%H:%M:%S"))
    assert iso_epoch("2026-02-28T23:59:59.500Z") == expected + 0.5
    assert iso_epoch("2024-02-29T00:00:00Z") == calendar.timegm((2024, 2, 29, 0, 0, 0))
    assert iso_epoch("2026-13-01T00:00:00Z") is None and iso_epoch("yesterday") is None


def test_subagent_transcripts_sit_beside_the_session(tmp_path):
    main = tmp_path / "abc.jsonl"
    main.write_text("")
    folder = tmp_path / "abc" / "subagents"
    folder.mkdir(parents=True)
    for name in ("agent-b.jsonl", "agent-a.jsonl", "notes.txt"):
        (folder / name).write_text("")
    assert subagent_transcripts(main) == [
        str(folder / "agent-a.jsonl"),
        str(folder / "agent-b.jsonl"),
    ]
    assert subagent_transcripts(tmp_path / "none.jsonl") == []


def test_retry_back_offs_are_read_as_waits(tmp_path):
    """The record 2.1.328 writes when a request is retried (measured against the fake API
    answering 529): ``system``/``api_error`` with ``retryInMs``."""
    record = {
        "type": "system",
        "subtype": "api_error",
        "level": "error",
        "retryInMs": 1064,
        "retryAttempt": 2,
        "maxRetries": 10,
        "source": "request_retry",
        "timestamp": "2026-12-01T23:43:41.963Z",
    }
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps(dict(record, retryInMs=-5)) + "\n")
    found = read_usage(path)
    assert found.waits == [(iso_epoch("2026-12-01T23:43:41.963Z"), 1.064)]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_fifo_or_device_reads_as_nothing_without_waiting(tmp_path):
    """Regression: ``open()`` on a FIFO waits for a writer; the readers must not."""
    import subprocess
    import sys

    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    code = (
        "import sys; from missioncache_transcript.usage import read_usage;"
        "from missioncache_transcript.reverse_reader import ReverseLineReader;"
        "r = read_usage(sys.argv[1], 7); assert r.messages == [] and r.offset == 7;"
        "assert list(ReverseLineReader(sys.argv[1])) == [];"
        "assert read_usage('/dev/zero').messages == []"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(fifo)], timeout=10, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_an_implausible_count_drops_that_messages_usage(tmp_path):
    """Regression: a record claiming 10^30 tokens was clamped to 2^40 (millions of
    dollars). Above 10^8 in any field a record is no real message: it is left out and
    named, the others are read as usual."""

    def record(mid, usage):
        message = {"id": mid, "model": "claude-sonnet-4-5", "usage": usage}
        return {"type": "assistant", "requestId": "req_" + mid, "message": message}

    lines = [
        record("m1", {"input_tokens": 10**30, "output_tokens": 5}),
        record("m2", {"input_tokens": 1, "output_tokens": 2, "cache_read_input_tokens": 10**8 + 1}),
        record("m3", {"input_tokens": 100_000_000, "output_tokens": 7}),
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    found = read_usage(path)
    assert [m.key for m in found.messages] == ["m3:req_m3"]
    assert found.messages[0].input == 100_000_000
    assert found.dropped == ["m1", "m2"]


def test_a_forks_copies_of_its_parents_messages_are_told_from_its_own(tmp_path):
    """2.1.328 copies the parent's messages into a fork's transcript under the fork's
    first prompt id; only ``requestSessionId`` tells them from the fork's own reply."""
    parent = TranscriptBuilder(session_id="parent-session")
    parent.prompt("one").text("First.", msg_id="msg_parent")
    fork = TranscriptBuilder(session_id="fork-session").fork_of(parent, "prompt_fork")
    fork.user("two", promptId="prompt_fork").text("Forked.", msg_id="msg_fork")
    found = read_usage(fork.write(tmp_path / "fork.jsonl"))
    assert [(m.key, m.prompt_id, m.copied) for m in found.messages] == [
        ("msg_parent:", "prompt_fork", True),
        ("msg_fork:", "prompt_fork", False),
    ]
    (own,) = read_usage(parent.write(tmp_path / "parent.jsonl")).messages
    assert not own.copied  # in its own session the same message is no copy
