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


SLASH_EXIT = "<command-message>exit</command-message>\n<command-name>/exit</command-name>"
NOTIFICATION = "<task-notification>\n<task-id>t1</task-id><result>sub done.</result>"
NOT_TYPED = [
    SLASH_EXIT,
    "<command-name>/compact</command-name>\n<command-args></command-args>",
    "/compact keep the parser notes",
    NOTIFICATION,
    "<local-command-stdout>Compacted</local-command-stdout>",
]


@pytest.mark.parametrize("synthetic", NOT_TYPED)
def test_typed_only_leaves_out_commands_and_synthetic_turns(tx, tmp_path, synthetic):
    tx.exchange("fix the parser", reply="Fixed.")
    tx.prompt(synthetic).text("Noted.")
    tx.prompt("/exit")
    path = tx.write(tmp_path / "t.jsonl")
    typed = recent_turns(path, n=3, typed_only=True)
    assert [t.text for t in typed if t.role == "user"] == ["fix the parser"]
    assert ("assistant", "Fixed.") in _roles_texts(typed)
    every = [t.text for t in recent_turns(path, n=3) if t.role == "user"]
    assert "/exit" in every  # still a prompt for exchanges (Stop's edit finding relies on it)


def test_typed_only_still_counts_n_typed_prompts(tx, tmp_path):
    for index in range(3):
        tx.exchange(f"prompt {index}", reply=f"reply {index}")
        tx.prompt(SLASH_EXIT)
    turns = recent_turns(tx.write(tmp_path / "t.jsonl"), n=2, typed_only=True)
    assert [t.text for t in turns if t.role == "user"] == ["prompt 1", "prompt 2"]


def test_bash_input_and_images_are_typed(tx, tmp_path):
    tx.prompt("<bash-input>ls</bash-input>")
    turns = recent_turns(tx.write(tmp_path / "t.jsonl"), typed_only=True)
    assert _roles_texts(turns) == [("user", "! ls")]


@pytest.mark.parametrize("text", ["/été a voir", "/²x", "/ spaced", "/"])
def test_a_slash_not_followed_by_an_ascii_word_is_typed_text(tx, tmp_path, text):
    """The prompt hooks' grammar (data model section 10.1): a command is "/" then an ASCII
    letter, digit or "_"; anything else the human typed is a message and shows in a recap."""
    tx.exchange(text, reply="ok")
    turns = recent_turns(tx.write(tmp_path / "t.jsonl"), typed_only=True)
    assert [t.text for t in turns if t.role == "user"] == [text]
