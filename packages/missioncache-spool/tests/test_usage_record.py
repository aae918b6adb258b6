"""Reading a turn's tokens at Stop (missioncache_spool._usage_record): what it waits for."""

from __future__ import annotations

import pytest

from missioncache_harness.transcript import TranscriptBuilder
from missioncache_spool import _usage_record as usage_record


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
