"""recent_turns: the last prompts and replies, readable and bounded."""

from __future__ import annotations

import pytest

from missioncache_transcript import Turn, read_recent_turns, recent_turns


def _roles_texts(turns):
    return [(turn.role, turn.text) for turn in turns]


def test_sample_transcript(sample_path):
    turns = recent_turns(sample_path)
    assert _roles_texts(turns) == [
        ("user", "WRITEEDIT please create hello.txt then change hi to hello"),
        ("assistant", "Done editing."),
    ]
    assert turns[0].timestamp == "2026-11-29T13:58:09.770Z"


def test_last_n_interleaved_in_order(tx, tmp_path):
    for index in range(5):
        tx.exchange(f"prompt {index}", reply=f"reply {index}")
    turns = recent_turns(tx.write(tmp_path / "t.jsonl"), n=3)
    assert _roles_texts(turns) == [
        ("user", "prompt 2"),
        ("assistant", "reply 2"),
        ("user", "prompt 3"),
        ("assistant", "reply 3"),
        ("user", "prompt 4"),
        ("assistant", "reply 4"),
    ]


def test_only_text_blocks_and_split_messages_are_joined(tx, tmp_path):
    tx.prompt("explain")
    tx.thinking("secret reasoning", msg_id="m1")
    tx.text("First part.", msg_id="m1")
    tx.edit("/p/a.py", msg_id="m1")
    tx.text("Second part.", msg_id="m1")
    tx.text("Final answer.", msg_id="m2")
    turns = recent_turns(tx.write(tmp_path / "t.jsonl"))
    assert _roles_texts(turns) == [
        ("user", "explain"),
        ("assistant", "First part.\nSecond part."),
        ("assistant", "Final answer."),
    ]


def test_more_replies_than_n_keeps_the_last(tx, tmp_path):
    tx.prompt("one").text("a").text("b").text("c")
    turns = recent_turns(tx.write(tmp_path / "t.jsonl"), n=2)
    assert _roles_texts(turns) == [("user", "one"), ("assistant", "b"), ("assistant", "c")]


def test_a_reused_message_id_does_not_merge_exchanges(tx, tmp_path):
    tx.prompt("one").text("first", msg_id="msg_1").prompt("two").text("second", msg_id="msg_1")
    turns = recent_turns(tx.write(tmp_path / "t.jsonl"))
    assert _roles_texts(turns) == [
        ("user", "one"),
        ("assistant", "first"),
        ("user", "two"),
        ("assistant", "second"),
    ]


def test_limit_cuts_with_an_ellipsis(tx, tmp_path):
    tx.prompt("p" * 1000).text("  " + "r" * 20 + "  \n")
    path = tx.write(tmp_path / "t.jsonl")
    turns = recent_turns(path, limit=20)
    assert turns[0].text == "p" * 19 + "…" and len(turns[0].text) == 20
    assert turns[1].text == "r" * 20
    assert recent_turns(path, limit=None)[0].text == "p" * 1000
    with pytest.raises(ValueError):
        recent_turns(path, limit=0)


def test_prompt_rendering_and_non_prompts(tx, tmp_path):
    tx.user(
        "<command-message>model</command-message>\n<command-name>/model</command-name>\n"
        "<command-args>opus</command-args>"
    )
    tx.user("<local-command-stdout>Set model to opus</local-command-stdout>")
    tx.user([{"type": "image", "source": {"type": "base64", "data": "AAAA"}}])
    tx.meta("[Image: source: /tmp/1.png]")
    tx.user("summary of earlier work", isCompactSummary=True)
    tx.user([{"type": "tool_result", "tool_use_id": "x", "content": "tool output"}])
    tx.user("sidechain prompt", isSidechain=True).text("sidechain reply", isSidechain=True)
    turns = recent_turns(tx.write(tmp_path / "t.jsonl"))
    assert _roles_texts(turns) == [("user", "/model opus"), ("user", "[image]")]


def test_reads_back_past_the_current_exchange_but_within_budget(tx, tmp_path):
    tx.exchange("old prompt", reply="old reply")
    for index in range(40):
        tx.text(f"filler {index} " + "x" * 200)
    path = tx.write(tmp_path / "t.jsonl")
    assert ("user", "old prompt") in _roles_texts(recent_turns(path, n=2))
    bounded = read_recent_turns(path, n=2, max_bytes=3000)
    assert bounded.truncated
    assert all(turn.role == "assistant" for turn in bounded.turns)
    assert not read_recent_turns(path, n=2).truncated


def test_stops_once_it_has_enough(tx, tmp_path):
    tx.raw(b'{"type": "user", "message": {"content": "cut"')  # damage far back
    for index in range(4):
        tx.exchange(f"prompt {index}", reply=f"reply {index}")
    result = read_recent_turns(tx.write(tmp_path / "t.jsonl"), n=2, max_bytes=10**9)
    assert not result.truncated
    assert [t.text for t in result.turns] == ["prompt 2", "reply 2", "prompt 3", "reply 3"]


def test_missing_transcript_and_zero_n(tmp_path, sample_path):
    assert recent_turns(tmp_path / "later.jsonl") == []
    assert recent_turns(None) == []
    assert recent_turns(sample_path, n=0) == []
    assert isinstance(recent_turns(sample_path)[0], Turn)
